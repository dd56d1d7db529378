"""Perceive stage contract: a vision backend maps (screenshot, subgoal, label hints, tier) to
candidates — normalised boxes with labels and confidence — plus what the call cost.

A backend never sees the DOM or refs: it gets pixels and words only."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tasks.trace import Cost

Tier = Literal["small", "large"]


class NormBox(BaseModel):
    """A box in image-normalised coordinates: 0..1 from the top-left corner, x0 < x1, y0 < y1."""

    model_config = ConfigDict(frozen=True)
    x0: float = Field(ge=0, le=1)
    y0: float = Field(ge=0, le=1)
    x1: float = Field(ge=0, le=1)
    y1: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> NormBox:
        if self.x1 <= self.x0 or self.y1 <= self.y0:
            raise ValueError(f"empty or inverted box ({self.x0}, {self.y0}, {self.x1}, {self.y1})")
        return self

    def to_pixels(self, width: float, height: float) -> tuple[float, float, float, float]:
        """(x, y, w, h) in the pixel space of an image of that size."""
        return self.x0 * width, self.y0 * height, (self.x1 - self.x0) * width, (self.y1 - self.y0) * height


class Candidate(BaseModel):
    """A region the model thinks matters; a hypothesis, not a target."""

    model_config = ConfigDict(frozen=True)
    box: NormBox
    label: str = ""
    confidence: float = Field(1.0, ge=0, le=1)
    kind: str = Field("", description="what the model says it is: button, text, checkbox, slider, icon...")


class PerceptionResult(BaseModel):
    candidates: list[Candidate] = []
    tier: Tier = "small"
    cost: Cost = Cost()
    error_type: str = ""
    error: str = ""


class VisionBackend(Protocol):
    """What every backend implements. `image` is a PNG of the viewport; `hints` are labels the
    validator expected but did not see (coverage pass); `cap` overrides the tier's candidate cap.

    `reads_pixels`: False for a backend that does not look at `image` (the synthetic model reads
    the page's geometry itself): the agent then captures no screenshot for the call and passes
    b"" (a capture costs 25-80 ms a call, more on long pages)."""

    name: str
    reads_pixels: bool

    async def perceive(self, image: bytes, subgoal: str, hints: list[str], tier: Tier,
                       cap: int | None = None) -> PerceptionResult: ...
