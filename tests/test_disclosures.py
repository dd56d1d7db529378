"""Sections opened by their header, written as <details>/<summary>: Playwright's aria snapshot calls
a summary `generic` (no role, no expanded state) and shows only the heading when the summary wraps
one, so without vision no such header was a control, and with vision an open section was "expanded"
again, which closed it. The observation now makes the element each summary shows a button, expanded
when its <details> is open (agents/observation.py `mark_disclosures`), in every frame.

Pages of their own: tests/language/sites/profile (two closed sections, one named by a single word
of its description) and tests/language/sites/helpdesk (one open, one whose summary wraps a heading,
one in a frame). Before the change both failed on every seed with and without vision."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import async_playwright

from agents.observation import Box, Element, RefBook, mark_disclosures
from agents.perception import visible_geometry
from harness.browser import BrowserSettings, launch
from sites.server import FixtureServer

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "suite.ids=[profile-bio-alerts,helpdesk-return-callback]", "seeds=[0,1]", "trace.playwright=false",
        "trace.screenshots=none"]


def _el(ref: str, role: str, name: str, box: tuple[float, float, float, float]) -> Element:
    x, y, w, h = box
    return Element(ref=ref, role=role, name=name, box=Box(x=x, y=y, width=w, height=h))


def test_the_element_a_summary_shows_becomes_a_button_with_its_state() -> None:
    elements = {e.ref: e for e in [
        _el("e1", "group", "", (20, 80, 640, 60)),
        _el("e2", "generic", "About you", (27, 87, 626, 18)),      # a summary named from its text
        _el("e3", "group", "", (20, 150, 640, 40)),
        _el("e4", "heading", "Returns", (27, 155, 80, 22)),          # the heading a summary wraps
        _el("e5", "generic", "Returns", (30, 157, 60, 18)),          # ... and a part of it
        _el("e6", "link", "About you help", (400, 88, 80, 16)),      # a control in the header: left
        _el("e7", "generic", "Something else", (27, 87, 100, 18)),   # words the summary does not say
    ]}
    summaries = [[27, 87, 626, 18, True, "About you About you help Something"],
                 [27, 155, 626, 22, False, "Returns"]]
    out = mark_disclosures(elements, summaries)
    assert (out["e2"].role, out["e2"].states) == ("button", {"expanded": "true"})
    assert (out["e4"].role, out["e4"].states) == ("button", {"expanded": "false"})  # the outermost
    assert out["e5"].role == "generic" and out["e6"] == elements["e6"] and out["e7"] == elements["e7"]
    assert mark_disclosures(elements, []) == elements


def test_an_observation_shows_each_summary_as_a_button_in_every_frame() -> None:
    async def observed() -> dict[str, Element]:
        with FixtureServer([HERE / "sites"]) as server:
            async with async_playwright() as pw:
                browser = await launch(pw, BrowserSettings())
                try:
                    page = await browser.new_page()
                    await page.goto(f"{server.origin()}/helpdesk/index.html")
                    await page.wait_for_function("() => document.querySelector('iframe').contentDocument"
                                                 "?.querySelector('summary')")
                    obs = await RefBook().observe(page)
                    return {e.name: e for e in obs.interactive()}
                finally:
                    await browser.close()

    controls = asyncio.run(observed())
    for name, state in [("Delivery times", "true"), ("Returns", "false"), ("Phone support", "false")]:
        assert controls[name].role == "button" and controls[name].states.get("expanded") == state, name
    assert controls["Phone support"].frame  # the one in the frame, known as such


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_sections_behind_summaries_are_opened_once_and_used(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes[["task_id", "failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    # the section that starts open is seen as open, and left open
    delivery = steps[steps.subgoal_target == "Delivery times panel"]
    assert delivery.skipped_satisfied.all() and (delivery.action.fillna("") == "").all(), delivery
    opened = steps[steps.subgoal_action == "expand"].dropna(subset=["action"])
    opened = opened[opened.action != ""]
    assert (opened.target_role == "button").all() and opened.effective.all(), opened


def test_synthetic_vision_does_not_see_what_a_closed_section_holds() -> None:
    """A closed <details> lays its content out (each control has a box) but does not draw it; the
    synthetic reader stands in for pixels, so it must not report those controls."""
    async def seen() -> tuple[list[visible_geometry.Region], list[visible_geometry.Region]]:
        with FixtureServer([HERE / "sites"]) as server:
            async with async_playwright() as pw:
                browser = await launch(pw, BrowserSettings())
                try:
                    page = await browser.new_page()
                    await page.goto(f"{server.origin()}/helpdesk/index.html")
                    closed = await visible_geometry.read_regions(page)
                    await page.click("summary:has-text('Returns')")
                    return closed, await visible_geometry.read_regions(page)
                finally:
                    await browser.close()

    closed, opened = asyncio.run(seen())
    assert "Tell me when my order ships" in {r.label for r in closed}  # the section that starts open
    # the order field and the two buttons of the closed sections (the page's only field; laid out
    # unrendered, they have no text to read, so they came as a field and two nameless icons)
    assert [r for r in closed if r.kind in ("field", "icon")] == []
    assert {"Start a return"} <= {r.label for r in opened} and any(r.kind == "field" for r in opened)
