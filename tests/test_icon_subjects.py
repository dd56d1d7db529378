"""Text-less icons named by what they depict. The synthetic backend labels an icon with the name its
picture is stored under (agents/perception/visible_geometry.py, `picture_name`: delete.png, a
CSS background-image, an SVG's <title> or <use>d symbol, an icon font's class), and the scripted
worker lets an icon show a word of the plan by another name of the same UI symbol ("trash" for a
"bin", tasks/text_match.py `SYMBOLS`), the exact word winning over a synonym.

On a page of its own (tests/language/sites/filebox/: a file list whose row actions are a star
<img>, a pencil <svg><use>, a download arrow drawn with CSS content:url and a bin drawn as a CSS
background-image), the plan asks for "the bin icon of the Budget 2024.xlsx row", "the favourite
icon of ..." and "the download icon of ...". Before, every icon came back without a label and the
worker took any icon of the row (its context fitted): 5/18 over seeds 0-5, by the luck of the star
standing first; after, 14/18 (the rest: vision missed the icon of the named row)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.marks import Mark
from agents.observation import Box
from agents.perception.visible_geometry import picture_name
from agents.worker.scripted import ScriptedWorker
from tasks.schema import Subgoal
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
COMMON = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
          "suite.ids=[filebox-bin,filebox-favourite,filebox-download]", "trace.playwright=false",
          "trace.screenshots=none"]


@pytest.mark.browser
def test_icons_are_chosen_by_what_they_depict(tmp_path: Path) -> None:
    # Seeds on which the synthetic model sees the named row's icon (on seeds 2, 3 and 5 it misses
    # it at the small tier and the same icon of another row is taken; see the module docstring).
    result = run_experiment(tmp_path, [*COMMON, "seeds=[0,1,4]", "perception=synthetic"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()


@pytest.mark.browser
def test_without_vision_no_icon_is_clicked_by_a_synonym(tmp_path: Path) -> None:
    # The DOM alone knows no icon of the page (spans and images without a role): as before, the
    # agent finds no target, and it never clicks a wrong one.
    result = run_experiment(tmp_path, [*COMMON, "seeds=[0,1]", "perception=none"])
    assert (result.episodes.failure == "no_target").all(), result.episodes.failure.tolist()


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


def _icon(number: int, label: str, context: str = "", x: float = 10) -> Mark:
    return Mark(number=number, box=Box(x=x, y=10 * number, width=16, height=16), label=label,
                context=(context,) if context else (), source="vision")


def _chosen(target: str, marks: list[Mark]) -> int | None:
    choice = ScriptedWorker().match(Subgoal(action="click", target=target), marks)
    return choice.mark.number if choice.reply is not None and choice.mark is not None else None


def test_an_icon_shows_the_plan_s_word_by_a_synonym() -> None:
    marks = [_icon(1, "left arrow icon"), _icon(2, "delete icon"), _icon(3, "star icon")]
    assert _chosen("trash icon of the open email", marks) == 2
    assert _chosen("star icon of the open email", marks) == 3
    assert _chosen("favourite icon", marks) == 3
    assert _chosen("back icon", marks) == 1  # "left arrow" names the back symbol
    assert _chosen("reply icon", marks) is None  # no icon shows it by any name


def test_the_exact_word_beats_a_synonym() -> None:
    # The synonym's icon stands in the row the description names; the exact one does not: the
    # exact word still wins, and without it the synonym's icon is taken.
    marks = [_icon(1, "delete icon", "Budget 2024.xlsx"), _icon(2, "trash icon", "Team photo.jpg")]
    assert _chosen("trash icon of the Budget 2024.xlsx row", marks) == 2
    assert _chosen("trash icon of the Budget 2024.xlsx row", marks[:1]) == 1
    # on equal terms the exact name scores higher
    assert _chosen("bin icon", [_icon(1, "trash icon"), _icon(2, "bin icon")]) == 2


def test_synonyms_are_for_icons_only() -> None:
    # A text control is matched word for word: "Remove" does not stand for "Delete".
    assert _chosen("Delete link", [_icon(1, "Remove")]) is None
    assert _chosen("delete icon", [_icon(1, "remove icon")]) == 1
