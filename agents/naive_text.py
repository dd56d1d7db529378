"""Naive text grounding, the baseline the fixture traps are built against: act on the first
element in the top document whose visible text matches the subgoal's label, at the centre of its
box, with no enrichment, no frame snapping, no clearing, no state checks and no guards."""

from __future__ import annotations

import asyncio
import time

from playwright.async_api import Page

from agents.actions import Scroll, drag
from agents.brief import Brief
from agents.policy import EpisodeOver, Outcome, Prepare, StepSink
from tasks.schema import Subgoal

# The first element, in document order, whose own visible text matches; the deepest such element.
_FIND_JS = """
(label) => {
  const norm = (s) => (s || "").replace(/\\s+/g, " ").trim().toLowerCase();
  const want = norm(label);
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== "hidden" && cs.display !== "none";
  };
  const textOf = (el) => norm(el.innerText || el.value || el.getAttribute("placeholder") || "");
  const all = document.body.querySelectorAll("*");
  for (const el of all) {
    if (["SCRIPT", "STYLE", "HTML", "BODY"].includes(el.tagName) || !visible(el)) continue;
    const t = textOf(el);
    if (!t.includes(want)) continue;
    const deeper = [...el.children].some((c) => visible(c) && textOf(c).includes(want));
    if (deeper) continue;
    const r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }
  return null;
}
"""


async def _point(page: Page, subgoal: Subgoal) -> tuple[float, float] | None:
    label = subgoal.label or subgoal.target or ""
    hit = await page.evaluate(_FIND_JS, label)
    return (hit["x"], hit["y"]) if hit else None


async def naive_step(page: Page, subgoal: Subgoal) -> bool:
    """Execute one subgoal naively; False when no element matched (the episode just goes on)."""
    if subgoal.action == "navigate":
        await page.goto(subgoal.url or "/")
        return True
    if subgoal.action == "back":
        await page.go_back()
        return True
    if subgoal.action == "scroll":
        # one wheel turn, over the container's words if it names one; `until` is not checked
        where = await _point(page, subgoal) if subgoal.target else None
        if where is not None:
            await page.mouse.move(*where)
        await page.mouse.wheel(*Scroll(direction=subgoal.direction, pixels=subgoal.pixels).delta)
        return True
    if subgoal.action in ("wait", "finish"):
        await asyncio.sleep(subgoal.seconds if subgoal.action == "wait" else 0)
        return True
    point = await _point(page, subgoal)
    if point is None:
        return False
    if subgoal.action == "hover":
        await page.mouse.move(*point)
        return True
    if subgoal.action == "drag":
        if subgoal.offset is not None:
            end = (point[0] + subgoal.offset[0], point[1] + subgoal.offset[1])
        else:
            found = await _point(page, Subgoal(action="click", target=subgoal.to))
            if found is None:
                return False
            end = found
        await drag(page, point, end)
        return True
    await page.mouse.click(*point)
    if subgoal.action == "type":
        await page.keyboard.type(subgoal.text or "")
    elif subgoal.action in ("select", "set_value"):
        await page.keyboard.type(str(subgoal.value))
    return True


async def run_naive(page: Page, plan: list[Subgoal]) -> int:
    """Follow the plan naively from the already-opened start page; returns how many steps matched."""
    matched = 0
    for subgoal in plan:
        try:
            matched += await naive_step(page, subgoal)
        except Exception:  # noqa: BLE001, S112 - a naive click that throws is just a failed step
            continue
        await page.wait_for_timeout(150)
    return matched


class NaiveText:
    """`policy=naive_text` as an episode policy: the plan, followed naively, nothing checked."""

    async def run(self, page: Page, brief: Brief, on_step: StepSink, prepare: Prepare | None = None,
                  episode_over: EpisodeOver | None = None) -> Outcome:
        await page.goto(brief.start_url)
        if prepare is not None:
            brief = await prepare(page, brief)
        await run_naive(page, brief.plan)
        return Outcome(steps=0, plan_done=True, acted_at=time.monotonic())
