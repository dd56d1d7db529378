"""Folded clickables (agents/folded.py): a hand-written control alone in its wrapper is folded by
Playwright's snapshot into the wrapper, a generic without the pointer cursor, so without vision
nothing fits "Species picker showing Any species". When nothing fits, the plain elements whose box
and words are those of an element that starts a pointer cursor or is a tab stop are listed too.
Before: tests/language/sites/shelter (ours) and paywidget (written outside the project) 0/10
without vision; switched off, still 0."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import async_playwright

from agents.folded import _STARTS_JS
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><body style="font: 14px sans-serif">
<div class="wrap"><div id="toggle" style="cursor: pointer; padding: 6px">Newest first</div></div>
<div style="cursor: pointer"><span id="inherits">inherits the cursor</span></div>
<button style="cursor: pointer">A button</button>
<a href="#x" style="cursor: pointer">A link</a>
<div role="option" tabindex="0" style="cursor: pointer">An option</div>
<div tabindex="0" id="stop">A tab stop</div> <div tabindex="-1">Script focus only</div>
<div style="cursor: pointer; width: 2px; height: 2px"></div>
</body></html>"""


def test_where_a_pointer_cursor_starts_or_a_tab_stop_is() -> None:
    async def run() -> list[str]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content(PAGE)
                return [text for *_, text in await page.evaluate(_STARTS_JS)]
            finally:
                await browser.close()

    # the toggle and the div the cursor starts on (not its child, which inherits it), the tab
    # stop; not what only a script focuses, not a dot (controls are there too: only plain
    # elements of the observation are matched against them)
    got = asyncio.run(run())
    assert {"Newest first", "inherits the cursor", "A tab stop", "A button"} <= set(got)
    assert not {"Script focus only", ""} & set(got)
    assert got.count("inherits the cursor") == 1


HERE = Path(__file__).parent / "language"


def _episodes(tmp_path: Path, *overrides: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    result = run_experiment(tmp_path, [
        f"tasks.dirs=[{HERE / 'tasks'}]", f"sites.dirs=[{HERE / 'sites'}]", "suite=fixtures",
        "suite.tags=[]", "suite.ids=[shelter-meet-mabel]", "perception=none", "seeds=[0,1]",
        "trace.playwright=false", "trace.screenshots=none", *overrides])
    return result.episodes, pd.read_parquet(result.run_dir / "steps.parquet")


def test_a_picker_folded_into_its_wrapper_without_vision(tmp_path: Path) -> None:
    on, steps = _episodes(tmp_path / "on")
    assert on.success.all()
    picked = steps[steps.subgoal_index == 0]
    assert (picked.effect.str.startswith("folded:") & picked.effective).any()
    assert set(picked.target_name) == {"Any species"}
    off, _ = _episodes(tmp_path / "off", "agent.folded=false")
    assert not off.success.any() and (off.failure == "no_target").all()
