"""Harness-only oracle: replays a task's ground-truth selectors with plain Playwright to prove the
task is solvable in this browser. Agents never import this module or see its selectors."""

from __future__ import annotations

import time
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FrameLocator, Locator, Page

from agents.actions import FIELD_JS, INPUT_TYPE_JS, drag, type_into
from agents.brief import Brief
from agents.policy import EpisodeOver, Outcome, PolicySetup, Prepare, StepSink
from tasks.schema import OracleStep, Task


def _locate(page: Page, step: OracleStep, selector: str | None = None) -> Locator:
    scope: Page | FrameLocator = page
    for frame_selector in step.frames:
        scope = scope.frame_locator(frame_selector)
    selector = selector or step.selector
    assert selector is not None
    return scope.locator(selector).first


async def _centre(loc: Locator, timeout_ms: float) -> tuple[float, float]:
    await loc.scroll_into_view_if_needed(timeout=timeout_ms)
    box = await loc.bounding_box(timeout=timeout_ms)
    assert box is not None, "oracle target has no box"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def _type_keys(loc: Locator, text: str, timeout_ms: float) -> None:
    """A fill typed as the agent types (`agents.actions.type_into`)."""
    kind = await loc.evaluate(INPUT_TYPE_JS, timeout=timeout_ms)

    async def field() -> tuple[bool, bool]:
        try:
            empty, focused = await loc.evaluate(FIELD_JS, timeout=timeout_ms)
            return bool(empty), bool(focused)
        except PlaywrightError:
            return False, False

    await type_into(loc, kind, text, timeout_ms, field)


async def run_oracle_step(page: Page, step: OracleStep, base_url: str, timeout_ms: float = 5000,
                          keys: bool = False) -> None:
    """One oracle step; `keys`: a fill is typed key by key, as the agent types."""
    if step.do == "goto":
        await page.goto(step.url if "://" in (step.url or "") else base_url + (step.url or "/"))
        return
    if step.do == "press" and step.selector is None:
        await page.keyboard.press(step.key or "Enter")
        return
    if step.do == "scroll" and step.selector is None:
        await page.mouse.wheel(0, float(step.value or 600))
        return
    loc = _locate(page, step)
    if step.do == "click":
        if step.position is not None:
            box = await loc.bounding_box(timeout=timeout_ms)
            assert box is not None, f"oracle target {step.selector} has no box"
            fx, fy = step.position
            await loc.click(position={"x": box["width"] * fx, "y": box["height"] * fy}, timeout=timeout_ms)
        else:
            await loc.click(timeout=timeout_ms)
    elif step.do == "fill" and keys:
        await _type_keys(loc, step.text or "", timeout_ms)
    elif step.do == "fill":
        await loc.fill(step.text or "", timeout=timeout_ms)
    elif step.do == "press":
        await loc.press(step.key or "Enter", timeout=timeout_ms)
    elif step.do == "check":
        await loc.check(timeout=timeout_ms)
    elif step.do == "select":
        await loc.select_option(str(step.value), timeout=timeout_ms)
    elif step.do == "set_value":
        await loc.fill(str(step.value), timeout=timeout_ms)
    elif step.do == "hover":
        await loc.hover(timeout=timeout_ms)
    elif step.do == "scroll" and step.offset is not None:
        await page.mouse.move(*await _centre(loc, timeout_ms))
        await page.mouse.wheel(*step.offset)
    elif step.do == "scroll":
        await loc.scroll_into_view_if_needed(timeout=timeout_ms)
    elif step.do == "drag":
        start = await _centre(loc, timeout_ms)
        if step.to is not None:
            end = await _centre(_locate(page, step, step.to), timeout_ms)
        else:
            assert step.offset is not None, "oracle drag needs `to` or `offset`"
            end = (start[0] + step.offset[0], start[1] + step.offset[1])
        await drag(page, start, end)
    elif step.do == "wait_for":
        await loc.wait_for(state="visible", timeout=timeout_ms)


async def run_oracle(page: Page, task: Task, base_url: str, keys: bool = False) -> None:
    """Replay the task's oracle steps on the open page; raises on the first broken step."""
    if not task.oracle:
        raise ValueError(f"task {task.id} has no oracle steps")
    for step in task.oracle:
        await run_oracle_step(page, step, base_url, keys=keys)


class Oracle:
    """`policy=oracle`: the task's ground-truth steps as an episode policy (a baseline, not an
    agent: it is the only policy handed the task's ground truth). `keys`: fills are typed key by
    key as the agent types, so the floor acts with the agent's input primitives."""

    needs_ground_truth = True

    def __init__(self, task: Task, base_url: str, keys: bool = False) -> None:
        self.task, self.base_url, self.keys = task, base_url, keys

    @classmethod
    def from_setup(cls, setup: PolicySetup, **options: Any) -> Oracle:
        return cls(setup.ground_truth, setup.base_url, **options)

    async def run(self, page: Page, brief: Brief, on_step: StepSink, prepare: Prepare | None = None,
                  episode_over: EpisodeOver | None = None) -> Outcome:
        await page.goto(brief.start_url)
        await run_oracle(page, self.task, self.base_url, self.keys)
        return Outcome(steps=0, plan_done=True, acted_at=time.monotonic())
