"""Complexity tiers: a page that proves dense (many candidates, or many controls per screen) is
perceived with the larger vision tier from then on, for this session and URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from pydantic import BaseModel

from agents.marks import Seen
from agents.perception.base import PerceptionResult, Tier
from agents.pipeline import Mechanism, Step


class TiersConfig(BaseModel):
    tiers: bool = True
    tiers_complex_candidates: int = 40
    tiers_complex_controls: int = 60


def _page_key(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.netloc}{parts.path}"


@dataclass
class TierPolicy:
    complex_candidates: int
    complex_controls: int
    complex_pages: set[str] = field(default_factory=set)

    def tier_for(self, url: str) -> Tier:
        return "large" if _page_key(url) in self.complex_pages else "small"

    def observe(self, url: str, candidates: int, controls_in_view: int, cap_hit: bool) -> bool:
        """Classify the page after a perception; True when it just became complex."""
        key = _page_key(url)
        if key in self.complex_pages:
            return False
        if cap_hit or candidates >= self.complex_candidates or controls_in_view >= self.complex_controls:
            self.complex_pages.add(key)
            return True
        return False


class Tiers(Mechanism):
    name = "tiers"

    def __init__(self, complex_candidates: int, complex_controls: int) -> None:
        self.policy = TierPolicy(complex_candidates, complex_controls)

    def tier(self, url: str) -> Tier:
        return self.policy.tier_for(url)

    def perceived(self, step: Step, result: PerceptionResult, seen: list[Seen]) -> list[Seen]:
        # The backend's cap for the tier, when it has one: a full page of candidates is truncated.
        caps = getattr(getattr(step.episode.backend, "config", None), "cap", None)
        cap = caps.get(step.tier, 10**6) if isinstance(caps, dict) else 10**6
        step.rec.tier_escalated = self.policy.observe(step.page.url, len(result.candidates),
                                                      len(seen), len(result.candidates) >= cap)
        return seen
