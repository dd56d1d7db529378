"""What the page has scheduled (agents/schedule.py). In a real page: nothing scheduled, a timeout
due within the wait and one due after it, a cancelled timeout, an interval, an animation-frame
loop, a finite transition, a hover menu shown after a transition delay, a request in flight and a
timer of a child frame. On a fresh page (tests/language/sites/drafts/) whose "Saving draft…" and
spinner nothing will take away, the transient wait ends at once with the mechanism and runs to its
3 s cap without it, while "Checking links…" (three timers in a row) is still waited out; of its
two "Share" buttons the first does nothing, and is condemned after two no-ops with no late look
and no backoff between them (three of each, 3.5 s, without the mechanism); a click that changes
nothing (the catalogue's `noop-follow`, a button hydrated on first click) is not looked at again
for a late effect."""

from __future__ import annotations

import asyncio
import types
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import Route, async_playwright

from agents.schedule import SCHEDULE_JS, Schedule
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

URL = "http://schedule.test/page.html"
PAGE = """<!doctype html><html><head><style>
#menu { visibility: hidden; transition: visibility 0s 400ms; } #nav:hover #menu { visibility: visible; }
</style></head><body>
<button id="later">Later</button> <button id="cancel">Cancel</button> <button id="tick">Tick</button>
<button id="loop">Loop</button> <button id="fade">Fade</button> <button id="load">Load</button>
<button id="frame">Frame</button> <button id="slices">Slices</button> <div id="nav">Products <a id="menu" href="#">Kettles</a></div>
<p id="out">out</p>
<script>
const out = document.getElementById("out");
let t = 0;
document.getElementById("later").onclick = () => { t = setTimeout(() => { out.textContent = "later"; }, 2000); };
document.getElementById("cancel").onclick = () => clearTimeout(t);
document.getElementById("tick").onclick = () => setInterval(() => { out.title = String(Date.now()); }, 200);
document.getElementById("loop").onclick = () => { const f = () => requestAnimationFrame(f); f(); };
document.getElementById("fade").onclick = () => { out.style.transition = "opacity 2s"; out.style.opacity = "0"; };
document.getElementById("load").onclick = () => fetch("/slow").then((r) => r.text()).then((s) => { out.textContent = s; });
document.getElementById("frame").onclick = () => {
  const f = document.createElement("iframe"); f.src = "/child.html"; document.body.append(f);
};
document.getElementById("slices").onclick = () => {  // work in slices, a message per slice
  const ch = new MessageChannel(); let n = 0;
  ch.port1.onmessage = () => { const t = performance.now(); while (performance.now() - t < 4); if (++n < 1000) ch.port2.postMessage(0); else window.slicesDone = true; };
  ch.port2.postMessage(0);
};
setTimeout(() => { out.dataset.session = "over"; }, 600000);  // due long after any wait
</script></body></html>"""
CHILD = "<!doctype html><p>child</p><script>setTimeout(() => {}, 8000);</script>"


async def _answers(clicks: Sequence[str], within_ms: Sequence[float], hover: str = "",
                   wait_ms: int = 0, until: str = "") -> list[bool]:
    """`may_change(within)` for each of `within_ms`, after the clicks (and a hover), `wait_ms`
    later (after the page says `until`, if given)."""
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        try:
            context = await browser.new_context()
            await context.add_init_script(script=SCHEDULE_JS)
            page = await context.new_page()

            async def slow(route: Route) -> None:
                await asyncio.sleep(3.0)
                await route.fulfill(body="loaded")

            await page.route(URL, lambda route: route.fulfill(body=PAGE, content_type="text/html"))
            await page.route("http://schedule.test/child.html",
                             lambda route: route.fulfill(body=CHILD, content_type="text/html"))
            await page.route("http://schedule.test/slow", slow)
            schedule = Schedule()
            await schedule.start(types.SimpleNamespace(page=page))  # type: ignore[arg-type]
            await page.goto(URL)
            for selector in clicks:
                await page.click(selector)
            if hover:
                await page.hover(hover)
            if until:
                await page.wait_for_function(until, timeout=20_000)
            await page.wait_for_timeout(100 + wait_ms)
            return [bool(await schedule.may_change(page, w)) for w in within_ms]
        finally:
            await browser.close()


def test_a_page_with_nothing_due_within_the_wait_cannot_change() -> None:
    # the page's own ten-minute timer is due long after any wait
    assert asyncio.run(_answers([], [3000])) == [False]
    assert asyncio.run(_answers(["#later", "#cancel"], [3000])) == [False]


def test_a_timeout_counts_only_when_due_before_the_wait_ends() -> None:
    assert asyncio.run(_answers(["#later"], [3000, 500])) == [True, False]
    assert asyncio.run(_answers(["#later"], [3000], until="out.textContent === 'later'")) == [False]  # it ran


def test_loops_animations_requests_and_frames_may_change_the_page() -> None:
    assert asyncio.run(_answers(["#tick"], [3000])) == [True]
    assert asyncio.run(_answers(["#loop"], [3000])) == [True]
    assert asyncio.run(_answers(["#fade"], [3000])) == [True]
    assert asyncio.run(_answers(["#load"], [3000])) == [True]
    assert asyncio.run(_answers(["#load"], [3000], until="out.textContent === 'loaded'")) == [False]
    assert asyncio.run(_answers(["#frame"], [10000])) == [True]  # the child's timer
    assert asyncio.run(_answers(["#slices"], [3000])) == [True]  # a message per slice, 4 s or more
    assert asyncio.run(_answers(["#slices"], [3000], until="window.slicesDone")) == [False]


def test_a_menu_shown_after_a_transition_delay_may_still_come() -> None:
    assert asyncio.run(_answers([], [3000], hover="#nav")) == [True]
    assert asyncio.run(_answers([], [3000], hover="#nav", until="!document.getAnimations().length")) == [False]


HERE = Path(__file__).parent / "language"


def _steps(tmp_path: Path, ids: str, seeds: str, *overrides: str, fresh: bool = True) -> pd.DataFrame:
    pages = [f"tasks.dirs=[{HERE / 'tasks'}]", f"sites.dirs=[{HERE / 'sites'}]"] if fresh else []
    result = run_experiment(tmp_path, [
        *pages, "suite=fixtures", "suite.tags=[]", f"suite.ids=[{ids}]", "perception=none",
        f"seeds=[{seeds}]", "trace.playwright=false", "trace.screenshots=none", *overrides])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    return pd.read_parquet(result.run_dir / "steps.parquet")


def test_an_indicator_nothing_will_take_away_is_not_waited_on(tmp_path: Path) -> None:
    on = _steps(tmp_path / "on", "drafts-check-and-publish", "0,1")
    saved, checked = on[on.subgoal_index == 0], on[on.subgoal_index == 1]
    assert len(saved) == 2 and (saved.transient_ms < 1000).all() and (saved.waits_cut == 1).all()
    assert (checked.transient_ms >= 900).all() and (checked.waits_cut == 0).all()  # three timers
    off = _steps(tmp_path / "off", "drafts-check-and-publish", "0", "agent.schedule=false")
    assert (off[off.subgoal_index == 0].transient_ms >= 2900).all() and (off.waits_cut == 0).all()


def test_a_dead_control_is_condemned_without_waiting_when_nothing_can_wake_it(tmp_path: Path) -> None:
    on = _steps(tmp_path / "on", "drafts-share", "0")
    dead = on[on.error_type == "no_effect"]
    assert len(on) == 3 and len(dead) == 2  # two no-ops, then the other "Share"
    assert (dead.waits_cut == 2).all() and (on.backoff_ms == 0).all()  # the late look, the backoff
    off = _steps(tmp_path / "off", "drafts-share", "0", "agent.schedule=false")
    looked = off[off.error_type == "no_effect"]
    # each no-op looked at for 500 ms and backed off after; a third when the first two came
    # within the guard's second (they do on an idle machine)
    assert len(looked) >= 2 and (looked.validate_ms >= 500).all() and (looked.backoff_ms > 0).all()
    assert (off.waits_cut == 0).all()


def test_a_dead_click_is_not_looked_at_again_when_nothing_can_answer(tmp_path: Path) -> None:
    # the catalogue's hydrated "Follow": the first click is swallowed, the second follows
    on = _steps(tmp_path / "on", "noop-follow", "0", fresh=False)
    dead = on[on.error_type == "no_effect"]
    assert len(dead) == 1 and (dead.waits_cut == 2).all()
    assert (on.backoff_ms == 0).all()  # the late look and the backoff after it, both cut
    off = _steps(tmp_path / "off", "noop-follow", "0", "agent.schedule=false", fresh=False)
    looked = off[off.error_type == "no_effect"]
    assert len(looked) == 1 and (looked.validate_ms >= 500).all() and (off.waits_cut == 0).all()
    assert (off.backoff_ms > 0).any()
    assert dead.validate_ms.iloc[0] < looked.validate_ms.iloc[0] - 300  # 500 ms of looking not made
