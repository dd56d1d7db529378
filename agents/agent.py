"""The grounding agent: composes the pipeline stages from config and runs one episode.

observe → (gate) → perceive → enrich → rank → choose → resolve/snap → act → validate, with each
mechanism a switch in AgentConfig. A mechanism that is off is absent: its module is not called."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel, ConfigDict, Field

from agents import (
    ambient,
    compound_split,
    coverage,
    enrichment,
    fingerprint,
    snapping,
    som,
    subgoal_relevance,
    validator,
    viewport_scope,
)
from agents.actions import (
    MUTATING,
    AnyAction,
    Back,
    Click,
    Expand,
    Finish,
    Navigate,
    PointActionError,
    Read,
    Scroll,
    Select,
    SetValue,
    Type,
    Wait,
    execute,
)
from agents.brief import Brief
from agents.dead_action_guard import DeadActionGuard, TargetIdentity
from agents.direct_navigation import DirectNavigation
from agents.freshness import PreviousPerception, overlay
from agents.gating import Gate
from agents.marks import Mark
from agents.navigation_guard import NavigationGuard
from agents.observation import Box, Element, Observation, RefBook, StaleRefError
from agents.perception.base import PerceptionResult, Tier, VisionBackend
from agents.prefetch import Prefetched, Prefetcher
from agents.tiers import TierPolicy
from agents.worker.base import WorkerReply
from agents.worker.openai_worker import OpenAIWorker
from agents.worker.scripted import Decision, ScriptedWorker, mark_key
from tasks.schema import TARGETED_ACTIONS, Subgoal
from tasks.trace import StepRecord


class AgentConfig(BaseModel):
    """Mechanism switches and their parameters (Hydra's `agent` group, validated once).

    Each boolean switch is named after the module it turns on or off."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = "full"
    # After the start page and every action: wait until the page is quiet (no DOM change for
    # settle_quiet_ms after a frame, and no request of the page in flight), at most settle_ms.
    # settle_quiet_ms >= settle_ms: always wait settle_ms.
    settle_ms: int = Field(150, ge=0)
    settle_quiet_ms: int = Field(20, ge=0)
    # An animation under way (finite CSS/Web animation, or a script rewriting a style attribute
    # frame after frame) is waited out up to this long, settle_ms or not.
    settle_animation_ms: int = Field(1000, ge=0)
    # After a step that changed nothing (an action without effect, or nothing found to act on and
    # nowhere further to look), wait settle_ms, then twice that after the next one in a row, and
    # so on up to backoff_max_ms, before trying again (0: no wait).
    backoff_max_ms: int = Field(1000, ge=0)
    action_timeout_ms: int = Field(3000, ge=100)
    enrichment: bool = True
    compound_split: bool = True
    snapping: bool = True
    subgoal_relevance: bool = True
    tiers: bool = True
    tiers_complex_candidates: int = 40
    tiers_complex_controls: int = 60
    coverage: bool = True
    coverage_cap: int = 200
    freshness: bool = True
    freshness_max_steps: int = 2
    freshness_max_age_s: float = 10.0
    dead_action_guard: bool = True
    dead_action_limit: int = Field(2, ge=1)
    dead_action_min_ms: int = Field(1000, ge=0)  # ...no-ops spread over at least this long
    ambient: bool = True
    ambient_probe_ms: int = Field(500, ge=0)  # how long to watch a suspect for a change of its own
    navigation_guard: bool = True
    direct_navigation: bool = True
    gating: bool = True
    gating_tolerance: float = Field(0.05, ge=0, le=1)
    prefetch: bool = True
    prefetch_window_ms: int = 150
    prefetch_critical_window_ms: int = 2000
    viewport_scope: bool = True


@dataclass
class Outcome:
    steps: int
    plan_done: bool
    last_error_type: str = ""
    screenshots: dict[int, bytes] = field(default_factory=dict)
    # time.monotonic() of the agent's last action on the page (its last navigation, click, key,
    # scroll...): the episode's final settle counts from here
    acted_at: float = 0.0


StepSink = Callable[[StepRecord], Awaitable[None] | None]
# Some suites know the plan only once the start page shows it (MiniWoB's utterance): given the
# loaded start page and the brief so far, the brief to follow.
Prepare = Callable[[Page, Brief], Awaitable[Brief]]
# The environment's own end-of-episode signal (MiniWoB ends an episode on a wrong click).
EpisodeOver = Callable[[Page], Awaitable[bool]]


# Resolves true once a frame has been drawn and the document then changed nothing (nodes, text,
# attributes) for `quiet` ms, and no animation is under way; false when `cap` ms pass first. An
# animation under way (a finite CSS transition/animation or Web Animation, or a style attribute
# rewritten frame after frame by a script, as jQuery's animate does) is waited out up to `animCap`
# ms: a frame can take longer than `quiet`, so a script-driven animation looks quiet between two
# of its frames, and a screenshot taken mid-slide puts every box where it no longer is.
QUIET_JS = """([quiet, cap, animCap]) => new Promise((resolve) => {
  const FRAMES = 50;  // a style rewrite this recent may be one frame of an animation
  const start = performance.now();
  let last = start, timer = null, capTimer = null, lastStyle = -1e9;
  const observer = new MutationObserver((records) => {
    last = performance.now();
    if (records.some((r) => r.attributeName === "style")) lastStyle = last;
  });
  const animating = (now) => now - lastStyle < FRAMES ||
    document.getAnimations().some((a) => a.playState === "running" &&
                                         Number.isFinite(a.effect?.getComputedTiming().endTime));
  const done = (result) => {
    observer.disconnect(); clearTimeout(timer); clearTimeout(capTimer); resolve(result);
  };
  const check = () => {
    const now = performance.now(), moving = animating(now);
    if (now - last >= quiet && !moving) return done(true);
    if (now - start >= animCap || (now - start >= cap && !moving)) return done(false);
    const wait = moving ? 17 : quiet - (now - last);
    timer = setTimeout(check, Math.max(1, Math.min(wait, (moving ? animCap : cap) - (now - start)) + 1));
  };
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  // The quiet window starts after a frame: a window that started with the action could close
  // before a script-driven animation's first tick (jQuery's timer, later still on a loaded
  // machine) and miss the slide (tests/test_miniwob_browser.py, click-collapsible-2 under CI).
  requestAnimationFrame(() => { last = Math.max(last, performance.now()); check(); });
  capTimer = setTimeout(() => done(false), animCap);
})"""


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


class GroundingAgent:
    def __init__(self, config: AgentConfig, worker: ScriptedWorker | OpenAIWorker,
                 backend: VisionBackend | None,
                 screenshots: Literal["none", "last", "all"] = "none") -> None:
        self.config = config
        self.screenshot_mode = screenshots
        self._step_png: bytes | None = None
        self.worker = worker
        self.backend = backend
        self.tiers = TierPolicy(config.tiers_complex_candidates, config.tiers_complex_controls) \
            if config.tiers else None
        self.gate = Gate(config.gating_tolerance) if config.gating else None
        self.prefetcher = Prefetcher(config.prefetch_window_ms, config.prefetch_critical_window_ms) \
            if config.prefetch and backend is not None else None
        self.dead_guard = DeadActionGuard(config.dead_action_limit, config.dead_action_min_ms) \
            if config.dead_action_guard else None
        self.ambient = ambient.Watch(config.ambient_probe_ms) if config.ambient else None
        self.guard: NavigationGuard | None = None
        self.refs = RefBook()
        self.previous: PreviousPerception | None = None
        self.screenshots: dict[int, bytes] = {}
        self._last_som: tuple[int, tuple] | None = None
        self.history: list[str] = []
        self._revealed: set[str] = set()
        self._in_flight: set[Request] = set()  # the page's requests not yet answered (settle)
        self.acted_at = time.monotonic()

    # ---- episode -------------------------------------------------------------------------
    async def run(self, page: Page, brief: Brief, on_step: StepSink, prepare: Prepare | None = None,
                  episode_over: EpisodeOver | None = None) -> Outcome:
        cfg = self.config
        if cfg.navigation_guard:
            self.guard = NavigationGuard(list(brief.allowed_origins))
            await self.guard.install(page.context)
        await page.context.add_init_script(script=fingerprint.MUTATION_COUNTER_JS)
        if self.ambient is not None:
            await self.ambient.install(page)
        page.on("request", lambda request: self._in_flight.add(request))
        page.on("requestfinished", lambda request: self._in_flight.discard(request))
        page.on("requestfailed", lambda request: self._in_flight.discard(request))
        await page.goto(brief.start_url)
        await self._settle(page)
        if prepare is not None:
            brief = await prepare(page, brief)
            await self._settle(page)
        shortcut = DirectNavigation(brief) if cfg.direct_navigation and brief.url_grammar and \
            brief.url_grammar.replaces else None
        index, last_error, no_ops = 0, "", 0
        for step in range(brief.max_steps):
            if index >= len(brief.plan):
                await self._stop_prefetch()
                return Outcome(steps=step, plan_done=True, screenshots=self._screenshots(),
                               acted_at=self.acted_at)
            subgoal = brief.plan[index]
            rec = StepRecord(step=step, subgoal_index=index, subgoal_action=subgoal.action,
                             subgoal_target=subgoal.target or "")
            if shortcut is not None and shortcut.applies(index):
                advanced_to = await self._direct_navigation(page, shortcut, rec)
                index = advanced_to if advanced_to is not None else index
            else:
                advanced = await self._step(page, brief, subgoal, rec, step)
                index += advanced
                if advanced:
                    self._revealed.clear()
                if advanced and self.dead_guard is not None:
                    self.dead_guard.next_subgoal()
            last_error = rec.error_type or last_error
            # A step that changed nothing: an action without effect, or a look that found nothing
            # to act on and could not move the page to look further (a list still loading its
            # next rows). Either way the page is given time before the next try, so how long the
            # agent waits for a slow page does not depend on how fast its own steps are.
            idle = rec.error_type == "no_effect" or (rec.error_type == "no_target" and not rec.action)
            no_ops = no_ops + 1 if idle else 0
            if no_ops and cfg.backoff_max_ms:
                rec.backoff_ms = float(min(cfg.settle_ms * 2 ** (no_ops - 1), cfg.backoff_max_ms))
                await page.wait_for_timeout(rec.backoff_ms)
            result = on_step(rec)
            if result is not None:
                await result
            if (rec.action == "finish" and not rec.error_type) or (
                    episode_over is not None and await episode_over(page)):
                # the worker declared the episode over, or the environment did
                await self._stop_prefetch()
                return Outcome(steps=step + 1, plan_done=index >= len(brief.plan),
                               last_error_type=last_error, screenshots=self._screenshots(),
                               acted_at=self.acted_at)
        await self._stop_prefetch()
        return Outcome(steps=brief.max_steps, plan_done=index >= len(brief.plan),
                       last_error_type=last_error, screenshots=self._screenshots(),
                       acted_at=self.acted_at)

    async def _settle(self, page: Page) -> None:
        """Wait for the page to take in what was just done to it. Every action, navigation and
        go-back is followed by a settle, so its start is also when the agent last acted."""
        self.acted_at = time.monotonic()
        await self._wait_quiet(page)
        if self.ambient is not None:
            await self.ambient.settled(page)

    async def _wait_quiet(self, page: Page) -> None:
        t0 = time.perf_counter()
        try:
            await page.wait_for_load_state("load", timeout=self.config.action_timeout_ms)
        except PlaywrightTimeoutError:
            pass
        cap, quiet = self.config.settle_ms, self.config.settle_quiet_ms
        if quiet >= cap:
            await page.wait_for_timeout(cap)
            return
        deadline = t0 + cap / 1000
        anim_deadline = t0 + max(cap, self.config.settle_animation_ms) / 1000
        while (left_ms := (deadline - time.perf_counter()) * 1000) > 1:
            anim_ms = max(left_ms, (anim_deadline - time.perf_counter()) * 1000)
            try:
                # Bounded here too: a document whose timers stop (frozen, or moving into the
                # back-forward cache) would never answer.
                went_quiet = await asyncio.wait_for(
                    page.evaluate(QUIET_JS, [quiet, left_ms, anim_ms]), timeout=anim_ms / 1000 + 0.25)
            except (PlaywrightError, TimeoutError):  # navigated or frozen: wait out the cap
                await page.wait_for_timeout(max(0.0, (deadline - time.perf_counter()) * 1000))
                return
            if not went_quiet or not self._in_flight:
                return

    # ---- one step ------------------------------------------------------------------------
    async def _step(self, page: Page, brief: Brief, subgoal: Subgoal, rec: StepRecord, step: int) -> int:
        self._step_png = None
        t0 = time.perf_counter()
        fp_before = await fingerprint.take(page)
        scopes, rec.observe_reason = viewport_scope.choose(subgoal, fp_before) \
            if self.config.viewport_scope else (None, "off")
        obs = await self.refs.observe(page, scopes, fp_before.framed if fp_before else frozenset())
        if scopes and obs.scope == "document":
            rec.observe_reason = "scopes_unreadable"
        rec.observe_scope = obs.scope
        rec.observe_ms, rec.url, rec.observation_id = _ms(t0), obs.url, obs.id
        self._record_fp(rec, fp_before)

        if subgoal.action in ("scroll", "navigate", "back", "wait", "finish"):
            decision = self.worker.decide(subgoal, [])
            return await self._act_and_validate(page, brief, subgoal, decision, None, obs, fp_before,
                                                rec, step)

        t0 = time.perf_counter()
        geometry = await snapping.frame_geometry(page, obs) if self.config.snapping else {
            "": (0.0, 0.0, "top")}
        elements = self._placed(obs, geometry)
        rec.resolve_ms += _ms(t0)

        marks, candidates = await self._marks(page, subgoal, obs, elements, fp_before, rec, step)
        dead = frozenset(self.dead_guard.dead) if self.dead_guard is not None else frozenset()
        t0 = time.perf_counter()
        decision = await self._choose(page, brief, subgoal, marks, dead, rec)
        rec.choose_ms = _ms(t0)
        unseen = self._better_in_dom(page, subgoal, elements, obs, decision, dead)
        if self._needs_coverage(subgoal, marks, decision, unseen):
            marks = await self._coverage_pass(page, subgoal, candidates, elements, obs, rec)
            decision = await self._choose(page, brief, subgoal, marks, dead, rec)
            rec.coverage_recovered = decision.reply is not None or decision.satisfied
            unseen = self._better_in_dom(page, subgoal, elements, obs, decision, dead)
        if unseen is not None and unseen[1] and decision.reply is None and not decision.satisfied \
                and await self._hidden_in_view(page, unseen[0]):
            unseen = (unseen[0], False)
        if self.screenshot_mode != "none":
            await self._save_som(page, marks, rec, decision.mark)
        if unseen is not None and not unseen[1]:
            return await self._scroll_to(page, unseen[0], obs, fp_before, rec)
        if decision.reply is not None and decision.reply.action not in TARGETED_ACTIONS:
            # A model may answer a targeted subgoal with scroll, wait, back, navigate or finish
            # (it cannot see the target, or judges the goal done or impossible): do as it says.
            return await self._act_and_validate(page, brief, subgoal, decision, None, obs,
                                                fp_before, rec, step)
        if decision.satisfied:
            rec.skipped_satisfied = True
            rec.target_role, rec.target_name = decision.mark.role, decision.mark.label
            rec.effective = True
            return 1
        if decision.reply is None or (decision.mark is None and decision.reply.point is None):
            if subgoal.reveal and await self._reveal(page, brief, subgoal, marks, dead, geometry,
                                                     obs, fp_before, rec, step):
                return 0
            if isinstance(self.worker, ScriptedWorker) and await self._explore(page, fp_before, rec):
                return 0
            if not rec.error_type:
                rec.error_type, rec.error = "no_target", f"no mark matches {subgoal.target!r}"
            if self.gate is not None:
                self.gate.force_fresh()
            return 0
        mark = decision.mark
        if mark is not None:
            rec.mark_rank, rec.relevance = mark.number, mark.relevance
            rec.match_score, rec.target_role, rec.target_name = round(decision.score, 3), mark.role, mark.label
            rec.perceptual_confidence = mark.confidence
            rec.source = mark.source
        return await self._act_and_validate(page, brief, subgoal, decision, geometry, obs, fp_before,
                                            rec, step)

    async def _choose(self, page: Page, brief: Brief, subgoal: Subgoal, marks: list[Mark],
                      dead: frozenset[TargetIdentity], rec: StepRecord) -> Decision:
        """Ask the worker. A language-model worker sees the Set-of-Mark image and the listing;
        its answer names a mark of this listing (or, degraded, a point)."""
        if isinstance(self.worker, ScriptedWorker):
            return self.worker.decide(subgoal, marks, dead)
        size = page.viewport_size or {"width": 1280, "height": 720}
        som_png = som.draw(await page.screenshot(), marks, (size["width"], size["height"]))
        reply, cost = await self.worker.decide(brief.goal, subgoal, marks, som_png, self.history)
        rec.tokens_in += cost.tokens_in
        rec.tokens_out += cost.tokens_out
        rec.invalid_replies += cost.invalid_replies
        rec.worker_ms += cost.latency_ms
        if reply is None:
            rec.error_type, rec.error = "worker_error", f"{cost.error_type}: {cost.error}"[:300]
            return Decision(None)
        by_number = {m.number: m for m in marks}
        return Decision(reply, by_number.get(reply.mark) if reply.mark is not None else None)

    def _better_in_dom(self, page: Page, subgoal: Subgoal, elements: list[tuple[Element, Box]],
                       obs: Observation, decision: Decision, dead: frozenset[TargetIdentity]
                       ) -> tuple[Mark, bool] | None:
        """The DOM bridge knows the whole document; vision saw part of the viewport. An element
        that fits the subgoal clearly better than every candidate is evidence that perception
        missed it: (that element, whether it is in view). In view, the answer is a coverage pass
        (perception must see it: the DOM alone never becomes the target); out of view, a scroll."""
        if self.backend is None or not self.config.enrichment or not isinstance(self.worker, ScriptedWorker):
            return None
        dom = [enrichment.element_mark(i, el, box, 1.0, "dom", obs.id)
               for i, (el, box) in enumerate(elements, 1) if el.interactive]
        best = self.worker.decide(subgoal, dom, dead)
        if best.mark is None or (decision.mark is not None and best.score <= decision.score + 0.2):
            return None
        size = page.viewport_size or {"width": 1280, "height": 720}
        box = best.mark.box
        return best.mark, box.y + box.height > 0 and box.y < size["height"]

    async def _scroll_to(self, page: Page, mark: Mark, obs: Observation,
                         fp_before: fingerprint.Fingerprint | None, rec: StepRecord) -> int:
        rec.action, rec.ref, rec.target_role, rec.target_name = "scroll", mark.ref or "", mark.role, mark.label
        t0 = time.perf_counter()
        await self._mark(page)
        try:
            await execute(page, self.refs, Scroll(ref=mark.ref, observation_id=obs.id),
                          self.config.action_timeout_ms)
        except (PlaywrightError, StaleRefError) as exc:
            rec.error_type, rec.error = "action_error", str(exc).splitlines()[0][:300]
        rec.act_ms = _ms(t0)
        await self._settle(page)
        fp_after = await fingerprint.take(page)
        await self._verdict(page)
        rec.effective = fp_before is None or fp_after is None or bool(fp_before.differs(fp_after))
        rec.effect = "scrolled_into_view"
        return 0

    async def _reveal(self, page: Page, brief: Brief, subgoal: Subgoal, marks: list[Mark],
                      dead: frozenset[TargetIdentity], geometry: dict, obs: Observation,
                      fp_before: fingerprint.Fingerprint | None, rec: StepRecord, step: int) -> bool:
        """The target may sit behind a tab, a collapsed section or a folder (the subgoal's
        `reveal`): open the first such control not opened yet and look again. True when one was
        opened; the subgoal stays the same either way."""
        if not isinstance(self.worker, ScriptedWorker):
            return False
        closed = [m for m in marks if _opener_key(m) not in self._revealed
                  and m.states.get("expanded") != "true" and m.states.get("selected") != "true"]
        opener = self.worker.decide(Subgoal(action="click", target=subgoal.reveal, nth=1), closed,
                                    dead)
        if opener.reply is None or opener.mark is None:
            return False
        self._revealed.add(_opener_key(opener.mark))
        mark = opener.mark
        rec.mark_rank, rec.relevance, rec.source = mark.number, mark.relevance, mark.source
        rec.target_role, rec.target_name = mark.role, mark.label
        rec.error_type, rec.error = "", ""
        await self._act_and_validate(page, brief, subgoal, opener, geometry, obs, fp_before, rec, step)
        rec.effect = f"revealed: {rec.effect}" if rec.effect else "revealed"
        return True

    async def _explore(self, page: Page, fp_before: fingerprint.Fingerprint | None,
                       rec: StepRecord) -> bool:
        """Nothing on the page fits yet: look further down (lists load as they scroll into
        view). True when the page moved; False at the bottom, where the step is a plain miss."""
        t0 = time.perf_counter()
        await self._mark(page)
        await execute(page, self.refs, Scroll(direction="down"), self.config.action_timeout_ms)
        rec.act_ms = _ms(t0)
        await self._settle(page)
        fp_after = await fingerprint.take(page)
        await self._verdict(page)
        parts = fp_before.differs(fp_after) if fp_before is not None and fp_after is not None else []
        moved = fp_before is None or fp_after is None or bool(parts)
        if moved and self.ambient is not None:
            # only what the page changes by itself moved: the bottom is reached
            moved = not await self.ambient.vetoes(page, ",".join(parts))
            rec.ambient_probe_ms = self.ambient.probe_ms
        if moved:
            rec.action, rec.effective, rec.effect = "scroll", True, "explored_down"
            rec.error_type, rec.error = "no_target", "no mark fits yet; scrolled down to look further"
        return moved

    def _placed(self, obs: Observation, geometry: dict) -> list[tuple[Element, Box]]:
        """Elements with their viewport boxes: frame content placed exactly when snapping is on;
        only the top document exists for the agent when it is off."""
        placed = []
        for el in obs.elements.values():
            if el.box is None or el.box.area <= 0:
                continue
            if self.config.snapping:
                box = snapping.exact_box(el, el.box, geometry)
                if box is not None:
                    placed.append((el, box))
            elif el.frame == "":
                placed.append((el, el.box))
        return placed

    # ---- perceive / enrich / rank --------------------------------------------------------
    async def _marks(self, page: Page, subgoal: Subgoal, obs: Observation,
                     elements: list[tuple[Element, Box]], fp: fingerprint.Fingerprint | None,
                     rec: StepRecord, step: int) -> tuple[list[Mark], list[tuple[Box, str, float]]]:
        """The listing for this step and the vision candidates behind it (none without vision)."""
        if self.backend is None:
            rec.path = "dom"
            marks = [enrichment.element_mark(i, el, box, 1.0, "dom", obs.id)
                     for i, (el, box) in enumerate(((e, b) for e, b in elements if e.interactive), 1)]
            rec.candidates = len(marks)
            return self._rank(marks, subgoal, rec), []
        candidates = await self._candidates(page, subgoal, self._subgoal_text(subgoal), fp, rec, step)
        return self._rank(self._enrich(candidates, elements, obs.id, rec), subgoal, rec), candidates

    def _subgoal_text(self, subgoal: Subgoal) -> str:
        return (subgoal.target or "") if self.config.subgoal_relevance else ""

    def _rank(self, marks: list[Mark], subgoal: Subgoal, rec: StepRecord) -> list[Mark]:
        if not self.config.subgoal_relevance:
            return marks
        t0 = time.perf_counter()
        ranked = subgoal_relevance.rank(marks, self._subgoal_text(subgoal))
        rec.rank_ms += _ms(t0)
        return ranked

    def _needs_coverage(self, subgoal: Subgoal, marks: list[Mark], decision: Decision,
                        unseen: tuple[Mark, bool] | None) -> bool:
        """The expected label is not among the candidates, nothing fits the subgoal at all, or the
        page holds a better fit in view than anything perceived."""
        if not self.config.coverage or self.backend is None:
            return False
        return coverage.missing_label(marks, subgoal.label) or (
            decision.reply is None and not decision.satisfied) or (unseen is not None and unseen[1])

    async def _coverage_pass(self, page: Page, subgoal: Subgoal, candidates: list[tuple[Box, str, float]],
                             elements: list[tuple[Element, Box]], obs: Observation, rec: StepRecord
                             ) -> list[Mark]:
        """One extra pass with the expected label as a hint and a larger cap; used for this step
        only (never stored in the gating epoch)."""
        rec.coverage_pass = True
        hint = subgoal.label or subgoal.target or ""
        result = await self._perceive(page, self._subgoal_text(subgoal), [hint], "large", rec,
                                      cap=self.config.coverage_cap)
        marks = self._enrich(candidates + self._to_px(page, result), elements, obs.id, rec)
        return self._rank(marks, subgoal, rec)

    def _enrich(self, candidates: list[tuple[Box, str, float]], elements: list[tuple[Element, Box]],
                observation_id: int, rec: StepRecord) -> list[Mark]:
        t0 = time.perf_counter()
        if not self.config.enrichment:
            marks = [Mark(number=i, box=b, label=label, confidence=c, source="vision")
                     for i, (b, label, c) in enumerate(candidates, 1)]
            rec.unmatched = len(marks)
        else:
            parts: list = []
            if self.config.compound_split:
                candidates, parts, rec.split = compound_split.split(candidates, elements)
            marks, rec.unmatched = enrichment.bridge(candidates, elements, observation_id)
            if parts:
                marks = compound_split.add_parts(marks, parts, observation_id)
        rec.enrich_ms += _ms(t0)
        return marks

    async def _candidates(self, page: Page, subgoal: Subgoal, subgoal_text: str,
                          fp: fingerprint.Fingerprint | None, rec: StepRecord, step: int
                          ) -> list[tuple[Box, str, float]]:
        """Vision candidates in viewport px: reused from the epoch while the page agrees (gating),
        else a prefetched or fresh vision call, plus the freshness overlay."""
        cfg = self.config
        if self.gate is not None:
            reason = self.gate.check(fp, self.tiers.tier_for(page.url) if self.tiers else "small")
            rec.cache, rec.miss_reason = ("hit" if reason == "" else "miss"), reason
            if reason == "" and self.gate.epoch is not None:
                rec.path = "procedural"
                return list(self.gate.epoch.candidates)
        rec.path = "declarative"
        tier: Tier = self.tiers.tier_for(page.url) if self.tiers else "small"
        result = await self._take_prefetched(fp, tier, subgoal, rec) if self.prefetcher else None
        if result is None:
            result = await self._perceive(page, subgoal_text, [], tier, rec)
        candidates = self._to_px(page, result)
        if self.tiers is not None:
            cap_hit = len(result.candidates) >= self._cap_guess(tier)
            rec.tier_escalated = self.tiers.observe(page.url, len(result.candidates),
                                                    len(candidates), cap_hit)
        if self.gate is not None and fp is not None and not result.error_type:
            self.gate.start(fp, candidates, tier)
        if cfg.freshness:
            extra, rec.overlay_suppressed = overlay(self.previous, page.url, step,
                                                    cfg.freshness_max_steps, cfg.freshness_max_age_s,
                                                    candidates)
            rec.overlay_marks = len(extra)
            self.previous = PreviousPerception(page.url, step, time.monotonic(), candidates)
            candidates = candidates + extra
        return candidates

    def _cap_guess(self, tier: Tier) -> int:
        caps = getattr(getattr(self.backend, "config", None), "cap", None)
        return caps.get(tier, 10**6) if isinstance(caps, dict) else 10**6

    async def _perceive(self, page: Page, subgoal_text: str, hints: list[str], tier: Tier,
                        rec: StepRecord, cap: int | None = None) -> PerceptionResult:
        assert self.backend is not None
        t0 = time.perf_counter()
        png = await page.screenshot() if self.backend.reads_pixels else b""
        self._step_png = self._step_png or png or None
        result = await self.backend.perceive(png, subgoal_text, hints, tier, cap)
        rec.perceive_ms += _ms(t0)
        rec.vision_calls += 1
        rec.vision_call = True
        rec.tokens_in += result.tokens_in
        rec.tokens_out += result.tokens_out
        if hints:  # the coverage pass keeps its own columns; the primary pass's stay as they were
            rec.coverage_tier, rec.coverage_candidates = tier, len(result.candidates)
        else:
            rec.tier, rec.candidates = tier, len(result.candidates)
        if result.error_type:
            rec.perception_error = f"{result.error_type}: {result.error}"[:300]
        return result

    def _to_px(self, page: Page, result: PerceptionResult) -> list[tuple[Box, str, float]]:
        size = page.viewport_size or {"width": 1280, "height": 720}
        out = []
        for c in result.candidates:
            x, y, w, h = c.box.to_pixels(size["width"], size["height"])
            out.append((Box(x=x, y=y, width=w, height=h), c.label, c.confidence))
        return out

    # ---- prefetch ------------------------------------------------------------------------
    def _next_subgoal_text(self, brief: Brief, subgoal: Subgoal) -> str:
        """The subgoal the prefetched pass will most likely serve: the one after this step's."""
        if not self.config.subgoal_relevance:
            return ""
        plan = brief.plan
        index = next((i for i, s in enumerate(plan) if s is subgoal), len(plan) - 1)
        return (plan[min(index + 1, len(plan) - 1)].target or "")

    def _start_prefetch(self, page: Page, subgoal_text: str,
                        settled: asyncio.Future[fingerprint.Fingerprint | None]) -> None:
        """The next vision pass, in the background: it starts once the action's validation has
        settled the page and taken its fingerprint (`settled`), so the two share one settle and one
        fingerprint walk instead of racing each other for the page's main thread."""
        if self.prefetcher is None or self.backend is None or page.is_closed():
            return
        backend, tiers = self.backend, self.tiers

        async def ahead() -> Prefetched:
            fp = await asyncio.shield(settled)
            t0 = time.perf_counter()
            tier: Tier = tiers.tier_for(page.url) if tiers else "small"
            if fp is None:  # navigating: nothing to look at yet; handed over as out of date
                return Prefetched(None, PerceptionResult(candidates=[]), tier, 0.0, subgoal_text)
            # bounded: a screenshot taken while the page navigates can wait for a frame a long time
            png = await page.screenshot(timeout=self.config.action_timeout_ms) \
                if backend.reads_pixels else b""
            result = await backend.perceive(png, subgoal_text, [], tier)
            return Prefetched(fp, result, tier, _ms(t0), subgoal_text)

        self.prefetcher.start(ahead)

    async def _take_prefetched(self, fp: fingerprint.Fingerprint | None, tier: Tier, subgoal: Subgoal,
                               rec: StepRecord) -> PerceptionResult | None:
        assert self.prefetcher is not None
        got = await self.prefetcher.take(fp, tier, self._subgoal_text(subgoal), subgoal.critical)
        rec.vision_wait_ms = got.waited_ms
        rec.vision_lagging, rec.prefetch_discarded = got.lagging, got.discarded
        if got.result is None:
            return None
        result = got.result.result
        rec.prefetch_used = rec.vision_call = True
        rec.vision_calls += 1
        rec.tier, rec.candidates = got.result.tier, len(result.candidates)
        rec.tokens_in += result.tokens_in
        rec.tokens_out += result.tokens_out
        rec.perceive_ms += got.result.spent_ms
        return result

    async def _stop_prefetch(self) -> None:
        if self.prefetcher is not None:
            await self.prefetcher.cancel()

    # ---- resolve / act / validate --------------------------------------------------------
    async def _act_and_validate(self, page: Page, brief: Brief, subgoal: Subgoal, decision: Decision,
                                geometry: dict | None, obs: Observation,
                                fp_before: fingerprint.Fingerprint | None, rec: StepRecord,
                                step: int) -> int:
        reply = decision.reply
        assert reply is not None
        t0 = time.perf_counter()
        try:
            action = await self._resolve(page, reply, decision.mark, geometry, obs, rec)
        except StaleRefError as exc:
            rec.error_type, rec.error = "stale_ref", str(exc)
            return 0
        finally:
            rec.resolve_ms += _ms(t0)
        if action is None:
            return 0
        rec.action = action.kind
        if isinstance(action, Navigate) and self.guard is not None and not self.guard.check_url(action.url):
            rec.error_type, rec.error = "blocked_navigation", f"{action.url} is outside the allowed domains"
            rec.blocked_navigation = 1
            return 1 if subgoal.action == "navigate" else 0
        point = getattr(action, "point", None)
        pixels_before = await validator.hover_and_capture(page, point) if point is not None else None
        t0 = time.perf_counter()
        await self._mark(page)
        try:
            await execute(page, self.refs, action, self.config.action_timeout_ms)
        except StaleRefError as exc:
            rec.error_type, rec.error = "stale_ref", str(exc)
        except PlaywrightTimeoutError as exc:
            rec.error_type, rec.error = "action_timeout", str(exc).splitlines()[0][:300]
            rec.actionable = False
        except (PlaywrightError, PointActionError) as exc:
            if page.is_closed():
                raise
            rec.error_type, rec.error = "action_error", str(exc).splitlines()[0][:300]
        rec.act_ms = _ms(t0)
        settled: asyncio.Future[fingerprint.Fingerprint | None] = asyncio.get_running_loop().create_future()
        if action.kind in MUTATING:
            self._start_prefetch(page, self._next_subgoal_text(brief, subgoal), settled)
        t0 = time.perf_counter()
        fp_after = None
        try:
            await self._settle(page)
            fp_after = await fingerprint.take(page)
        finally:
            settled.set_result(fp_after)  # the prefetched pass starts from here
        await self._verdict(page)
        effective, rec.effect = await validator.effect(page, action, rec.error_type, fp_before,
                                                       fp_after, pixels_before, self.ambient)
        if self.ambient is not None:
            rec.ambient_probe_ms = self.ambient.probe_ms
        rec.effective = effective
        if fp_before is not None and fp_after is not None:
            rec.mutation_delta = round(fp_before.delta(fp_after), 4)
            if fp_before.url != fp_after.url and self.gate is not None:
                self.gate.end()  # navigation always ends the visual epoch
        if self.guard is not None:
            blocked = self.guard.drain_blocked()
            rec.blocked_navigation += len(blocked)
            if blocked and not rec.error_type:
                rec.error_type, rec.error = "blocked_navigation", blocked[0][:300]
            if fp_after is not None:
                rec.revisit = self.guard.revisit(fp_after.url, fp_after.dom)
            if fp_before is not None and fp_after is not None and fp_before.url != fp_after.url \
                    and await self.guard.is_challenge(page):
                rec.challenge = True
                rec.error_type, rec.error = "challenge", f"{page.url} is a challenge page; going back"
                await self._stop_prefetch()  # it was looking at the challenge page
                await page.go_back()
                await self._settle(page)
        rec.validate_ms = _ms(t0)
        self.history.append(f"{action.kind} {rec.target_name or getattr(action, 'url', '')!s}"
                            f" -> {'changed the page' if effective else rec.error_type or 'no effect'}")
        if rec.error_type == "stale_ref":
            return 0
        if effective:
            if self.dead_guard is not None:
                self.dead_guard.effective()
            return 1
        if subgoal.once and not rec.error_type:
            rec.effect = "unseen"  # done once, as asked: a retry would act twice
            return 1
        return self._no_effect(decision.mark, rec)

    async def _mark(self, page: Page) -> None:
        """An action of the agent starts: what the page changes from here is the action's (until
        `_verdict`), not ambient (agents/ambient.py)."""
        if self.ambient is not None:
            await self.ambient.mark(page)

    async def _verdict(self, page: Page) -> None:
        if self.ambient is not None:
            await self.ambient.verdict(page)

    def _no_effect(self, mark: Mark | None, rec: StepRecord) -> int:
        """A no-op questions the reference frame: with the guard, re-perceive (and after repeated
        no-ops drop that target); without it, the same target is simply tried again."""
        if not rec.error_type:
            rec.error_type, rec.error = "no_effect", "the action changed nothing on the page"
        if self.dead_guard is None or mark is None:
            return 0
        rec.dead_action_trigger = True
        self.dead_guard.no_effect(mark_key(mark))
        if self.gate is not None:
            self.gate.force_fresh()
        return 0

    async def _resolve(self, page: Page, reply: WorkerReply, mark: Mark | None, geometry: dict | None,
                       obs: Observation, rec: StepRecord) -> AnyAction | None:
        match reply.action:
            case "scroll":
                return Scroll(direction=reply.direction)
            case "navigate":
                return Navigate(url=reply.url or "")
            case "back":
                return Back()
            case "wait":
                return Wait(seconds=float(reply.value or 0.5))
            case "finish":
                return Finish(answer=reply.answer or "")
        target: dict = {}
        if mark is None:
            return await self._resolve_point(page, reply, rec)
        if mark.ref is not None:
            target = {"ref": mark.ref, "observation_id": mark.observation_id}
            rec.ref = mark.ref
            element = self.refs.resolve(mark.ref, mark.observation_id)  # StaleRefError if carried over
            rec.route = snapping.route_of(element, geometry) if geometry else "top"
            rec.actionable = await self._actionable(page, mark)
        elif self.config.snapping:
            owner = await snapping.owner_at(page, *mark.box.center)
            if owner is None:
                rec.error_type, rec.error = "unresolvable", "nothing under the mark's centre"
                rec.actionable = False
                return None
            target = {"point": owner.point}
            rec.route, rec.degraded = owner.route, owner.degraded
            rec.actionable = owner.interactive or owner.degraded
            if owner.degraded:
                rec.perceptual_confidence = min(rec.perceptual_confidence, snapping.DEGRADED_CONFIDENCE)
        else:
            rec.error_type, rec.error = "unresolvable", "no DOM element matches this mark"
            rec.actionable = False
            return None
        return _targeted(reply, target)

    async def _resolve_point(self, page: Page, reply: WorkerReply, rec: StepRecord) -> AnyAction | None:
        """The worker's degraded coordinate fallback: a normalised point, snapped to its owner."""
        assert reply.point is not None
        if not self.config.snapping:
            rec.error_type, rec.error = "unresolvable", "coordinates need the snapper"
            return None
        size = page.viewport_size or {"width": 1280, "height": 720}
        owner = await snapping.owner_at(page, reply.point[0] * size["width"], reply.point[1] * size["height"])
        if owner is None:
            rec.error_type, rec.error = "unresolvable", "nothing under the point"
            return None
        rec.route, rec.degraded, rec.actionable = owner.route, True, owner.interactive or owner.degraded
        rec.perceptual_confidence = snapping.DEGRADED_CONFIDENCE
        return _targeted(reply, {"point": owner.point})

    async def _hidden_in_view(self, page: Page, mark: Mark) -> bool:
        """A DOM element inside the viewport by its box that no pass saw, with something else on
        top at its centre: covered, or clipped by a scrolling box (a dialog's own text). Scrolling
        it into view is how it comes out; tried once per element and subgoal, so one that
        scrolling cannot uncover (under a sticky header) goes on to the usual search."""
        key = f"hidden|{mark.role}|{mark.label}"
        if not self.config.snapping or key in self._revealed:
            return False
        self._revealed.add(key)
        owner = await snapping.owner_at(page, *mark.box.center)
        # a degraded owner is whatever non-interactive thing is there (a dialog's backdrop)
        return owner is None or owner.degraded or not _same_place(owner.box, mark.box)

    async def _actionable(self, page: Page, mark: Mark) -> bool:
        """Visible, enabled and not covered: the owner at its centre is the element itself."""
        if "disabled" in mark.states:
            return False
        if not self.config.snapping:
            return True
        owner = await snapping.owner_at(page, *mark.box.center)
        return owner is not None and _same_place(owner.box, mark.box)

    def _record_fp(self, rec: StepRecord, fp: fingerprint.Fingerprint | None) -> None:
        if fp is not None:
            rec.fp_dom, rec.fp_text, rec.fp_frames, rec.fp_url = fp.dom, fp.text, fp.frames, fp.url

    async def _save_som(self, page: Page, marks: list[Mark], rec: StepRecord, chosen: Mark | None) -> None:
        size = page.viewport_size or {"width": 1280, "height": 720}
        png = self._step_png or await page.screenshot()
        args = (png, marks, (size["width"], size["height"]), chosen.number if chosen else None)
        if self.screenshot_mode == "last":
            self._last_som = (rec.step, args)  # drawn once, at the end, not on every step
        else:
            self.screenshots[rec.step] = som.draw(*args)

    def _screenshots(self) -> dict[int, bytes]:
        if self.screenshot_mode == "last" and self._last_som is not None:
            step, args = self._last_som
            return {step: som.draw(*args)}
        return self.screenshots

    # ---- direct navigation ---------------------------------------------------------------
    async def _direct_navigation(self, page: Page, shortcut: DirectNavigation, rec: StepRecord) -> int | None:
        url = shortcut.url(page.url)
        rec.action, rec.path = "navigate", "direct"
        if self.guard is not None and not self.guard.check_url(url):
            rec.error_type, rec.error = "blocked_navigation", url
            shortcut.give_up()
            return None
        try:
            await page.goto(url)
        except PlaywrightError as exc:
            rec.error_type, rec.error = "action_error", str(exc).splitlines()[0][:300]
            shortcut.give_up()
            return None
        await self._settle(page)
        if self.gate is not None:
            self.gate.end()
        rec.url = page.url
        text = await page.locator("body").inner_text()
        if shortcut.verify(text):
            rec.effective = True
            return shortcut.resume_index
        rec.error_type, rec.error = "landing_mismatch", "the page does not show the intended filters"
        shortcut.give_up()
        await self._stop_prefetch()
        await page.go_back()
        await self._settle(page)
        return None


def _opener_key(mark: Mark) -> str:
    """A tab or section header by what it says, not where it is: opening one moves the others."""
    return f"{mark.role}|{mark.label}"


def _same_place(owner: Box, mark: Box) -> bool:
    """The owner found under a mark's centre is the mark's element (or inside it, or holds it)."""
    return enrichment.iou(owner, mark) > 0.3 or _inside(owner, mark) or _inside(mark, owner)


def _inside(inner: Box, outer: Box) -> bool:
    return (inner.x >= outer.x - 2 and inner.y >= outer.y - 2 and inner.x + inner.width <= outer.x +
            outer.width + 2 and inner.y + inner.height <= outer.y + outer.height + 2)


def _targeted(reply: WorkerReply, target: dict) -> AnyAction:
    """The reply's action aimed at a ref or a point."""
    match reply.action:
        case "type":
            return Type(**target, text=reply.text or "", clear=reply.clear, then=reply.then)
        case "select":
            return Select(**target, value=str(reply.value))
        case "set_value":
            return SetValue(**target, value=reply.value if reply.value is not None else "")
        case "expand":
            return Expand(**target)
        case "read":
            return Read(**target)
    return Click(**target)
