"""Choose stage contract: a worker answers one action from the closed vocabulary, naming a mark
number from the current listing (never a selector; coordinates only in the degraded fallback)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tasks.schema import ActionName


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
    direction: Literal["up", "down"] = "down"
    answer: str | None = None
    reason: str = ""


class WorkerCost(BaseModel):
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    invalid_replies: int = 0
    error_type: str = ""
    error: str = ""
