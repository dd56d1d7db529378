"""Builds the configured worker (`worker=NAME`): `scripted` follows the plan by description
matching; `openai` asks a language model to pick a mark from the Set-of-Mark listing."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.worker.base import Worker
from agents.worker.openai_worker import OpenAIWorker, OpenAIWorkerConfig
from agents.worker.scripted import ScriptedWorker


class ScriptedWorkerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["scripted"] = "scripted"


AnyWorker = ScriptedWorkerConfig | OpenAIWorkerConfig
WorkerConfig = Annotated[AnyWorker, Field(discriminator="name")]


def build_worker(config: AnyWorker) -> Worker:
    if isinstance(config, OpenAIWorkerConfig):
        return OpenAIWorker(config)
    return ScriptedWorker()
