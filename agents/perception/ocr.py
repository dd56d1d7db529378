"""The `ocr` vision backend: a real pixel-only model that runs offline on the CPU — RapidOCR (ONNX
models shipped in its wheel) reads text lines, OpenCV finds text-less widgets by their shape
(agents/perception/ocr_shapes.py)."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

import numpy as np

from agents.perception.base import Candidate, NormBox, PerceptionResult, Tier
from agents.perception.ocr_config import OcrConfig, OcrTier
from agents.perception.ocr_shapes import (
    LEAD_GLYPHS,
    WORDLIKE,
    Line,
    caption,
    clean,
    detach_glyphs,
    detect_shapes,
    device_scale,
)
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


def _run_ocr(image: np.ndarray, scale: float, threads: int,
             max_aspect: float | None = None) -> list[Line]:
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
    lines: list[Line] = []
    for item in result or []:
        for ln in _split_line(item):
            lines.append(Line(ln.x0 / sx, ln.y0 / sy, ln.x1 / sx, ln.y1 / sy, ln.text, ln.score,
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


def _split_line(item: Sequence[Any]) -> list[Line]:
    """One OCR line, cut where its characters leave a gap wider than half the line height: the
    detector sometimes joins a heading and the button beside it into one line."""
    points, text, score = item[0], str(item[1]), float(item[2])
    pts = np.asarray(points, dtype=np.float32)
    line = Line(float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()),
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
        out.append(Line(x0, line.y0, x1, line.y1, seg, seg_score, tuple(spans[i] for i in idx)))
    return out or [line]


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


def _rank(raw: list[_Raw], subgoal: str, hints: Sequence[str], cap: int,
          phrases: Sequence[str] = ()) -> list[_Raw]:
    # reading order: rows of roughly equal top, then left to right
    raw = sorted(raw, key=lambda r: (round(r.y0 / 12), r.x0))
    hints = [h for h in hints if h and h.strip()]
    named = {_compact(p) for p in phrases}  # (`_phrases` of the subgoal and hints)

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


def _phrase_boxes(lines: Sequence[Line], phrases: Sequence[str]) -> list[_Raw]:
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
             if ln.score >= tier_cfg.min_text_score and WORDLIKE.search(LEAD_GLYPHS.sub("", ln.text))]
    shapes = detect_shapes(arr, lines) if tier_cfg.shapes else []
    if shapes:
        detach_glyphs(lines, shapes)
    raw = [_Raw(ln.x0, ln.y0, ln.x1, ln.y1, clean(ln.text), ln.score, "text") for ln in lines]
    raw = [r for r in raw if r.label]
    phrases = _phrases(subgoal, hints)
    raw += _phrase_boxes(lines, phrases)
    s = device_scale(w)
    raw += [_Raw(sh.x0, sh.y0, sh.x1, sh.y1, caption(sh, lines, s), SHAPE_CONFIDENCE[sh.kind], sh.kind)
            for sh in shapes]
    out = []
    for r in _rank(raw, subgoal, hints, cap, phrases):
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
