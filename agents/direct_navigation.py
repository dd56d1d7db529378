"""Direct navigation: when a site declares its URL grammar, reach the filtered state with one URL
instead of a dozen clicks — then verify the landing shows what was asked for; a wrong landing is
detected, and the agent recovers through the interface (the plan's own steps)."""

from __future__ import annotations

import re
from urllib.parse import urljoin

from agents.brief import Brief


class DirectNavigation:
    def __init__(self, brief: Brief) -> None:
        assert brief.url_grammar is not None
        self.grammar = brief.url_grammar
        self.resume_index = self.grammar.replaces
        self._active = True

    def applies(self, index: int) -> bool:
        return self._active and index == 0

    def url(self, current: str) -> str:
        path = self.grammar.template.format(**self.grammar.params)
        return urljoin(current, path)

    def verify(self, page_text: str) -> bool:
        """The landing must show every value the URL asked for (as words on the page)."""
        text = " ".join(re.findall(r"[a-z0-9]+", page_text.lower()))
        expected = self.grammar.expect or self.grammar.params
        return all(" ".join(re.findall(r"[a-z0-9]+", str(v).lower())) in text
                   for v in expected.values())

    def give_up(self) -> None:
        self._active = False
