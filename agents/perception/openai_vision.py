"""Perceive stage, `openai` backend: asks any OpenAI-compatible vision model for candidate boxes on
the viewport screenshot; a bad reply or a failed call is a recorded error, never an exception.

Reply format asked of the model (and the only one accepted), one JSON object, fences tolerated:

    {"candidates": [{"box": [x0, y0, x1, y1], "label": "Search", "confidence": 0.9, "kind": "button"}]}

Coordinate convention: `box` is normalised to the image that was sent, each value in 0..1,
origin at the top-left corner, x to the right, y downwards, x0 < x1 and y0 < y1 (so the
convention survives the downscaling of the small tier). Values within 0.005 outside 0..1 are
clamped; anything else out of range (e.g. pixel coordinates), inverted or empty boxes are dropped
as invalid. `label` is the visible text (or a short description for icons), `kind` the sort of
control, `confidence` 0..1 (clamped). Candidates are kept in the model's order, cut to the cap.

Error types in `PerceptionResult.error_type`: the client's `http_error`, `timeout`,
`connection`, `bad_response`; then `bad_image` (input PNG unreadable), `bad_json` (no JSON in
the reply), `bad_schema` (JSON but not the format above), `no_candidates` (empty list),
`invalid_boxes` (every candidate invalid), `internal` (a bug here). When only some candidates are
invalid, the valid ones are returned with `error_type == ""` and `error` saying how many were
dropped ("dropped 2 of 7 candidates as invalid: ...").
"""

from __future__ import annotations

import asyncio
import io
import time
from typing import Any, Literal

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.openai_client import (
    ModelCallError,
    OpenAIClient,
    OpenAIClientConfig,
    extract_json,
    image_part,
    json_error,
    record_model_call,
    text_part,
)
from agents.perception.base import Candidate, NormBox, PerceptionResult, Tier
from tasks.trace import Cost

_EDGE_EPS = 0.005
_MAX_ERROR = 300

SYSTEM_PROMPT = """\
You locate user-interface elements in a screenshot of a web page viewport.
Reply with ONE JSON object and nothing else, in exactly this format:
{"candidates": [{"box": [x0, y0, x1, y1], "label": "Search", "confidence": 0.9, "kind": "button"}]}

Coordinates: each box value is a fraction of the image size between 0 and 1 (NOT pixels), with the
origin (0, 0) at the top-left corner of the image and (1, 1) at the bottom-right corner; x grows to
the right, y grows downwards; x0 < x1 and y0 < y1. Draw a tight box around the visible element.
- label: the text the element shows; for an icon or an unlabelled control, a short description.
- kind: one of button, link, textbox, checkbox, radio, switch, slider, select, tab, menuitem,
  icon, text, image, other.
- confidence: 0..1, how sure you are that the element is there and matters for the subgoal.
List the interactive elements in view, those most relevant to the subgoal first, up to the limit
given. Include every label the user says the page should show, if you can see it."""


class TierConfig(BaseModel):
    """One tier: which model, how large an image it gets, how many candidates it may return."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    model: str | None = Field(None, description="None: the client's model")
    max_side: int = Field(1024, ge=0, description="downscale so the longer side is <= this; 0 = never")
    cap: int = Field(20, ge=1, description="most candidates asked for and kept")
    detail: Literal["auto", "low", "high"] | None = Field(None, description="image_url detail, if set")
    max_tokens: int | None = Field(None, ge=1, description="None: the client's max_tokens")


class OpenAIVisionConfig(BaseModel):
    """Hydra's `perception` group when `perception=openai` (see conf/perception/openai.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["openai"] = "openai"
    client: OpenAIClientConfig = OpenAIClientConfig()
    small: TierConfig = TierConfig(max_side=768, cap=15)
    large: TierConfig = TierConfig(max_side=1280, cap=40, max_tokens=2048)
    preflight: bool = Field(True, description="one request to each tier's model before the run "
                            "starts a browser; a failure stops the run (exit 2)")

    def tier(self, tier: Tier) -> TierConfig:
        return self.small if tier == "small" else self.large


class _RawCandidate(BaseModel):
    model_config = ConfigDict(extra="ignore")
    box: tuple[float, float, float, float]
    label: str | None = ""
    confidence: float | None = 1.0
    kind: str | None = ""


class _RawReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    candidates: list[Any]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR else text[: _MAX_ERROR - 3] + "..."


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "value"
    return f"{where}: {err.get('msg', 'invalid')}"


def _clamp_edge(v: float) -> float:
    if -_EDGE_EPS <= v < 0:
        return 0.0
    if 1 < v <= 1 + _EDGE_EPS:
        return 1.0
    return v


def to_candidate(item: Any) -> Candidate:
    """One raw candidate from the reply, validated; raises ValueError with a short reason."""
    try:
        raw = _RawCandidate.model_validate(item)
        box = NormBox(**dict(zip(("x0", "y0", "x1", "y1"), (_clamp_edge(v) for v in raw.box),
                                 strict=True)))
    except ValidationError as e:
        raise ValueError(_first_error(e)) from None
    confidence = min(max(raw.confidence if raw.confidence is not None else 1.0, 0.0), 1.0)
    return Candidate(box=box, label=(raw.label or "").strip(), confidence=confidence,
                     kind=(raw.kind or "").strip().lower())


def parse_candidates(content: str, cap: int) -> tuple[list[Candidate], str, str]:
    """The model's reply → (candidates, error_type, error); see the module docstring."""
    try:
        data = extract_json(content)
    except ValueError as e:
        return [], "bad_json", _short(str(e))
    if isinstance(data, list):  # a bare list of candidates: accept, it is unambiguous
        data = {"candidates": data}
    try:
        items = _RawReply.model_validate(data).candidates
    except ValidationError as e:
        return [], "bad_schema", f'expected {{"candidates": [...]}}; {_first_error(e)}'
    if not items:
        return [], "no_candidates", "the model returned an empty candidate list"
    good: list[Candidate] = []
    reasons: list[str] = []
    for i, item in enumerate(items):
        try:
            good.append(to_candidate(item))
        except ValueError as e:
            reasons.append(f"#{i}: {e}")
    dropped = len(reasons)
    if not good:
        return [], "invalid_boxes", _short(f"all {dropped} candidates invalid: " + "; ".join(reasons[:3]))
    note = ""
    if dropped:
        note = _short(f"dropped {dropped} of {len(items)} candidates as invalid: " + "; ".join(reasons[:3]))
    return good[:cap], "", note


def prepare_image(png: bytes, max_side: int) -> tuple[bytes, int, int]:
    """Downscale so the longer side is at most max_side (0: never); returns (png, width, height)."""
    with Image.open(io.BytesIO(png)) as im:
        im.load()
        w, h = im.size
        if max_side <= 0 or max(w, h) <= max_side:
            return png, w, h
        scale = max_side / max(w, h)
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        small = im.convert("RGB").resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    small.save(out, format="PNG", optimize=False)
    return out.getvalue(), size[0], size[1]


def build_messages(image_png: bytes, width: int, height: int, subgoal: str, hints: list[str],
                   cap: int, detail: str | None = None) -> list[dict[str, Any]]:
    lines = [f"Subgoal: {subgoal.strip() or '(none given)'}"]
    if hints:
        lines.append("Labels the page should show (find these in particular): "
                     + "; ".join(f'"{h}"' for h in hints))
    lines.append(f"Return at most {cap} candidates, most relevant first.")
    lines.append(f"The image is {width}x{height} pixels; give box coordinates as fractions 0..1 of "
                 "the image width and height, origin top-left, not as pixels.")
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": [text_part("\n".join(lines)), image_part(image_png, detail)]},
    ]


class OpenAIVisionBackend:
    """VisionBackend over an OpenAI-compatible chat endpoint; tiers differ in model, image size
    and candidate cap (config)."""

    name = "openai"
    reads_pixels = True

    def __init__(self, config: OpenAIVisionConfig | None = None,
                 client: OpenAIClient | None = None) -> None:
        self.config = config or OpenAIVisionConfig()
        self.client = client or OpenAIClient(self.config.client)

    async def perceive(self, image: bytes, subgoal: str, hints: list[str], tier: Tier,
                       cap: int | None = None) -> PerceptionResult:
        t0 = time.perf_counter()

        def result(tokens_in: int = 0, tokens_out: int = 0, **kw: Any) -> PerceptionResult:
            return PerceptionResult(tier=tier, cost=Cost(
                latency_ms=round((time.perf_counter() - t0) * 1000, 2), tokens_in=tokens_in,
                tokens_out=tokens_out), **kw)

        try:
            tc = self.config.tier(tier)
            limit = cap if cap is not None and cap > 0 else tc.cap
            try:
                png, w, h = await asyncio.to_thread(prepare_image, image, tc.max_side)
            except Exception as e:  # noqa: BLE001 - PIL raises many types for a bad input
                return result(error_type="bad_image", error=_short(f"{type(e).__name__}: {e}"))
            messages = build_messages(png, w, h, subgoal, hints, limit, tc.detail)
            try:
                reply = await self.client.chat(messages, model=tc.model, max_tokens=tc.max_tokens)
            except ModelCallError as e:
                record_model_call(str(e))
                return result(error_type=e.kind, error=_short(e.message))
            record_model_call(json_error(reply.content))
            candidates, error_type, error = parse_candidates(reply.content, limit)
            if error_type in ("bad_json", "bad_schema") and reply.finish_reason == "length":
                error = f"{error} (the reply was cut at max_tokens)"
            return result(candidates=candidates, tokens_in=reply.cost.tokens_in,
                          tokens_out=reply.cost.tokens_out, error_type=error_type, error=error)
        except Exception as e:  # noqa: BLE001 - a backend reports, it never crashes the episode
            return result(error_type="internal", error=_short(f"{type(e).__name__}: {e}"))
