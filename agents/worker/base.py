"""Choose stage contract, the public worker interface: given the goal, the active subgoal and the
current numbered listing (and, for a worker that looks, the Set-of-Mark image), a worker answers
one action from the closed vocabulary, naming a mark of that listing (never a selector;
coordinates only in the degraded fallback), and says what the decision cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from agents.marks import Mark, TargetIdentity
from tasks.schema import ActionName, Direction, Subgoal
from tasks.trace import Cost


class WorkerReply(BaseModel):
    """One decision. `mark` is required for targeted actions; `point` (viewport-normalised x, y)
    is the degraded coordinate fallback for a region no mark covers."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    action: ActionName
    mark: int | None = None
    point: tuple[float, float] | None = Field(None, description="normalised (x, y), fallback only")
    text: str | None = None
    clear: bool = True
    then: Literal["enter", "escape", "click_away"] | None = None
    value: float | str | None = None
    url: str | None = None
    direction: Direction = "down"
    to_mark: int | None = Field(None, description="drag: the mark to drop on")
    offset: tuple[float, float] | None = Field(None, description="drag: (dx, dy) CSS px instead")
    answer: str | None = None
    reason: str = ""


class WorkerCost(Cost):
    """The decision's model cost, plus the replies that could not be used and why it failed."""

    invalid_replies: int = 0
    error_type: str = ""
    error: str = ""


@dataclass(frozen=True)
class ChoiceRequest:
    """What a worker decides from. `marks` are valid for this request only; `image` is the
    Set-of-Mark screenshot, drawn only for a worker whose `sees_image` is True. `excluded` are
    targets found dead (agents/dead_action_guard.py); `prefer_toggle`: for an expand goal, a part
    with toggle semantics beats its row (agents/compound_split.py)."""

    goal: str
    subgoal: Subgoal | None
    marks: list[Mark]
    history: list[str] = field(default_factory=list)
    excluded: frozenset[TargetIdentity] = frozenset()
    prefer_toggle: bool = False
    image: bytes | None = None
    # For a drag onto something: the places the page has that a thing can be dropped on (list
    # items, rows, cards), numbered after the marks; a drop target may be one of them.
    places: list[Mark] = field(default_factory=list)


@dataclass(frozen=True)
class Choice:
    """A worker's answer: the reply (None: nothing fits, or the worker failed: see `cost`), the
    mark it names (and, for a drag, the mark to drop on), how well it fits (plan followers), and whether the subgoal's state already
    holds so that acting would undo it."""

    reply: WorkerReply | None
    mark: Mark | None = None
    score: float = 0.0
    to: Mark | None = None  # drag: the mark to drop on
    satisfied: bool = False
    cost: WorkerCost = field(default_factory=WorkerCost)


class Worker(Protocol):
    """Every worker: built-in (`scripted`, `openai`) or a user's."""

    name: str
    sees_image: bool

    async def decide(self, request: ChoiceRequest) -> Choice: ...


@runtime_checkable
class PlanFollower(Protocol):
    """A worker that picks by the plan's target descriptions. With one, the agent can also look
    for what perception missed (a better fit in the DOM), open a section that hides the target
    and explore down a page; a model worker decides those things itself."""

    def match(self, subgoal: Subgoal, marks: list[Mark],
              excluded: frozenset[TargetIdentity] = frozenset(), prefer_toggle: bool = False
              ) -> Choice: ...
