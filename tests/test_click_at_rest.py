"""A click on a target that is where the step's reading saw it presses at once (agents/click_at_rest.py);
one whose box moved since, that something covers, that a label draws or that is disabled goes
through Playwright's click and its waits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import async_playwright

from agents import input_formats
from agents.click_at_rest import _AT_REST_JS
from harness.browser import BrowserSettings, launch

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Draft</title>
<script src="/_gb/gb.js"></script>
<style>
  button { position: absolute; left: 40px; width: 160px; height: 40px; }
  #save { top: 120px; } #discard { top: 220px; }
  /* the two buttons trade places SWAP ms after the page loads: no node or attribute changes,
     only where each is drawn */
  .swap #save { animation: down 1ms SWAPms forwards; }
  .swap #discard { animation: up 1ms SWAPms forwards; }
  @keyframes down { to { transform: translateY(100px); } }
  @keyframes up { to { transform: translateY(-100px); } }
</style></head>
<body class="CLASS"><h1>Your draft</h1>
<button id="save" type="button" onclick="GB.set({saved: true}); this.textContent = 'Saved'">Save draft</button>
<button id="discard" type="button" onclick="GB.set({discarded: true}); this.textContent = 'Discarded'">Discard draft</button>
</body></html>
"""

_TASK = """id: draft-save-{name}
site: draft
start: /draft/{name}.html
goal: Save the draft.
tags: [test]
max_steps: 4
plan:
  - {{action: click, target: Save draft button, label: Save draft}}
success:
  - {{state_equals: {{saved: true}}}}
"""


def _write(root: Path) -> list[str]:
    (root / "sites" / "draft").mkdir(parents=True)
    (root / "tasks").mkdir()
    for name, body_class in (("still", ""), ("swap", "swap")):
        page = _PAGE.replace("CLASS", body_class).replace("SWAP", "2500")
        (root / "sites" / "draft" / f"{name}.html").write_text(page)
        (root / "tasks" / f"{name}.yaml").write_text(_TASK.format(name=name))
    # the page is read about 1 s after it loads (the start's settle waits out an animation under
    # way up to 1 s) and vision takes 4 s: the swap, 2.5 s after the load, comes between the
    # reading and the click, with a margin for a slow machine either side
    return [f"sites.dirs=[{root / 'sites'}]", f"tasks.dirs=[{root / 'tasks'}]", "suite=fixtures",
            "suite.tags=[]", "suite.ids=[draft-save-still,draft-save-swap]", "seeds=[0]",
            "perception=synthetic", "perception.latency_ms.small=4000", "perception.latency_ms.large=4000",
            "trace.playwright=false", "trace.screenshots=none"]


@pytest.mark.browser
def test_a_still_target_is_pressed_at_once_and_one_that_moved_is_left_to_playwright(tmp_path: Path) -> None:
    args = _write(tmp_path)
    on = run_experiment(tmp_path / "on", args)
    off = run_experiment(tmp_path / "off", [*args, "agent.click_at_rest=false"])
    for result in (on, off):
        assert result.episodes.success.all(), result.episodes[["task_id", "success"]]
    steps = pd.read_parquet(tmp_path / "on" / "steps.parquet").set_index("task_id")
    assert steps.loc["draft-save-still", "at_rest"]
    # Save draft moved down after the page was read (Discard draft came up where it was): the box
    # read as the action starts is not the one seen, so the target is not known to be at rest and
    # Playwright's click, which waits for it to keep still, presses it where it is now.
    assert not steps.loc["draft-save-swap", "at_rest"]
    assert steps.loc["draft-save-swap", "target_name"] == "Save draft"
    assert not pd.read_parquet(tmp_path / "off" / "steps.parquet").at_rest.any()


_CASES = """<!doctype html><html><body>
<button id="plain" style="position:absolute;left:10px;top:10px;width:100px;height:30px">Plain</button>
<button id="covered" style="position:absolute;left:10px;top:60px;width:100px;height:30px">Covered</button>
<div style="position:fixed;left:0;top:50px;width:300px;height:50px;background:rgba(0,0,0,.01)"></div>
<button id="disabled" disabled style="position:absolute;left:10px;top:110px;width:100px;height:30px">Off</button>
<div aria-disabled="true"><span role="button" id="aria" style="position:absolute;left:10px;top:160px">Aria off</span></div>
<label id="card" style="position:absolute;left:10px;top:210px;width:200px;height:40px">
  <input id="tick" type="checkbox" style="position:absolute;left:0;top:0;opacity:0;width:1px;height:1px"> Gift wrap
  <span style="position:absolute;inset:0"></span></label>
<x-host id="host" style="position:absolute;left:10px;top:260px;display:block"></x-host>
<input id="date" type="date" style="position:absolute;left:10px;top:310px">
<input id="text" style="position:absolute;left:200px;top:310px">
<button id="below" style="position:absolute;left:10px;top:2000px">Far below</button>
<iframe id="frame" srcdoc="<button>In frame</button>" style="position:absolute;left:400px;top:10px"></iframe>
<iframe id="hidden" srcdoc="<button>Under a layer</button>" style="position:absolute;left:400px;top:200px"></iframe>
<div style="position:absolute;left:390px;top:190px;width:400px;height:200px;background:rgba(0,0,0,.01)"></div>
<script>
  document.getElementById("host").attachShadow({mode: "open"}).innerHTML =
    '<button id="inner" style="width:120px;height:30px">In shadow</button>';
</script></body></html>"""


def test_the_press_point_is_given_only_for_an_enabled_element_on_top_where_it_was_seen() -> None:
    async def main() -> dict[str, object]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content(_CASES)
                filled = sorted(input_formats.TYPED)

                async def point(selector: str, typed: bool = False, shift: float = 0) -> object:
                    loc = page.locator(selector)  # its box as a reading records it: in its frame's viewport
                    seen = await loc.evaluate("(e) => { const r = e.getBoundingClientRect();"
                                              " return [r.x, r.y, r.width, r.height].map(Math.round); }")
                    seen[0] += shift
                    return await loc.evaluate(_AT_REST_JS, [seen, filled if typed else []])

                return {
                    "plain": await point("#plain"),
                    "moved": await point("#plain", shift=3),
                    "covered": await point("#covered"),
                    "disabled": await point("#disabled"),
                    "aria": await point("#aria"),
                    "tick": await point("#tick"),
                    "inner": await point("#inner"),
                    "date typed": await point("#date", typed=True),
                    "date clicked": await point("#date"),
                    "text typed": await point("#text", typed=True),
                    "below": await point("#below"),
                    "framed": await point("#frame >> internal:control=enter-frame >> button"),
                    "framed, covered": await point("#hidden >> internal:control=enter-frame >> button"),
                    "framed, seen by Playwright": await page.locator(
                        "#frame >> internal:control=enter-frame >> button").bounding_box(),
                }
            finally:
                await browser.close()

    got = asyncio.run(main())
    assert got["plain"] == [60, 25]
    assert got["inner"] is not None and got["text typed"] is not None and got["date clicked"] is not None
    # an element of a frame: its centre in the top document's viewport, as Playwright places it
    seen = got["framed, seen by Playwright"]
    assert isinstance(seen, dict) and isinstance(got["framed"], list)
    assert got["framed"] == pytest.approx([seen["x"] + seen["width"] / 2, seen["y"] + seen["height"] / 2], abs=1)
    for case in ("moved", "covered", "disabled", "aria", "tick", "date typed", "below", "framed, covered"):
        assert got[case] is None, case
