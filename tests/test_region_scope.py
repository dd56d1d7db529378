"""agents/region_scope.py: when the page changed in one place, vision's candidates elsewhere are
kept. On a page of its own (tests/language/sites/pantry/: an aisle filter re-renders the product
list, "Add" fills the basket and renames the header, a quantity shown as text), the agent with
region scope perceives once and finds every later target among the kept candidates or the new
observation's controls inside the changed regions; without it, every step after a change is a
full vision pass. And in a real page: where the fingerprint says the page changed, and that a
scroll makes it unknown."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from playwright.async_api import async_playwright

from agents import fingerprint
from agents.marks import Seen
from agents.observation import Box
from agents.region_scope import kept
from harness.browser import BrowserSettings, launch
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
COMMON = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
          "suite.ids=[pantry-earl-grey]", "seeds=[0,1]", "trace.playwright=false",
          "perception=synthetic"]


@pytest.mark.browser
def test_changes_in_one_place_keep_vision_elsewhere(tmp_path: Path) -> None:
    on = run_experiment(tmp_path / "on", COMMON)
    off = run_experiment(tmp_path / "off", [*COMMON, "agent.region_scope=false"])
    assert on.episodes.success.all() and off.episodes.success.all()
    on_steps = pd.read_parquet(on.run_dir / "steps.parquet")
    off_steps = pd.read_parquet(off.run_dir / "steps.parquet")
    region = on_steps[on_steps.cache == "region"]
    assert len(region) >= 6 and (region.kept_candidates > 0).all() and (region.region_filled > 0).all()
    assert (region.changed_regions != "").all() and region.effective.all()
    assert "region" not in set(off_steps.cache) and (off_steps.kept_candidates == 0).all()
    assert on.episodes.vision_calls.sum() < off.episodes.vision_calls.sum()


def test_kept_candidates_lie_outside_the_changed_regions() -> None:
    header = Seen(Box(x=1000, y=10, width=80, height=20), "Basket (0)", 0.9)
    item = Seen(Box(x=640, y=100, width=40, height=20), "Add", 0.9)
    near = Seen(Box(x=640, y=134, width=40, height=20), "Add", 0.9)  # 10 px below the region
    regions = ((600, 60, 100, 64),)
    assert kept([header, item, near], regions, 16) == [header]
    assert kept([header, item, near], regions, 0) == [header, near]


PAGE = """<!doctype html><html><body style="height: 3000px">
<button id="top">Basket (0)</button>
<ul id="list"><li>Tea <button>Add</button></li></ul>
<button id="far" style="margin-top: 300px">Check out</button>
</body></html>"""


async def regions_scenario() -> tuple[tuple, tuple | None, tuple | None]:
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        context = await browser.new_context()
        await context.add_init_script(script=fingerprint.MUTATION_COUNTER_JS)
        page = await context.new_page()
        await page.route("http://region.test/", lambda r: r.fulfill(body=PAGE, content_type="text/html"))
        await page.goto("http://region.test/")
        epoch = await fingerprint.take(page)
        assert epoch is not None and epoch.take >= 0
        await page.evaluate("""() => { document.getElementById('list').insertAdjacentHTML(
            'beforeend', '<li>Coffee <button>Add</button></li>'); }""")
        after = await fingerprint.take(page, epoch.take)
        boxes = {name: await page.locator(sel).bounding_box() for name, sel in
                 (("list", "#list"), ("top", "#top"))}
        await page.mouse.wheel(0, 200)
        await page.wait_for_timeout(100)
        scrolled = await fingerprint.take(page, epoch.take)
        await browser.close()
    assert after is not None and scrolled is not None
    return (boxes["list"], boxes["top"]), after.regions, scrolled.regions


@pytest.mark.browser
def test_the_fingerprint_says_where_the_page_changed() -> None:
    (list_box, top_box), regions, scrolled = asyncio.run(regions_scenario())
    assert regions  # the list (its new child) and the control that moved down (Check out)
    def covers(r: tuple, box: dict) -> bool:
        return r[0] <= box["x"] + 1 and r[1] <= box["y"] + 1 and \
            r[0] + r[2] >= box["x"] + box["width"] - 1 and r[1] + r[3] >= box["y"] + box["height"] - 1
    assert any(covers(r, list_box) for r in regions)
    assert not any(r[1] < top_box["y"] + top_box["height"] for r in regions)  # the header stayed
    assert scrolled is None  # the view moved: unknown, so the whole epoch ends
