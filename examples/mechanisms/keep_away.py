"""An example mechanism: controls whose name says they cannot be undone (delete, unsubscribe,
close account...) never reach the worker, whatever the plan or the model asks.

One module, one config file (examples/conf/experiment/keep_away.yaml); docs/agent.md walks
through it and tests/test_plugins.py runs it."""

from __future__ import annotations

from pydantic import BaseModel

from agents.marks import Mark
from agents.pipeline import Mechanism, Step
from tasks.text_match import words


class KeepAway(Mechanism):
    name = "keep_away"

    class Config(BaseModel):
        words: list[str] = ["delete", "unsubscribe", "close account"]

    def __init__(self, config: Config) -> None:
        self.phrases = [tuple(words(w)) for w in config.words]

    def _irreversible(self, mark: Mark) -> bool:
        name = tuple(words(mark.label))
        return any(name[i:i + len(p)] == p for p in self.phrases for i in range(len(name)))

    def rank(self, step: Step, marks: list[Mark]) -> list[Mark]:
        """After ranking: the listing without those controls, numbered again from 1."""
        kept = [m for m in marks if not self._irreversible(m)]
        return [m.model_copy(update={"number": i}) for i, m in enumerate(kept, 1)]
