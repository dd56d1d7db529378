"""The mechanisms' init scripts reach the context in one call, in order, each on its own."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import async_playwright

from agents.agent import one_script
from agents.factory import AgentConfig, build_mechanisms
from harness.browser import BrowserSettings, launch


def test_every_switched_on_script_is_in_the_one_call() -> None:
    names = {m.name for m in build_mechanisms(AgentConfig()) if m.init_script() is not None}
    assert {"ambient", "ambient_timers", "pending_timers", "ambient_key"} <= names
    off = AgentConfig(ambient_timers=False, pending_timers=False, ambient_key=False)
    assert not {"ambient_timers", "pending_timers", "ambient_key"} & {
        m.name for m in build_mechanisms(off) if m.init_script() is not None}


@pytest.mark.browser
def test_one_that_throws_leaves_the_others_running() -> None:
    scripts = ["window.__a = 1;", "(() => { throw new Error('broken'); })();", "window.__b = window.__a + 1;"]

    async def run() -> list[int]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                context = await browser.new_context()
                await context.add_init_script(script=one_script(scripts))
                page = await context.new_page()
                await page.goto("data:text/html,<p>x</p>")
                return await page.evaluate("[window.__a, window.__b]")
            finally:
                await browser.close()

    assert asyncio.run(run()) == [1, 2]
