"""What the agent is told about a task (goal, plan, limits) and what it reports for each step.

The harness builds the brief from a task file without the success checks or oracle selectors, so
the agent never sees ground truth."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tasks.schema import Subgoal, UrlGrammar


class Brief(BaseModel):
    model_config = ConfigDict(frozen=True)
    task_id: str
    goal: str
    start_url: str
    plan: list[Subgoal]
    max_steps: int
    allowed_origins: list[str] = Field(description="origins or host patterns navigation may reach")
    url_grammar: UrlGrammar | None = None


class StepRecord(BaseModel):
    """One step of one episode, as written to steps.parquet."""

    step: int
    subgoal_index: int
    subgoal_action: str
    subgoal_target: str = ""
    action: str = ""
    ref: str = ""
    observation_id: int = 0
    target_role: str = ""
    target_name: str = ""
    match_score: float = 0.0
    url: str = ""
    candidates: int = 0
    vision_call: bool = False
    observe_ms: float = 0.0
    perceive_ms: float = 0.0
    choose_ms: float = 0.0
    act_ms: float = 0.0
    validate_ms: float = 0.0
    advanced: bool = False
    error_type: str = ""
    error: str = ""
