"""Prefetch: work done ahead of the step that needs it, so that model time overlaps.

- The next vision pass starts in the background after a mutating action, while the agent validates
  and the worker decides. An ordinary step waits a short window for it, a critical one longer; a
  late or out-of-date result is never handed over as fresh. With a mechanism that keeps vision
  through a change on the same page (`keeps_vision_on_change`: region scope, in
  agents/region_scope.py) only an action that navigated is looked past: on the same page the next
  step mostly keeps vision's epoch, and a pass nobody uses slows the page for the agent.
- While a step waits for a vision pass, the worker decides on the DOM's listing of the controls
  within the viewport (what the agent lists without vision, where vision looks).
- While a step decides, acts and is validated, the worker also decides the plan's next
  `decisions_ahead` subgoals on the listing the step decides from (vision's epoch, which the next
  steps mostly keep). A decision for a subgoal the plan moved past, or made on a page vision must
  look at again, is not used: charged to the step that drops it if it has come, else cut short
  (a model call cut short is not charged).

A decision made ahead is kept only when it holds for the listing the step then has (`holds`): the
chosen element is in it, unchanged in name, role and state, with exactly the marks that compete
with it, none more and none fewer: those whose name fits the name the subgoal expects at least as
well as the chosen one's (when the choice was not made by its name: every mark of its role and
every mark vision alone has). A worker that picks the best fit would then pick the same element
from the step's own listing (the second of two alike "Remove" buttons is the second only if both
listings hold the same two), so it is not asked again: its time was spent while the agent waited
for something else. Otherwise it decides again (both decisions are charged to the step). Recorded
per step in `decided_ahead`: `kept` or `dropped`.

What this changes besides time: the listings differ only in marks that do not compete with the
chosen one and in their order (the DOM bridge names vision's marks by their elements), and a
decision made ahead of an action has not that action's outcome in its history (it is used only
when the plan advanced to its subgoal, that is when the action did what it was meant to). What vision
missed, what it alone saw and the count of alike controls still reach every decision. Not made
for a worker that looks at the image (its decision needs vision's marks drawn), for a subgoal that
names a picture, a drag or a scroll."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from agents import choose, perceive
from agents.actions import MUTATING, AnyAction
from agents.fingerprint import Fingerprint
from agents.marks import Mark, dom_marks
from agents.perception.base import PerceptionResult, Tier
from agents.pipeline import Mechanism, Step
from agents.worker.base import Choice
from agents.worker.fit import STOP_WORDS
from tasks.schema import TARGETED_ACTIONS, Subgoal
from tasks.text_match import word_set
from tasks.trace import StepRecord


class PrefetchConfig(BaseModel):
    prefetch: bool = True
    prefetch_window_ms: int = 150
    prefetch_critical_window_ms: int = 2000
    # how many of the plan's next subgoals the worker decides ahead on each step's listing
    prefetch_decisions_ahead: int = Field(2, ge=0)


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


def holds(choice: Choice, dom: list[Mark], seen: list[Mark], name: str) -> Choice | None:
    """A decision made ahead on the listing `dom` (the DOM's, or an earlier step's), as it holds
    for the listing the step has now, `seen` (the same element, named by its number there), or
    None when it may not (see the module's docstring). `name`: what the subgoal expects the
    target to be called."""
    mark, reply = choice.mark, choice.reply
    if mark is None or mark.ref is None or choice.to is not None:
        return None
    if reply is None and not choice.satisfied:  # nothing fits, or the worker failed
        return None
    if reply is not None and reply.action not in TARGETED_ACTIONS:
        return None
    own = next((m for m in seen if m.ref == mark.ref), None)
    if own is None or (own.role, own.label, own.states) != (mark.role, mark.label, mark.states):
        return None  # not seen, or no longer what the decision was made on
    wanted = word_set(name) - STOP_WORDS

    def fit(m: Mark) -> tuple[bool, float]:
        got = word_set(m.label) - STOP_WORDS
        return got == wanted, len(got & wanted) / len(got | wanted) if got | wanted else 0.0
    chosen = fit(mark)
    by_name = chosen[1] > 0  # else it was chosen by something else than its name (its place, role)

    def competes(m: Mark) -> bool:
        return fit(m) >= chosen and (by_name or m.role == mark.role or m.ref is None)
    listed = {m.ref for m in dom if competes(m)} | {mark.ref}
    looked = {m.ref if m.ref is not None else f"#{m.number}" for m in seen if competes(m)} | {mark.ref}
    if listed != looked:
        return None
    return Choice(reply=reply.model_copy(update={"mark": own.number}) if reply else None, mark=own,
                  score=choice.score, satisfied=choice.satisfied, cost=choice.cost)


def _charge(step: Step, choice: Choice) -> None:
    """A decision made ahead, charged to the step it was made for (as `choose.ask` charges one)."""
    rec, cost = step.rec, choice.cost
    rec.charge(cost)
    rec.invalid_replies += cost.invalid_replies
    rec.worker_ms += cost.latency_ms
    rec.decisions += 1


def _unused(step: Step, ahead: Ahead) -> None:
    """A decision made ahead that will not be used: charged to `step` if it has come, else cut
    short (a model call cut short is not charged)."""
    task = ahead.task
    if task.done() and not task.cancelled() and task.exception() is None:
        _charge(step, task.result())
    task.cancel()


@dataclass
class Ahead:
    """A decision under way for a step, on the listing it is made from (the DOM's while vision
    looks, or an earlier step's)."""

    step: Step
    listing: list[Mark]
    task: asyncio.Task[Choice]


class Prefetch(Mechanism):
    """Starts the next vision pass after each mutating action, hands it over when it fits; has
    the worker decide ahead: on the DOM's listing while a step waits for vision, and the plan's
    next subgoals on each step's listing."""

    name = "prefetch"

    def __init__(self, window_ms: int, critical_window_ms: int, screenshot_timeout_ms: int,
                 decisions_ahead: int = 2) -> None:
        self.prefetcher = Prefetcher(window_ms, critical_window_ms)
        self.screenshot_timeout_ms = screenshot_timeout_ms
        self.decisions_ahead = decisions_ahead
        self._ahead: Ahead | None = None  # this step's decision, made while vision looks
        self._later: dict[int, Ahead] = {}  # the next subgoals' (by plan index), on an earlier listing

    def perceiving(self, step: Step) -> None:
        # the page changed so much that vision looks again: what was decided on it is not used
        self._discard(step, lambda index: True)
        self._drop(self._ahead)
        self._ahead = None
        subgoal = step.subgoal
        if step.obs is None or not self._decides(step, subgoal):
            return
        # what vision can list: the controls within the viewport
        size = step.page.viewport_size or {"width": 1280, "height": 720}
        placed = [p for p in step.placed if p.box.x + p.box.width > 0 and p.box.y + p.box.height > 0
                  and p.box.x < size["width"] and p.box.y < size["height"]]
        listing = perceive.rank(step, dom_marks(placed, step.obs.id))
        self._ahead = Ahead(step, listing, asyncio.ensure_future(
            choose.ask(step, subgoal, listing, record_error=False)))

    async def decided(self, step: Step) -> Choice | None:
        made = self._later.pop(step.index, None)  # on an earlier step's listing
        self._discard(step, lambda index: index < step.index)  # the plan moved past them
        if made is not None and made.step.subgoal is not step.subgoal:  # (the plan was replaced)
            _unused(step, made)
            made = None
        self._decide_later(step)
        ahead, self._ahead = self._ahead, None  # this step's, while vision looked
        if ahead is not None and ahead.step is not step:  # an earlier step's, never asked for
            self._drop(ahead)
            ahead = None
        if made is not None:
            self._drop(ahead)  # (not both: `perceiving` discards the earlier listings' decisions)
            ahead = made
        if ahead is None:
            return None
        try:
            choice = await ahead.task
        except (PlaywrightError, asyncio.CancelledError):
            return None
        if ahead is made:
            _charge(step, choice)  # (the vision-time decision was charged to this step by `ask`)
        subgoal = step.subgoal
        kept = holds(choice, ahead.listing, step.marks, subgoal.label or subgoal.target or "")
        step.rec.decided_ahead = "kept" if kept is not None else "dropped"
        return kept

    @staticmethod
    def _decides(step: Step, subgoal: Subgoal) -> bool:
        """A decision is made ahead only on a listing the worker decides from alone (not one that
        looks at the image or compares pictures) and for a plain targeted action."""
        return subgoal.targeted and not step.episode.worker.sees_image and not subgoal.looks_like \
            and subgoal.action not in ("drag", "scroll")

    def _decide_later(self, step: Step) -> None:
        """The plan's next `decisions_ahead` subgoals, each decided on this step's listing unless
        a decision for it is under way already; kept by the step that reaches it only if its own
        listing holds it (`holds`: same element, name and state, same competitors)."""
        plan = step.episode.brief.plan
        if not step.marks:
            return
        for index in range(step.index + 1, min(step.index + 1 + self.decisions_ahead, len(plan))):
            subgoal = plan[index]
            if index in self._later or not self._decides(step, subgoal):
                continue
            rec = StepRecord(step=step.number + index - step.index, subgoal_index=index,
                             subgoal_action=subgoal.action)
            later = Step(step.episode, subgoal, index, rec.step, rec, obs=step.obs, placed=step.placed)
            listing = perceive.rank(later, list(step.marks))
            self._later[index] = Ahead(later, listing, asyncio.ensure_future(
                choose.ask(later, subgoal, listing, record_error=False)))

    def _discard(self, step: Step, which: Callable[[int], bool]) -> None:
        """Decisions made for later subgoals that will not be used: charged to this step if they
        have come, else cut short (a model call cut short is not charged)."""
        for index in [i for i in self._later if which(i)]:
            _unused(step, self._later.pop(index))

    @staticmethod
    def _drop(ahead: Ahead | None) -> None:
        if ahead is not None:
            ahead.task.cancel()

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
        self._drop(self._ahead)
        self._ahead = None
        for ahead in self._later.values():
            ahead.task.cancel()
        self._later.clear()
        await self.prefetcher.cancel()
