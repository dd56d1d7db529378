"""Coverage pass: when the label a subgoal expects is not among the candidates, one extra vision
pass with that label as a hint and a larger cap. Its results are used once and never cached."""

from __future__ import annotations

from agents.marks import Mark
from agents.text_match import label_matches


def missing_label(marks: list[Mark], expected: str | None) -> bool:
    """True when no mark shows the expected label."""
    return bool(expected) and not any(label_matches(expected or "", m.label) for m in marks)
