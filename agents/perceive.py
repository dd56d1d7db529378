"""Perceive, enrich and rank stages: the step's vision candidates (reused while the page agrees,
prefetched, or a fresh pass), turned into marks that know their element, ranked for the subgoal.
Without a vision backend the listing is the page's interactive elements as the DOM knows them."""

from __future__ import annotations

import time

from agents.marks import Mark, Placed, Seen, dom_marks
from agents.observation import Box
from agents.perception.base import PerceptionResult, Tier
from agents.pipeline import Step


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


async def place(step: Step) -> None:
    """Every element with a box in viewport coordinates (frames placed by whichever mechanism
    knows the frame geometry; without one, the top document alone)."""
    assert step.obs is not None
    t0 = time.perf_counter()
    mechanisms = step.episode.mechanisms
    for m in mechanisms:
        if (geometry := await m.geometry(step)) is not None:
            step.geometry = geometry
            break
    step.placed = [Placed(el, box) for el in step.obs.elements.values()
                   if el.box is not None and el.box.area > 0
                   and (box := step.geometry.place(el)) is not None]
    step.rec.resolve_ms += _ms(t0)


async def perceive(step: Step) -> None:
    """The step's candidates (`step.seen`); without vision, the DOM's listing (`step.marks`)."""
    episode, rec = step.episode, step.rec
    if episode.backend is None:
        rec.path = "dom"
        step.marks = dom_marks(step.placed, step.obs.id if step.obs else 0)
        rec.candidates = len(step.marks)
        return
    step.tier = tier = episode.tier(step.page.url)
    for m in episode.mechanisms:
        if (reused := m.reuse(step, tier)) is not None:
            rec.path = "procedural"
            step.seen = reused
            return
    rec.path = "declarative"
    for m in episode.mechanisms:
        m.perceiving(step)
    result = None
    for m in episode.mechanisms:
        if (result := await m.prefetched(step, tier)) is not None:
            break
    if result is None:
        result = await vision_call(step, episode.vision_text(step.subgoal), [], tier)
    seen = to_viewport(step, result)
    for m in episode.mechanisms:
        seen = m.perceived(step, result, seen)
    step.seen = seen


async def vision_call(step: Step, subgoal_text: str, hints: list[str], tier: Tier,
                      cap: int | None = None) -> PerceptionResult:
    backend, rec = step.episode.backend, step.rec
    assert backend is not None
    t0 = time.perf_counter()
    png = await step.page.screenshot() if backend.reads_pixels else b""
    step.png = step.png or png or None
    result = await backend.perceive(png, subgoal_text, hints, tier, cap)
    rec.perceive_ms += _ms(t0)
    rec.charge(result.cost)
    if not result.error_type:  # a failed call is recorded below, never counted as a vision call
        rec.vision_calls += 1
        rec.vision_call = True
    if hints:  # the coverage pass keeps its own columns; the primary pass's stay as they were
        rec.coverage_tier, rec.coverage_candidates = tier, len(result.candidates)
    else:
        rec.tier, rec.candidates = tier, len(result.candidates)
    if result.error_type:
        rec.perception_error = f"{result.error_type}: {result.error}"[:300]
    return result


def to_viewport(step: Step, result: PerceptionResult) -> list[Seen]:
    size = step.page.viewport_size or {"width": 1280, "height": 720}
    out = []
    for c in result.candidates:
        x, y, w, h = c.box.to_pixels(size["width"], size["height"])
        out.append(Seen(Box(x=x, y=y, width=w, height=h), c.label, c.confidence))
    return out


async def enrich(step: Step, seen: list[Seen]) -> list[Mark]:
    """Marks for the candidates: through the DOM bridge if there is one, else as vision saw them."""
    t0 = time.perf_counter()
    mechanisms = step.episode.mechanisms
    for m in mechanisms:
        seen = m.before_bridge(step, seen)
    marks = next((got for m in mechanisms if (got := m.bridge(step, seen)) is not None), None)
    if marks is None:
        marks = [Mark(number=i, box=s.box, label=s.label, confidence=s.confidence, source="vision")
                 for i, s in enumerate(seen, 1)]
        step.rec.unmatched = len(marks)
    for m in mechanisms:
        marks = m.after_bridge(step, marks)
    for m in mechanisms:
        marks = await m.bind(step, seen, marks)
    step.rec.enrich_ms += _ms(t0)
    return marks


async def drawn(step: Step, marks: list[Mark]) -> list[Mark]:
    """The marks a person could see (a mechanism may leave out what the page does not draw)."""
    for m in step.episode.mechanisms:
        marks = await m.drawn(step, marks)
    return marks


def rank(step: Step, marks: list[Mark]) -> list[Mark]:
    t0 = time.perf_counter()
    for m in step.episode.mechanisms:
        marks = m.rank(step, marks)
    step.rec.rank_ms += _ms(t0)
    return marks


async def listing(step: Step) -> None:
    """Perceive, enrich, rank: the step's marks."""
    await perceive(step)
    if step.episode.backend is not None:
        step.marks = await enrich(step, step.seen)
    step.marks = rank(step, await drawn(step, step.marks))
