"""Undrawn controls: a control can be in the document, the accessibility tree and the hit test
without being drawn: a row faded out (its box at opacity 0) and left in place, a panel faded to
nothing. A person neither sees nor counts it; an agent that lists what the accessibility tree
lists counts one "Remove" more than is on the screen ("the second Remove" lands one row off) and
may act on what no one can see. When a listing could be misled by one (a subgoal that counts,
"the 3rd Archive button"; or a name several marks share), the marks' elements are read in one call
and those not drawn leave the listing (`rec.undrawn`).

What counts as not drawn is agents/interactive.py's `UNDRAWN_JS`: hidden, in content the browser
lays out but skips drawing (a closed <details>), or inside a box faded to opacity 0. A control
whose own opacity is 0 in a drawn parent is drawn: it stands over what the page draws for it (a
tick box's square, a styled file button), as design systems build them."""

from __future__ import annotations

import json
from collections import Counter

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.interactive import inject
from agents.marks import Mark
from agents.pipeline import Mechanism, Step

# For each box (a mark's element as the aria snapshot placed it): whether the element drawn there is
# not drawn (true), is drawn (false), or cannot be told (null: its centre is outside the viewport,
# or no element at that point has that box). elementsFromPoint lists what the hit test finds at
# a point from the top down, faded elements included, entering open shadow roots.
_READ_JS = inject("""(boxes) => {
  const undrawn = __UNDRAWN__;
  return boxes.map(([x, y, w, h]) => {
    const cx = x + w / 2, cy = y + h / 2;
    if (cx < 0 || cy < 0 || cx >= innerWidth || cy >= innerHeight) return null;
    const same = (r) => Math.abs(r.left - x) <= 1 && Math.abs(r.top - y) <= 1 &&
                        Math.abs(r.width - w) <= 1 && Math.abs(r.height - h) <= 1;
    const find = (root, depth) => {
      for (const el of root.elementsFromPoint(cx, cy)) {
        if (same(el.getBoundingClientRect())) return el;
        if (el.shadowRoot && depth < 4) { const inner = find(el.shadowRoot, depth + 1); if (inner) return inner; }
      }
      return null;
    };
    const el = find(document, 0);
    return el ? undrawn(el) : null;
  });
}""")


class UndrawnConfig(BaseModel):
    undrawn: bool = True


def doubtful(step: Step, marks: list[Mark]) -> list[Mark]:
    """The marks an undrawn twin could mislead: on a subgoal that counts, every mark with an
    element of the current observation; else those whose role and name another mark shares."""
    obs = step.obs
    current = [m for m in marks if m.ref is not None and obs is not None and m.observation_id == obs.id]
    if step.subgoal.nth is not None:
        return current
    twins = Counter((m.role, m.label) for m in current)
    return [m for m in current if twins[(m.role, m.label)] > 1]


class Undrawn(Mechanism):
    name = "undrawn"

    async def drawn(self, step: Step, marks: list[Mark]) -> list[Mark]:
        """The listing without the marks the page does not draw. On a subgoal that counts, every
        control the observation places in view is read too: what the DOM counts (the DOM bridge's
        check of an ordinal, agents/enrichment.py) leaves them out as well (`step.undrawn`)."""
        refs = {m.ref for m in doubtful(step, marks) if m.ref is not None}
        if step.subgoal.nth is not None:
            size = step.page.viewport_size or {"width": 1280, "height": 720}
            refs |= {p.element.ref for p in step.placed if p.element.interactive and p.box.meets(size)}
        # Top-document elements, by the box the snapshot gave each (a frame's are not read).
        boxed = [(ref, el.box) for ref in sorted(refs)
                 if step.obs is not None and (el := step.obs.elements.get(ref)) is not None
                 and el.box is not None and not el.frame]
        if not boxed:
            return marks
        try:
            read = await step.page.evaluate(_READ_JS, [[b.x, b.y, b.width, b.height] for _, b in boxed])
        except PlaywrightError:
            return marks  # the page went away under the read: nothing to say
        step.undrawn |= {ref for (ref, _), undrawn in zip(boxed, read, strict=True) if undrawn is True}
        kept = [m for m in marks if m.ref not in step.undrawn]
        if len(kept) < len(marks):
            step.rec.undrawn = json.dumps(sorted(m.label for m in marks if m.ref in step.undrawn))[:300]
        return kept
