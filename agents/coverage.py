"""Coverage pass: when the label a subgoal expects is not among the candidates, one extra vision
pass with that label as a hint and a larger cap. Its results are used once and never cached.
The same second look is taken when nothing fits the subgoal at all, when the DOM bridge knows
of a better fit in view than anything perceived, when vision reused from an earlier step shows
the expected label only inside longer names, or when an ordinal ("the 2nd slider") was counted
among marks only vision drew (a miss before the target would shift the count)."""

from __future__ import annotations

from pydantic import BaseModel

from agents.marks import Mark
from agents.pipeline import Mechanism, Recovery, Step
from agents.worker.fit import shows_label
from tasks.text_match import words


class CoverageConfig(BaseModel):
    coverage: bool = True
    coverage_cap: int = 200


def missing_label(marks: list[Mark], expected: str | None) -> bool:
    """True when no mark shows the expected label."""
    return bool(expected) and not any(shows_label(expected or "", m) for m in marks)


def only_longer_names(marks: list[Mark], expected: str | None) -> bool:
    """True when marks show the expected label only inside longer names ("Night Drive Mix" for
    "Night Drive"): the one that is exactly it may be there unlisted."""
    want = words(expected or "")
    return bool(want) and not any(words(m.label) == want for m in marks)


class Coverage(Mechanism):
    name = "coverage"

    def __init__(self, cap: int) -> None:
        self.cap = cap

    async def recover(self, step: Step, pipeline: Recovery) -> None:
        choice = step.choice
        if step.episode.backend is None or choice is None:
            return
        # A reused epoch was listed for an earlier subgoal (its cap kept what fitted that one): when
        # it shows the label only inside longer names, look again before acting on a near miss.
        # (Not after a region reuse: where the page changed, its candidates are the new
        # observation's own controls, and a better fit the DOM knows elsewhere is `unseen`.)
        reused_near_miss = step.rec.cache == "hit" and only_longer_names(step.marks, step.subgoal.label)
        # "The 2nd slider" counted among what vision happened to draw (no role, no peers the page
        # counted): a miss before it shifts the count, so vision is asked for every one of its kind
        counted_by_sight = step.subgoal.nth is not None and choice.mark is not None \
            and not choice.mark.role and not choice.mark.peers
        if not (missing_label(step.marks, step.subgoal.label) or reused_near_miss or counted_by_sight
                or (choice.reply is None and not choice.satisfied)
                or (step.unseen is not None and step.unseen.in_view)):
            return
        step.rec.coverage_pass = True
        await pipeline.look_again(step, [step.subgoal.label or step.subgoal.target or ""], self.cap)
        choice = step.choice
        step.rec.coverage_recovered = choice is not None and (choice.reply is not None or choice.satisfied)
