"""Gating: cache only while the page still agrees. A vision epoch starts with each vision call;
while the composite fingerprint matches the epoch's and the mutation delta is within tolerance,
the epoch's candidates are reused (re-resolved against a fresh snapshot, never a stale ref).
Navigation always ends the epoch. What elements the ambient filter knows to change by themselves
(a clock, a live count) changed is not a disagreement (agents/ambient_key.py)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from agents.fingerprint import Fingerprint
from agents.marks import Seen
from agents.perception.base import PerceptionResult, Tier
from agents.pipeline import Mechanism, Step


class GatingConfig(BaseModel):
    gating: bool = True
    gating_tolerance: float = Field(0.05, ge=0, le=1)


@dataclass
class Epoch:
    fp: Fingerprint
    candidates: list[Seen]
    tier: Tier


class Gate:
    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.epoch: Epoch | None = None
        self._forced = False

    def start(self, fp: Fingerprint, candidates: list[Seen], tier: Tier) -> None:
        self.epoch = Epoch(fp, candidates, tier)

    def end(self) -> None:
        self.epoch = None

    def force_fresh(self) -> None:
        """The next decision must see a new perception (a no-op questioned the reference frame)."""
        self._forced = True

    def check(self, fp: Fingerprint | None, tier: Tier) -> str:
        """"" when the epoch still has authority, else the reason: forced, no_epoch, navigating,
        the first fingerprint part that disagrees (dom, text, frames, url), delta (nodes were
        replaced beyond tolerance even though every part agrees), or tier (the page has since
        been classified complex: the small tier's truncated candidates are not reused). Text
        and nodes changed only by elements that change by themselves do not disagree
        (`Fingerprint.key_differs`; the step's `miss_reason` on such a hit is `ambient`)."""
        if self._forced:
            self._forced = False
            return "forced"
        if self.epoch is None:
            return "no_epoch"
        if fp is None:
            return "navigating"
        reason = fp.key_differs(self.epoch.fp, self.tolerance)
        if reason:
            return reason
        if tier != self.epoch.tier:
            return "tier"
        return ""


class Gating(Mechanism):
    """The gate as a pipeline mechanism: asked before each vision pass, fed after it."""

    name = "gating"

    def __init__(self, tolerance: float) -> None:
        self.gate = Gate(tolerance)

    def reuse(self, step: Step, tier: Tier) -> list[Seen] | None:
        if step.episode.fresh_required:  # a no-op or a miss questioned the last perception
            step.episode.fresh_required = False
            self.gate.force_fresh()
        reason = self.gate.check(step.fp_before, tier)
        step.rec.cache, step.rec.miss_reason = ("hit" if reason == "" else "miss"), reason
        if reason == "" and self.gate.epoch is not None and step.fp_before is not None and \
                self.gate.epoch.fp.differs(step.fp_before):
            step.rec.miss_reason = "ambient"  # a hit: the key moved only by the page's own changes
        if reason == "" and self.gate.epoch is not None:
            return list(self.gate.epoch.candidates)
        return None

    def perceived(self, step: Step, result: PerceptionResult, seen: list[Seen]) -> list[Seen]:
        if step.fp_before is not None and not result.error_type:
            self.gate.start(step.fp_before, seen, step.tier)
        return seen

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        if before is not None and after is not None and before.url != after.url:
            self.gate.end()  # navigation always ends the visual epoch

    def page_replaced(self) -> None:
        self.gate.end()
