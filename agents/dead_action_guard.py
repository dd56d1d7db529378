"""Dead-action guard: a no-op is evidence. An action that changed nothing questions the reference
frame, so the next step perceives afresh instead of retrying; a target that stays dead after
repeated attempts is dropped for the rest of the subgoal. "Repeated" means at least `limit`
no-ops spread over at least `min_span_ms`: a control that ignores clicks until the page has
finished starting up (hydration) is slow, not dead. A toggle whose state changed is an effect even
without structural mutation, so it never counts here."""

from __future__ import annotations

import time
from collections.abc import Callable


class DeadActionGuard:
    def __init__(self, limit: int, min_span_ms: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.min_span_s, self.clock = limit, min_span_ms / 1000, clock
        self.noops: dict[str, int] = {}
        self.first_noop: dict[str, float] = {}
        self.dead: set[str] = set()

    def no_effect(self, target_key: str) -> bool:
        """Record a no-op on a target; True when the target is now considered dead."""
        now = self.clock()
        self.noops[target_key] = self.noops.get(target_key, 0) + 1
        first = self.first_noop.setdefault(target_key, now)
        if self.noops[target_key] >= self.limit and now - first >= self.min_span_s:
            self.dead.add(target_key)
            return True
        return False

    def effective(self) -> None:
        self.noops.clear()
        self.first_noop.clear()

    def next_subgoal(self) -> None:
        self.noops.clear()
        self.first_noop.clear()
        self.dead.clear()
