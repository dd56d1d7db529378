"""What the agent is told about a task (goal, plan, limits). What it reports for each step is
`tasks.trace.StepRecord`.

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
