"""Subgoal relevance: the active subgoal's words go to the vision stage, and candidates are ranked
by how well they fit it, so the worker is not handed every visible affordance as equally useful."""

from __future__ import annotations

from pydantic import BaseModel

from agents.marks import Mark
from agents.pipeline import Mechanism, Step
from agents.worker.fit import ARTICLES
from tasks.schema import Subgoal
from tasks.text_match import word_set

# Words that say nothing of which control is meant: a mark is no more relevant for holding "the"
# or "of" ("The Independente Suites" for "View deal button of the first result").
FUNCTION_WORDS = ARTICLES | {"of", "to", "in", "on", "at", "by", "for", "and", "or", "with", "into", "from"}


class SubgoalRelevanceConfig(BaseModel):
    subgoal_relevance: bool = True


def relevance(mark: Mark, subgoal_text: str) -> float:
    """The share of the subgoal's words (not its function words) the mark's label, role and
    context hold."""
    want = word_set(subgoal_text) - FUNCTION_WORDS
    have = word_set(" ".join((mark.label, mark.role, *mark.context)))
    return round(len(want & have) / len(want), 3) if want else 0.0


def rank(marks: list[Mark], subgoal_text: str) -> list[Mark]:
    """Marks ordered by relevance (stable), renumbered 1..N in that order."""
    scored = [m.model_copy(update={"relevance": relevance(m, subgoal_text)}) for m in marks]
    scored.sort(key=lambda m: -m.relevance)
    return [m.model_copy(update={"number": i}) for i, m in enumerate(scored, start=1)]


class SubgoalRelevance(Mechanism):
    name = "subgoal_relevance"

    def vision_text(self, subgoal: Subgoal) -> str:
        return subgoal.target or ""

    def rank(self, step: Step, marks: list[Mark]) -> list[Mark]:
        return rank(marks, step.episode.vision_text(step.subgoal))
