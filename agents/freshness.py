"""Freshness overlay: marks from the previous perception are carried onto the new screenshot for
continuity (a control remembered where it was), unless they are too old or the URL changed."""

from __future__ import annotations

import time
from dataclasses import dataclass

from agents.observation import Box


@dataclass
class PreviousPerception:
    url: str
    step: int
    taken_at: float
    candidates: list[tuple[Box, str, float]]


def overlay(previous: PreviousPerception | None, url: str, step: int, max_steps: int,
            max_age_s: float, current: list[tuple[Box, str, float]]
            ) -> tuple[list[tuple[Box, str, float]], str]:
    """Previous candidates not already covered by a current one, or [] with the reason they were
    suppressed ("", "none", "url_changed", "too_old")."""
    if previous is None:
        return [], "none"
    if previous.url != url:
        return [], "url_changed"
    if step - previous.step > max_steps or time.monotonic() - previous.taken_at > max_age_s:
        return [], "too_old"
    def covered(box: Box) -> bool:
        cx, cy = box.center
        return any(b.x <= cx <= b.x + b.width and b.y <= cy <= b.y + b.height for b, _, _ in current)
    # Remembered marks count for less than what is seen now.
    return [(b, label, conf * 0.8) for b, label, conf in previous.candidates if not covered(b)], ""
