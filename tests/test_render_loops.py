"""A page that draws its state from a loop it started as it loaded (agents/ambient.py, "drawers"):
a click only changes the state, and the loop, a timer set long before the click, draws it on its
next run. With agents/ambient_timers.py the loop's change is not taken for a ticker's: a loop
whose runs changed nothing before draws what an action changed, in the action's window or
after its verdict; one that has not run yet is watched for its next run (a ticker's next run
changes the page again, a loop's does not). Before this, the agent took each drawn quantity for
the page's own change and clicked "+" again (tests/language/sites/lunchrun: 0/10 each way)."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment, watched_page
from playwright.async_api import Page

from agents import fingerprint, validator
from agents.actions import Click
from agents.ambient import Watch

pytestmark = pytest.mark.browser

# `first_ms`: when the loop first runs; then every `every_ms`, drawing only what differs. `#tick`
# starts a ticker that changes the price on every run, from the next one on.
PAGE = """<!doctype html><html><body>
<p>Quantity <output id="qty">0</output></p> <p>ACME <span id="px">10.00</span></p>
<button id="add">+</button> <button id="dead">Set alert</button>
<script>
const state = { qty: 0 };
document.getElementById("add").onclick = () => { state.qty += 1; };
let drawn = 0;
const draw = () => {
  if (state.qty !== drawn) { drawn = state.qty; document.getElementById("qty").textContent = String(drawn); }
};
setTimeout(() => { draw(); setInterval(draw, EVERY); }, FIRST);
</script></body></html>"""
TICKER = """(ms) => { let p = 10; setInterval(() => {
  p += 0.5; document.getElementById('px').textContent = p.toFixed(2); }, ms); }"""


def opened(first_ms: int, every_ms: int) -> AbstractAsyncContextManager[tuple[Page, Watch]]:
    return watched_page(PAGE.replace("FIRST", str(first_ms)).replace("EVERY", str(every_ms)), 400, True)


async def click(page: Page, watch: Watch, selector: str, late_ms: int = 400) -> tuple[bool, str]:
    """One click as the agent makes it, its settle shorter than the loop's period (the draw lands
    after the verdict), then one more look `late_ms` later when it changed nothing."""
    before = await fingerprint.take(page)
    await watch.mark(page)
    await page.click(selector)
    await page.wait_for_timeout(10)  # the settle
    after = await fingerprint.take(page)
    await watch.verdict(page)
    action = Click(ref="e1", observation_id=0)
    got = await validator.effect(page, action, "", before, after, None, lambda e: watch.vetoes(page, e))
    if got[0]:
        return got
    await page.wait_for_timeout(late_ms)
    later = await fingerprint.take(page)
    return await validator.effect(page, action, "", before, later, None, lambda e: watch.vetoes(page, e))


async def clicks(first_ms: int, every_ms: int, wait_ms: int, selectors: list[str],
                 ticker_ms: int = 0) -> list[tuple[bool, str]]:
    async with opened(first_ms, every_ms) as (page, watch):
        if ticker_ms:
            await page.evaluate(TICKER, ticker_ms)
        await page.wait_for_timeout(wait_ms)
        return [await click(page, watch, s) for s in selectors]


def test_a_loop_that_ran_quiet_draws_the_clicks_state() -> None:
    # the loop has run several times without drawing anything when the clicks come
    got = asyncio.run(clicks(first_ms=0, every_ms=150, wait_ms=400, selectors=["#add", "#add", "#add"]))
    assert all(effective for effective, _ in got), got


def test_a_loop_that_has_not_run_yet_is_watched_for_its_next_run() -> None:
    # the loop's first run draws the first click: its next run changes nothing, so it drew
    got = asyncio.run(clicks(first_ms=120, every_ms=150, wait_ms=0, selectors=["#add"]))
    assert got[0][0], got


def test_a_ticker_is_no_drawer() -> None:
    # a dead click while a ticker ticks: each of its runs changes the page, so its change in the
    # click's window (or after it) is the page's own, as before
    got = asyncio.run(clicks(first_ms=0, every_ms=150, wait_ms=0, selectors=["#dead"], ticker_ms=90))
    assert got == [(False, "ambient")]


HERE = Path(__file__).parent / "language"


def test_three_wraps_from_a_page_that_draws_from_a_loop(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [
        f"tasks.dirs=[{HERE / 'tasks'}]", f"sites.dirs=[{HERE / 'sites'}]", "suite=fixtures",
        "suite.tags=[]", "suite.ids=[lunchrun-three-wraps]", "perception=none", "seeds=[0,1,2]",
        "trace.playwright=false", "trace.screenshots=none"])
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    assert result.episodes.success.all()
    assert not (steps.effect == "ambient").any()  # no drawn quantity taken for the page's own
