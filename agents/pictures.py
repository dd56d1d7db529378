"""Pictures the target shows: a subgoal's `looks_like` (an icon an instruction draws, a PNG beside a
task file) compared with what each mark shows on the step's screenshot.

The comparison is normalised cross-correlation of grey levels and of their edges, the picture
slid over the mark's box at a few sizes (a toolbar draws its icons larger or smaller than the
instruction does). Its absolute value counts, so an icon drawn inverted (white on a pressed
button's dark background) still fits; it is not mirror-invariant, so a "back" arrow does not fit
a "forward" one. A mark's `resemblance` is the best fit anywhere inside its box: 0 when the box
is smaller than the picture at every size or the picture is flat, and 0 for a box that holds a
smaller mark showing the picture (a submenu around its items: the picture is the item's). Cost:
one screenshot per step whose subgoal has a picture, and a few milliseconds of numpy per mark."""

from __future__ import annotations

import base64
import io
from functools import lru_cache

import numpy as np
from PIL import Image

from agents.marks import RESEMBLES, Mark

# The sizes the picture is tried at, relative to its own.
SCALES = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.15, 1.33, 1.5, 1.75, 2.0)
# A box larger than this many pixels is compared at a reduced resolution (a card, a panel).
MAX_AREA = 90_000
# Grey levels varying less than this over the picture: nothing to recognise.
FLAT = 4.0


class PictureError(ValueError):
    """A `looks_like` that cannot be read as a picture."""


def grey(data: bytes) -> np.ndarray:
    """A picture's grey levels, transparent parts on white (as a page draws an icon on paper)."""
    with Image.open(io.BytesIO(data)) as im:
        rgba = im.convert("RGBA")
    paper = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(paper, rgba).convert("L"), dtype=np.float32)


@lru_cache(maxsize=32)
def png(ref: str) -> bytes:
    """A `looks_like` as PNG bytes: a data: URL or a file path (resolved by the task loader)."""
    try:
        if ref.startswith("data:"):
            data = base64.b64decode(ref.split(",", 1)[1])
        else:
            with open(ref, "rb") as f:
                data = f.read()
        with Image.open(io.BytesIO(data)) as im:
            out = io.BytesIO()
            im.save(out, "PNG")
        return out.getvalue()
    except (OSError, ValueError, IndexError) as exc:
        raise PictureError(f"looks_like is not a readable picture: {ref[:80]!r} ({exc})") from None


@lru_cache(maxsize=32)
def load(ref: str) -> np.ndarray:
    """The grey levels of a `looks_like`."""
    return grey(png(ref))


def _resize(a: np.ndarray, scale: float) -> np.ndarray:
    h, w = max(1, round(a.shape[0] * scale)), max(1, round(a.shape[1] * scale))
    return np.asarray(Image.fromarray(a).resize((w, h), Image.BILINEAR), dtype=np.float32)


def _edges(a: np.ndarray) -> np.ndarray:
    gy, gx = np.gradient(a)
    return np.hypot(gx, gy).astype(np.float32)


def _box_sums(a: np.ndarray, h: int, w: int) -> np.ndarray:
    """The sum of every h×w window of a (integral image)."""
    s = np.zeros((a.shape[0] + 1, a.shape[1] + 1))
    s[1:, 1:] = a.cumsum(0).cumsum(1)
    return s[h:, w:] - s[:-h, w:] - s[h:, :-w] + s[:-h, :-w]


def _ncc(crop: np.ndarray, ref: np.ndarray) -> np.ndarray | None:
    """|Normalised cross-correlation| of ref at every position in crop (by FFT); flat windows
    (blank paper) 0; None when the picture itself is flat."""
    h, w = ref.shape
    zero = ref.astype(np.float64) - ref.mean()
    ref_norm = float(np.sqrt((zero * zero).sum()))
    if ref_norm < FLAT * np.sqrt(zero.size):
        return None
    crop = crop.astype(np.float64)
    # the picture's zero mean makes the window's own mean drop out of the numerator
    spectrum = np.fft.rfft2(crop) * np.conj(np.fft.rfft2(zero, crop.shape))
    num = np.fft.irfft2(spectrum, crop.shape)[: crop.shape[0] - h + 1, : crop.shape[1] - w + 1]
    sums = _box_sums(crop, h, w)
    var = np.maximum(_box_sums(crop * crop, h, w) - sums * sums / zero.size, 0.0)
    out = np.zeros_like(num)
    ok = var > (FLAT * FLAT) * zero.size
    out[ok] = np.abs(num[ok]) / (np.sqrt(var[ok]) * ref_norm)
    return out


def best_fit(picture: np.ndarray, crop: np.ndarray) -> float:
    """How well the picture, at any of `SCALES` and any place, fits the crop: the mean of the
    |normalised cross-correlation| of the grey levels and of their edges at that place (the grey
    levels alone let a blob fit a blob; edges alone are thrown by the blur of a resize)."""
    if crop.size > MAX_AREA:  # compare both at a resolution the box fits in
        shrink = (MAX_AREA / crop.size) ** 0.5
        crop, picture = _resize(crop, shrink), _resize(picture, shrink)
    crop_edges = _edges(crop)
    best = 0.0
    for scale in SCALES:
        ref = _resize(picture, scale) if scale != 1.0 else picture
        h, w = ref.shape
        if h < 4 or w < 4 or h > crop.shape[0] or w > crop.shape[1]:
            continue
        grey_fit, edge_fit = _ncc(crop, ref), _ncc(crop_edges, _edges(ref))
        if grey_fit is None or edge_fit is None:
            continue
        best = max(best, float(((grey_fit + edge_fit) / 2).max()))
    return min(best, 1.0)


def resemble(screenshot: bytes, marks: list[Mark], ref: str, viewport: tuple[int, int]) -> list[Mark]:
    """The marks with their `resemblance` to the picture, read off the viewport's screenshot."""
    picture = load(ref)
    page = grey(screenshot)
    scale = page.shape[1] / max(1, viewport[0])  # screenshot pixels per CSS pixel
    if scale != 1.0:
        picture = _resize(picture, scale)
    out = []
    for m in marks:
        b = m.box
        x0, y0 = max(0, int((b.x - 2) * scale)), max(0, int((b.y - 2) * scale))
        x1 = min(page.shape[1], int((b.x + b.width + 2) * scale) + 1)
        y1 = min(page.shape[0], int((b.y + b.height + 2) * scale) + 1)
        fit = best_fit(picture, page[y0:y1, x0:x1]) if x1 > x0 and y1 > y0 else 0.0
        out.append(m.model_copy(update={"resemblance": round(fit, 3)}))
    # A picture belongs to the smallest mark that shows it: a box around several (a submenu, a
    # toolbar) that holds a smaller mark showing it is its container, not the target.
    showing = [m for m in out if m.resemblance >= RESEMBLES]
    return [m.model_copy(update={"resemblance": 0.0})
            if any(_holds(m, n) for n in showing if n is not m) else m for m in out]


def _holds(outer: Mark, inner: Mark, slack: float = 2.0) -> bool:
    a, b = outer.box, inner.box
    return (b.width * b.height < 0.9 * a.width * a.height and b.x >= a.x - slack and b.y >= a.y - slack
            and b.x + b.width <= a.x + a.width + slack and b.y + b.height <= a.y + a.height + slack)
