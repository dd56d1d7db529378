"""Dead-action guard: a no-op is evidence. An action that changed nothing questions the reference
frame, so the next step perceives afresh instead of retrying; a target that stays dead after
repeated attempts is dropped for the rest of the subgoal. "Repeated" means at least `limit`
no-ops spread over at least `min_span_ms`: a control that ignores clicks until the page has
finished starting up (hydration) is slow, not dead. A toggle whose state changed is an effect even
without structural mutation, so it never counts here.

A target is known across observations by its role, its name and where it is drawn
(`TargetIdentity`): refs are per observation, and a vision box moves a little from one perception
to the next (the model's jitter), so two identities are the same target when role and name agree
and their boxes overlap by half (intersection over union). Two buttons of the same name in
different places stay two targets."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

SAME_TARGET_IOU = 0.5


class TargetIdentity(NamedTuple):
    role: str
    label: str
    x: float
    y: float
    width: float
    height: float

    def same_target(self, other: TargetIdentity) -> bool:
        if (self.role, self.label) != (other.role, other.label):
            return False
        w = min(self.x + self.width, other.x + other.width) - max(self.x, other.x)
        h = min(self.y + self.height, other.y + other.height) - max(self.y, other.y)
        inter = max(0.0, w) * max(0.0, h)
        union = self.width * self.height + other.width * other.height - inter
        return union > 0 and inter / union >= SAME_TARGET_IOU


def among(target: TargetIdentity, targets: Iterable[TargetIdentity]) -> bool:
    return any(target.same_target(t) for t in targets)


class DeadActionGuard:
    def __init__(self, limit: int, min_span_ms: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.min_span_s, self.clock = limit, min_span_ms / 1000, clock
        self.noops: dict[TargetIdentity, int] = {}
        self.first_noop: dict[TargetIdentity, float] = {}
        self.dead: set[TargetIdentity] = set()

    def no_effect(self, target: TargetIdentity) -> bool:
        """Record a no-op on a target; True when the target is now considered dead."""
        now = self.clock()
        key = next((k for k in self.noops if k.same_target(target)), target)
        self.noops[key] = self.noops.get(key, 0) + 1
        first = self.first_noop.setdefault(key, now)
        if self.noops[key] >= self.limit and now - first >= self.min_span_s:
            self.dead.add(key)
            return True
        return False

    def effective(self) -> None:
        self.noops.clear()
        self.first_noop.clear()

    def next_subgoal(self) -> None:
        self.noops.clear()
        self.first_noop.clear()
        self.dead.clear()
