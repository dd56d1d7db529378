"""Complexity tiers: a page that proves dense (many candidates, or many controls per screen) is
perceived with the larger vision tier from then on, for this session and URL."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from agents.perception.base import Tier


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
