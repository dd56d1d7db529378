"""The grounding agent: composes the pipeline stages (observe → choose → act → validate) from
config and runs one episode on an open page, reporting every step as a StepRecord."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel, ConfigDict

from agents.actions import execute
from agents.brief import Brief, StepRecord
from agents.observation import RefBook, StaleRefError
from agents.worker.scripted import ScriptedWorker


class AgentConfig(BaseModel):
    """Mechanism switches and timings of the agent; Hydra's `agent` group validated once."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = "full"
    settle_ms: int = 150
    action_timeout_ms: int = 3000


@dataclass
class Outcome:
    steps: int
    plan_done: bool
    last_error_type: str = ""


StepSink = Callable[[StepRecord], Awaitable[None] | None]


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


class GroundingAgent:
    def __init__(self, config: AgentConfig, worker: ScriptedWorker) -> None:
        self.config = config
        self.worker = worker

    async def _settle(self, page: Page) -> None:
        try:
            await page.wait_for_load_state("load", timeout=self.config.action_timeout_ms)
        except PlaywrightTimeoutError:
            pass
        await page.wait_for_timeout(self.config.settle_ms)

    async def run(self, page: Page, brief: Brief, on_step: StepSink) -> Outcome:
        refs = RefBook()
        index = 0
        last_error = ""
        for step in range(brief.max_steps):
            if index >= len(brief.plan):
                return Outcome(steps=step, plan_done=True)
            subgoal = brief.plan[index]
            rec = StepRecord(step=step, subgoal_index=index, subgoal_action=subgoal.action,
                             subgoal_target=subgoal.target or "")
            t0 = time.perf_counter()
            obs = await refs.observe(page)
            rec.observe_ms, rec.url, rec.observation_id = _ms(t0), obs.url, obs.id
            rec.candidates = len(obs.interactive())

            t0 = time.perf_counter()
            action, choice = self.worker.decide(subgoal, obs)
            rec.choose_ms = _ms(t0)
            if choice is not None:
                rec.ref, rec.match_score = choice.element.ref, round(choice.score, 3)
                rec.target_role, rec.target_name = choice.element.role, choice.element.label
            if action is None:
                rec.error_type, rec.error = "no_target", f"no element matches {subgoal.target!r}"
            else:
                rec.action = action.kind
                t0 = time.perf_counter()
                try:
                    await execute(page, refs, action, self.config.action_timeout_ms)
                    rec.advanced = True
                except StaleRefError as exc:
                    rec.error_type, rec.error = "stale_ref", str(exc)
                except PlaywrightTimeoutError as exc:
                    rec.error_type, rec.error = "action_timeout", str(exc).splitlines()[0]
                except PlaywrightError as exc:
                    if page.is_closed():
                        raise
                    rec.error_type, rec.error = "action_error", str(exc).splitlines()[0]
                rec.act_ms = _ms(t0)
            t0 = time.perf_counter()
            await self._settle(page)
            rec.validate_ms = _ms(t0)
            if rec.advanced:
                index += 1
            last_error = rec.error_type or last_error
            result = on_step(rec)
            if result is not None:
                await result
        return Outcome(steps=brief.max_steps, plan_done=index >= len(brief.plan),
                       last_error_type=last_error)
