"""An example vision backend of one's own: pixels only. It proposes every block of ink on the
screenshot (a region that differs from the page's background), with no label; groundbench's DOM
bridge then names what it can and the worker chooses. A stand-in for your own detector.

Run it (from a checkout: PYTHONPATH=.):
    groundbench perception=custom perception._target_=examples.perception.blocks.Blocks suite=ci"""

from __future__ import annotations

import io
import time

import numpy as np
from PIL import Image

from agents.perception.base import Candidate, NormBox, PerceptionResult, Tier
from tasks.trace import Cost


class Blocks:
    name = "blocks"
    reads_pixels = True

    def __init__(self, cell: int = 8, cap: int = 60) -> None:
        self.cell, self.cap = cell, cap

    async def perceive(self, image: bytes, subgoal: str, hints: list[str], tier: Tier,
                       cap: int | None = None) -> PerceptionResult:
        t0 = time.perf_counter()
        pixels = np.asarray(Image.open(io.BytesIO(image)).convert("L"), dtype=np.int16)
        h, w = pixels.shape
        background = np.bincount(pixels.ravel()).argmax()
        c = self.cell
        ink = np.abs(pixels[: h // c * c, : w // c * c] - background) > 24
        cells = ink.reshape(h // c, c, w // c, c).any(axis=(1, 3))
        boxes = _components(cells)
        boxes.sort(key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))  # small blocks are controls
        candidates = [Candidate(box=NormBox(x0=x0 * c / w, y0=y0 * c / h, x1=x1 * c / w,
                                            y1=y1 * c / h), confidence=0.5)
                      for y0, x0, y1, x1 in boxes[: cap or self.cap]]
        return PerceptionResult(candidates=candidates, tier=tier,
                                cost=Cost(latency_ms=(time.perf_counter() - t0) * 1000))


def _components(cells: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Bounding boxes (top, left, bottom, right) of 4-connected groups of ink cells."""
    seen = np.zeros_like(cells)
    out = []
    for y, x in zip(*np.nonzero(cells)):
        if seen[y, x]:
            continue
        stack, box = [(y, x)], [y, x, y + 1, x + 1]
        seen[y, x] = True
        while stack:
            cy, cx = stack.pop()
            box = [min(box[0], cy), min(box[1], cx), max(box[2], cy + 1), max(box[3], cx + 1)]
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < cells.shape[0] and 0 <= nx < cells.shape[1] and cells[ny, nx] \
                        and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        out.append(tuple(box))
    return out
