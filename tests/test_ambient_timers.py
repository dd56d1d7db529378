"""Who made a change (agents/ambient_timers.py): a timer the page set before an action is not the
action's, however new the element it changes. In a real page with nothing ticking by itself, the
test sets the page's timers at the moments it needs: one set while the agent is idle fires inside
a dead click's window (a price's first tick) and is not credited, unless the mechanism is off; a
timer the click's own handler sets is the click's; and after the window, while the agent waits
for a late effect, a late tick is still not the click's while a late effect of its own is. On a
fresh page (a watchlist whose rows tick on their own timers), the dead "Set price alert" is no
longer credited and the episode is solved; switched off, it is not."""

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
from harness.runner import RunResult

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body>
<p>ACME <span id="px">10.00</span></p> <p id="msg"></p>
<button id="dead">Set alert</button> <button id="save">Save</button> <button id="slow">Export</button>
<script>
const msg = document.getElementById("msg");
document.getElementById("save").onclick = () => setTimeout(() => { msg.textContent = "Saved"; }, 40);
document.getElementById("slow").onclick = () => setTimeout(() => { msg.textContent = "Exported"; }, 350);
</script></body></html>"""
TICK = "(ms) => setTimeout(() => { document.getElementById('px').textContent = '10.50'; }, ms)"


def opened(timers: bool) -> AbstractAsyncContextManager[tuple[Page, Watch]]:
    return watched_page(PAGE, 300, timers)


async def click(page: Page, watch: Watch, selector: str, tick_ms: int | None = None,
                late_ms: int = 0) -> tuple[bool, str]:
    """One click as the agent makes it. `tick_ms`: the page's own timer, set while the agent is
    idle before it looks, changes the price that much later. `late_ms`: when the click changed
    nothing, look again that much later (the agent's wait for a late effect)."""
    if tick_ms is not None:
        await page.evaluate(TICK, tick_ms)
    before = await fingerprint.take(page)
    await watch.mark(page)
    if tick_ms is not None and not late_ms:
        # the click comes after the tick: the tick is surely inside the window
        await page.wait_for_function("() => document.getElementById('px').textContent === '10.50'")
    await page.click(selector)
    await page.wait_for_timeout(120)  # the settle
    after = await fingerprint.take(page)
    await watch.verdict(page)
    got = await validator.effect(page, Click(ref="e1", observation_id=0), "", before, after, None,
                                 lambda e: watch.vetoes(page, e))
    if got[0] or not late_ms:
        return got
    await page.wait_for_timeout(late_ms)
    later = await fingerprint.take(page)
    return await validator.effect(page, Click(ref="e1", observation_id=0), "", before, later, None,
                                  lambda e: watch.vetoes(page, e))


async def in_window(timers: bool) -> list[tuple[bool, str]]:
    async with opened(timers) as (page, watch):
        return [await click(page, watch, "#dead", tick_ms=150), await click(page, watch, "#save")]


def test_a_first_tick_in_a_dead_clicks_window_is_not_its_effect() -> None:
    dead, save = asyncio.run(in_window(timers=True))
    assert dead == (False, "ambient")
    assert save[0] and "text" in save[1]  # the click's own timer wrote "Saved"


def test_switched_off_the_first_tick_is_credited() -> None:
    dead, _ = asyncio.run(in_window(timers=False))
    assert dead == (True, "text")


async def after_window() -> list[tuple[bool, str]]:
    async with opened(timers=True) as (page, watch):
        # the tick lands after the verdict, while the agent waits for a late effect
        return [await click(page, watch, "#dead", tick_ms=250, late_ms=400),
                await click(page, watch, "#slow", late_ms=500)]


def test_a_late_tick_is_not_a_late_effect_and_a_late_effect_is() -> None:
    dead, slow = asyncio.run(after_window())
    assert dead == (False, "ambient")
    assert slow[0] and "text" in slow[1]


HERE = Path(__file__).parent / "language"


def _episodes(tmp_path: Path, *overrides: str) -> RunResult:
    return run_experiment(tmp_path, [
        f"tasks.dirs=[{HERE / 'tasks'}]", f"sites.dirs=[{HERE / 'sites'}]", "suite=fixtures",
        "suite.tags=[]", "suite.ids=[pricealert-acme-alert]", "perception=none", "seeds=[0,1,2]",
        "trace.playwright=false", "trace.screenshots=none", *overrides])


def test_a_watchlist_that_ticks_on_its_own_timers(tmp_path: Path) -> None:
    on = _episodes(tmp_path / "on")
    off = _episodes(tmp_path / "off", "agent.ambient_timers=false")

    def dead_clicks_credited(result: RunResult) -> int:
        steps = pd.read_parquet(result.run_dir / "steps.parquet")
        dead = steps[(steps.action == "click") & steps.target_context.str.contains("What's new")]
        return int(dead.effective.sum())

    assert on.episodes.success.all() and dead_clicks_credited(on) == 0
    assert not off.episodes.success.any() and dead_clicks_credited(off) == 3
