"""The oracle with `keys`: its fills are typed as the agent types (a click, a clear when the field
holds something, a key per character; a date field its wire format), so the overhead benchmark's
`floor_keys` acts with the agent's input primitives; without it a fill sends no key."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import async_playwright

from harness.browser import BrowserSettings, launch
from harness.oracle import run_oracle_step
from tasks.schema import OracleStep

pytestmark = pytest.mark.browser

PAGE = """<title>Keys</title>
<label>Name <input id="name"></label>
<label>City <input id="city" value="Old town"></label>
<label>When <input id="when" type="date"></label>
<div id="notes" contenteditable="true">old notes</div>
<script>
  window.keys = {}; window.clicks = {};
  for (const el of document.querySelectorAll("input, [contenteditable]")) {
    el.addEventListener("keydown", () => { window.keys[el.id] = (window.keys[el.id] || 0) + 1; });
    el.addEventListener("click", () => { window.clicks[el.id] = (window.clicks[el.id] || 0) + 1; });
  }
</script>"""

FILLS = {"#name": "Ada", "#city": "Perth", "#when": "2026-12-04", "#notes": "new"}


def _replay(keys: bool) -> dict:
    async def main() -> dict:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content(PAGE)
                for selector, text in FILLS.items():
                    await run_oracle_step(page, OracleStep(do="fill", selector=selector, text=text),
                                          "http://unused.test", keys=keys)
                return await page.evaluate("""() => ({
                    values: ['name', 'city', 'when'].map((id) => document.getElementById(id).value)
                              .concat([document.getElementById('notes').textContent]),
                    keys: window.keys, clicks: window.clicks})""")
            finally:
                await browser.close()

    return asyncio.run(main())


def test_keys_types_each_fill_as_the_agent_does() -> None:
    got = _replay(keys=True)
    assert got["values"] == ["Ada", "Perth", "2026-12-04", "new"]
    # a key per character, after a click; a field that held something is cleared first (Playwright
    # clears with a Delete key, one keydown more); the date field takes its wire format, no keys
    assert got["keys"] == {"name": 3, "city": 1 + 5, "notes": 1 + 3}
    assert got["clicks"] == {"name": 1, "city": 1, "notes": 1}


def test_without_keys_a_fill_sends_no_key() -> None:
    got = _replay(keys=False)
    assert got["values"] == ["Ada", "Perth", "2026-12-04", "new"]
    assert got["keys"] == {} and got["clicks"] == {}
