"""Enrich stage (the DOM bridge): match each vision candidate to a live element and attach what
pixels do not show — role, accessible name, expanded/checked/pressed/selected/disabled, context.

A candidate maps to the smallest interactive element under its centre (text similarity breaks
ties), else to an element it mostly overlaps with a shared word; otherwise it stays unmatched."""

from __future__ import annotations

from agents.marks import Mark
from agents.observation import Box, Element
from agents.text_match import jaccard

STATE_KEYS = ("checked", "expanded", "pressed", "selected", "disabled")


def _contains(box: Box, x: float, y: float) -> bool:
    return box.x <= x <= box.x + box.width and box.y <= y <= box.y + box.height


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
    iy = max(0.0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
    inter = ix * iy
    union = a.area + b.area - inter
    return inter / union if union > 0 else 0.0


def match(box: Box, label: str, elements: list[tuple[Element, Box]]) -> Element | None:
    cx, cy = box.center
    under = [(el, b) for el, b in elements if _contains(b, cx, cy)]
    if under:
        # An element that says what the model read wins over a smaller one that does not (a
        # field hidden under an open dropdown lies under the option's centre too).
        return min(under, key=lambda eb: (jaccard(label, eb[0].label) == 0, eb[1].area))[0]
    overlapping = [(iou(box, b) + jaccard(label, el.label), el) for el, b in elements
                   if iou(box, b) >= 0.3 and jaccard(label, el.label) > 0]
    return max(overlapping, key=lambda se: se[0])[1] if overlapping else None


def element_mark(number: int, el: Element, box: Box, confidence: float, source: str,
                 observation_id: int) -> Mark:
    return Mark(number=number, box=box, label=el.label, role=el.role,
                states={k: v for k, v in el.states.items() if k in STATE_KEYS},
                context=el.context, ref=el.ref, observation_id=observation_id, frame=el.frame,
                confidence=confidence, source=source)  # type: ignore[arg-type]


def bridge(candidates: list[tuple[Box, str, float]], elements: list[tuple[Element, Box]],
           observation_id: int) -> tuple[list[Mark], int]:
    """Marks for vision candidates (box in viewport px, label, confidence); and how many found no
    live element. Interactive elements only; two candidates on one element make one mark."""
    interactive = [(el, b) for el, b in elements if el.interactive]
    marks: list[Mark] = []
    seen: set[str] = set()
    unmatched = 0
    for box, label, conf in candidates:
        el = match(box, label, interactive)
        if el is None:
            unmatched += 1
            marks.append(Mark(number=len(marks) + 1, box=box, label=label, confidence=conf,
                              source="vision"))
        elif el.ref not in seen:
            seen.add(el.ref)
            vp_box = next(b for e, b in interactive if e.ref == el.ref)
            marks.append(element_mark(len(marks) + 1, el, vp_box, conf, "vision", observation_id))
    return marks, unmatched
