"""Viewport scope: a step reads the page around what is in view, and the whole document only when
the subgoal's target may lie outside the viewport.

A full-page aria snapshot costs in proportion to the document (about 1 s at 13,000 elements on a
2-core machine), a screenshot in proportion to the viewport. The fingerprint walk, which runs every
step anyway, also lists the containers that hold the controls in view (`Fingerprint.scopes`) and
the labels of the controls outside it (`Fingerprint.offscreen`). This module decides, per step:

- `document` when the page fits about one viewport (the snapshot is small anyway), when no
  fingerprint could be taken, when the view is split into more containers than reading them one
  by one is worth, or when a control outside the viewport is named like the subgoal's target
  (the DOM bridge must see it to scroll to it);
- `viewport` otherwise: one scoped snapshot per container (agents/observation.py).

Switched off (`viewport_scope=false`), every step reads the whole document."""

from __future__ import annotations

from pydantic import BaseModel

from agents.fingerprint import Fingerprint
from agents.pipeline import Mechanism, Step
from agents.worker.fit import STOP_WORDS
from tasks.schema import Subgoal
from tasks.text_match import words

# More containers than this in view (a wall of small tiles) and one document read is cheaper
# (scoped reads are issued together; each costs about a millisecond of renderer time plus its share
# of the round trips).
MAX_SCOPES = 48


def wanted_words(subgoal: Subgoal) -> tuple[set[str], bool]:
    """The words a target must show: all of the expected label's (True), else any of the
    description's content words (False)."""
    if subgoal.label:
        return set(words(subgoal.label)), True
    return {w for w in words(subgoal.target or "") if w not in STOP_WORDS}, False


def named_like(subgoal: Subgoal, labels: tuple[str, ...]) -> bool:
    """Some label could name the subgoal's target: it shows every word of the expected label, or
    (without one) a content word of the description."""
    want, all_of = wanted_words(subgoal)
    if not want:
        return False
    # Cheap prefilter over every label at once before any per-label word split.
    joined = "\n".join(labels).lower()
    if not any(w in joined for w in want):
        return False
    for label in labels:
        have = set(words(label))
        if (want <= have) if all_of else (want & have):
            return True
    return False


def choose(subgoal: Subgoal, fp: Fingerprint | None) -> tuple[tuple[str, ...] | None, str]:
    """(scopes to read, or None for the whole document; the reason, recorded in the trace)."""
    if fp is None:
        return None, "no_fingerprint"
    if fp.scopes is None:
        return None, "small_page"
    if not fp.scopes:
        return None, "nothing_in_view"
    if len(fp.scopes) > MAX_SCOPES:
        return None, "many_scopes"
    if subgoal.targeted and named_like(subgoal, fp.offscreen):
        return None, "target_may_be_offscreen"
    return fp.scopes, "in_view"


class ViewportScopeConfig(BaseModel):
    viewport_scope: bool = True


class ViewportScope(Mechanism):
    name = "viewport_scope"

    def scopes(self, step: Step) -> tuple[tuple[str, ...] | None, str]:
        return choose(step.subgoal, step.fp_before)
