"""One in-page definition of an interactive element (agents/interactive.py): the three JS walkers
(snapping's owner at a point, the fingerprint's control set, the synthetic reader's regions) are
built from it and hand-write no selector of their own, and in a real browser they classify the
same elements the same way."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from agents import fingerprint, interactive, snapping
from agents.perception import visible_geometry
from harness.browser import BrowserSettings, launch

REPO = Path(__file__).resolve().parents[1]

# Each walker and the selectors of agents/interactive.py it is built from.
WALKERS = {
    "snapping": (snapping._OWNER_JS, {interactive.CLICK_OWNER}),
    "fingerprint": (fingerprint._WALK_JS, {interactive.INTERACTIVE}),
    "visible_geometry": (visible_geometry._READ_JS, {interactive.INTERACTIVE, interactive.CLICKABLE}),
}


def test_the_variants_are_the_base_plus_an_explicit_addition() -> None:
    assert interactive.CLICKABLE == interactive.INTERACTIVE + ",label"
    assert interactive.CLICK_OWNER == interactive.CLICKABLE + ",option"


@pytest.mark.parametrize("name", WALKERS)
def test_each_walker_uses_the_one_definition_and_no_list_of_its_own(name: str) -> None:
    js, selectors = WALKERS[name]
    assert "__INTERACTIVE__" not in js and "__CLICKABLE__" not in js and "__CLICK_OWNER__" not in js
    for selector in selectors:
        assert json.dumps(selector) in js
    # Every selector-like literal in the built snippet is one of the shared selectors.
    rest = js
    for selector in sorted(selectors, key=len, reverse=True):
        rest = rest.replace(json.dumps(selector), '""')
    assert not re.search(r"a\[href\]|\[onclick\]|\[tabindex\]|\[role\]|contenteditable\]", rest), rest


def test_no_module_writes_the_selector_by_hand() -> None:
    # The base list appears in the source of agents/ once: in agents/interactive.py.
    holders = [p.relative_to(REPO).as_posix() for p in (REPO / "agents").rglob("*.py")
               if "a[href],button" in p.read_text()]
    assert holders == ["agents/interactive.py"]


PAGE = """<!doctype html><html><body style="margin:0;font:16px sans-serif">
<div id="editor" contenteditable style="width:300px;height:40px;margin:10px;border:1px solid #888">Draft text
  <span id="chip" contenteditable="false" style="background:#ddf">Chip island</span></div>
<label id="label" style="display:block;width:300px;height:30px;margin:10px">Bare label</label>
<div id="rolebtn" role="button" style="width:300px;height:30px;margin:10px;background:#eee">Role button</div>
<div id="plain" style="width:300px;height:30px;margin:10px">Plain div</div>
<div style="height:3000px"></div>
</body></html>"""

# id -> (owner at its centre: the element's own id or None for a degraded point; a control of the
# fingerprint; a region of the synthetic reader, with its kind).
EXPECTED = {
    "editor": ("editor", True, "field"),
    "chip": ("editor", False, None),  # an island in an editor: the click goes to the editor
    "label": ("label", False, None),  # a click owner (it forwards the click), not a control
    "rolebtn": ("rolebtn", True, "control"),
    "plain": (None, False, None),
}
TEXT = {"editor": "Draft text Chip island", "chip": "Chip island", "label": "Bare label",
        "rolebtn": "Role button", "plain": "Plain div"}


@pytest.mark.browser
def test_the_three_walkers_classify_the_same_elements_consistently() -> None:
    async def main() -> tuple[dict, dict, set[str]]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page(viewport={"width": 800, "height": 600})
                await page.set_content(PAGE)
                boxes = {i: await page.locator(f"#{i}").bounding_box() for i in EXPECTED}
                owners = {}
                for i, b in boxes.items():
                    owner = await snapping.owner_at(page, b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
                    assert owner is not None
                    owners[i] = None if owner.degraded else next(
                        j for j, o in boxes.items()
                        if (abs(owner.box.x - o["x"]) < 1 and abs(owner.box.y - o["y"]) < 1
                            and abs(owner.box.width - o["width"]) < 1))
                regions = {r.text: r.kind for r in await visible_geometry.read_regions(page)}
                # The fingerprint names the controls out of view: scroll them all out.
                await page.evaluate("window.scrollTo(0, 1500)")
                fp = await fingerprint.take(page)
                assert fp is not None
                return owners, regions, set(fp.offscreen)
            finally:
                await browser.close()

    owners, regions, offscreen = asyncio.run(main())
    for i, (owner, control, kind) in EXPECTED.items():
        assert owners[i] == owner, i
        assert (TEXT[i] in offscreen) == control, i
        assert regions.get(TEXT[i]) == kind, i


@pytest.mark.browser
def test_a_reading_as_json_gives_what_playwright_would() -> None:
    # interactive.as_json: one JSON string instead of Playwright's typed tree; the same data back,
    # an undefined member left out (read with .get, as Playwright's None would be)
    reading = "(n) => ({count: n, half: n / 2, text: 'é “x”', nested: [[1, 2], {ok: true}], gone: undefined})"

    async def main() -> tuple[dict, dict]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                plain = await page.evaluate(reading, 3)
                as_text = await page.evaluate(interactive.as_json(reading), 3)
                assert isinstance(as_text, str)
                return plain, json.loads(as_text)
            finally:
                await browser.close()

    plain, read = asyncio.run(main())
    assert read == {k: v for k, v in plain.items() if v is not None}
    assert read.get("gone") is None and read["nested"] == [[1, 2], {"ok": True}] and read["half"] == 1.5
