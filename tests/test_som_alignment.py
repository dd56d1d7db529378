"""Set-of-Mark alignment in a real browser: the marks the agent builds with perception=none
(observe → frame_geometry → placed boxes → DOM marks, then ranking) sit exactly on their
elements, in the top document and inside frames (same-origin offset/bordered/scrolled, nested two
deep, and cross-origin); the drawn image carries each mark's colour on the element's outline at
device scale factor 1 and 2; and mark N in the image and line N of the listing are one element.

The ground truth is Playwright's `locator.bounding_box()` (main-frame viewport CSS px, also for
frame content), reached independently of refs: by role and accessible name in each frame."""

from __future__ import annotations

import asyncio
import io
import math
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from PIL import Image
from playwright.async_api import Frame, async_playwright

from agents import snapping, som, subgoal_relevance
from agents.marks import Mark, Placed, dom_marks
from agents.observation import RefBook
from harness.browser import BrowserSettings, launch, new_episode_context
from sites.server import FixtureServer

pytestmark = pytest.mark.browser

TOLERANCE_PX = 1.0  # CSS px between a mark's box and the element's bounding box
LINE = re.compile(r'^\[(?P<n>\d+)\] (?P<role>\S+) "(?P<label>[^"]*)"')

# (case, path, seed, top-window scroll, subgoal text used to rank the marks)
CASES = [
    ("checkout", "/checkout/index.html", 5, 0, "Pay button"),
    ("iframes", "/iframes/index.html", 2, 0, "PIN field in the redeem form"),
    ("iframes-scrolled", "/iframes/index.html", 3, 40, "Continue button"),
    ("crosspay", "/crosspay/index.html", 4, 0, "CVC field"),
]


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


@dataclass
class Truth:
    """Where Playwright says a mark's element is, found by role and name (not by ref)."""

    box: tuple[float, float, float, float]
    frame_kind: str  # top, same_origin, cross_origin
    depth: int  # 0 top document, 1 a frame in it, 2 a frame in a frame
    frame_scrolled: bool


@dataclass
class Capture:
    case: str
    scale: float
    marks: list[Mark]
    listing: str
    raw: Image.Image
    drawn: Image.Image
    by_ref: dict[int, tuple[float, float, float, float]]  # mark number -> bounding box via its ref
    truth: dict[int, Truth]  # mark number -> independent ground truth
    routes: set[str] = field(default_factory=set)
    top_scroll: float = 0.0
    document_order: list[str] = field(default_factory=list)


def _origin(url: str) -> str:
    return "{0.scheme}://{0.netloc}".format(urlsplit(url))


def _box(bb: dict) -> tuple[float, float, float, float]:
    return bb["x"], bb["y"], bb["width"], bb["height"]


async def _depth(frame: Frame) -> int:
    d = 0
    while frame.parent_frame is not None:
        frame, d = frame.parent_frame, d + 1
    return d


async def _truth(page, mark: Mark) -> Truth:
    hits = []
    for frame in page.frames:
        loc = frame.get_by_role(mark.role, name=mark.label, exact=True)  # type: ignore[arg-type]
        n = await loc.count()
        if n:
            hits.append((frame, loc, n))
    assert len(hits) == 1 and hits[0][2] == 1, f"{mark.role} {mark.label!r} is not unique: {hits}"
    frame, loc, _ = hits[0]
    bb = await loc.bounding_box()
    assert bb is not None
    kind = "top" if frame is page.main_frame else (
        "same_origin" if _origin(frame.url) == _origin(page.url) else "cross_origin")
    scrolled = frame is not page.main_frame and await frame.evaluate("scrollY") > 0
    return Truth(_box(bb), kind, await _depth(frame), scrolled)


async def _capture(page, case: str, path: str, seed: int, scroll: int, subgoal: str,
                   origin: str, scale: float) -> Capture:
    await page.goto(f"{origin}{path}?seed={seed}")
    await page.wait_for_load_state("load")
    await page.wait_for_timeout(250)  # frames finish their own load-time scrolling
    if scroll:
        await page.evaluate(f"window.scrollTo(0, {scroll})")
        await page.wait_for_timeout(50)
    # The agent's own path with perception none and snapping on.
    obs = await RefBook().observe(page)
    geometry = await snapping.frame_geometry(page, obs)
    placed = [Placed(el, box) for el in obs.elements.values()
              if el.box is not None and el.box.area > 0 and (box := geometry.place(el)) is not None]
    marks = dom_marks(placed, obs.id)
    document_order = [m.label for m in marks]
    marks = subgoal_relevance.rank(marks, subgoal)
    by_ref = {}
    for m in marks:  # the refs are valid for this observation only: read them before anything else
        bb = await page.locator(f"aria-ref={m.ref}").bounding_box()
        assert bb is not None, m
        by_ref[m.number] = _box(bb)
    truth = {m.number: await _truth(page, m) for m in marks}
    png = await page.screenshot()
    size = page.viewport_size
    drawn = som.draw(png, marks, (size["width"], size["height"]))
    raw = Image.open(io.BytesIO(png)).convert("RGB")
    return Capture(case, scale, marks, som.listing(marks), raw,
                   Image.open(io.BytesIO(drawn)).convert("RGB"), by_ref, truth,
                   {geometry.frames[m.frame].route for m in marks},
                   await page.evaluate("scrollY"), document_order)


@pytest.fixture(scope="module")
def captures(server: FixtureServer) -> list[Capture]:
    async def main() -> list[Capture]:
        out = []
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                for scale in (1.0, 2.0):
                    settings = BrowserSettings(device_scale_factor=scale)
                    context = await new_episode_context(browser, settings, server.origins,
                                                        f"som-{scale}", 0)
                    page = await context.new_page()
                    for case in CASES:
                        out.append(await _capture(page, *case, server.origin(), scale))
                    await context.close()
            finally:
                await browser.close()
        return out

    return asyncio.run(main())


def test_cases_cover_top_document_and_every_kind_of_frame(captures: list[Capture]) -> None:
    assert {c.scale for c in captures} == {1.0, 2.0}
    for c in captures:
        assert c.raw.size == (round(1280 * c.scale), round(720 * c.scale)) == c.drawn.size
    truths = [t for c in captures for t in c.truth.values()]
    assert {t.frame_kind for t in truths} == {"top", "same_origin", "cross_origin"}
    assert any(t.depth == 2 for t in truths), "a form two frames deep"
    assert any(t.frame_scrolled for t in truths), "a frame whose document is scrolled"
    assert any(c.top_scroll > 0 for c in captures), "a scrolled top document"
    routes = {r for c in captures for r in c.routes}
    assert routes == {"top", "same_origin_frame", "cross_origin_frame"}
    # Frames are offset and bordered: a frame's content never sits at the viewport origin.
    assert all(t.box[0] > 20 for t in truths if t.frame_kind != "top")


def test_each_mark_box_is_the_elements_bounding_box(captures: list[Capture]) -> None:
    worst = 0.0
    for c in captures:
        assert c.marks, c.case
        for m in c.marks:
            b = (m.box.x, m.box.y, m.box.width, m.box.height)
            for truth in (c.by_ref[m.number], c.truth[m.number].box):
                diff = max(abs(u - v) for u, v in zip(b, truth, strict=True))
                worst = max(worst, diff)
                assert diff <= TOLERANCE_PX, \
                    f"{c.case}@{c.scale}: mark {m.number} {m.label!r} {b} vs {truth}"
    print(f"worst mark/bounding-box difference: {worst:.3f} CSS px")


def _ink(c: Capture, m: Mark) -> list[tuple[float, float, float, float]]:
    """Image-px rectangles the drawing of mark m may paint (conservatively): its outline band and
    its number tag (above the box, or inside it at the top of the viewport)."""
    s = c.scale
    x0, y0 = m.box.x * s, m.box.y * s
    x1, y1 = (m.box.x + m.box.width) * s, (m.box.y + m.box.height) * s
    tag_w, tag_h = (9 * len(str(m.number)) + 8) * s + 6, 20 * s
    pad = 3 * s + 2
    return [(x0 - pad, y0 - pad, x1 + pad, y0 + pad), (x0 - pad, y1 - pad, x1 + pad, y1 + pad),
            (x0 - pad, y0 - pad, x0 + pad, y1 + pad), (x1 - pad, y0 - pad, x1 + pad, y1 + pad),
            (x0 - pad, y0 - tag_h - pad, x0 + tag_w, y0 + tag_h)]


def _covered(point: tuple[float, float], rects: list[tuple[float, float, float, float]]) -> bool:
    x, y = point
    return any(a <= x <= c and b <= y <= d for a, b, c, d in rects)


def _in_image(img: Image.Image, x: float, y: float) -> bool:
    return 0 <= x < img.width and 0 <= y < img.height


def test_drawn_outline_is_on_the_element_at_both_scales(captures: list[Capture]) -> None:
    """At each edge's midpoint of the element's bounding box (Playwright's, scaled to image px),
    the outer pixel of the mark's outline (its colour) lies within 1 CSS px; a few px outside the
    box the image is the untouched screenshot, and a few px inside it holds no mark colour."""
    checked = 0
    for c in captures:
        s = c.scale
        tol = math.ceil(TOLERANCE_PX * s)
        for k, m in enumerate(c.marks):
            colour = _rgb(som.PALETTE[m.number % len(som.PALETTE)])
            later = [r for other in c.marks[k + 1:] for r in _ink(c, other)]
            own_tag = _ink(c, m)[-1:]
            bx, by, bw, bh = (v * s for v in c.truth[m.number].box)
            mx, my = bx + bw / 2, by + bh / 2
            # (point on the edge, unit vector pointing out of the box)
            edges = [((bx, my), (-1, 0)), ((bx + bw, my), (1, 0)),
                     ((mx, by), (0, -1)), ((mx, by + bh), (0, 1))]
            seen, where = 0, f"{c.case}@{s}: mark {m.number} {m.label!r}"
            for (ex, ey), (dx, dy) in edges:
                if not _in_image(c.drawn, ex - 4 * s, ey - 4 * s) or \
                        not _in_image(c.drawn, ex + 4 * s, ey + 4 * s):
                    continue
                if _covered((ex, ey), later + own_tag):
                    continue
                # Scan from outside inwards: the outline's outer pixel (PIL draws a width-2
                # outline inwards from the truncated box coordinate) is within 1 CSS px of the edge.
                scan = range(tol + 3, -tol - 4, -1)
                first = next((t for t in scan if c.drawn.getpixel(
                    (int(ex) + t * dx, int(ey) + t * dy)) == colour), None)
                assert first is not None and abs(first) <= tol, \
                    f"{where} edge {(dx, dy)}: outline at {first} px"
                outside = (ex + dx * (tol + 4), ey + dy * (tol + 4))
                if not _covered(outside, later + own_tag + [
                        r for other in c.marks[:k] for r in _ink(c, other)]):
                    p = (int(outside[0]), int(outside[1]))
                    assert c.drawn.getpixel(p) == c.raw.getpixel(p), f"{where}: drawn outside"
                inside = (int(ex - dx * (tol + 4)), int(ey - dy * (tol + 4)))
                if not _covered(inside, own_tag + later):
                    assert c.drawn.getpixel(inside) != colour, f"{where}: outline inside the box"
                seen += 1
                checked += 1
            assert seen >= 2, f"{where}: only {seen} edges checkable"
    assert checked >= 4 * 2 * 12


def test_mark_n_in_the_image_is_line_n_of_the_listing(captures: list[Capture]) -> None:
    """Read the listing, find each line's element by its role and name (not by ref), and check
    that the image shows colour N (unique: at most one mark per palette colour here) on that
    element's right edge; ranking renumbered the marks, so this is not document order."""
    reordered = False
    for c in captures:
        assert len(c.marks) <= len(som.PALETTE), "colours identify marks up to the palette size"
        lines = c.listing.splitlines()
        assert len(lines) == len(c.marks)
        labels_by_line = []
        for n, line in enumerate(lines, 1):
            got = LINE.match(line)
            assert got and int(got["n"]) == n, line
            m = next(m for m in c.marks if m.number == n)
            assert (got["role"], got["label"]) == (m.role, m.label), line
            labels_by_line.append(m.label)
            s = c.scale
            bx, by, bw, bh = (v * s for v in c.truth[n].box)
            y = int(by + bh / 2)
            if not _in_image(c.drawn, bx + bw + 3 * s, y):
                continue
            reach = 2 * int(s) + 2
            band = [c.drawn.getpixel((int(bx + bw) + t, y)) for t in range(-reach, reach)]
            colours = {col for col in band if col in {_rgb(p) for p in som.PALETTE}}
            want = _rgb(som.PALETTE[n % len(som.PALETTE)])
            assert colours == {want}, f"{c.case}@{s} line {line!r}: {colours}"
        reordered |= labels_by_line != c.document_order
    assert reordered, "ranking should have renumbered the marks in at least one case"
