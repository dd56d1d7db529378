"""Freshness overlay: marks from the previous perception are carried onto the new screenshot for
continuity (a control remembered where it was), unless they are too old or the URL changed."""

from __future__ import annotations

import time
from dataclasses import dataclass

from pydantic import BaseModel

from agents.marks import Seen
from agents.perception.base import PerceptionResult
from agents.pipeline import Mechanism, Step


class FreshnessConfig(BaseModel):
    freshness: bool = True
    freshness_max_steps: int = 2
    freshness_max_age_s: float = 10.0


@dataclass
class PreviousPerception:
    url: str
    step: int
    taken_at: float
    candidates: list[Seen]


def overlay(previous: PreviousPerception | None, url: str, step: int, max_steps: int,
            max_age_s: float, current: list[Seen]) -> tuple[list[Seen], str]:
    """Previous candidates not already covered by a current one, or [] with the reason they were
    suppressed ("", "none", "url_changed", "too_old")."""
    if previous is None:
        return [], "none"
    if previous.url != url:
        return [], "url_changed"
    if step - previous.step > max_steps or time.monotonic() - previous.taken_at > max_age_s:
        return [], "too_old"
    def covered(seen: Seen) -> bool:
        cx, cy = seen.box.center
        return any(c.box.x <= cx <= c.box.x + c.box.width and c.box.y <= cy <= c.box.y + c.box.height
                   for c in current)
    # Remembered marks count for less than what is seen now.
    return [Seen(s.box, s.label, s.confidence * 0.8) for s in previous.candidates if not covered(s)], ""


class Freshness(Mechanism):
    name = "freshness"

    def __init__(self, max_steps: int, max_age_s: float) -> None:
        self.max_steps, self.max_age_s = max_steps, max_age_s
        self.previous: PreviousPerception | None = None

    def perceived(self, step: Step, result: PerceptionResult, seen: list[Seen]) -> list[Seen]:
        url = step.page.url
        extra, step.rec.overlay_suppressed = overlay(self.previous, url, step.number, self.max_steps,
                                                     self.max_age_s, seen)
        step.rec.overlay_marks = len(extra)
        self.previous = PreviousPerception(url, step.number, time.monotonic(), seen)
        return seen + extra
