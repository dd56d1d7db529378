"""Settings of the `ocr` backend (agents/perception/ocr.py), apart from the backend itself: the
config is read for every run, numpy and the engine only for a run that perceives with OCR."""

from __future__ import annotations

import importlib.util
import sys
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class OcrTier(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scale: float = Field(gt=0, le=1, description="downscale factor applied to the screenshot")
    max_side: int = Field(ge=64, description="and never more than this many pixels on the longer side")
    cap: int = Field(ge=1, description="most candidates returned")
    shapes: bool = Field(description="also detect text-less widgets with OpenCV")
    min_text_score: float = Field(0.5, ge=0, le=1, description="OCR lines below this are dropped")
    max_line_aspect: float | None = Field(
        None, gt=0, description="detected lines wider than this many times their height (running "
        "text) are not read at all; recognition cost grows with line width")


class OcrConfig(BaseModel):
    """Settings of the `ocr` backend (conf/perception/ocr.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["ocr"] = "ocr"
    small: OcrTier = OcrTier(scale=0.625, max_side=1024, cap=24, shapes=False,
                             max_line_aspect=16.0)
    large: OcrTier = OcrTier(scale=1.0, max_side=2048, cap=80, shapes=True)
    threads: int = Field(0, ge=0, description="ONNX Runtime intra-op threads; 0 = its default")

    @model_validator(mode="after")
    def _installed(self) -> OcrConfig:
        """The engine's packages are checked with the config, before any browser starts."""
        missing = [module for module in ("rapidocr_onnxruntime", "cv2")
                   if importlib.util.find_spec(module) is None or sys.modules.get(module, ...) is None]
        if missing:
            raise ValueError(f"perception=ocr needs {' and '.join(missing)}, which is not installed: "
                             "pip install 'groundbench[ocr]'")
        return self
