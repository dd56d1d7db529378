"""Prefetch: after a mutating action the next vision pass starts in the background while the
agent validates and the worker decides. An ordinary step waits a short window for it, a critical
one longer; a late or out-of-date result is never handed over as fresh. With a mechanism that
keeps vision through a change on the same page (`keeps_vision_on_change`: region scope, in
agents/region_scope.py) only an action that navigated is looked past: on the same page the next
step mostly keeps vision's epoch, and a pass nobody uses slows the page for the agent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.actions import MUTATING, AnyAction
from agents.fingerprint import Fingerprint
from agents.perception.base import PerceptionResult, Tier
from agents.pipeline import Mechanism, Step


class PrefetchConfig(BaseModel):
    prefetch: bool = True
    prefetch_window_ms: int = 150
    prefetch_critical_window_ms: int = 2000


@dataclass
class Prefetched:
    fp: Fingerprint | None
    result: PerceptionResult
    tier: Tier
    spent_ms: float
    subgoal: str  # the subgoal text the pass was asked about


@dataclass
class Outcome:
    result: Prefetched | None
    waited_ms: float
    lagging: bool = False  # not ready within the window: the step waited for it
    discarded: bool = False  # ready, but for another page state, tier or subgoal


class Prefetcher:
    def __init__(self, window_ms: int, critical_window_ms: int) -> None:
        self.window_ms, self.critical_window_ms = window_ms, critical_window_ms
        self._task: asyncio.Task | None = None

    def start(self, work: Callable[[], Awaitable[Prefetched | None]]) -> None:
        self.cancel_nowait()
        self._task = asyncio.ensure_future(work())

    async def take(self, fp: Fingerprint | None, tier: Tier, subgoal: str, critical: bool) -> Outcome:
        task, self._task = self._task, None
        if task is None:
            return Outcome(None, 0.0)
        window = (self.critical_window_ms if critical else self.window_ms) / 1000
        t0 = time.perf_counter()
        done, _ = await asyncio.wait({task}, timeout=window)
        lagging = not done
        if lagging:
            # Vision is lagging (recorded). The pass under way saw the page after the last
            # action, so waiting for it is cheaper than starting another; it is still checked
            # against the page as it is now before it is used.
            await asyncio.wait({task})
        waited = round((time.perf_counter() - t0) * 1000, 2)
        try:
            got = task.result()
        except (PlaywrightError, asyncio.CancelledError):
            return Outcome(None, waited, lagging=lagging, discarded=True)
        if got is None:  # not looked: the step was expected to reuse what vision saw
            return Outcome(None, waited)
        # (the key's parts, not the mutation delta: tolerance 1)
        if got.fp is None or fp is None or fp.key_differs(got.fp, 1.0) or got.tier != tier \
                or got.subgoal != subgoal:
            return Outcome(None, waited, lagging=lagging, discarded=True)
        return Outcome(got, waited, lagging=lagging)

    def cancel_nowait(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def cancel(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, PlaywrightError):
                pass


class Prefetch(Mechanism):
    """Starts the next vision pass after each mutating action, hands it over when it fits."""

    name = "prefetch"

    def __init__(self, window_ms: int, critical_window_ms: int, screenshot_timeout_ms: int) -> None:
        self.prefetcher = Prefetcher(window_ms, critical_window_ms)
        self.screenshot_timeout_ms = screenshot_timeout_ms

    async def prefetched(self, step: Step, tier: Tier) -> PerceptionResult | None:
        rec = step.rec
        got = await self.prefetcher.take(step.fp_before, tier, step.episode.vision_text(step.subgoal),
                                         step.subgoal.critical)
        rec.vision_wait_ms = got.waited_ms
        rec.vision_lagging, rec.prefetch_discarded = got.lagging, got.discarded
        if got.result is None:
            return None
        result = got.result.result
        if result.error_type:  # a failed pass is no vision call: look again now
            return None
        rec.prefetch_used = rec.vision_call = True
        rec.vision_calls += 1
        rec.tier, rec.candidates = got.result.tier, len(result.candidates)
        rec.charge(result.cost)
        rec.perceive_ms += got.result.spent_ms
        return result

    def acted(self, step: Step, action: AnyAction, settled: asyncio.Future[Fingerprint | None]) -> None:
        """The next vision pass, in the background: it starts once the action's validation has
        settled the page and taken its fingerprint (`settled`), so the two share one settle and one
        fingerprint walk instead of racing each other for the page's main thread."""
        episode, page = step.episode, step.page
        backend = episode.backend
        if action.kind not in MUTATING or backend is None or page.is_closed():
            return
        plan = episode.brief.plan
        # the subgoal the pass will most likely serve: the one after this step's
        index = next((i for i, s in enumerate(plan) if s is step.subgoal), len(plan) - 1)
        subgoal_text = episode.vision_text(plan[min(index + 1, len(plan) - 1)])
        timeout_ms = self.screenshot_timeout_ms

        before = step.fp_before
        # With region scope a change on the same page mostly keeps vision's epoch: a pass started
        # for it would be wasted and slow the next action down (it works the page meanwhile).
        # Look ahead then only after a navigation, where the epoch surely ended.
        region = any(m.keeps_vision_on_change for m in episode.mechanisms)

        async def ahead() -> Prefetched | None:
            fp = await asyncio.shield(settled)
            t0 = time.perf_counter()
            tier = episode.tier(page.url)
            if fp is None:  # navigating: nothing to look at yet; handed over as out of date
                return Prefetched(None, PerceptionResult(candidates=[]), tier, 0.0, subgoal_text)
            if region and before is not None and fp.url == before.url:
                return None
            # bounded: a screenshot taken while the page navigates can wait for a frame a long time
            png = await page.screenshot(timeout=timeout_ms) if backend.reads_pixels else b""
            result = await backend.perceive(png, subgoal_text, [], tier)
            return Prefetched(fp, result, tier, round((time.perf_counter() - t0) * 1000, 2),
                              subgoal_text)

        self.prefetcher.start(ahead)

    async def quiesce(self) -> None:
        await self.prefetcher.cancel()
