"""The `ocr` vision backend on images drawn here with Pillow (text, a checkbox, a slider) and on a
real fixture page screenshotted in Chromium."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from PIL import Image, ImageDraw, ImageFont
from playwright.async_api import async_playwright

from agents.perception.base import Candidate, PerceptionResult
from agents.perception.ocr import OcrBackend, OcrConfig, matches_hint
from harness.browser import BrowserSettings, launch, new_episode_context
from sites.server import FixtureServer

W, H = 640, 260
# Where things are drawn, in pixels (x0, y0, x1, y1).
SUBMIT = (24, 20)
NEWSLETTER = (24, 84)
CHECKBOX = (420, 28, 442, 50)
TRACK = (24, 190, 264, 196)
KNOB = (104, 182, 122, 204)


def _png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def _text_box(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str,
              font: ImageFont.FreeTypeFont) -> tuple[int, int, int, int]:
    draw.text(xy, text, fill=(20, 20, 20), font=font)
    return tuple(int(v) for v in draw.textbbox(xy, text, font=font))  # type: ignore[return-value]


@pytest.fixture(scope="module")
def form() -> tuple[bytes, dict[str, tuple[int, int, int, int]]]:
    """Two text labels, an empty checkbox and a slider (track with a knob) on white."""
    image = Image.new("RGB", (W, H), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=30)
    where = {
        "Submit order": _text_box(draw, SUBMIT, "Submit order", font),
        "Newsletter": _text_box(draw, NEWSLETTER, "Newsletter", font),
    }
    draw.rectangle(CHECKBOX, outline=(110, 110, 110), width=2)
    draw.rounded_rectangle(TRACK, radius=3, fill=(225, 225, 225), outline=(150, 150, 150))
    draw.rounded_rectangle((TRACK[0], TRACK[1], KNOB[0] + 9, TRACK[3]), radius=3,
                           fill=(0, 117, 255))
    draw.ellipse(KNOB, fill=(0, 117, 255))
    where["checkbox"] = CHECKBOX
    where["slider"] = (TRACK[0], KNOB[1], TRACK[2], KNOB[3])
    return _png(image), where


@pytest.fixture(scope="module")
def large(form) -> PerceptionResult:
    return _perceive(form[0], "large")


@pytest.fixture(scope="module")
def small(form) -> PerceptionResult:
    return _perceive(form[0], "small")


def _perceive(image: bytes, tier: str = "large", subgoal: str = "", hints: list[str] | None = None,
              cap: int | None = None, backend: OcrBackend | None = None) -> PerceptionResult:
    return asyncio.run((backend or OcrBackend()).perceive(image, subgoal, hints or [], tier,  # type: ignore[arg-type]
                                                          cap=cap))


def _px(c: Candidate, w: int = W, h: int = H) -> tuple[float, float, float, float]:
    return c.box.x0 * w, c.box.y0 * h, c.box.x1 * w, c.box.y1 * h


def _overlaps(a: tuple[float, ...], b: tuple[float, ...], at_least: float = 0.5) -> bool:
    """Intersection covers at least `at_least` of the smaller box."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return False
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return iw * ih >= at_least * smaller


def _compact(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _find(result: PerceptionResult, label: str) -> Candidate:
    hits = [c for c in result.candidates if c.kind == "text" and _compact(c.label) == _compact(label)]
    assert hits, f"{label!r} not among {[c.label for c in result.candidates]}"
    return hits[0]


def test_reads_labels_with_boxes_over_the_drawn_text(form, large: PerceptionResult) -> None:
    _, where = form
    result = large
    assert result.error_type == "" and result.tier == "large" and result.cost.latency_ms > 0
    for label in ("Submit order", "Newsletter"):
        cand = _find(result, label)
        assert 0 <= cand.box.x0 < cand.box.x1 <= 1 and 0 <= cand.box.y0 < cand.box.y1 <= 1
        assert _overlaps(_px(cand), where[label], 0.7), (_px(cand), where[label])
        assert 0.5 <= cand.confidence <= 1


def test_large_tier_finds_the_checkbox_and_the_slider(form, large: PerceptionResult) -> None:
    _, where = form
    result = large
    for kind in ("checkbox", "slider"):
        shapes = [c for c in result.candidates if c.kind == kind]
        assert any(_overlaps(_px(c), where[kind], 0.7) for c in shapes), (kind, result.candidates)
        # nothing captions them here: the box stays unnamed, the slider is called what it is
        assert all(c.label == ("slider" if kind == "slider" else "") and c.confidence < 0.9 for c in shapes)
    # the knob and the text are not mistaken for checkboxes
    assert len([c for c in result.candidates if c.kind == "checkbox"]) == 1


def test_small_tier_is_text_only_and_within_its_cap(small: PerceptionResult) -> None:
    result = small
    assert result.error_type == "" and result.tier == "small"
    assert {c.kind for c in result.candidates} == {"text"}
    assert len(result.candidates) <= OcrConfig().small.cap
    assert _find(result, "Newsletter")


def test_small_cap_truncates_a_dense_image() -> None:
    image = Image.new("RGB", (640, 240), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=24)
    words = ["Apple", "Bread", "Cheese", "Dates", "Eggs", "Flour", "Grapes", "Honey"]
    for row in range(4):
        for col, word in enumerate(words[:4] if row % 2 else words[4:]):
            draw.text((20 + col * 150, 16 + row * 56), word, fill="black", font=font)
    config = OcrConfig(small=OcrConfig().small.model_copy(update={"cap": 6}))
    backend = OcrBackend(config)
    assert len(_perceive(_png(image), "small", backend=backend).candidates) == 6  # of 16 words


def test_small_tier_skips_running_text_that_large_reads() -> None:
    image = Image.new("RGB", (900, 140), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=22)
    draw.text((20, 20), "Checkout", fill="black", font=font)
    draw.text((20, 80), "Orders placed before noon are shipped on the same working day by courier.",
              fill="black", font=font)
    small = [_compact(c.label) for c in _perceive(_png(image), "small").candidates]
    large = [_compact(c.label) for c in _perceive(_png(image), "large").candidates
             if c.kind == "text"]
    assert small == ["checkout"], small
    assert "checkout" in large and any("sameworkingday" in label for label in large), large


def test_hints_first_then_subgoal_words_decide_what_survives_the_cap(form) -> None:
    image, _ = form
    backend = OcrBackend()
    # reading order alone keeps "Submit order" (it is on top)
    assert _compact(_perceive(image, "small", cap=1, backend=backend).candidates[0].label) \
        == "submitorder"
    hinted = _perceive(image, "small", hints=["Newsletter"], cap=1, backend=backend)
    assert _compact(hinted.candidates[0].label) == "newsletter"
    relevant = _perceive(image, "small", subgoal="Open the newsletter sign-up", cap=1,
                         backend=backend)
    assert _compact(relevant.candidates[0].label) == "newsletter"
    assert matches_hint("Newslettr", "Newsletter") and not matches_hint("Submit", "Newsletter")


@pytest.mark.parametrize("data", [b"", b"not a png at all", b"\x89PNG\r\n\x1a\n" + b"\0" * 40])
def test_bad_image_bytes_are_a_recorded_error(data: bytes) -> None:
    result = _perceive(data, "small")
    assert result.error_type == "perception_error" and result.error
    assert result.candidates == [] and result.cost.latency_ms >= 0


def test_inference_runs_off_the_event_loop(form) -> None:
    image, _ = form

    async def main() -> tuple[PerceptionResult, int]:
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        task = asyncio.create_task(ticker())
        result = await OcrBackend().perceive(image, "", [], "large")
        done.set()
        await task
        return result, ticks

    result, ticks = asyncio.run(main())
    assert result.error_type == "" and ticks >= 3


@pytest.mark.browser
def test_reads_the_shop_fixture_page_in_chromium() -> None:
    async def main() -> tuple[PerceptionResult, PerceptionResult]:
        settings = BrowserSettings()
        with FixtureServer() as server:
            async with async_playwright() as pw:
                browser = await launch(pw, settings)
                try:
                    context = await new_episode_context(browser, settings, server.origins,
                                                        "ocr-test", 0)
                    page = await context.new_page()
                    await page.goto(f"{server.origin()}/shop/index.html?seed=0")
                    shot = await page.screenshot(type="png")
                finally:
                    await browser.close()
        backend = OcrBackend()
        return (await backend.perceive(shot, "Submit button of the Coupon form", ["Coupon code"],
                                       "small"),
                await backend.perceive(shot, "", [], "large"))

    small, large = asyncio.run(main())
    for result in (small, large):
        assert result.error_type == "", result.error
        labels = [_compact(c.label) for c in result.candidates]
        assert "couponcode" in labels, labels
        assert labels.count("submit") == 3, labels  # newsletter, shipping and coupon forms
    # the hint comes first, then the subgoal's words
    assert _compact(small.candidates[0].label) == "couponcode"
    submit = _find(large, "Submit")
    assert submit.box.y1 < 0.5 and submit.box.x1 - submit.box.x0 < 0.1


@pytest.fixture(scope="module")
def captioned() -> bytes:
    """Text-less controls, each with its caption where forms put it: an empty text box right of
    "Given name"; another three pixels below a coloured band (their outlines join in the edge
    map, their insides do not); a text box drawn as an underline below "Mobile number"; a
    checkbox with rounded corners left of "Italian"; a switch (a pill) at the far end of the
    "Push notices" row."""
    image = Image.new("RGB", (640, 330), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=20)
    draw.text((20, 22), "Given name", fill=(20, 20, 20), font=font)
    draw.rectangle((160, 16, 400, 46), outline=(120, 120, 120), width=1)
    draw.rectangle((0, 60, 640, 100), fill=(255, 240, 0))
    draw.text((20, 108), "Phone", fill=(20, 20, 20), font=font)
    draw.rectangle((160, 103, 400, 131), outline=(120, 120, 120), width=1)
    draw.text((20, 150), "Mobile number", fill=(20, 20, 20), font=font)
    draw.rectangle((20, 204, 280, 205), fill=(90, 90, 110))
    draw.rounded_rectangle((20, 232, 38, 250), radius=4, outline=(110, 110, 110), width=1)
    draw.text((48, 230), "Italian", fill=(20, 20, 20), font=font)
    draw.text((20, 282), "Push notices", fill=(20, 20, 20), font=font)
    draw.rounded_rectangle((440, 280, 480, 302), radius=11, fill=(187, 187, 187))
    draw.ellipse((443, 283, 459, 299), fill="white")
    return _png(image)


def test_text_less_controls_are_found_and_named_by_their_captions(captioned: bytes) -> None:
    result = _perceive(captioned, "large")
    assert result.error_type == "", result.error
    # (compared without spaces: OCR may drop a narrow one, "Givenname")
    shapes = {(c.kind, _compact(c.label)) for c in result.candidates if c.kind != "text"}
    assert {("field", "givenname"), ("field", "phone"), ("field", "mobilenumber"),
            ("checkbox", "italian"), ("checkbox", "pushnotices")} <= shapes, shapes
    h = 330
    underline = next(c for c in result.candidates if c.kind == "field" and _compact(c.label) == "mobilenumber")
    assert underline.box.y0 * h < 204 <= underline.box.y1 * h  # the band above the line, and the line
    # a caption is also read as text of its own; the captions stay text candidates too
    assert {"givenname", "italian"} <= {_compact(c.label) for c in result.candidates if c.kind == "text"}
    # the small tier reads text only: no shapes, so no captions tied
    assert {c.kind for c in _perceive(captioned, "small").candidates} == {"text"}


def test_a_named_word_inside_a_line_gets_a_box_of_its_own() -> None:
    # a link inside a sentence: OCR reads the whole line, whose centre is not on the link
    image = Image.new("RGB", (640, 120), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=22)
    sentence, word = "Orci velit volutpat eu elementum nunc.", "volutpat"
    draw.text((20, 40), sentence, fill=(20, 20, 20), font=font)
    x0 = 20 + draw.textlength(sentence[: sentence.index(word)], font=font)
    x1 = x0 + draw.textlength(word, font=font)
    png = _png(image)
    result = _perceive(png, "small", subgoal="volutpat link")
    boxed = [c for c in result.candidates if c.label == "volutpat"]
    assert boxed, [c.label for c in result.candidates]
    left, _, right, _ = _px(boxed[0], 640, 120)
    assert x0 - 6 <= left and right <= x1 + 6, (left, right, x0, x1)
    assert result.candidates[0] is boxed[0] or result.candidates[0].label == "volutpat"  # ranked first
    # the line stays a candidate too; only whole words are cut out ("elem" is no word of it)
    assert any(len(c.label) > 30 for c in result.candidates)
    assert not [c for c in _perceive(png, "small", subgoal="elem link").candidates if c.label == "elem"]


def test_an_upright_outlined_slider_is_boxed_by_its_track_and_called_a_slider() -> None:
    # a jQuery UI-like vertical slider: an outlined track 10 px wide, a knob 14 px standing out
    image = Image.new("RGB", (320, 240), "white")
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((40, 30, 50, 190), radius=3, outline=(170, 170, 170), fill="white")
    draw.rounded_rectangle((38, 140, 52, 154), radius=3, outline=(150, 150, 150), fill=(240, 240, 240))
    result = _perceive(_png(image), "large")
    sliders = [c for c in result.candidates if c.kind == "slider"]
    assert len(sliders) == 1, result.candidates
    x0, y0, x1, y1 = _px(sliders[0], 320, 240)
    assert sliders[0].label == "slider"  # no caption: called what it is
    assert 38 <= x0 and x1 <= 54 and y0 <= 32 and y1 >= 188, (x0, y0, x1, y1)
