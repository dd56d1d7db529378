"""A select already showing the value a plan chooses (tests/language/sites/preset: a shop presets
Country and Delivery slot from a guess). Choosing it again changes nothing on the page, so a select
validated by a page change was a no-op three times, found dead, and the subgoal ended in
`no_target`: 3/10 with synthetic vision and 3/10 without. A native select is now validated as a
field is, by reading its value back (agents/validator.py): the option the value names is the one it
holds, whether or not choosing it changed anything."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import Page, Route, async_playwright

from agents import validator
from agents.actions import Select, execute
from agents.observation import RefBook
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "suite.ids=[preset-portugal-evening]", "trace.playwright=false", "trace.screenshots=none"]


@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_select_preset_to_the_value_is_chosen_once_and_done(tmp_path: Path, perception: str) -> None:
    # seed 0 presets the slot to Evening, seed 2 the country to Portugal (both failed before)
    result = run_experiment(tmp_path, [*ARGS, "seeds=[0,2]", f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    selects = steps[steps.action == "select"]
    # one choice per select, each read back: no no-op, no retry
    assert len(selects) == 4 and selects.effective.all() and (selects.effect == "value").all(), selects


PAGE = """<label>Slot <select id="slot"><option>Morning (8–12)</option><option selected>Evening (17–21)</option></select></label>
<label>Size <select id="size" onchange="this.value = 'S'"><option>S</option><option>M</option></select></label>"""


def test_the_value_is_read_back_from_the_select() -> None:
    async def main() -> list[tuple[bool, str]]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page: Page = await browser.new_page()

                async def serve(route: Route) -> None:
                    await route.fulfill(status=200, content_type="text/html", body=PAGE)

                await page.route("http://preset.test/**", serve)
                await page.goto("http://preset.test/")
                out = []
                for name, value in [("Slot", "Evening"), ("Size", "M")]:
                    refs = RefBook()
                    obs = await refs.observe(page)
                    el = next(e for e in obs.interactive() if e.name == name)
                    action = Select(ref=el.ref, observation_id=obs.id, value=value)
                    await execute(page, refs, action)
                    out.append(await validator.effect(page, action, "", None, None, None))
                return out
            finally:
                await browser.close()

    # already held: done; refused by the page (it puts S back): not done, though the page changed
    assert asyncio.run(main()) == [(True, "value"), (False, "value_mismatch")]
