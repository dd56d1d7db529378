"""Dead-action guard: a no-op is evidence. An action that changed nothing questions the reference
frame, so the next step perceives afresh instead of retrying; a target that stays dead after
repeated attempts is dropped for the rest of the subgoal. "Repeated" means at least `limit`
no-ops spread over at least `min_span_ms`: a control that ignores clicks until the page has
finished starting up (hydration) is slow, not dead. With agents/schedule.py, the last `limit`
no-ops count however close together they came when after each of them the page had nothing
scheduled (no timer due, nothing in flight): a page that is still starting up has, and a click
made after such a look met the page as the look left it. A toggle whose state changed is an effect even
without structural mutation, so it never counts here.

A target is known across observations by its role, its name and where it is drawn
(`agents.marks.TargetIdentity`): refs are per observation, and a vision box moves a little from one
perception to the next (the model's jitter), so two identities are the same target when role and
name agree and their boxes overlap by half (intersection over union)."""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, Field

from agents.marks import Mark, TargetIdentity
from agents.pipeline import Mechanism, Step


class DeadActionGuardConfig(BaseModel):
    dead_action_guard: bool = True
    dead_action_limit: int = Field(2, ge=1)
    dead_action_min_ms: int = Field(1000, ge=0)  # ...no-ops spread over at least this long


class DeadActionGuard:
    def __init__(self, limit: int, min_span_ms: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.min_span_s, self.clock = limit, min_span_ms / 1000, clock
        self.noops: dict[TargetIdentity, int] = {}
        self.first_noop: dict[TargetIdentity, float] = {}
        self.still: dict[TargetIdentity, list[bool]] = {}  # per no-op: the page had nothing scheduled
        self.dead: set[TargetIdentity] = set()

    def no_effect(self, target: TargetIdentity, still: bool = False) -> bool:
        """Record a no-op on a target (`still`: the page had nothing scheduled that could still
        answer it); True when the target is now considered dead."""
        now = self.clock()
        key = next((k for k in self.noops if k.same_target(target)), target)
        self.noops[key] = self.noops.get(key, 0) + 1
        first = self.first_noop.setdefault(key, now)
        stills = self.still.setdefault(key, [])
        stills.append(still)
        if self.noops[key] >= self.limit and (now - first >= self.min_span_s or all(stills[-self.limit:])):
            self.dead.add(key)
            return True
        return False

    def effective(self) -> None:
        self.noops.clear()
        self.first_noop.clear()
        self.still.clear()

    def next_subgoal(self) -> None:
        self.effective()
        self.dead.clear()


class DeadActionGuarding(Mechanism):
    name = "dead_action_guard"

    def __init__(self, limit: int, min_span_ms: float) -> None:
        self.guard = DeadActionGuard(limit, min_span_ms)

    def excluded(self) -> frozenset[TargetIdentity]:
        return frozenset(self.guard.dead)

    def no_effect(self, step: Step, mark: Mark) -> None:
        step.rec.dead_action_trigger = True
        self.guard.no_effect(mark.identity, step.still)
        step.episode.fresh_required = True  # question the reference frame: perceive afresh

    def effective(self) -> None:
        self.guard.effective()

    def subgoal_done(self) -> None:
        self.guard.next_subgoal()
