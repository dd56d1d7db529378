"""What the `ocr` backend sees without text (agents/perception/ocr.py): OpenCV finds text-less
widgets in a screenshot by their shape (tick boxes, rings, switches, empty and underlined text
boxes, sliders, small icons) and names each by the caption drawn beside it. Pixels and the
recogniser's text lines only."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np


def device_scale(width: int) -> float:
    """Pixels per CSS pixel, about: screenshots of a 1280-px-wide viewport at DPR 2 are 2560 px
    wide. Sizes in this module are CSS pixels times this."""
    return max(1.0, width / 1600)


@dataclass
class Line:
    """One OCR line in pixel space of the original image."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    score: float
    # the recogniser's characters with where each one starts and ends (x), when it gave them
    chars: tuple[tuple[str, float, float], ...] = ()



@dataclass
class Shape:
    x0: int
    y0: int
    x1: int
    y1: int
    kind: str

    @property
    def area(self) -> int:
        return (self.x1 - self.x0) * (self.y1 - self.y0)


def inter(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
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


def _drop_patterns(shapes: list[Shape]) -> list[Shape]:
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
                 s: float) -> list[Shape]:
    """Empty text boxes found by their inside: a region of the page that the edge map closes all
    round (the box's outline), about rectangular, wider than tall, as high as a line of text
    plus padding, and with nothing drawn in it. Unlike the outline, the inside stays apart from
    whatever the box touches (a panel's edge two pixels away joins outlines, not insides)."""
    import cv2

    free = (mask == 0).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    H, W = mask.shape
    out: list[Shape] = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if x == 0 or y == 0 or x + w >= W or y + h >= H:
            continue  # the page around everything
        if not (10 * s <= h <= 44 * s and 40 * s <= w <= 900 * s and w >= 2.5 * h):
            continue
        if area < 0.95 * w * h:
            continue  # not a rectangle, or something drawn inside (a value, a glyph)
        box = (x, y, x + w, y + h)
        if any(inter(box, tb) > 0.2 * w * h for tb in text_boxes):
            continue  # (a caption's loose box may reach a little into the field below it)
        # the outline: the inside grown by the border the edge map drew (about 3 px)
        out.append(Shape(x - 3, y - 3, x + w + 3, y + h + 3, "field"))
    return out


def _underlines(mask: np.ndarray, text_boxes: Sequence[tuple[float, float, float, float]],
                s: float) -> list[Shape]:
    """Text boxes drawn as a line only (a bottom border, as material designs draw them): a
    horizontal rule as long as a field with the height of a line of text above it empty, no
    outline, no text. The box is that empty band and the line."""
    import cv2

    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    band = round(14 * s)  # the empty part looked at: less than a caption's gap above a field
    out: list[Shape] = []
    for i in range(1, n):
        x, y, w, h, _area = (int(v) for v in stats[i])
        if not (120 * s <= w <= 700 * s and h <= 6 * s) or y - band < 0:
            continue
        if mask[y - band: y - 1, x: x + w].any():
            continue  # something drawn right above: a value typed in, a table's rule, a heading
        if any(inter((x, y - band, x + w, y), tb) > 0 for tb in text_boxes):
            continue
        out.append(Shape(x, max(0, y - round(20 * s)), x + w, y + h, "field"))
    return out


def detect_shapes(image: np.ndarray, lines: Sequence[Line]) -> list[Shape]:
    """Text-less widgets: connected components of the edge map, classified by geometry; empty
    text boxes also by their inside and by an underline."""
    import cv2

    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(gray, 40, 120)
    # close one-pixel gaps only, so that controls 3-4 px apart stay separate
    mask = cv2.dilate(edges, np.ones((2, 2), np.uint8), iterations=1)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    s = device_scale(image.shape[1])
    text_boxes = [(ln.x0, ln.y0, ln.x1, ln.y1) for ln in lines]
    found: list[Shape] = _empty_boxes(mask, text_boxes, s) + _underlines(mask, text_boxes, s)
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
        in_text = max((inter(box, tb) for tb in text_boxes), default=0.0) / (w * h)
        if kind == "icon" and in_text >= 0.3:
            continue  # a glyph of a text line
        if kind in ("slider", "field") and in_text >= 0.5:
            continue
        if kind == "slider":
            # the track's box, as its element is drawn (the knob may stand out of it)
            comp = labels[y:y + h, x:x + w] == i
            if h > w:
                a, b = _track(comp.T)
                found.append(Shape(x + a, y, x + b, y + h, kind))
            else:
                a, b = _track(comp)
                found.append(Shape(x, y + a, x + w, y + b, kind))
        elif kind:
            found.append(Shape(x, y, x + w, y + h, kind))
    # A component inside another found shape is part of it (tick in a box, knob in a pill).
    found.sort(key=lambda sh: -sh.area)
    kept: list[Shape] = []
    for sh in found:
        if any(inter((sh.x0, sh.y0, sh.x1, sh.y1), (k.x0, k.y0, k.x1, k.y1)) >= 0.6 * sh.area
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
                      if inter((sh.x0, sh.y0, sh.x1, sh.y1), (ln.x0, ln.y0, ln.x1, ln.y1))
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


LEAD_GLYPHS = re.compile(r"^[\s○◯●◉◎□■☐☑☒✓✔口回]+")
WORDLIKE = re.compile(r"[^\W_]")  # a letter or a digit
_EDGE_JUNK = re.compile(r"^[\s\[\]|]+|[\s\[\]|]+$")


def clean(text: str) -> str:
    return _EDGE_JUNK.sub("", LEAD_GLYPHS.sub("", text)).strip()


def detach_glyphs(lines: list[Line], shapes: Sequence[Shape]) -> None:
    """A checkbox or radio read as the letter O at the left end of a line: cut it off the line."""
    for ln in lines:
        for sh in shapes:
            if sh.kind != "checkbox" or sh.x0 > ln.x0 + (ln.y1 - ln.y0):
                continue
            if inter((sh.x0, sh.y0, sh.x1, sh.y1), (ln.x0, ln.y0, ln.x1, ln.y1)) < 0.6 * sh.area:
                continue
            m = re.match(r"^[Oo0Q○◯]\s*(?=[A-Z\s])", ln.text)
            if m and len(ln.text) > m.end():
                ln.text = ln.text[m.end():]
            ln.x0 = max(ln.x0, float(sh.x1))


def caption(sh: Shape, lines: Sequence[Line], s: float) -> str:
    """The text a text-less widget is known by: the caption drawn beside it, as forms place them.
    A box, ring or switch is captioned by the line just right of it on its row, else by the
    line left of it on its row (a switch at the end of a settings row); a text box or a slider
    by the line left of it on its row, else by the line just above it, starting about where it
    starts. "" when none is close enough ("slider" for a slider): an icon, or a widget with its
    caption elsewhere."""
    if sh.kind == "icon":
        return ""
    cy = (sh.y0 + sh.y1) / 2

    def on_row(ln: Line) -> bool:
        return ln.y0 <= cy <= ln.y1 or sh.y0 <= (ln.y0 + ln.y1) / 2 <= sh.y1

    def text(ln: Line) -> str:
        # not a line the widget itself was read as (a ring read as "O")
        inside = inter((sh.x0, sh.y0, sh.x1, sh.y1), (ln.x0, ln.y0, ln.x1, ln.y1))
        return "" if inside >= 0.5 * (ln.x1 - ln.x0) * (ln.y1 - ln.y0) else clean(ln.text)

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
