"""The public policy interface: what an agent implements to be measured by groundbench.

Two levels. An *episode policy* runs a whole episode on a page (`run`): groundbench's grounding
agent, the `oracle` and `naive_text` baselines. A *step policy* answers one action per step
(`act`) from a typed `PageView`; `StepLoop` runs it: it observes the page, executes the action of
the closed vocabulary through the observation's refs, lets the page settle, judges the effect and
writes the step to the trace like any other agent's. A policy is selected by import path
(`policy=custom policy._target_=mypkg.MyAgent +policy.some_option=3`) and built with its options
as keyword arguments, or through a classmethod `from_setup(setup, **options)` when it wants
groundbench's parts (the configured vision backend and worker, the agent config)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel, ConfigDict, ValidationError

from agents import fingerprint, som, validator
from agents.actions import Action, Finish, PointActionError, execute
from agents.brief import Brief
from agents.marks import Mark, Placed, dom_marks
from agents.observation import RefBook, StaleRefError
from agents.perception.base import VisionBackend
from agents.settle import SettleConfig, Settler
from agents.snapping import frame_geometry
from agents.stepper import SetValueError
from agents.worker.base import Worker
from tasks.schema import Subgoal
from tasks.trace import Cost, StepRecord


@dataclass
class Outcome:
    """How an episode ended, from the policy's side (the verdict is the harness's)."""

    steps: int
    plan_done: bool
    last_error_type: str = ""
    screenshots: dict[int, bytes] = field(default_factory=dict)
    # time.monotonic() of the policy's last action on the page: the final settle counts from here
    acted_at: float = 0.0


StepSink = Callable[[StepRecord], Awaitable[None] | None]
# Some suites know the plan only once the start page shows it (MiniWoB's utterance): given the
# loaded start page and the brief so far, the brief to follow.
Prepare = Callable[[Page, Brief], Awaitable[Brief]]
# The environment's own end-of-episode signal (MiniWoB ends an episode on a wrong click).
EpisodeOver = Callable[[Page], Awaitable[bool]]


@runtime_checkable
class EpisodePolicy(Protocol):
    async def run(self, page: Page, brief: Brief, on_step: StepSink, prepare: Prepare | None = None,
                  episode_over: EpisodeOver | None = None) -> Outcome: ...


@dataclass(frozen=True)
class PageView:
    """What a step policy sees. `snapshot` is Playwright's aria snapshot (mode "ai") whose refs
    (`e12`, `f1e3`) name elements for this step only; `marks`/`som_image`/`listing` are the
    Set-of-Mark listing of the interactive elements, given when the policy sets `wants_marks`."""

    goal: str
    subgoal: Subgoal | None
    url: str
    screenshot: bytes
    snapshot: str
    viewport: tuple[int, int]
    step: int
    steps_left: int
    marks: tuple[Mark, ...] = ()
    som_image: bytes | None = None
    listing: str = ""


class PolicyStep(BaseModel):
    """A step policy's answer: one action of the closed vocabulary (`agents.actions`: Click,
    Type, Select, SetValue, Expand, Read, Hover, Drag on a `ref` of this step's snapshot or a
    viewport `point`; Scroll (the page, or over a `within` ref or `point`), Navigate, Back, Wait,
    Finish), and what deciding it cost."""

    model_config = ConfigDict(frozen=True)
    action: Action
    vision_calls: int = 0
    cost: Cost = Cost()


class OutsideVocabulary(ValueError):
    """A policy's answer that names no action of the closed vocabulary (raised by adapters that
    translate another action language): recorded as the step's `action_error`."""


@runtime_checkable
class StepPolicy(Protocol):
    async def act(self, view: PageView) -> PolicyStep: ...


@dataclass(frozen=True)
class PolicySetup:
    """What groundbench hands a policy's `from_setup`: the run's agent config and the builders of
    the configured vision backend (per page) and worker, the seed and the Set-of-Mark mode."""

    agent: Any
    backend_for: Callable[[Page], VisionBackend | None]
    worker: Callable[[], Worker]
    seed: int = 0
    screenshots: str = "none"
    # The task's ground truth, for a baseline that proves fixtures (`needs_ground_truth`), never
    # for an agent under test.
    ground_truth: Any = None
    base_url: str = ""


class StepLoop:
    """Runs a step policy as an episode policy (see the module docstring)."""

    def __init__(self, policy: StepPolicy, settle: SettleConfig | None = None) -> None:
        self.policy = policy
        self.settler = Settler(settle or SettleConfig())
        self.refs = RefBook()

    async def run(self, page: Page, brief: Brief, on_step: StepSink, prepare: Prepare | None = None,
                  episode_over: EpisodeOver | None = None) -> Outcome:
        self.settler.watch(page)
        await page.context.add_init_script(script=fingerprint.MUTATION_COUNTER_JS)
        await page.goto(brief.start_url)
        await self.settler.settle(page)
        if prepare is not None:
            brief = await prepare(page, brief)
            await self.settler.settle(page)
        index, last_error, finished = 0, "", False
        number = 0
        for number in range(brief.max_steps):
            subgoal = brief.plan[index] if index < len(brief.plan) else None
            rec = StepRecord(step=number, subgoal_index=index,
                             subgoal_action=subgoal.action if subgoal else "",
                             subgoal_target=(subgoal.target or "") if subgoal else "", path="policy")
            finished, effective = await self._step(page, brief, subgoal, number, rec)
            if effective and subgoal is not None:
                index += 1
            last_error = rec.error_type or last_error
            result = on_step(rec)
            if result is not None:
                await result
            if finished or (episode_over is not None and await episode_over(page)):
                break
        return Outcome(steps=number + 1, plan_done=finished or index >= len(brief.plan),
                       last_error_type=last_error, acted_at=self.settler.acted_at)

    async def _view(self, page: Page, brief: Brief, subgoal: Subgoal | None, number: int,
                    rec: StepRecord) -> PageView:
        t0 = time.perf_counter()
        obs = await self.refs.observe(page)
        png = await page.screenshot()
        size = page.viewport_size or {"width": 1280, "height": 720}
        viewport = (int(size["width"]), int(size["height"]))
        marks: list[Mark] = []
        image, listing = None, ""
        if getattr(self.policy, "wants_marks", False):
            geometry = await frame_geometry(page, obs)
            placed = [Placed(el, box) for el in obs.elements.values()
                      if el.box is not None and el.box.area > 0 and (box := geometry.place(el))]
            marks = dom_marks(placed, obs.id)
            image, listing = som.draw(png, marks, viewport), som.listing(marks)
        rec.url, rec.observation_id, rec.observe_scope = obs.url, obs.id, obs.scope
        rec.observe_ms = round((time.perf_counter() - t0) * 1000, 2)
        return PageView(goal=brief.goal, subgoal=subgoal, url=obs.url, screenshot=png,
                        snapshot=obs.snapshot, viewport=viewport, step=number,
                        steps_left=brief.max_steps - number, marks=tuple(marks), som_image=image,
                        listing=listing)

    async def _step(self, page: Page, brief: Brief, subgoal: Subgoal | None, number: int,
                    rec: StepRecord) -> tuple[bool, bool]:
        """(the policy finished, the action had an effect)."""
        fp_before = await fingerprint.take(page)
        view = await self._view(page, brief, subgoal, number, rec)
        t0 = time.perf_counter()
        try:
            answer = await self.policy.act(view)
            if not isinstance(answer, PolicyStep):
                answer = PolicyStep.model_validate(answer if isinstance(answer, dict) else
                                                   {"action": answer})
        except (ValidationError, TypeError, OutsideVocabulary) as exc:
            rec.error_type = "action_error"
            rec.error = f"not an action of the closed vocabulary: {exc}".splitlines()[0][:300]
            return False, False
        except Exception as exc:  # noqa: BLE001 - a policy's failure is recorded, never a crash
            rec.error_type, rec.error = "policy_error", f"{type(exc).__name__}: {exc}"[:300]
            return False, False
        rec.choose_ms = rec.worker_ms = round((time.perf_counter() - t0) * 1000, 2)
        rec.vision_calls, rec.vision_call = answer.vision_calls, answer.vision_calls > 0
        rec.charge(answer.cost)
        action = answer.action
        if getattr(action, "ref", None) is not None:
            action = action.model_copy(update={"observation_id": rec.observation_id})
            rec.ref = action.ref
        rec.action = action.kind
        if isinstance(action, Finish):
            rec.effective = True
            return True, True
        t0 = time.perf_counter()
        readout = ""
        try:
            readout = await execute(page, self.refs, action)
        except StaleRefError as exc:
            rec.error_type, rec.error = "stale_ref", str(exc)[:300]
        except PlaywrightTimeoutError as exc:
            rec.error_type, rec.error, rec.actionable = "action_timeout", str(exc).splitlines()[0][:300], False
        except (PlaywrightError, PointActionError, SetValueError) as exc:
            if page.is_closed():
                raise
            rec.error_type, rec.error = "action_error", str(exc).splitlines()[0][:300]
        rec.act_ms = round((time.perf_counter() - t0) * 1000, 2)
        t0 = time.perf_counter()
        await self.settler.settle(page)
        fp_after = await fingerprint.take(page)
        rec.effective, rec.effect = await validator.effect(page, action, rec.error_type, fp_before,
                                                           fp_after, None, readout=readout)
        rec.validate_ms = round((time.perf_counter() - t0) * 1000, 2)
        if not rec.effective and not rec.error_type:
            rec.error_type, rec.error = "no_effect", "the action changed nothing on the page"
        return False, rec.effective
