"""Subgoal relevance: the active subgoal's words go to the vision stage, and candidates are ranked
by how well they fit it, so the worker is not handed every visible affordance as equally useful."""

from __future__ import annotations

from agents.marks import Mark
from agents.text_match import coverage


def relevance(mark: Mark, subgoal_text: str) -> float:
    return round(coverage(subgoal_text, " ".join((mark.label, mark.role, *mark.context))), 3)


def rank(marks: list[Mark], subgoal_text: str) -> list[Mark]:
    """Marks ordered by relevance (stable), renumbered 1..N in that order."""
    scored = [m.model_copy(update={"relevance": relevance(m, subgoal_text)}) for m in marks]
    scored.sort(key=lambda m: -m.relevance)
    return [m.model_copy(update={"number": i}) for i, m in enumerate(scored, start=1)]
