"""An action's short timers are part of its settle (agents/pending_timers.py). In a real page: the
timeouts a click sets, at most the limit long, are pending until they fire or are cleared, and a
timeout set in their callback is the click's too; a longer one (a toast that hides after 2 s), an
interval and a timeout the page set while the agent was idle are not. On a fresh page whose
destination field suggests after a debounce and a faked round trip, the agent waits for the
suggestions after typing and clicks one at the next step; switched off, it looks before they
came and explores first."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import async_playwright

from agents.ambient import AMBIENT_JS, Watch
from agents.ambient_timers import AMBIENT_TIMERS_JS
from agents.pending_timers import PENDING_JS
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

URL = "http://timers.test/page.html"
PAGE = """<!doctype html><html><body>
<button id="debounce">Search</button> <button id="toast">Copy</button> <button id="ticker">Live</button>
<button id="cancel">Stop</button> <p id="out"></p>
<script>
const out = document.getElementById("out");
let pendingSearch = 0;
document.getElementById("debounce").onclick = () => {
  // (the second timeout long enough to be pending still when a loaded machine reads it late)
  pendingSearch = setTimeout(() => setTimeout(() => { out.textContent = "3 results"; }, 500), 150);
};
document.getElementById("toast").onclick = () => { setTimeout(() => { out.textContent = ""; }, 2000); };
document.getElementById("ticker").onclick = () => { setInterval(() => { out.title = String(Date.now()); }, 100); };
document.getElementById("cancel").onclick = () => clearTimeout(pendingSearch);
setTimeout(() => { out.dataset.idle = "1"; }, 250);  // the page's own, set while the agent is idle
</script></body></html>"""
LIMIT = "Object.defineProperty(window, '__gbPendingLimit', { value: 600 });"


async def pending_after(clicks: list[str], wait_ms: int = 0) -> int:
    """Pending timeouts of the last click's window, `wait_ms` after the clicks."""
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        context = await browser.new_context()
        page = await context.new_page()
        watch = Watch(300)
        await page.context.add_init_script(script=AMBIENT_JS)
        await context.add_init_script(script=AMBIENT_TIMERS_JS)
        await context.add_init_script(script=LIMIT)
        await page.route(URL, lambda route: route.fulfill(body=PAGE, content_type="text/html"))
        await page.goto(URL)
        await watch.settled(page)
        try:
            await watch.mark(page)
            for selector in clicks:
                await page.click(selector)
            await page.wait_for_timeout(wait_ms)
            return int(await page.evaluate(PENDING_JS))
        finally:
            await browser.close()


def test_the_short_timeouts_an_action_set_are_pending_until_they_fire() -> None:
    assert asyncio.run(pending_after(["#debounce"])) == 1
    assert asyncio.run(pending_after(["#debounce"], wait_ms=200)) == 1  # the timeout its callback set
    assert asyncio.run(pending_after(["#debounce"], wait_ms=1000)) == 0
    assert asyncio.run(pending_after(["#debounce", "#cancel"])) == 0  # cleared


def test_long_timeouts_intervals_and_the_pages_own_are_not_pending() -> None:
    assert asyncio.run(pending_after(["#toast"])) == 0
    assert asyncio.run(pending_after(["#ticker"])) == 0
    assert asyncio.run(pending_after([])) == 0  # only the page's own timeout, set at load


HERE = Path(__file__).parent / "language"


def _steps(tmp_path: Path, *overrides: str) -> pd.DataFrame:
    result = run_experiment(tmp_path, [
        f"tasks.dirs=[{HERE / 'tasks'}]", f"sites.dirs=[{HERE / 'sites'}]", "suite=fixtures",
        "suite.tags=[]", "suite.ids=[tripsearch-suggest-lisbon]", "perception=none", "seeds=[0,1]",
        "trace.playwright=false", "trace.screenshots=none", *overrides])
    assert result.episodes.success.all()
    return pd.read_parquet(result.run_dir / "steps.parquet")


def test_suggestions_after_a_debounce_are_waited_for(tmp_path: Path) -> None:
    on = _steps(tmp_path / "on")
    off = _steps(tmp_path / "off", "agent.pending_timers=false")
    typed = on[on.action == "type"]
    assert len(typed) == 2 and (typed.timers_ms >= 250).all()  # 260 ms debounce, 140 ms "network"
    assert (on.groupby("seed").size() == 6).all()  # one step per subgoal: nothing to look for
    assert (off.timers_ms == 0).all()
    assert len(off) > 12  # the suggestions were not there yet: the agent looked further first
