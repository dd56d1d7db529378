"""Shared fixtures: the fixture server, and a helper that runs a whole experiment in-process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Page, async_playwright

from agents import fingerprint
from agents.ambient import AMBIENT_JS, Watch
from agents.ambient_timers import AMBIENT_TIMERS_JS
from harness.browser import BrowserSettings, launch
from harness.config import RunConfig, compose_run_config
from harness.runner import RunResult, run
from sites.server import FixtureServer


@pytest.fixture(scope="session")
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as srv:
        yield srv


def compose_config(overrides: list[str]) -> tuple[RunConfig, dict]:
    return compose_run_config(overrides)


def run_experiment(tmp_path: Path, overrides: list[str],
                   faults: Mapping[str, str] | None = None) -> RunResult:
    cfg, resolved = compose_config(overrides)
    return run(cfg, tmp_path, resolved, show_progress=False, faults=faults)


@asynccontextmanager
async def watched_page(body: str, probe_ms: int, timers: bool) -> AsyncIterator[tuple[Page, Watch]]:
    """A page served from `body` with the change log and the ambient filter installed (and the
    page's timers wrapped, with `timers`), its start-up over: the page and the agent's `Watch`."""
    url = "http://watched.test/page.html"
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        context = await browser.new_context()
        for script in (fingerprint.MUTATION_COUNTER_JS, AMBIENT_JS, *([AMBIENT_TIMERS_JS] if timers else [])):
            await context.add_init_script(script=script)
        page = await context.new_page()
        watch = Watch(probe_ms)
        await page.route(url, lambda route: route.fulfill(body=body, content_type="text/html"))
        await page.goto(url)
        await watch.settled(page)
        try:
            yield page, watch
        finally:
            await browser.close()
