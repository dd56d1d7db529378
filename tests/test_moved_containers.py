"""A page that moves its own content between a look and the action: the containers a viewport
observation read by position (agents/fingerprint.py `pathOf`) shift when the page inserts a banner
above them, and a ref of an earlier container is found again in the whole document, as long as its
element still exists; an element that is gone stays stale."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, Route, async_playwright

from agents import fingerprint
from agents.actions import Click, execute
from agents.observation import RefBook, StaleRefError
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

PAGE = """<title>Moving</title>
<style>section { height: 300px; border: 1px solid #999; margin: 8px; } #tail { height: 3000px; }</style>
<section id="first"><h2>Delivery</h2><button onclick="window.pressed = 'Express'">Express</button></section>
<section id="second"><h2>Payment</h2><button onclick="window.pressed = 'Card'">Card</button></section>
<div id="tail">More below</div>"""

BANNER = """() => { const b = document.createElement('div'); b.textContent = 'Sale today';
  document.body.prepend(b); }"""


async def _look(page: Page) -> tuple[RefBook, str, int]:
    """A viewport observation of the page in two containers; the ref of Express (the first, so
    not the container read last)."""
    fp = await fingerprint.take(page)
    assert fp is not None and fp.scopes is not None and len(fp.scopes) >= 2
    refs = RefBook()
    obs = await refs.observe(page, fp.scopes, fp.framed)
    assert obs.scope != "document"
    express = next(e for e in obs.interactive() if e.name == "Express")
    assert obs.scopes[express.ref] != obs.last_scope
    return refs, express.ref, obs.id


def _run(body) -> object:
    async def main() -> object:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            page = await browser.new_page()

            async def serve(route: Route) -> None:
                await route.fulfill(status=200, content_type="text/html", body=PAGE)

            await page.route("http://moving.test/**", serve)
            await page.goto("http://moving.test/")
            try:
                return await body(page)
            finally:
                await browser.close()
    return asyncio.run(main())


def test_a_ref_whose_container_moved_still_acts_on_its_element() -> None:
    async def body(page: Page) -> object:
        refs, ref, obs_id = await _look(page)
        await page.evaluate(BANNER)  # the page moves by itself: every container's position shifts
        await execute(page, refs, Click(ref=ref, observation_id=obs_id))
        return await page.evaluate("() => window.pressed")

    assert _run(body) == "Express"


def test_a_ref_whose_element_is_gone_stays_stale() -> None:
    async def body(page: Page) -> object:
        refs, ref, obs_id = await _look(page)
        await page.evaluate(BANNER)
        await page.evaluate("() => document.querySelector('#first button').remove()")
        with pytest.raises(StaleRefError):
            await execute(page, refs, Click(ref=ref, observation_id=obs_id))
        return await page.evaluate("() => window.pressed ?? null")

    assert _run(body) is None
