"""Folded clickables: a control a page writes by hand (a `<div>` with a pointer cursor and a tab
stop that opens a list of countries, a sort order, a species) sits alone in a wrapper, and
Playwright's accessibility snapshot folds it into that wrapper: the snapshot keeps the wrapper (a
generic saying "United Kingdom") and drops the control with its pointer cursor. Without vision
nothing in the listing then answers "Country or region dropdown showing United Kingdom": the
wrapper is no control and no plain clickable (agents/observation.py, `Element.clickable`).

When nothing fits a subgoal, the agent reads, in each frame (one evaluate per frame), where an
element starts a pointer cursor (its parent's cursor is another) or is a tab stop, with its box
and text. A plain element of the observation with words of its own whose box
is that element's (they overlap by `FOLD_IOU`) and whose words it says is listed as a clickable
too, the innermost of those with the same box; the worker is asked again with them, and a choice
among them is acted on like any other (recorded as `effect` `folded: ...`). Cost: one evaluate per
frame on a step where nothing fits; nothing on other steps."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from agents.marks import Mark, Placed, element_mark, iou
from agents.observation import PLAIN_ROLES, Box
from agents.pipeline import Mechanism, Step
from tasks.text_match import words

# Where the cursor turns to a pointer or a tab stop is: box and text each, in the frame's viewport.
# (Controls are among them; only plain elements of the observation are matched against them.)
_STARTS_JS = """() => {
  const out = [];
  const cursor = (el) => el ? getComputedStyle(el).cursor : "";
  for (const el of document.querySelectorAll("body *")) {
    const pointer = cursor(el) === "pointer" && cursor(el.parentElement) !== "pointer";
    const stop = el.hasAttribute("tabindex") && el.tabIndex >= 0;
    if (!pointer && !stop) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) continue;
    out.push([r.x, r.y, r.width, r.height, (el.innerText || "").slice(0, 200)]);
  }
  return out;
}"""

FOLD_IOU = 0.8  # a wrapper is its control's fold when their boxes overlap this much


class FoldedConfig(BaseModel):
    folded: bool = True


class Folded(Mechanism):
    name = "folded"

    async def unlisted(self, step: Step) -> list[Mark]:
        if step.obs is None:
            return []
        read = await asyncio.gather(*(f.evaluate(_STARTS_JS) for f in step.page.frames if not f.is_detached()),
                                    return_exceptions=True)
        starts = [(Box(x=x, y=y, width=w, height=h), set(words(text)))
                  for got in read if isinstance(got, list) for x, y, w, h, text in got]
        if not starts:
            return []
        listed = {m.ref for m in step.marks if m.ref is not None}
        folds: dict[int, Placed] = {}  # the start's index: the innermost plain element folded onto it
        for placed in step.placed:
            el = placed.element
            if el.target or el.role not in PLAIN_ROLES or el.box is None or el.ref in listed:
                continue
            said = set(words(el.label))
            for i, (box, text) in enumerate(starts):
                if said and said <= text and iou(el.box, box) >= FOLD_IOU and (
                        i not in folds or folds[i].element.depth < el.depth):
                    folds[i] = placed
        # (one element may be the fold of two starts of one box: a tab stop around a pointer)
        unique = {placed.element.ref: placed for placed in folds.values()}
        number = max((m.number for m in step.marks), default=0)
        return [element_mark(number + n, placed, 1.0, "dom", step.obs.id)
                for n, placed in enumerate(unique.values(), 1)]
