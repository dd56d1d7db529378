"""The `ocr` vision backend: a real pixel-only model that runs offline on the CPU — RapidOCR (ONNX
models shipped in its wheel) reads text lines, OpenCV finds text-less widgets by their shape."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agents.perception.base import Candidate, NormBox, PerceptionResult, Tier
from tasks.trace import Cost

SHAPE_CONFIDENCE = {"checkbox": 0.5, "slider": 0.5, "field": 0.4, "icon": 0.3}
_STOPWORDS = frozenset({
    "a", "an", "and", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the", "to",
    "with", "this", "that", "it", "its", "is", "be", "set", "click", "type", "select", "choose",
    "open", "press", "enter",
})
# Words in a subgoal that point at a shape kind rather than at text.
_KIND_WORDS = {
    "checkbox": ("checkbox", "check", "tick", "toggle", "switch", "radio", "option"),
    "slider": ("slider", "range", "volume", "level"),
    "field": ("field", "input", "box", "textbox"),
    "icon": ("icon", "chevron", "arrow", "expand", "collapse", "caret", "menu", "close"),
}


class OcrTier(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scale: float = Field(gt=0, le=1, description="downscale factor applied to the screenshot")
    max_side: int = Field(ge=64, description="and never more than this many pixels on the longer side")
    cap: int = Field(ge=1, description="most candidates returned")
    shapes: bool = Field(description="also detect text-less widgets with OpenCV")
    min_text_score: float = Field(0.5, ge=0, le=1, description="OCR lines below this are dropped")
    max_line_aspect: float | None = Field(
        None, gt=0, description="detected lines wider than this many times their height (running "
        "text) are not read at all; recognition cost grows with line width")


class OcrConfig(BaseModel):
    """Settings of the `ocr` backend (conf/perception/ocr.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["ocr"] = "ocr"
    small: OcrTier = OcrTier(scale=0.625, max_side=1024, cap=24, shapes=False,
                             max_line_aspect=16.0)
    large: OcrTier = OcrTier(scale=1.0, max_side=2048, cap=80, shapes=True)
    threads: int = Field(0, ge=0, description="ONNX Runtime intra-op threads; 0 = its default")

    @model_validator(mode="after")
    def _installed(self) -> OcrConfig:
        """The engine's packages are checked with the config, before any browser starts."""
        missing = [module for module in ("rapidocr_onnxruntime", "cv2")
                   if importlib.util.find_spec(module) is None or sys.modules.get(module, ...) is None]
        if missing:
            raise ValueError(f"perception=ocr needs {' and '.join(missing)}, which is not installed: "
                             "pip install 'groundbench[ocr]'")
        return self


# --------------------------------------------------------------------------- engine (singleton)

_ENGINE: Any = None
_ENGINE_LOCK = threading.Lock()


def load_engine(threads: int = 0) -> Any:
    """The process-wide RapidOCR engine, created on first use (about 0.2-1 s); `threads` only
    counts for the call that creates it."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            from rapidocr_onnxruntime import RapidOCR

            kwargs: dict[str, Any] = {"use_cls": False, "print_verbose": False}
            if threads:
                kwargs["intra_op_num_threads"] = threads
            _ENGINE = RapidOCR(**kwargs)
        return _ENGINE


@dataclass
class _Line:
    """One OCR line in pixel space of the original image."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    score: float
    # the recogniser's characters with where each one starts and ends (x), when it gave them
    chars: tuple[tuple[str, float, float], ...] = ()


def _run_ocr(image: np.ndarray, scale: float, threads: int,
             max_aspect: float | None = None) -> list[_Line]:
    """OCR of `image` after downscaling by `scale`; boxes are mapped back to `image` pixels.
    Lines wider than `max_aspect` times their height are detected but not read."""
    import cv2

    engine = load_engine(threads)
    work = image
    if scale < 0.999:
        work = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    h, w = work.shape[:2]
    sx, sy = w / image.shape[1], h / image.shape[0]
    with _ENGINE_LOCK:
        # Detect at the resolution we hand over (the engine's default would upscale small inputs
        # to a 736-px short side, undoing the tier's downscale).
        engine.text_det.limit_type = "max"
        engine.text_det.limit_side_len = max(h, w, 32)
        engine.get_crop_img_list = _skipping_crops(engine, max_aspect)
        try:
            result, _elapsed = engine(work, use_cls=False, box_thresh=0.5, unclip_ratio=1.6,
                                      text_score=0.0, return_word_box=True)
        finally:
            del engine.get_crop_img_list  # back to the class's own method
    lines: list[_Line] = []
    for item in result or []:
        for ln in _split_line(item):
            lines.append(_Line(ln.x0 / sx, ln.y0 / sy, ln.x1 / sx, ln.y1 / sy, ln.text, ln.score,
                               tuple((c, a / sx, b / sx) for c, a, b in ln.chars)))
    return lines


_BLANK_CROP = np.full((48, 48, 3), 255, np.uint8)


def _skipping_crops(engine: Any, max_aspect: float | None) -> Any:
    """The engine's crop step, with crops of over-long lines swapped for a tiny blank image: the
    recogniser then returns "" for them at almost no cost (its cost grows with crop width)."""
    original = type(engine).get_crop_img_list.__get__(engine)
    if max_aspect is None:
        return original

    def crops(img: np.ndarray, dt_boxes: Any) -> list[np.ndarray]:
        out = original(img, dt_boxes)
        return [c if c.shape[1] <= max_aspect * max(c.shape[0], 1) else _BLANK_CROP for c in out]

    return crops


def _split_line(item: Sequence[Any]) -> list[_Line]:
    """One OCR line, cut where its characters leave a gap wider than half the line height: the
    detector sometimes joins a heading and the button beside it into one line."""
    points, text, score = item[0], str(item[1]), float(item[2])
    pts = np.asarray(points, dtype=np.float32)
    line = _Line(float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()),
                 float(pts[:, 1].max()), text, score)
    if len(item) < 6 or not item[3] or len(item[3]) != len(item[4]):
        return [line]
    char_boxes = [np.asarray(b, dtype=np.float32) for b in item[3]]
    chars, char_scores = list(item[4]), list(item[5])
    spans = [(str(c), float(b[:, 0].min()), float(b[:, 0].max())) for c, b in zip(chars, char_boxes)]
    line.chars = tuple(spans)
    height = line.y1 - line.y0
    groups: list[list[int]] = [[]]
    last_x1: float | None = None
    for i, ch in enumerate(chars):
        if not ch.strip():
            groups[-1].append(i)
            continue
        x0 = float(char_boxes[i][:, 0].min())
        if last_x1 is not None and x0 - last_x1 > 0.5 * height and groups[-1]:
            groups.append([])
        groups[-1].append(i)
        last_x1 = float(char_boxes[i][:, 0].max())
    if len(groups) < 2:
        return [line]
    out = []
    pad = 0.15 * height
    for k, idx in enumerate(groups):
        seg = "".join(chars[i] for i in idx).strip()
        solid = [i for i in idx if chars[i].strip()]
        if not seg or not solid:
            continue
        x0 = line.x0 if k == 0 else float(min(char_boxes[i][:, 0].min() for i in solid)) - pad
        x1 = line.x1 if k == len(groups) - 1 else float(
            max(char_boxes[i][:, 0].max() for i in solid)) + pad
        if len(char_scores) == len(chars):
            seg_score = float(np.mean([char_scores[i] for i in solid]))
        else:
            seg_score = score
        out.append(_Line(x0, line.y0, x1, line.y1, seg, seg_score, tuple(spans[i] for i in idx)))
    return out or [line]


# --------------------------------------------------------------------------- shapes


@dataclass
class _Shape:
    x0: int
    y0: int
    x1: int
    y1: int
    kind: str

    @property
    def area(self) -> int:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


def _inter(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _slider_like(mask: np.ndarray) -> bool:
    """A long thin bar with a knob: most columns span a thin band, a short run spans the height."""
    h = mask.shape[0]
    cols = mask.any(axis=0)
    if cols.mean() < 0.85:
        return False
    ys = np.arange(h)[:, None]
    top = np.where(mask, ys, h).min(axis=0)
    bottom = np.where(mask, ys, -1).max(axis=0)
    extent = np.where(cols, bottom - top + 1, 0)
    band = float(np.median(extent[cols]))
    if band > 0.8 * h or band > h - 3:  # (an outlined track: its two edges make a band of its height)
        return False
    tall = extent >= 0.8 * h
    # the longest run of tall columns is the knob: about as wide as the bar is high
    best = run = 0
    for t in tall:
        run = run + 1 if t else 0
        best = max(best, run)
    return 0.3 * h <= best <= 2.5 * h and int(tall.sum()) <= 3 * h


def _track(mask: np.ndarray) -> tuple[int, int]:
    """Where a slider's track lies across it (first and last row): the band most of its columns
    span, the knob that stands out of it left out."""
    h = mask.shape[0]
    cols = mask.any(axis=0)
    ys = np.arange(h)[:, None]
    top = np.where(mask, ys, h).min(axis=0)[cols]
    bottom = np.where(mask, ys, -1).max(axis=0)[cols]
    return int(np.median(top)), int(np.median(bottom)) + 1


def _filled(mask: np.ndarray) -> np.ndarray:
    """The component with its holes filled (the area inside its outer outline)."""
    import cv2

    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros(mask.shape, np.uint8)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out.astype(bool)


def _corner_fill(filled: np.ndarray, k: int) -> float:
    return float((filled[:k, :k].mean() + filled[:k, -k:].mean() + filled[-k:, :k].mean()
                  + filled[-k:, -k:].mean()) / 4)


def _frame_fraction(mask: np.ndarray, band: int = 2) -> float:
    """Share of the bounding box's frame (a band along its four sides) that is foreground."""
    frame = np.zeros(mask.shape, dtype=bool)
    frame[:band, :] = frame[-band:, :] = True
    frame[:, :band] = frame[:, -band:] = True
    return float(mask[frame].mean())


def _classify(comp: np.ndarray, s: float) -> str:
    """What a text-free connected component of the edge map looks like, or "" if nothing."""
    h, w = comp.shape
    if h >= 60 * s and 4 * s <= w <= 30 * s and h >= 4 * w and _slider_like(comp.T):
        return "slider"  # standing upright
    if w >= 60 * s and 4 * s <= h <= 30 * s and w >= 4 * h:
        if _slider_like(comp):
            return "slider"  # (a short track: its knob stands out of it, 4 heights long will do)
        inner = comp[5:-5, 5:-5]
        if w >= 6 * h and h >= 14 * s and _frame_fraction(comp) >= 0.85 and inner.size and inner.mean() <= 0.1:
            return "field"  # an empty input box
        return ""
    if 10 * s <= w <= 32 * s and 10 * s <= h <= 32 * s and abs(w - h) <= 0.2 * max(w, h):
        filled = _filled(comp)
        if (filled.mean() >= 0.85 and _corner_fill(filled, 2) >= 0.5) or \
                filled.mean() >= 0.9:
            return "checkbox"  # square box (corners sharp or rounded), empty or ticked
        disc = np.pi / 4
        if abs(filled.mean() - disc) <= 0.12 and _corner_fill(filled, max(2, h // 6)) <= 0.15:
            return "checkbox"  # radio ring
    if 12 * s <= h <= 40 * s and 1.4 <= w / h <= 2.8:
        filled = _filled(comp)
        mid = filled[:, w // 3: w - w // 3]
        if mid.all(axis=0).mean() >= 0.9 and _corner_fill(filled, max(2, h // 5)) <= 0.25:
            return "checkbox"  # toggle switch (a pill)
    if 5 * s <= min(w, h) and 6 * s <= max(w, h) <= 48 * s and max(w, h) <= 3 * min(w, h) \
            and comp.sum() >= 16 * s * s:
        return "icon"
    return ""


def _drop_patterns(shapes: list[_Shape]) -> list[_Shape]:
    """Drop runs of 4+ same-size icons on one row or column at a short pitch: the dashes of a
    dashed border, the dots of a separator; not widgets."""
    icons = [sh for sh in shapes if sh.kind == "icon"]
    drop: set[int] = set()
    for axis in (0, 1):
        for sh in icons:
            w, h = sh.x1 - sh.x0, sh.y1 - sh.y0
            run = [o for o in icons
                   if abs((o.x1 - o.x0) - w) <= 1 and abs((o.y1 - o.y0) - h) <= 1
                   and (abs(o.y0 - sh.y0) <= 1 if axis == 0 else abs(o.x0 - sh.x0) <= 1)]
            pos = sorted(o.x0 if axis == 0 else o.y0 for o in run)
            pitch = 3 * max(w, h)
            if len(run) >= 4 and all(b - a <= pitch for a, b in pairwise(pos)):
                drop.update(id(o) for o in run)
    return [sh for sh in shapes if id(sh) not in drop]


def _empty_boxes(mask: np.ndarray, text_boxes: Sequence[tuple[float, float, float, float]],
                 s: float) -> list[_Shape]:
    """Empty text boxes found by their inside: a region of the page that the edge map closes all
    round (the box's outline), about rectangular, wider than tall, as high as a line of text
    plus padding, and with nothing drawn in it. Unlike the outline, the inside stays apart from
    whatever the box touches (a panel's edge two pixels away joins outlines, not insides)."""
    import cv2

    free = (mask == 0).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    H, W = mask.shape
    out: list[_Shape] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if x == 0 or y == 0 or x + w >= W or y + h >= H:
            continue  # the page around everything
        if not (10 * s <= h <= 44 * s and 40 * s <= w <= 900 * s and w >= 2.5 * h):
            continue
        if area < 0.95 * w * h:
            continue  # not a rectangle, or something drawn inside (a value, a glyph)
        box = (x, y, x + w, y + h)
        if any(_inter(box, tb) > 0.2 * w * h for tb in text_boxes):
            continue  # (a caption's loose box may reach a little into the field below it)
        # the outline: the inside grown by the border the edge map drew (about 3 px)
        out.append(_Shape(x - 3, y - 3, x + w + 3, y + h + 3, "field"))
    return out


def _underlines(mask: np.ndarray, text_boxes: Sequence[tuple[float, float, float, float]],
                s: float) -> list[_Shape]:
    """Text boxes drawn as a line only (a bottom border, as material designs draw them): a
    horizontal rule as long as a field with the height of a line of text above it empty, no
    outline, no text. The box is that empty band and the line."""
    import cv2

    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    band = int(round(14 * s))  # the empty part looked at: less than a caption's gap above a field
    out: list[_Shape] = []
    for i in range(1, n):
        x, y, w, h, _area = (int(v) for v in stats[i])
        if not (120 * s <= w <= 700 * s and h <= 6 * s) or y - band < 0:
            continue
        if mask[y - band: y - 1, x: x + w].any():
            continue  # something drawn right above: a value typed in, a table's rule, a heading
        if any(_inter((x, y - band, x + w, y), tb) > 0 for tb in text_boxes):
            continue
        out.append(_Shape(x, max(0, y - int(round(20 * s))), x + w, y + h, "field"))
    return out


def _detect_shapes(image: np.ndarray, lines: Sequence[_Line]) -> list[_Shape]:
    """Text-less widgets: connected components of the edge map, classified by geometry; empty
    text boxes also by their inside and by an underline."""
    import cv2

    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(gray, 40, 120)
    # close one-pixel gaps only, so that controls 3-4 px apart stay separate
    mask = cv2.dilate(edges, np.ones((2, 2), np.uint8), iterations=1)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    # device scale: screenshots of a 1280-px-wide viewport at DPR 2 are 2560 px wide
    s = max(1.0, image.shape[1] / 1600)
    text_boxes = [(ln.x0, ln.y0, ln.x1, ln.y1) for ln in lines]
    found: list[_Shape] = _empty_boxes(mask, text_boxes, s) + _underlines(mask, text_boxes, s)
    for i in range(1, n):
        x, y, w, h, _area = (int(v) for v in stats[i])
        if w < 5 * s or h < 4 * s or w > 700 * s or h > 700 * s or (h > 80 * s and w > 30 * s):
            continue
        box = (x, y, x + w, y + h)
        # text inside: a labelled button or a filled input; the OCR line stands for it (not a
        # ring read as the letter O)
        if any(tb[0] >= x - 2 and tb[2] <= x + w + 2 and tb[1] >= y - 2 and tb[3] <= y + h + 2
               for tb, ln in zip(text_boxes, lines) if ln.text.strip() not in ("O", "o")):
            continue
        kind = _classify(labels[y:y + h, x:x + w] == i, s)
        in_text = max((_inter(box, tb) for tb in text_boxes), default=0.0) / (w * h)
        if kind == "icon" and in_text >= 0.3:
            continue  # a glyph of a text line
        if kind in ("slider", "field") and in_text >= 0.5:
            continue
        if kind == "slider":
            # the track's box, as its element is drawn (the knob may stand out of it)
            comp = labels[y:y + h, x:x + w] == i
            if h > w:
                a, b = _track(comp.T)
                found.append(_Shape(x + a, y, x + b, y + h, kind))
            else:
                a, b = _track(comp)
                found.append(_Shape(x, y + a, x + w, y + b, kind))
        elif kind:
            found.append(_Shape(x, y, x + w, y + h, kind))
    # A component inside another found shape is part of it (tick in a box, knob in a pill).
    found.sort(key=lambda sh: -sh.area)
    kept: list[_Shape] = []
    for sh in found:
        if any(_inter((sh.x0, sh.y0, sh.x1, sh.y1), (k.x0, k.y0, k.x1, k.y1)) >= 0.6 * sh.area
               for k in kept):
            continue
        kept.append(sh)
    kept = _drop_patterns(kept)
    # Rings and boxes inside a text line count only at its very start (a radio button read as
    # part of its label); further in, they are letters (o, e, D).
    result = []
    for sh in kept:
        if sh.kind == "checkbox":
            inside = [ln for ln in lines
                      if _inter((sh.x0, sh.y0, sh.x1, sh.y1), (ln.x0, ln.y0, ln.x1, ln.y1))
                      >= 0.6 * sh.area]
            if any(sh.x0 - ln.x0 > 0.35 * (ln.y1 - ln.y0) for ln in inside):
                continue
            # and with its label after it in the line: a line that ends with it is a glyph ("21"
            # read as a box), unless it was read as the widget itself ("O" for a ring)
            if any(ln.x1 - sh.x1 < 0.5 * (ln.y1 - ln.y0) and ln.text.strip() not in ("O", "o")
                   for ln in inside):
                continue
        result.append(sh)
    return result


_LEAD_GLYPHS = re.compile(r"^[\s○◯●◉◎□■☐☑☒✓✔口回]+")
_WORDLIKE = re.compile(r"[^\W_]")  # a letter or a digit
_EDGE_JUNK = re.compile(r"^[\s\[\]|]+|[\s\[\]|]+$")


def _clean(text: str) -> str:
    return _EDGE_JUNK.sub("", _LEAD_GLYPHS.sub("", text)).strip()


def _detach_glyphs(lines: list[_Line], shapes: Sequence[_Shape]) -> None:
    """A checkbox or radio read as the letter O at the left end of a line: cut it off the line."""
    for ln in lines:
        for sh in shapes:
            if sh.kind != "checkbox" or sh.x0 > ln.x0 + (ln.y1 - ln.y0):
                continue
            if _inter((sh.x0, sh.y0, sh.x1, sh.y1), (ln.x0, ln.y0, ln.x1, ln.y1)) < 0.6 * sh.area:
                continue
            m = re.match(r"^[Oo0Q○◯]\s*(?=[A-Z\s])", ln.text)
            if m and len(ln.text) > m.end():
                ln.text = ln.text[m.end():]
            ln.x0 = max(ln.x0, float(sh.x1))


def _caption(sh: _Shape, lines: Sequence[_Line], s: float) -> str:
    """The text a text-less widget is known by: the caption drawn beside it, as forms place them.
    A box, ring or switch is captioned by the line just right of it on its row, else by the
    line left of it on its row (a switch at the end of a settings row); a text box or a slider
    by the line left of it on its row, else by the line just above it, starting about where it
    starts. "" when none is close enough ("slider" for a slider): an icon, or a widget with its
    caption elsewhere."""
    if sh.kind == "icon":
        return ""
    cy = (sh.y0 + sh.y1) / 2

    def on_row(ln: _Line) -> bool:
        return ln.y0 <= cy <= ln.y1 or sh.y0 <= (ln.y0 + ln.y1) / 2 <= sh.y1

    def text(ln: _Line) -> str:
        # not a line the widget itself was read as (a ring read as "O")
        inside = _inter((sh.x0, sh.y0, sh.x1, sh.y1), (ln.x0, ln.y0, ln.x1, ln.y1))
        return "" if inside >= 0.5 * (ln.x1 - ln.x0) * (ln.y1 - ln.y0) else _clean(ln.text)

    # (a line may start inside the box's right half: OCR took in part of the box)
    right = [ln for ln in lines if on_row(ln) and ln.x0 >= (sh.x0 + sh.x1) / 2 and ln.x1 > sh.x1
             and ln.x0 - sh.x1 <= 2 * (ln.y1 - ln.y0) and text(ln)]
    # a switch (a pill, wider than tall) may end a settings row far from its caption
    pill = sh.kind == "checkbox" and sh.x1 - sh.x0 >= 1.4 * (sh.y1 - sh.y0)
    reach = 420 * s if pill else 2 * (sh.y1 - sh.y0) if sh.kind == "checkbox" else 200 * s
    # (a line's loose box may take in the widget's left edge: "Email[")
    left = [ln for ln in lines if on_row(ln) and (ln.x0 + ln.x1) / 2 < sh.x0
            and sh.x0 - ln.x1 <= reach and text(ln)]
    above = [ln for ln in lines if (ln.y0 + ln.y1) / 2 < sh.y0 and ln.y1 <= sh.y0 + 0.4 * (sh.y1 - sh.y0)
             and sh.y0 - ln.y1 <= 1.5 * (ln.y1 - ln.y0)
             and sh.x0 - 24 * s <= ln.x0 <= sh.x0 + 0.5 * (sh.x1 - sh.x0) and text(ln)]
    nearest_right = min(right, key=lambda ln: ln.x0, default=None)
    nearest_left = max(left, key=lambda ln: ln.x1, default=None)
    nearest_above = max(above, key=lambda ln: ln.y1, default=None)
    order = (nearest_right, nearest_left) if sh.kind == "checkbox" else (nearest_left, nearest_above)
    # a slider without a caption is called what it is, as the synthetic reader calls a knob on a
    # track (its element seldom has a role: a hand-made or jQuery UI one)
    return next((text(ln) for ln in order if ln is not None), "slider" if sh.kind == "slider" else "")


# --------------------------------------------------------------------------- ranking


def _compact(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[0-9a-z]+", text.casefold()) if w not in _STOPWORDS]


def hint_score(label: str, hint: str) -> float:
    """How well a label answers a hint, once case, spaces and punctuation are ignored (OCR often
    drops spaces): 3 equal, 2 the label contains the hint, 1.5 nearly equal (ratio >= 0.8),
    1 the label is a fragment covering at least half the hint; 0 otherwise."""
    a, b = _compact(label), _compact(hint)
    if not a or not b:
        return 0.0
    if a == b:
        return 3.0
    if len(b) >= 2 and b in a:
        return 2.0
    if SequenceMatcher(None, a, b).ratio() >= 0.8:
        return 1.5
    if len(a) >= 2 and a in b and len(a) >= len(b) / 2:
        return 1.0
    return 0.0


def matches_hint(label: str, hint: str) -> bool:
    """Label and hint name the same thing (see `hint_score`)."""
    return hint_score(label, hint) > 0


def relevance(label: str, kind: str, subgoal: str) -> float:
    """Word overlap between a candidate and the subgoal (spaces-insensitive for OCR text)."""
    words = _words(subgoal)
    if not words:
        return 0.0
    compact = _compact(label)
    score = sum(1.0 for w in set(words) if len(w) >= 2 and compact and w in compact)
    if kind != "text" and any(w in _KIND_WORDS.get(kind, ()) for w in words):
        score += 0.5
    return score


@dataclass
class _Raw:
    x0: float
    y0: float
    x1: float
    y1: float
    label: str
    confidence: float
    kind: str


def _rank(raw: list[_Raw], subgoal: str, hints: Sequence[str], cap: int) -> list[_Raw]:
    # reading order: rows of roughly equal top, then left to right
    raw = sorted(raw, key=lambda r: (round(r.y0 / 12), r.x0))
    hints = [h for h in hints if h and h.strip()]
    named = {_compact(p) for p in _phrases(subgoal, hints)}

    def key(r: _Raw) -> tuple[float, float, bool, bool]:
        hinted = max((hint_score(r.label, h) for h in hints), default=0.0) if r.label else 0.0
        # a line of running text is seldom a control's label: after the short ones
        prose = len(r.label.split()) > 6 or len(r.label) > 48
        # just the word the subgoal names, before the line around it
        return (-hinted, -relevance(r.label, r.kind, subgoal), _compact(r.label) not in named, prose)

    return sorted(raw, key=key)[:cap]


# Words of a subgoal that say what kind of thing it is, not what it says.
_GENERIC_WORDS = frozenset({
    "link", "button", "tab", "field", "box", "item", "label", "text", "section", "entry",
    "heading", "header", "word", "words", "line", "row", "cell",
}).union(*_KIND_WORDS.values())


def _phrases(subgoal: str, hints: Sequence[str]) -> list[str]:
    """What a candidate's box may be cut down to: each hint whole, and each word of the subgoal
    that names something (three letters or more, not a stop word nor a kind of control)."""
    out = [h for h in hints if len(_compact(h)) >= 3]
    out += [w for w in re.findall(r"[0-9a-z]+", subgoal.casefold())
            if len(w) >= 3 and w not in _STOPWORDS and w not in _GENERIC_WORDS]
    return list({_compact(p): p for p in reversed(out)}.values())[::-1]  # one of each


def _phrase_boxes(lines: Sequence[_Line], phrases: Sequence[str]) -> list[_Raw]:
    """A phrase the subgoal names inside a longer line (a link inside a sentence, a word of a
    list run together on one line) as a candidate of its own, boxed by the recogniser's
    characters for it: a click at the line's centre would miss it. Only whole words match."""
    out: list[_Raw] = []
    for ln in lines:
        if not ln.chars:
            continue
        keep = [i for i, (c, _a, _b) in enumerate(ln.chars) if c.isalnum()]
        flat = "".join(ln.chars[i][0] for i in keep).casefold()
        for phrase in phrases:
            want = _compact(phrase)
            if not want or want == flat:
                continue
            start = flat.find(want)
            while start >= 0:
                first, last = keep[start], keep[start + len(want) - 1]
                before = ln.chars[first - 1][0] if first > 0 else " "
                after = ln.chars[last + 1][0] if last + 1 < len(ln.chars) else " "
                if not before.isalnum() and not after.isalnum():
                    pad = 0.1 * (ln.y1 - ln.y0)
                    out.append(_Raw(ln.chars[first][1] - pad, ln.y0, ln.chars[last][2] + pad, ln.y1,
                                    "".join(c for c, _a, _b in ln.chars[first:last + 1]).strip(),
                                    ln.score, "text"))
                start = flat.find(want, start + 1)
    return out


# --------------------------------------------------------------------------- backend


def _decode(image: bytes) -> np.ndarray:
    import cv2

    if not image:
        raise ValueError("empty image")
    arr = cv2.imdecode(np.frombuffer(image, dtype=np.uint8), cv2.IMREAD_COLOR)
    if arr is None or arr.size == 0:
        raise ValueError(f"not a decodable image ({len(image)} bytes, starts {image[:8]!r})")
    return arr


def perceive_sync(image: bytes, subgoal: str, hints: Sequence[str], tier_cfg: OcrTier,
                  cap: int, threads: int = 0) -> list[Candidate]:
    """The whole pipeline on the calling thread; raises on undecodable input."""
    arr = _decode(image)
    h, w = arr.shape[:2]
    scale = min(tier_cfg.scale, tier_cfg.max_side / max(h, w))
    # (a line that is only a box or ring glyph, "口" or "☐", or only a dot, is a widget)
    lines = [ln for ln in _run_ocr(arr, scale, threads, tier_cfg.max_line_aspect)
             if ln.score >= tier_cfg.min_text_score and _WORDLIKE.search(_LEAD_GLYPHS.sub("", ln.text))]
    shapes = _detect_shapes(arr, lines) if tier_cfg.shapes else []
    if shapes:
        _detach_glyphs(lines, shapes)
    raw = [_Raw(ln.x0, ln.y0, ln.x1, ln.y1, _clean(ln.text), ln.score, "text") for ln in lines]
    raw = [r for r in raw if r.label]
    raw += _phrase_boxes(lines, _phrases(subgoal, hints))
    s = max(1.0, w / 1600)
    raw += [_Raw(sh.x0, sh.y0, sh.x1, sh.y1, _caption(sh, lines, s), SHAPE_CONFIDENCE[sh.kind], sh.kind)
            for sh in shapes]
    out = []
    for r in _rank(raw, subgoal, hints, cap):
        x0, y0 = max(0.0, r.x0 / w), max(0.0, r.y0 / h)
        x1, y1 = min(1.0, r.x1 / w), min(1.0, r.y1 / h)
        if x1 - x0 <= 1e-6 or y1 - y0 <= 1e-6:
            continue
        out.append(Candidate(box=NormBox(x0=x0, y0=y0, x1=x1, y1=y1), label=r.label,
                             confidence=min(1.0, max(0.0, r.confidence)), kind=r.kind))
    return out


class OcrBackend:
    """RapidOCR text lines plus OpenCV widget shapes; pixels and words only.

    Tiers differ in what they pay for. `small` runs OCR on a downscaled screenshot, text only,
    skips lines of running text (wider than 16 times their height) and has a tight cap; `large` runs OCR at full resolution, adds shape detection (checkbox squares,
    radio rings and toggle pills as "checkbox", slider tracks with a knob as "slider", empty input
    boxes as "field", small compact blobs such as chevrons as "icon") and keeps more candidates.

    Ordering before the cap: candidates whose text matches a label hint first (best match
    first), then by word overlap with the subgoal, then short labels before lines of running
    text (more than six words), then reading order (top to bottom, left to right).

    The OCR engine is loaded once per process and shared; calls into it are serialised (the
    engine keeps per-call state) and run in a worker thread, so the event loop keeps running.
    `latency_ms` is the wall time of the whole call: decode, waiting for the engine, OCR, shapes.
    """

    name = "ocr"
    reads_pixels = True

    def __init__(self, config: OcrConfig | None = None) -> None:
        self.config = config or OcrConfig()

    def warm_up(self) -> None:
        """Load the shared engine now, so the first perceive call does not pay for it."""
        load_engine(self.config.threads)

    async def perceive(self, image: bytes, subgoal: str, hints: list[str], tier: Tier,
                       cap: int | None = None) -> PerceptionResult:
        start = time.perf_counter()
        tier_cfg = self.config.small if tier == "small" else self.config.large
        limit = tier_cfg.cap if cap is None else max(0, cap)
        try:
            candidates = await asyncio.to_thread(
                perceive_sync, image, subgoal, list(hints or []), tier_cfg, limit,
                self.config.threads)
        except Exception as exc:  # noqa: BLE001 - a backend records errors, it never raises them
            return PerceptionResult(tier=tier, cost=Cost(latency_ms=(time.perf_counter() - start) * 1000),
                                    error_type="perception_error",
                                    error=f"{type(exc).__name__}: {exc}"[:500])
        return PerceptionResult(candidates=candidates, tier=tier,
                                cost=Cost(latency_ms=(time.perf_counter() - start) * 1000))
