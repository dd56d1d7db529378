"""Prefetch: after a mutating action the next vision pass starts in the background while the
agent validates and the worker decides. An ordinary step waits a short window for it, a critical
one longer; a late or out-of-date result is never handed over as fresh."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError

from agents.fingerprint import Fingerprint
from agents.perception.base import PerceptionResult, Tier


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

    def start(self, work: Callable[[], Awaitable[Prefetched]]) -> None:
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
        if got.fp is None or fp is None or got.fp.differs(fp) or got.tier != tier or got.subgoal != subgoal:
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
