"""Enrich stage (the DOM bridge): match each vision candidate to a live element and attach what
pixels do not show — role, accessible name, expanded/checked/pressed/selected/disabled, context.

A candidate maps to the smallest interactive element (a control, or a plain element the page
made clickable: `Element.target`) under its centre (text similarity breaks ties), else to an
element it mostly overlaps with a shared word; otherwise it stays unmatched.

What a control shows is part of its name (WCAG's "label in name"; a field shows its value
instead), so an element under the centre whose name shares no word with what vision read there
is not what vision saw: it lies under something drawn over it (an open suggestion list over the
form's button, a popup over a field). Such a candidate stays unmatched — the hit test
(agents/hit_binding.py) or the coordinates reach what is really drawn there. A picture vision
named ("trash icon") is no text read, and binds as before."""

from __future__ import annotations

from pydantic import BaseModel

from agents.marks import Mark, Placed, Seen, dom_marks, element_mark, iou
from agents.observation import Box, Element
from agents.pipeline import Mechanism, Step, Unseen
from agents.worker.base import PlanFollower
from tasks.text_match import ICON_WORDS, jaccard, near, words

# An element of the DOM must fit the subgoal this much better than every mark to count as missed.
MISSED_MARGIN = 0.2


class EnrichmentConfig(BaseModel):
    enrichment: bool = True


def _contains(box: Box, x: float, y: float) -> bool:
    return box.x <= x <= box.x + box.width and box.y <= y <= box.y + box.height


# Controls that show a value, not their name: a field shows what was typed in it, a select its
# option; vision reads that.
SHOWS_VALUE = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider", "listbox"})


def _contradicts(label: str, element: Element) -> bool:
    """Vision read words there (one of three letters or more) and the element's name has words,
    and not one of them is shared (a dropped character of a noisy label still counts as shared);
    never for a control that shows a value rather than its name, nor for a picture vision named."""
    if element.role in SHOWS_VALUE or ICON_WORDS & set(words(label)):
        return False
    seen, named = [w for w in words(label) if len(w) >= 3], set(words(element.label))
    return bool(seen) and bool(named) and not any(near(w, named) for w in seen) \
        and not any(near(w, set(words(label))) for w in named if len(w) >= 3)


def match(box: Box, label: str, elements: list[Placed]) -> Element | None:
    cx, cy = box.center
    under = [p for p in elements if _contains(p.box, cx, cy)]
    if under and all(_contradicts(label, p.element) for p in under):
        return None
    if under:
        # An element that says what the model read wins over a smaller one that does not (a
        # field hidden under an open dropdown lies under the option's centre too).
        return min(under, key=lambda p: (jaccard(label, p.element.label) == 0, p.box.area)).element
    overlapping = [(iou(box, p.box) + jaccard(label, p.element.label), p.element) for p in elements
                   if iou(box, p.box) >= 0.3 and jaccard(label, p.element.label) > 0]
    return max(overlapping, key=lambda se: se[0])[1] if overlapping else None


def bridge(candidates: list[Seen], elements: list[Placed], observation_id: int) -> tuple[list[Mark], int]:
    """Marks for vision candidates; and how many found no live element. Controls and the plain
    elements a page made clickable only; two candidates on one element make one mark."""
    targets = [p for p in elements if p.element.target]
    marks: list[Mark] = []
    refs: set[str] = set()
    unmatched = 0
    for seen in candidates:
        el = match(seen.box, seen.label, targets)
        if el is None:
            unmatched += 1
            marks.append(Mark(number=len(marks) + 1, box=seen.box, label=seen.label,
                              confidence=seen.confidence, source="vision"))
        elif el.ref not in refs:
            refs.add(el.ref)
            placed = next(p for p in targets if p.element.ref == el.ref)
            marks.append(element_mark(len(marks) + 1, placed, seen.confidence, "vision", observation_id))
    return marks, unmatched


class Enrichment(Mechanism):
    """The DOM bridge in the pipeline; it also knows the whole document, so it can tell when
    perception missed the target (`missed`)."""

    name = "enrichment"

    def bridge(self, step: Step, seen: list[Seen]) -> list[Mark]:
        marks, step.rec.unmatched = bridge(seen, step.placed, step.obs.id if step.obs else 0)
        return marks

    def missed(self, step: Step) -> Unseen | None:
        """An element that fits the subgoal clearly better than every candidate: (that element,
        whether it is in view). In view, perception must see it (the DOM alone never becomes the
        target); out of view, the agent scrolls to it."""
        worker, choice = step.episode.worker, step.choice
        if step.episode.backend is None or not isinstance(worker, PlanFollower) or step.obs is None:
            return None
        size = step.page.viewport_size or {"width": 1280, "height": 720}
        placed = [p for p in step.placed if p.element.ref not in step.undrawn]
        counts = step.subgoal.nth is not None
        if counts:
            # An ordinal counts what is drawn in view, as vision does: elements scrolled out of
            # view would shift the DOM's count, not vision's.
            placed = [p for p in placed if p.box.meets(size)]
        best = worker.match(step.subgoal, dom_marks(placed, step.obs.id),
                            step.episode.excluded(), step.episode.prefer_toggle)
        chosen = choice.mark if choice is not None else None
        if best.mark is None:
            return None
        # Counting, vision's nth and the DOM's differ when vision missed one before the target.
        recount = counts and chosen is not None and chosen.ref is not None \
            and best.mark.ref != chosen.ref
        if not recount and chosen is not None and choice is not None \
                and best.score <= choice.score + MISSED_MARGIN:
            return None
        box = best.mark.box
        return Unseen(best.mark, box.y + box.height > 0 and box.y < size["height"])

