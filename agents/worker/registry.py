"""Builds the configured worker (`worker=NAME`): `scripted` follows the plan by description
matching; `openai` asks a language model to pick a mark from the Set-of-Mark listing."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agents.imports import TargetConfig, load
from agents.worker.base import Worker
from agents.worker.openai_worker import OpenAIWorker, OpenAIWorkerConfig
from agents.worker.scripted import ScriptedWorker


class ScriptedWorkerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["scripted"] = "scripted"
    latency_ms: float = Field(0.0, ge=0, description="simulated decision latency, really waited "
                              "per decision (a model worker's time), so prefetch can hide vision "
                              "behind it")


class CustomWorkerConfig(TargetConfig):
    """`worker=custom worker._target_=pkg.module.Class`: a worker of your own (the `Worker`
    interface of agents/worker/base.py) inside groundbench's agent, built with its options."""

    name: Literal["custom"] = "custom"

    @model_validator(mode="after")
    def _loadable(self) -> CustomWorkerConfig:
        load(self.target, "worker", ("decide",))
        return self


AnyWorker = ScriptedWorkerConfig | OpenAIWorkerConfig | CustomWorkerConfig
WorkerConfig = Annotated[AnyWorker, Field(discriminator="name")]


def build_worker(config: AnyWorker) -> Worker:
    if isinstance(config, OpenAIWorkerConfig):
        return OpenAIWorker(config)
    if isinstance(config, CustomWorkerConfig):
        return load(config.target, "worker", ("decide",))(**config.options)
    return ScriptedWorker(config.latency_ms)
