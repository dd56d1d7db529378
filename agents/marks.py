"""The numbered listing a worker chooses from (Set-of-Mark): each mark is one enriched candidate
with its box in viewport CSS pixels. Mark N in the picture and N in the listing are one object."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from agents.observation import Box


class Mark(BaseModel):
    model_config = ConfigDict(frozen=True)
    number: int
    box: Box
    label: str
    role: str = ""  # from the DOM bridge; "" when enrichment is off or nothing matched
    states: dict[str, str] = {}
    context: tuple[str, ...] = ()
    ref: str | None = None  # aria ref of the matched live element, valid for one observation only
    observation_id: int = 0  # the observation that produced `ref`
    frame: str = ""
    confidence: float = 1.0
    relevance: float = 0.0
    source: Literal["vision", "dom"] = "dom"
    degraded: bool = False  # reachable by coordinates only (canvas, closed shadow root, no match)

    def listing_line(self) -> str:
        """How the mark reads in the text listing shown to a language-model worker."""
        state = "".join(f" [{k}={v}]" if v != "true" else f" [{k}]" for k, v in self.states.items())
        role = self.role or "region"
        extra = " (coordinates only)" if self.degraded else ""
        where = f" in \"{self.context[0]}\"" if self.context else ""
        return f"[{self.number}] {role} \"{self.label}\"{state}{where}{extra}"
