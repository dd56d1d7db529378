"""The grounding agent: runs an episode as a loop of steps, each step a list of stages.

observe ──► perceive ──► enrich ──► rank ──► choose ──► resolve/snap ──► act ──► validate

The stages live in agents/perceive.py, agents/choose.py and agents/act.py; the mechanisms that are
switched on (agents/factory.py) hook into them. The loop below only sequences them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from playwright.async_api import Page

from agents import act, choose, editing_hosts, fingerprint, perceive, som
from agents.brief import Brief
from agents.factory import AgentConfig, build_mechanisms
from agents.perception.base import VisionBackend
from agents.pipeline import Episode, Step
from agents.policy import EpisodeOver, Outcome, PolicySetup, Prepare, StepSink
from agents.settle import Read, Settler
from agents.worker.base import Choice, PlanFollower, Worker, WorkerReply
from tasks.schema import TARGETED_ACTIONS, Subgoal
from tasks.trace import StepRecord

__all__ = ["AgentConfig", "GroundingAgent", "Outcome"]


def one_script(scripts: Sequence[str]) -> str:
    """Init scripts as one, for one round trip: each in order and on its own (one that throws
    leaves the next to run, as separate scripts would)."""
    return "\n".join(f"try {{\n{js}\n}} catch (e) {{}}" for js in scripts)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


class GroundingAgent:
    """groundbench's grounding agent, an episode policy (agents/policy.py). `backend_for` builds
    the vision backend for the episode's page (the synthetic model reads the page it runs on)."""

    def __init__(self, config: AgentConfig, worker: Worker, backend: VisionBackend | None = None,
                 screenshots: Literal["none", "last", "all"] = "none",
                 backend_for: Callable[[Page], VisionBackend | None] | None = None) -> None:
        self.config = config
        self.worker = worker
        self.backend = backend
        self.backend_for = backend_for
        self.som = som.Recorder(screenshots)
        self.settler = Settler(config)

    @classmethod
    def from_setup(cls, setup: PolicySetup) -> GroundingAgent:
        return cls(setup.agent, setup.worker(), screenshots=setup.screenshots,  # type: ignore[arg-type]
                   backend_for=setup.backend_for)

    async def run(self, page: Page, brief: Brief, on_step: StepSink, prepare: Prepare | None = None,
                  episode_over: EpisodeOver | None = None) -> Outcome:
        cfg = self.config
        if self.backend_for is not None:
            self.backend = self.backend_for(page)
        episode = Episode(page=page, brief=brief, worker=self.worker, backend=self.backend,
                          mechanisms=build_mechanisms(cfg), settle=lambda also=(): self._settle(episode, also),
                          action_timeout_ms=cfg.action_timeout_ms, hover_intent_ms=cfg.hover_intent_ms,
                          late_effect_ms=cfg.late_effect_ms, backoff_max_ms=cfg.backoff_max_ms,
                          in_flight=lambda: self.settler.in_flight, still=self.settler.still)
        scripts = [fingerprint.MUTATION_COUNTER_JS,
                   *(js for m in episode.mechanisms if (js := m.init_script()) is not None)]
        # (independent set-ups of the context and the page, made together)
        await asyncio.gather(page.context.add_init_script(script=one_script(scripts)),
                             *(m.start(episode) for m in episode.mechanisms))
        self.settler.watch(page)
        episode.refs.watch(page)
        await page.goto(brief.start_url)
        await act.settled_fingerprint(episode)
        if prepare is not None:
            episode.brief = brief = await prepare(page, brief)
            await act.settled_fingerprint(episode)
        index, last_error, no_ops, steps = 0, "", 0, brief.max_steps
        for number in range(brief.max_steps):
            if index >= len(brief.plan):
                steps = number
                break
            subgoal = brief.plan[index]
            rec = StepRecord(step=number, subgoal_index=index, subgoal_action=subgoal.action,
                             subgoal_target=subgoal.target or "", subgoal_label=subgoal.label or "")
            step = Step(episode, subgoal, index, number, rec)
            idle_ends = self.settler.idle_ends
            if await self._taken_over(step):
                index += step.advance or 0
            else:
                advanced = await self._step(step)
                index += advanced
                if advanced:
                    episode.revealed.clear()
                    for m in episode.mechanisms:
                        m.subgoal_done()
            rec.quiet_cut = self.settler.idle_ends - idle_ends
            last_error = rec.error_type or last_error
            # A step that changed nothing: an action without effect, or a look that found nothing
            # to act on and could not move the page to look further (a list still loading its
            # next rows). Either way the page is given time before the next try, so how long the
            # agent waits for a slow page does not depend on how fast its own steps are; not when
            # the page had nothing scheduled that could change it meanwhile (agents/schedule.py).
            idle = rec.error_type == "no_effect" or (rec.error_type == "no_target" and not rec.action)
            no_ops = no_ops + 1 if idle else 0
            if no_ops and cfg.backoff_max_ms:
                if step.still:  # nothing the page scheduled could make it ready meanwhile
                    rec.waits_cut += 1
                else:
                    rec.backoff_ms = float(min(cfg.settle_ms * 2 ** (no_ops - 1), cfg.backoff_max_ms))
                    await page.wait_for_timeout(rec.backoff_ms)
            result = on_step(rec)
            if result is not None:
                await result
            if (rec.action == "finish" and not rec.error_type) or (
                    episode_over is not None and await episode_over(page)):
                steps = number + 1  # the worker declared the episode over, or the environment did
                break
        await episode.quiesce()
        return Outcome(steps=steps, plan_done=index >= len(brief.plan),
                       last_error_type=last_error, screenshots=self.som.images(),
                       acted_at=self.settler.acted_at)

    async def _taken_over(self, step: Step) -> bool:
        for m in step.episode.mechanisms:
            if await m.run_step(step):
                return True
        return False

    async def _settle(self, episode: Episode, also: Sequence[tuple[str, Any]] = ()) -> list[Read | None] | None:
        # The mechanisms' reads of the settled page, and the caller's, travel with the settle's
        # last wait.
        episode.settled_fp = None
        page, asked = episode.page, [m.settle_read() for m in episode.mechanisms]
        wanted = [read for read in asked if read is not None]
        idle = any(m.idle_settle(page) for m in episode.mechanisms)
        settled, _ = await asyncio.gather(self.settler.settle(page, [*wanted, *also], idle),
                                          episode.refs.warm(self.settler.longest_s))
        got = iter(settled or [None] * (len(wanted) + len(also)))
        waited = False  # a hook waited on the page: the later reads are out of date
        for m, read in zip(episode.mechanisms, asked, strict=True):
            if read is None:
                waited = bool(await m.settled(page)) or waited
            else:
                value = next(got)
                waited = bool(await m.settled(page, None if waited else value)) or waited
        return None if settled is None or waited else list(got)

    async def _observe(self, step: Step) -> None:
        episode, rec = step.episode, step.rec
        t0 = time.perf_counter()
        since, kept = act.changes_since(step), episode.settled_fp
        episode.settled_fp = None
        if kept is not None and kept.since == since and episode.still():
            # the page is as the last settle read it: that reading is the step's
            step.fp_before = fp = kept
            rec.fp_kept = True
        else:
            step.fp_before = fp = await fingerprint.take(step.page, since)
        scopes, rec.observe_reason = next(
            (got for m in episode.mechanisms if (got := m.scopes(step)) is not None), (None, "off"))
        step.obs = obs = await episode.refs.observe(step.page, scopes, fp.framed if fp else frozenset())
        if fp is not None and fp.editables:  # the text fields the snapshot calls generic
            obs.elements = editing_hosts.mark(obs.elements, fp.editables)
        if scopes and obs.scope == "document":
            rec.observe_reason = "scopes_unreadable"
        rec.observe_scope = obs.scope
        rec.observe_ms, rec.url, rec.observation_id = _ms(t0), obs.url, obs.id
        if fp is not None:
            rec.fp_dom, rec.fp_text, rec.fp_frames, rec.fp_url = fp.dom, fp.text, fp.frames, fp.url

    async def _step(self, step: Step) -> int:
        """One step through the stages; how far the plan advanced."""
        await self._observe(step)
        if not step.subgoal.targeted:
            choice = await choose.ask(step, step.subgoal, [])
            return await act.act_and_validate(step, None, choice.reply) if choice.reply else 0
        await perceive.place(step)
        await perceive.listing(step)
        if step.subgoal.action == "scroll":
            return await self._scroll(step)
        await choose.choose(step)
        choice, unseen, rec = step.choice, step.unseen, step.rec
        assert choice is not None
        await self.som.keep(step, choice.mark)
        if unseen is not None and not unseen.in_view:
            await act.scroll_to(step, unseen.mark)
            return 0
        if choice.reply is not None and choice.reply.action not in TARGETED_ACTIONS:
            # A model may answer a targeted subgoal with scroll, wait, back, navigate or finish
            # (it cannot see the target, or judges the goal done or impossible): do as it says.
            return await act.act_and_validate(step, None, choice.reply)
        if choice.satisfied and choice.mark is not None:
            rec.skipped_satisfied, rec.effective = True, True
            rec.target_role, rec.target_name = choice.mark.role, choice.mark.label
            rec.target_context = choice.mark.context_text
            return 1
        if choice.reply is None or (choice.mark is None and choice.reply.point is None):
            return await self._no_target(step)
        return await self._act_on(step, choice)

    @staticmethod
    async def _act_on(step: Step, choice: Choice) -> int:
        """Act on the worker's choice of a mark (or point), recording what it chose."""
        rec, mark = step.rec, choice.mark
        assert choice.reply is not None
        if mark is not None:
            rec.mark_rank, rec.relevance = mark.number, mark.relevance
            rec.match_score, rec.target_role, rec.target_name = round(choice.score, 3), mark.role, mark.label
            rec.resemblance = mark.resemblance
            rec.target_context = mark.context_text
            rec.perceptual_confidence, rec.source = mark.confidence, mark.source
        return await act.act_and_validate(step, mark, choice.reply, choice.to)

    async def _scroll(self, step: Step) -> int:
        """A scroll inside a container (the subgoal's target: the wheel turns over it) and/or
        until a target is in view: done when that target is found on the page and in view, else
        one scroll; without `until`, done after one scroll that moved something."""
        subgoal, rec = step.subgoal, step.rec
        if subgoal.until is not None:
            until = Subgoal(action="click", target=subgoal.until)
            found = await choose.ask(step, until, step.marks)
            known = None
            for m in step.episode.mechanisms:
                if (known := await m.until_target(step, until, found)) is not None:
                    break
            target = known or found.mark
            if target is not None and await act.in_view(step, target):
                rec.skipped_satisfied, rec.effective, rec.effect = True, True, "in_view"
                rec.target_role, rec.target_name = target.role, target.label
                return 1
            if known is not None:
                # the DOM holds the target, clipped: scroll it into view through its containers
                await act.scroll_to(step, known)
                return 0
        choice = await choose.ask(step, subgoal, step.marks)
        if choice.reply is None:
            rec.error_type = rec.error_type or "no_target"
            rec.error = rec.error or f"no mark matches the container {subgoal.target!r}"
            step.episode.fresh_required = True
            return 0
        if choice.mark is not None:
            rec.target_role, rec.target_name, rec.source = choice.mark.role, choice.mark.label, choice.mark.source
        advanced = await act.act_and_validate(step, choice.mark, choice.reply)
        return 0 if subgoal.until is not None else advanced

    async def _no_target(self, step: Step) -> int:
        """Nothing fits: open what may hide the target, or look further down (a plan follower);
        else a miss, and the next perception must be fresh."""
        rec = step.rec
        opener = await choose.reveal(step)
        if opener is not None and opener.mark is not None and opener.reply is not None:
            mark = opener.mark
            rec.mark_rank, rec.relevance, rec.source = mark.number, mark.relevance, mark.source
            rec.target_role, rec.target_name = mark.role, mark.label
            rec.target_context = mark.context_text
            rec.error_type, rec.error = "", ""
            await act.act_and_validate(step, mark, opener.reply)
            rec.effect = f"revealed: {rec.effect}" if rec.effect else "revealed"
            return 0
        for m in step.episode.mechanisms:
            more = await m.unlisted(step)
            if not more:
                continue
            marks = perceive.rank(step, [*step.marks, *more])
            choice = await choose.ask(step, step.subgoal, marks, record_error=False)
            if choice.reply is not None and choice.mark is not None and choice.mark.ref in {x.ref for x in more}:
                step.marks, step.choice = marks, choice
                rec.error_type, rec.error = "", ""
                advanced = await self._act_on(step, choice)
                rec.effect = f"{m.name}: {rec.effect}".rstrip()
                return advanced
        for m in step.episode.mechanisms:
            submenu = await m.opener(step)
            if submenu is not None:
                rec.mark_rank, rec.relevance, rec.source = submenu.number, submenu.relevance, submenu.source
                rec.target_role, rec.target_name = submenu.role, submenu.label
                rec.target_context = submenu.context_text
                await act.act_and_validate(step, submenu, WorkerReply(action=m.opens_by, mark=submenu.number))
                rec.effect = f"revealed: {m.name} {rec.effect}".rstrip()
                rec.error_type, rec.error = "", ""
                return 0
        if isinstance(step.episode.worker, PlanFollower) and await act.explore(step):
            return 0
        if not rec.error_type:
            rec.error_type, rec.error = "no_target", f"no mark matches {step.subgoal.target!r}"
        step.episode.fresh_required = True
        return 0
