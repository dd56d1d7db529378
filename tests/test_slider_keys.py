"""set_value on a slider with no value to fill (agents/stepper.py). On a page of its own
(tests/language/sites/lights/: two hand-made sliders, a span knob with a tab stop and no role or
aria, the value in a text beside the track), vision finds each knob, a point; the set_value
focuses the knob there, finds the readout by the number one arrow press moves, and presses the
arrows until the readout shows the value. Before, a point could carry no value: every episode
failed on "set_value needs a DOM target". With perception none the knob (no role) is not in the
DOM listing at all, so that run is left to vision."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.actions import SetValue, execute
from agents.observation import RefBook
from agents.stepper import Reading, Readout, SetValueError, find_readout, presses_needed
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"


@pytest.mark.browser
def test_sliders_without_a_value_are_set_by_keys(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[lights-dim]", "seeds=[0,1,2]", "trace.playwright=false",
        "perception=synthetic"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()


def test_the_readout_is_the_moved_number_nearest_the_control() -> None:
    # the page's title says 40 (not moving), two values moved: the one beside the knob counts
    before = Reading(None, ((0, 40, 10, 10), (3, 62, 300, 100), (7, 5, 900, 600)))
    after = Reading(None, ((0, 40, 10, 10), (3, 63, 300, 100), (7, 6, 900, 600)))
    assert find_readout(before, after, (250, 100)) == (Readout(3), 1)
    assert find_readout(before, before, (250, 100)) is None
    # the focused element's own aria-valuenow wins over any text
    assert find_readout(Reading(10, before.texts), Reading(15, after.texts), (0, 0)) == (Readout(None), 5)
    assert Readout(3).value(after) == 63 and Readout(None).value(Reading(15, ())) == 15


def test_presses_are_counted_in_measured_steps() -> None:
    assert presses_needed(5300, 3400, 100) == -19
    assert presses_needed(62, 35, 1) == -27
    assert presses_needed(0.5, 1.25, 0.25) == 3
    with pytest.raises(SetValueError):
        presses_needed(10, 15, 10)  # between two steps


# A jQuery-UI-like vertical slider (Up/Right raise, Down/Left lower, by 5) with its value in a
# separate text, and an ARIA slider div (aria-valuenow, by 2): neither has a value to fill.
SLIDERS = """<!doctype html><body style="font: 14px sans-serif">
<p>Pick 2 settings</p>
<div id="v" style="position:relative;width:8px;height:200px;margin:20px;background:#ccc">
  <span id="h" tabindex="0" style="position:absolute;left:-6px;width:20px;height:20px;background:#36c"></span>
</div><div id="val">50</div>
<div id="a" role="slider" tabindex="0" aria-valuemin="0" aria-valuemax="40" aria-valuenow="12"
     aria-label="Level" style="width:200px;height:20px;background:#eee">12 units</div>
<script>
let v = 50;
const h = document.getElementById("h");
const draw = () => { h.style.top = (200 - v * 2 - 10) + "px"; document.getElementById("val").textContent = v; };
draw();
h.addEventListener("keydown", (e) => {
  const by = {ArrowUp: 5, ArrowRight: 5, ArrowDown: -5, ArrowLeft: -5}[e.key];
  if (by) { v = Math.max(0, Math.min(100, v + by)); draw(); e.preventDefault(); }
});
const a = document.getElementById("a");
a.addEventListener("keydown", (e) => {
  const by = {ArrowRight: 2, ArrowLeft: -2}[e.key];
  if (!by) return;
  const now = Math.max(0, Math.min(40, +a.getAttribute("aria-valuenow") + by));
  a.setAttribute("aria-valuenow", now); a.textContent = now + " units";
});
</script></body>"""


@pytest.mark.browser
def test_set_value_steps_a_point_and_an_aria_slider() -> None:
    from playwright.async_api import async_playwright

    from harness.browser import BrowserSettings, launch

    async def probe() -> tuple[str, ...]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            page = await browser.new_page()
            await page.set_content(SLIDERS)
            box = await page.locator("#h").bounding_box()
            assert box is not None
            point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            refs = RefBook()
            reached = await execute(page, refs, SetValue(point=point, value=85))
            shown = await page.locator("#val").inner_text()
            # to the top end, and down from there (the probe's raising key moves nothing)
            await execute(page, refs, SetValue(point=point, value=100))
            box = await page.locator("#h").bounding_box()
            assert box is not None
            point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            down = await execute(page, refs, SetValue(point=point, value=90))
            # the ARIA slider, by its ref in a fresh observation
            obs = await refs.observe(page)
            ref = next(e.ref for e in obs.interactive() if e.role == "slider")
            aria = await execute(page, refs, SetValue(ref=ref, observation_id=obs.id, value=30))
            now = await page.locator("#a").get_attribute("aria-valuenow") or ""
            errors = []
            for value in (87, 300):  # between two steps; beyond the end
                try:
                    await execute(page, refs, SetValue(point=point, value=value))
                except SetValueError as exc:
                    errors.append(str(exc))
            await browser.close()
            return reached, shown, down, aria, now, *errors

    reached, shown, down, aria, now, between, beyond = asyncio.run(probe())
    assert (reached, shown, down) == ("85", "85", "90")
    assert (aria, now) == ("30", "30")
    assert "steps of 5" in between and "out of the control's reach" in beyond
