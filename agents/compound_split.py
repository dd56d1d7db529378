"""Compound split: a vision box spanning a row that holds interactive elements (label text plus a
small chevron, say) is split into those elements, so the action can reach the part that works.
The resolver then prefers the part with expansion or toggle semantics for expand/toggle goals.

A model's box edges are imprecise: a row box can end a few pixels short of the button at its end.
An element is a part when it lies inside the box, or when at least half of it does and the box's
text names it (every word of the element's name is in the box's label)."""

from __future__ import annotations

from agents.enrichment import element_mark
from agents.marks import Mark
from agents.observation import Box, Element
from agents.text_match import label_matches

# A sub-element smaller than this share of the candidate box is a part of a compound region.
PART_SHARE = 0.6
# ...and one the box's label names is a part when at least this share of it is inside the box.
NAMED_OVERLAP = 0.5


def _inside(inner: Box, outer: Box, slack: float = 4.0) -> bool:
    return (inner.x >= outer.x - slack and inner.y >= outer.y - slack
            and inner.x + inner.width <= outer.x + outer.width + slack
            and inner.y + inner.height <= outer.y + outer.height + slack)


def _share_inside(inner: Box, outer: Box) -> float:
    ix = max(0.0, min(inner.x + inner.width, outer.x + outer.width) - max(inner.x, outer.x))
    iy = max(0.0, min(inner.y + inner.height, outer.y + outer.height) - max(inner.y, outer.y))
    return ix * iy / inner.area if inner.area > 0 else 0.0


def _part_of(el: Element, b: Box, box: Box, label: str) -> bool:
    if b.area >= PART_SHARE * box.area:
        return False
    if _inside(b, box):
        return True
    return bool(el.label) and _share_inside(b, box) >= NAMED_OVERLAP and label_matches(el.label, label)


def split(candidates: list[tuple[Box, str, float]], elements: list[tuple[Element, Box]]
          ) -> tuple[list[tuple[Box, str, float]], list[tuple[Element, Box, float]], int]:
    """Separate compound candidates: returns the candidates left whole, the parts found inside
    compound ones (element, box, confidence), and how many candidates were split."""
    interactive = [(el, b) for el, b in elements if el.interactive]
    whole: list[tuple[Box, str, float]] = []
    parts: list[tuple[Element, Box, float]] = []
    n_split = 0
    for box, label, conf in candidates:
        inside = [(el, b) for el, b in interactive if _part_of(el, b, box, label)]
        if inside:
            n_split += 1
            parts.extend((el, b, conf) for el, b in inside)
        else:
            whole.append((box, label, conf))
    return whole, parts, n_split


def add_parts(marks: list[Mark], parts: list[tuple[Element, Box, float]], observation_id: int
              ) -> list[Mark]:
    seen = {m.ref for m in marks if m.ref}
    out = list(marks)
    for el, box, conf in parts:
        if el.ref not in seen:
            seen.add(el.ref)
            out.append(element_mark(len(out) + 1, el, box, conf, "vision", observation_id))
    return out


def prefers_toggle(mark: Mark) -> bool:
    """A part that opens or toggles something: aria-expanded, pressed or checked semantics."""
    return "expanded" in mark.states or "pressed" in mark.states or mark.role in (
        "checkbox", "switch") or "expand" in mark.label.lower()
