"""Builds the configured vision backend for one episode (`perception=NAME`); `none` is the
accessibility-tree-only baseline with zero vision calls."""

from __future__ import annotations

from typing import Annotated, Literal

from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict, Field

from agents.perception.base import VisionBackend
from agents.perception.ocr import OcrBackend, OcrConfig
from agents.perception.openai_vision import OpenAIVisionBackend, OpenAIVisionConfig
from agents.perception.synthetic import SyntheticBackend, SyntheticConfig


class NoPerception(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["none"] = "none"


AnyPerception = NoPerception | SyntheticConfig | OcrConfig | OpenAIVisionConfig
PerceptionConfig = Annotated[AnyPerception, Field(discriminator="name")]


def build_backend(config: AnyPerception, seed: int, page: Page) -> VisionBackend | None:
    if isinstance(config, SyntheticConfig):
        return SyntheticBackend(config, seed, page)
    if isinstance(config, OcrConfig):
        return OcrBackend(config)
    if isinstance(config, OpenAIVisionConfig):
        return OpenAIVisionBackend(config)
    return None
