"""Subgoal relevance: the active subgoal's words go to the vision stage, and candidates are ranked
by how well they fit it, so the worker is not handed every visible affordance as equally useful."""

from __future__ import annotations

from agents.enrichment import words
from agents.marks import Mark


def relevance(mark: Mark, subgoal_text: str) -> float:
    want = words(subgoal_text)
    if not want:
        return 0.0
    have = words(mark.label) | words(mark.role) | {w for c in mark.context for w in words(c)}
    return round(len(want & have) / len(want), 3)


def rank(marks: list[Mark], subgoal_text: str) -> list[Mark]:
    """Marks ordered by relevance (stable), renumbered 1..N in that order."""
    scored = [m.model_copy(update={"relevance": relevance(m, subgoal_text)}) for m in marks]
    scored.sort(key=lambda m: -m.relevance)
    return [m.model_copy(update={"number": i}) for i, m in enumerate(scored, start=1)]
