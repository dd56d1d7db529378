"""Set-of-Mark: numbered boxes drawn on the screenshot from exactly the boxes of the listing, so
mark N in the picture and [N] in the listing are the same element by construction."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Literal

from PIL import Image, ImageDraw, ImageFont

from agents.marks import Mark
from tasks.trace import StepRecord
from tasks.wrong_step import went_wrong

if TYPE_CHECKING:
    from agents.pipeline import Step

PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000")
HALO = "#ffe119"  # drawn wide around the chosen mark, under its own colour


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:
        return ImageFont.load_default()


def draw(png: bytes, marks: list[Mark], viewport: tuple[float, float], highlight: int | None = None,
         remembered: list[Mark] = ()) -> bytes:
    """The screenshot with each mark's box and number; `highlight` (the chosen mark) is drawn
    thick inside a wide yellow halo, remembered (freshness overlay) marks are drawn grey."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    sx, sy = image.width / viewport[0], image.height / viewport[1]
    canvas = ImageDraw.Draw(image)
    font = _font(max(11, int(12 * sy)))
    for mark in [*remembered, *marks]:
        grey = mark in remembered
        colour = "#999999" if grey else PALETTE[mark.number % len(PALETTE)]
        width = 4 if mark.number == highlight and not grey else 2
        x0, y0 = mark.box.x * sx, mark.box.y * sy
        x1, y1 = (mark.box.x + mark.box.width) * sx, (mark.box.y + mark.box.height) * sy
        if width == 4:
            canvas.rectangle([x0 - 5, y0 - 5, x1 + 5, y1 + 5], outline=HALO, width=6)
        canvas.rectangle([x0, y0, x1, y1], outline=colour, width=width)
        tag = str(mark.number)
        tw, th = canvas.textbbox((0, 0), tag, font=font)[2:]
        ty = y0 - th - 2 if y0 - th - 2 >= 0 else y0
        canvas.rectangle([x0, ty, x0 + tw + 4, ty + th + 2], fill=colour)
        canvas.text((x0 + 2, ty), tag, fill="white", font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def listing(marks: list[Mark]) -> str:
    return "\n".join(m.listing_line() for m in marks)


# A step's image, undrawn: its record, number, screenshot, marks, viewport and chosen mark.
_Kept = tuple[StepRecord, int, bytes, list[Mark], tuple[float, float], int | None]


class Recorder:
    """Keeps the Set-of-Mark image of each step (`all`), or (`last`) of the last step and of the
    first step that went wrong (tasks/wrong_step.py), drawn once at the end, not on every step,
    or none."""

    def __init__(self, mode: Literal["none", "last", "all"]) -> None:
        self.mode = mode
        self._images: dict[int, bytes] = {}
        self._last: _Kept | None = None
        self._wrong: _Kept | None = None

    async def keep(self, step: Step, chosen: Mark | None) -> None:
        if self.mode == "none":
            return
        page = step.page
        size = page.viewport_size or {"width": 1280, "height": 720}
        png = step.png or await page.screenshot()
        viewport = (float(size["width"]), float(size["height"]))
        highlight = chosen.number if chosen else None
        if self.mode == "last":
            # The step kept before this one has its whole record by now.
            if self._wrong is None and self._last is not None and went_wrong(self._last[0]):
                self._wrong = self._last
            self._last = (step.rec, step.number, png, step.marks, viewport, highlight)
        else:
            self._images[step.number] = draw(png, step.marks, viewport, highlight)

    def images(self) -> dict[int, bytes]:
        if self.mode == "last":
            kept = [k for k in (self._wrong, self._last) if k is not None]
            return {k[1]: draw(*k[2:]) for k in kept}
        return self._images

