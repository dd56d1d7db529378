"""agents/hit_binding.py and the scripted worker's ordinal choice among nameless marks, each on a
page of its own (tests/language/sites/survey, privacy):

- survey: two strips of five painted dots (divs: no text, no role, no name), "the 2nd dot from the
  right in the Delivery speed row". With hit binding, each dot vision saw is bound to the div a
  click lands on, knows the caption of its row and the alike dots beside it, so the ordinal counts
  the dots the page draws (vision misses some); without it nothing fits.
- privacy: switches drawn from divs at the end of sentence rows, one sentence holding a link to a
  recorded page. With hit binding the switch is chosen by the sentence before it; without it the
  nameless switch never fits and the task fails."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from agents.hit_binding import _overlaps
from agents.marks import iou
from agents.observation import Box
from agents.worker.fit import said
from agents.worker.places import from_end
from tasks.schema import Subgoal
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
COMMON = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
          "seeds=[0,1]", "trace.playwright=false", "perception=synthetic"]


@pytest.mark.parametrize("task", ["survey-dots", "privacy-digest"])
def test_nameless_controls_are_bound_and_chosen(tmp_path: Path, task: str) -> None:
    on = run_experiment(tmp_path / "on", [*COMMON, f"suite.ids=[{task}]"])
    assert on.episodes.success.all(), on.episodes.failure_detail.tolist()
    steps = pd.read_parquet(on.run_dir / "steps.parquet")
    first = steps[(steps.subgoal_index == 0) & steps.effective]
    assert (first.route == "point").all() and not first.degraded.any()
    assert (steps.hit_bound > 0).any()
    off = run_experiment(tmp_path / "off", [*COMMON, f"suite.ids=[{task}]", "agent.hit_binding=false"])
    assert not off.episodes.success.any()
    assert (pd.read_parquet(off.run_dir / "steps.parquet").hit_bound == 0).all()


def test_what_a_description_says_and_denies() -> None:
    text, denied = said('the tick box left of "I agree" (the box, not the sentence or its link)')
    assert denied == {"link"} and "link" not in text and "tick box" in text
    assert said("Not now button") == ("Not now button", set())  # a name, not a clause
    assert from_end(Subgoal(action="click", target="the 2nd dot from the right", nth=2))
    assert from_end(Subgoal(action="click", target="the last star", nth=1))
    assert not from_end(Subgoal(action="click", target="the 4th star from the left", nth=4))


def _mark(n: int, x: float, y: float = 100, peers: tuple = (), context: tuple = ()) -> object:
    from agents.marks import Mark
    from agents.observation import Box
    return Mark(number=n, box=Box(x=x, y=y, width=20, height=20), label="", source="vision",
                peers=peers, context=context)


def test_the_nth_of_a_row_of_nameless_marks() -> None:
    from agents.observation import Box
    from agents.worker.scripted import ScriptedWorker
    worker = ScriptedWorker()
    # vision alone (a canvas: no peers): its boxes in one row, counted from the left or the right
    row = [_mark(i, 100 + 30 * i) for i in (1, 2, 3, 4, 5)]
    star = Subgoal(action="click", target="the 4th star from the left", nth=4)
    assert worker.match(star, row).mark.box.x == 220
    right = Subgoal(action="click", target="the 2nd star from the right", nth=2)
    assert worker.match(right, row).mark.box.x == 220
    # bound by a hit test: counted among the peers the page draws, even one vision missed; the
    # group whose context fits the description wins
    peers = tuple(Box(x=100 + 30 * i, y=300, width=20, height=20) for i in range(5))
    other = tuple(Box(x=100 + 30 * i, y=100, width=20, height=20) for i in range(5))
    marks = [_mark(1, 100, 100, other, ("Packaging",)), _mark(2, 100, 300, peers, ("Delivery speed",)),
             _mark(3, 190, 300, peers, ("Delivery speed",))]
    got = worker.match(Subgoal(action="click", target="the 2nd dot in the Delivery speed row", nth=2), marks)
    assert got.mark.box.x == 130 and got.mark.box.y == 300  # not listed: the group's mark, moved
    got = worker.match(Subgoal(action="click", target="the 4th dot in the Delivery speed row", nth=4), marks)
    assert got.mark.number == 3


def test_a_bound_icon_keeps_what_vision_called_it(tmp_path: Path) -> None:
    # divwidgets-date: the calendar's next-month arrow is a CSS chevron with no text of its own;
    # bound one to one to its element, it keeps vision's "next month arrow" as its label (an empty
    # label fitted no description, and the calendar never left its first month)
    run = run_experiment(tmp_path, ["suite=fixtures", "suite.ids=[divwidgets-date]", "seeds=[0,1]",
                                    "perception=synthetic", "trace.playwright=false"])
    assert run.episodes.success.all(), run.episodes.failure_detail.tolist()


SENTENCES = """<!doctype html><html><body style="font: 15px sans-serif; margin: 40px">
<div class="row" style="display: flex; gap: 10px; align-items: center">
  <div id="tick" style="width: 16px; height: 16px; border: 1px solid #555; cursor: pointer"></div>
  <span>I agree to the <a id="terms" href="#terms">Terms of Service</a> of the shop.</span>
</div>
<nav style="display: flex; gap: 10px; margin-top: 40px">
  <div style="width: 16px; height: 16px; border: 1px solid #555; cursor: pointer"></div>
  <span><a id="help" href="#help">Help</a></span>
</nav>
</body></html>"""


@pytest.mark.browser
def test_a_link_seen_inside_a_sentence_finds_the_box_beside_it() -> None:
    # Vision drew only the link inside "I agree to the Terms of Service of the shop."; the page
    # holds a nameless tick box before that sentence. A link alone in its wrapper (a nav entry)
    # is no sentence: nothing beside it is taken.
    import asyncio

    from playwright.async_api import async_playwright

    from agents.hit_binding import _BIND_JS
    from harness.browser import BrowserSettings, launch

    async def probe() -> tuple[list, list, dict]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            page = await browser.new_page()
            await page.set_content(SENTENCES)
            boxes = {}
            for name in ("terms", "help", "tick"):
                b = await page.locator(f"#{name}").bounding_box()
                assert b is not None
                boxes[name] = b
            query = [[b["x"], b["y"], b["width"], b["height"], False, True]
                     for b in (boxes["terms"], boxes["help"])]
            terms, help_ = json.loads(await page.evaluate(_BIND_JS, query))
            await browser.close()
        return terms["parts"], help_["parts"], boxes["tick"]

    terms, help_, tick = asyncio.run(probe())
    assert len(terms) == 1 and abs(terms[0]["box"][0] - tick["x"]) < 1
    assert any("I agree to the" in c for c in terms[0]["context"])
    assert help_ == []


def test_the_overlap_of_plain_edges_is_the_iou_of_boxes() -> None:
    # the binding's overlap tests over every candidate and mark, on plain numbers: the same
    # answers as `marks.iou` on boxes, empty and inverted boxes included
    rnd = random.Random(7)

    def box(width: float) -> Box:
        return Box(x=rnd.uniform(0, 300), y=rnd.uniform(0, 300), width=width, height=rnd.uniform(0, 100))

    for _ in range(5000):
        b = box(rnd.choice([0.0, rnd.uniform(0, 200)]))
        others = [box(rnd.uniform(-5, 200)) for _ in range(5)] + ([b] if rnd.random() < 0.2 else [])
        edges = [(o.x, o.y, o.x + o.width, o.y + o.height, o.area) for o in others]
        assert _overlaps(b, edges, 0.5) == any(iou(b, o) > 0.5 for o in others)
        assert _overlaps(b, edges, 0.3, at_least=0.5) == any(
            iou(o, b) > 0.3 and o.area >= 0.5 * b.area for o in others)
