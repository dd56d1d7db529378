"""Builds the configured vision backend for one episode (`perception=NAME`); `none` is the
accessibility-tree-only baseline with zero vision calls."""

from __future__ import annotations

from typing import Annotated, Literal

from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agents.imports import TargetConfig, load
from agents.perception.base import VisionBackend
from agents.perception.ocr_config import OcrConfig
from agents.perception.openai_vision import OpenAIVisionBackend, OpenAIVisionConfig
from agents.perception.synthetic import SyntheticBackend, SyntheticConfig


class NoPerception(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["none"] = "none"


class CustomPerception(TargetConfig):
    """`perception=custom perception._target_=pkg.module.Class`: a vision backend of your own (the
    `VisionBackend` interface of agents/perception/base.py), built with its options."""

    name: Literal["custom"] = "custom"

    @model_validator(mode="after")
    def _loadable(self) -> CustomPerception:
        load(self.target, "vision backend", ("perceive",))
        return self


AnyPerception = NoPerception | SyntheticConfig | OcrConfig | OpenAIVisionConfig | CustomPerception
PerceptionConfig = Annotated[AnyPerception, Field(discriminator="name")]


def build_backend(config: AnyPerception, seed: int, page: Page) -> VisionBackend | None:
    if isinstance(config, SyntheticConfig):
        return SyntheticBackend(config, seed, page)
    if isinstance(config, OcrConfig):
        from agents.perception.ocr import OcrBackend  # numpy, OpenCV and the engine: only for OCR

        return OcrBackend(config)
    if isinstance(config, OpenAIVisionConfig):
        return OpenAIVisionBackend(config)
    if isinstance(config, CustomPerception):
        return load(config.target, "vision backend", ("perceive",))(**config.options)
    return None
