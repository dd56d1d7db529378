"""Inner scrollers: a target clipped by a container that scrolls on its own (a list in a sidebar, a
table body, a horizontal strip of cards) is brought into view by scrolling that container.

Whether a target is in view used to be a question about the viewport's height alone: an element
below the edge of a short scrolling panel, or right of the edge of a horizontal strip, has a box
within the viewport's height, so it counted as in view. Vision does not see it (it is clipped), the
worker picks what it does see, often something else carrying the same words ("Harbour Lights
Radio" for the album "Harbour Lights"), and the agent never scrolls, because a page that fits one
viewport has nothing to scroll. This module answers two questions with the element's clip:

- `clipped`: the element the DOM knows fits the subgoal clearly better than anything perceived
  (agents/enrichment.py's `missed`) is counted in view only when at least half of it is visible
  inside the viewport and inside every ancestor that clips its overflow. A clipped one goes to the
  agent's scroll into view, which scrolls each container that clips it (not only the page).
- `until_target`: a `scroll` subgoal repeats until its `until` target is in view. The DOM is asked
  for that target (the plan follower's match over every element of the observation that says
  something, controls or not), not only
  the step's perceived marks, where a visible partial match ("Harbour Nights") could pass for the
  clipped target. When the DOM's fit is clearly better than what the worker chose, it is the
  target: in view, the subgoal is done; clipped, the agent scrolls it into view through its
  containers, whether or not the subgoal's container description matched a mark.

Switched off (`agent.inner_scroll=false`), in view means within the viewport's height and the
`until` target is looked for among the step's marks only."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel, Field

from agents.marks import Mark, element_mark
from agents.observation import StaleRefError
from agents.pipeline import Mechanism, Step
from agents.worker.base import Choice, PlanFollower
from tasks.schema import Subgoal

# The DOM's fit must beat the worker's choice by this much to replace it (as agents/enrichment.py).
MARGIN = 0.2

# The visible share of an element's box: its rectangle cut by the viewport and by every ancestor
# whose overflow is not visible (through shadow roots to their hosts).
VISIBLE_SHARE_JS = r"""
(el) => {
  const r = el.getBoundingClientRect();
  const area = r.width * r.height;
  if (area <= 0) return 0;
  let left = Math.max(r.left, 0), top = Math.max(r.top, 0);
  let right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
  for (let n = el.parentNode; n; n = n.parentNode) {
    if (n instanceof ShadowRoot) { n = n.host; }
    if (!(n instanceof Element) || n === document.documentElement) continue;
    const cs = getComputedStyle(n);
    if (cs.overflowX !== "visible" || cs.overflowY !== "visible") {
      const c = n.getBoundingClientRect();
      if (cs.overflowX !== "visible") { left = Math.max(left, c.left + n.clientLeft); right = Math.min(right, c.left + n.clientLeft + n.clientWidth); }
      if (cs.overflowY !== "visible") { top = Math.max(top, c.top + n.clientTop); bottom = Math.min(bottom, c.top + n.clientTop + n.clientHeight); }
    }
    if (right <= left || bottom <= top) return 0;
  }
  return Math.max(0, right - left) * Math.max(0, bottom - top) / area;
}
"""


class InnerScrollConfig(BaseModel):
    inner_scroll: bool = True
    # The share of an element's box that must be visible (inside the viewport and every ancestor
    # that clips its overflow) for it to count as in view.
    inner_scroll_visible_share: float = Field(0.5, gt=0, le=1)


class InnerScroll(Mechanism):
    name = "inner_scroll"

    def __init__(self, visible_share: float) -> None:
        self.visible_share = visible_share

    async def _share(self, step: Step, mark: Mark) -> float | None:
        if mark.ref is None:
            return None
        try:
            return float(await step.episode.refs.evaluate(step.page, mark.ref, mark.observation_id,
                                                          VISIBLE_SHARE_JS))
        except (PlaywrightError, StaleRefError):
            return None

    async def clipped(self, step: Step, mark: Mark) -> bool:
        share = await self._share(step, mark)
        return share is not None and share < self.visible_share

    async def until_target(self, step: Step, until: Subgoal, found: Choice) -> Mark | None:
        worker = step.episode.worker
        if not isinstance(worker, PlanFollower) or step.obs is None:
            return None
        # what must come into view need not be a control (a playlist row, a heading): every
        # element of the observation that says something
        said = [p for p in step.placed if p.element.label]
        listing = [element_mark(i, p, 1.0, "dom", step.obs.id) for i, p in enumerate(said, 1)]
        best = worker.match(until, listing, step.episode.excluded(), step.episode.prefer_toggle)
        if best.mark is None:
            return None
        if found.mark is not None and best.score <= found.score + MARGIN:
            return found.mark  # what the worker chose fits as well
        return best.mark
