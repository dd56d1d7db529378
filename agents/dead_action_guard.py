"""Dead-action guard: a no-op is evidence. An action that changed nothing questions the reference
frame, so the next step perceives afresh instead of retrying; a target that stays dead after
repeated attempts is dropped for the rest of the subgoal. A toggle whose state changed is an
effect even without structural mutation, so it never counts here."""

from __future__ import annotations


class DeadActionGuard:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.noops: dict[str, int] = {}
        self.dead: set[str] = set()

    def no_effect(self, target_key: str) -> bool:
        """Record a no-op on a target; True when the target is now considered dead."""
        self.noops[target_key] = self.noops.get(target_key, 0) + 1
        if self.noops[target_key] >= self.limit:
            self.dead.add(target_key)
            return True
        return False

    def effective(self) -> None:
        self.noops.clear()

    def next_subgoal(self) -> None:
        self.noops.clear()
        self.dead.clear()
