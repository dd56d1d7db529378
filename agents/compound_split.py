"""Compound split: a vision box spanning a row that holds interactive elements (label text plus a
small chevron, say) is split into those elements, so the action can reach the part that works.
The resolver then prefers the part with expansion or toggle semantics for expand/toggle goals.

A model's box edges are imprecise: a row box can end a few pixels short of the button at its end.
An element is a part when it lies inside the box, or when at least half of it does and the box's
text names it (every word of the element's name is in the box's label)."""

from __future__ import annotations

from pydantic import BaseModel

from agents.marks import Mark, Placed, Seen, element_mark
from agents.observation import Box
from agents.pipeline import Episode, Mechanism, Step
from tasks.text_match import label_matches

# A sub-element smaller than this share of the candidate box is a part of a compound region.
PART_SHARE = 0.6
# ...and one the box's label names is a part when at least this share of it is inside the box.
NAMED_OVERLAP = 0.5


class CompoundSplitConfig(BaseModel):
    compound_split: bool = True


def _inside(inner: Box, outer: Box, slack: float = 4.0) -> bool:
    return (inner.x >= outer.x - slack and inner.y >= outer.y - slack
            and inner.x + inner.width <= outer.x + outer.width + slack
            and inner.y + inner.height <= outer.y + outer.height + slack)


def _share_inside(inner: Box, outer: Box) -> float:
    ix = max(0.0, min(inner.x + inner.width, outer.x + outer.width) - max(inner.x, outer.x))
    iy = max(0.0, min(inner.y + inner.height, outer.y + outer.height) - max(inner.y, outer.y))
    return ix * iy / inner.area if inner.area > 0 else 0.0


def _part_of(part: Placed, seen: Seen) -> bool:
    b, box = part.box, seen.box
    if b.x > box.x + box.width + 4 or box.x > b.x + b.width + 4 or b.y > box.y + box.height + 4 \
            or box.y > b.y + b.height + 4:
        return False  # apart (most pairs): neither inside nor overlapping
    if b.area >= PART_SHARE * box.area:
        return False
    if _inside(b, box):
        return True
    return bool(part.element.label) and _share_inside(b, box) >= NAMED_OVERLAP and \
        label_matches(part.element.label, seen.label)


def split(candidates: list[Seen], elements: list[Placed]
          ) -> tuple[list[Seen], list[tuple[Placed, float]], int]:
    """Separate compound candidates: returns the candidates left whole, the parts found inside
    compound ones (element, confidence), and how many candidates were split."""
    interactive = [p for p in elements if p.element.interactive]
    whole: list[Seen] = []
    parts: list[tuple[Placed, float]] = []
    n_split = 0
    for seen in candidates:
        inside = [p for p in interactive if _part_of(p, seen)]
        if inside:
            n_split += 1
            parts.extend((p, seen.confidence) for p in inside)
        else:
            whole.append(seen)
    return whole, parts, n_split


def add_parts(marks: list[Mark], parts: list[tuple[Placed, float]], observation_id: int) -> list[Mark]:
    seen = {m.ref for m in marks if m.ref}
    out = list(marks)
    for part, conf in parts:
        if part.element.ref not in seen:
            seen.add(part.element.ref)
            out.append(element_mark(len(out) + 1, part, conf, "vision", observation_id))
    return out


class CompoundSplit(Mechanism):
    """Splits before the DOM bridge, adds the parts after it; and tells the worker that for an
    expand goal a part with toggle semantics beats the row it sits in."""

    name = "compound_split"

    def __init__(self) -> None:
        self._parts: list[tuple[Placed, float]] = []

    async def start(self, episode: Episode) -> None:
        episode.prefer_toggle = True

    def before_bridge(self, step: Step, seen: list[Seen]) -> list[Seen]:
        whole, self._parts, step.rec.split = split(seen, step.placed)
        return whole

    def after_bridge(self, step: Step, marks: list[Mark]) -> list[Mark]:
        parts, self._parts = self._parts, []
        return add_parts(marks, parts, step.obs.id if step.obs else 0) if parts else marks
