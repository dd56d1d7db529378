"""Text-less icons named by what they depict: the synthetic backend labels an icon with the name
its picture is stored under (agents/perception/visible_geometry.py, `picture_name`: delete.png, a
CSS background-image, an SVG's <title> or <use>d symbol, an icon font's class)."""

from __future__ import annotations

import asyncio

import pytest

from agents.perception.visible_geometry import picture_name

READER_PAGE = """<!doctype html><html><head><base href="http://127.0.0.1:9/app/">
<style>
 .a { display: inline-block; width: 16px; height: 16px; margin: 4px; cursor: pointer; }
 #css { content: url(icons/left-arrow-white.png); }
 #bg { background-image: url("/static/trash.5f3a9c2e.svg?v=2"); }
 #before::before { content: url(ic_settings_24px.svg); }
</style></head><body>
<img id="img" class="a" src="icons/ic_star@2x.png">
<span id="css" class="a"></span>
<span id="bg" class="a"></span>
<span id="before" class="a"></span>
<span id="use" class="a"><svg width="16" height="16"><use href="sprite.svg#icon-pencil"/></svg></span>
<span id="title" class="a"><svg width="16" height="16"><title>Search</title><circle cx="8" cy="8" r="5"/></svg></span>
<button id="font" class="a" style="border:0"><i class="fa fa-lg fa-bookmark"></i></button>
<img id="meaningless" class="a" src="img_3.png">
<span id="labelled" class="a" style="width:auto">Delete</span>
</body></html>"""


@pytest.mark.browser
def test_the_reader_names_each_kind_of_picture() -> None:
    from playwright.async_api import async_playwright

    from agents.perception import visible_geometry
    from harness.browser import BrowserSettings, launch

    async def read() -> dict[str, tuple[str, str, str]]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page(viewport={"width": 800, "height": 600})
                await page.set_content(READER_PAGE)
                regions = await visible_geometry.read_regions(page)
                out = {}
                for el in await page.query_selector_all("body > *"):
                    b = await el.bounding_box()
                    assert b is not None
                    r = next(r for r in regions if abs(r.box[0] - b["x"]) < 1 and abs(r.box[1] - b["y"]) < 1)
                    out[await el.get_attribute("id") or ""] = (r.text, r.picture, r.kind)
                return out
            finally:
                await browser.close()

    got = asyncio.run(read())
    assert got["img"] == ("", "star icon", "icon")
    assert got["css"] == ("", "left arrow white icon", "icon")
    assert got["bg"] == ("", "trash icon", "icon")
    assert got["before"] == ("", "settings icon", "icon")
    assert got["use"] == ("", "pencil icon", "icon")
    assert got["title"] == ("", "search icon", "icon")
    assert got["font"] == ("", "bookmark icon", "icon")
    assert got["meaningless"] == ("", "", "icon")
    assert got["labelled"] == ("Delete", "", "control")  # text of its own: no picture name


@pytest.mark.parametrize(("sources", "name"), [
    (["../common/special/email-inbox/left-arrow-white.png"], "left arrow white icon"),
    (["icons/ic_star@2x.png"], "star icon"),
    (["download_24px.svg"], "download icon"),
    (["https://cdn.example/a/trash-can.5f3a9c2e.svg?v=3"], "trash can icon"),
    (["sprite.svg#icon-trash"], "trash icon"),
    (["#icon-trash"], "trash icon"),
    (["leftArrow.png"], "left arrow icon"),
    (["class:fa fa-lg fa-trash"], "trash icon"),
    (["class:bi-star-fill"], "star icon"),
    (["class:glyphicon glyphicon-remove"], "remove icon"),
    (["title:Settings"], "settings icon"),
    (["img_3.png", "delete.png"], "delete icon"),  # the first telling source
])
def test_a_picture_is_named_by_its_file_symbol_title_or_class(sources: list[str], name: str) -> None:
    assert picture_name(sources) == name


@pytest.mark.parametrize("sources", [
    ["img_3.png"], ["icon-sprite.svg"], ["x.png"], ["asset_12@3x.png"], ["data:image/png;base64,iVBO"],
    ["5f3a9c2e.svg"], ["class:fa fa-lg"], [],
])
def test_a_meaningless_picture_name_gives_no_label(sources: list[str]) -> None:
    assert picture_name(sources) == ""
