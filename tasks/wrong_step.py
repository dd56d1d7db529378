"""Which step of an episode went wrong first: one rule for the agent, which keeps that step's
Set-of-Mark image, and for the report's failure gallery, which shows it.

A step went wrong when its record says so:

0. its effect set something wrong in the server state (`state_wrong`, judged by the harness against
   the task's success checks: the "16 GB" chosen under Graphics memory when Memory wants it); or
1. it failed or had no effect: an error (`no_effect`, `no_target`, `action_error`, `stale_ref`,
   `worker_error`, ...) on a step whose action was not effective; or
2. it acted on a target that does not show the label the plan names (`subgoal_label`; not an
   opener the agent clicked to reveal the target).

A look-alike with the right label in the wrong place is found by rule 0 only, from what it wrote:
matching the target's context against the plan's description flagged 20 of the 126 steps of 35
successful fixture episodes (the full agent, seed 0), so no such rule is applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tasks.text_match import label_matches
from tasks.trace import StepRecord

Record = StepRecord | Mapping[str, Any]


def _field(rec: Record, key: str) -> Any:
    if isinstance(rec, Mapping):
        return rec.get(key)
    return getattr(rec, key, None)


def went_wrong(rec: Record) -> str:
    """Why this step went wrong, or "" when nothing in its record says it did."""
    if state_wrong := _field(rec, "state_wrong"):
        return f"set {state_wrong}"
    error_type = _field(rec, "error_type") or ""
    if error_type and not _field(rec, "effective"):
        error = _field(rec, "error") or ""
        return f"{error_type}: {error}" if error else error_type
    name = _field(rec, "target_name") or ""
    if not name or not _field(rec, "action") or (_field(rec, "effect") or "").startswith("revealed"):
        return ""  # nothing chosen, nothing done, or an opener of what may hide the target
    label = _field(rec, "subgoal_label") or ""
    if label and not label_matches(label, name):
        return f"chose “{name}”, but the plan's target shows “{label}”"
    return ""


def first_wrong(steps: Iterable[Record]) -> tuple[Record, str] | None:
    """The first step that went wrong, with the reason; None when none did."""
    for rec in steps:
        why = went_wrong(rec)
        if why:
            return rec, why
    return None
