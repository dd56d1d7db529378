"""Direct navigation: when a site declares its URL grammar, reach the filtered state with one URL
instead of a dozen clicks — then verify the landing shows what was asked for; a wrong landing is
detected, and the agent recovers through the interface (the plan's own steps)."""

from __future__ import annotations

import re
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.brief import Brief
from agents.pipeline import Episode, Mechanism, Step


class DirectNavigationConfig(BaseModel):
    direct_navigation: bool = True


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


class DirectNavigating(Mechanism):
    """Takes over the plan's first step when the task declares a URL grammar that replaces it."""

    name = "direct_navigation"

    def __init__(self) -> None:
        self.shortcut: DirectNavigation | None = None
        self._read = False

    def _shortcut(self, episode: Episode) -> DirectNavigation | None:
        """From the brief as the first step sees it (a suite may complete it on the start page)."""
        if not self._read:
            self._read = True
            grammar = episode.brief.url_grammar
            self.shortcut = DirectNavigation(episode.brief) if grammar and grammar.replaces else None
        return self.shortcut

    async def run_step(self, step: Step) -> bool:
        shortcut = self._shortcut(step.episode)
        if shortcut is None or not shortcut.applies(step.index):
            return False
        rec, page, episode = step.rec, step.page, step.episode
        step.advance = 0
        url = shortcut.url(page.url)
        rec.action, rec.path = "navigate", "direct"
        if not all(m.allows(url) for m in episode.mechanisms):
            rec.error_type, rec.error = "blocked_navigation", url
            shortcut.give_up()
            return True
        try:
            await page.goto(url)
        except PlaywrightError as exc:
            rec.error_type, rec.error = "action_error", str(exc).splitlines()[0][:300]
            shortcut.give_up()
            return True
        await episode.settle()
        episode.page_replaced()
        rec.url = page.url
        if shortcut.verify(await page.locator("body").inner_text()):
            rec.effective = True
            step.advance = shortcut.resume_index - step.index
            return True
        rec.error_type, rec.error = "landing_mismatch", "the page does not show the intended filters"
        shortcut.give_up()
        await episode.quiesce()
        await page.go_back()
        await episode.settle()
        return True
