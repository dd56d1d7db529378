"""Coverage pass: when the label a subgoal expects is not among the candidates, one extra vision
pass with that label as a hint and a larger cap. Its results are used once and never cached."""

from __future__ import annotations

from agents.enrichment import words
from agents.marks import Mark


def missing_label(marks: list[Mark], expected: str | None) -> bool:
    """True when no mark's label carries every word of the expected label."""
    if not expected:
        return False
    want = words(expected)
    return not any(want <= words(m.label) for m in marks)
