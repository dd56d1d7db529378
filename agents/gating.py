"""Gating: cache only while the page still agrees. A vision epoch starts with each vision call;
while the composite fingerprint matches the epoch's and the mutation delta is within tolerance,
the epoch's candidates are reused (re-resolved against a fresh snapshot, never a stale ref).
Navigation always ends the epoch."""

from __future__ import annotations

from dataclasses import dataclass

from agents.fingerprint import Fingerprint
from agents.observation import Box
from agents.perception.base import Tier


@dataclass
class Epoch:
    fp: Fingerprint
    candidates: list[tuple[Box, str, float]]
    tier: Tier


class Gate:
    def __init__(self, tolerance: float) -> None:
        self.tolerance = tolerance
        self.epoch: Epoch | None = None
        self._forced = False

    def start(self, fp: Fingerprint, candidates: list[tuple[Box, str, float]], tier: Tier) -> None:
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
        been classified complex: the small tier's truncated candidates are not reused)."""
        if self._forced:
            self._forced = False
            return "forced"
        if self.epoch is None:
            return "no_epoch"
        if fp is None:
            return "navigating"
        parts = self.epoch.fp.differs(fp)
        if parts:
            return parts[0]
        if self.epoch.fp.delta(fp) > self.tolerance:
            return "delta"
        if tier != self.epoch.tier:
            return "tier"
        return ""
