"""Synthetic vision backend: a seeded simulated VLM for fast, controlled sweeps. It starts from
what the viewport visibly shows and degrades it with the error processes real models show.

Error processes (each a config field; defaults in conf/perception/synthetic.yaml):
- cap: candidates per tier; the rest is truncated (dense pages lose controls).
- miss_small_p: chance to miss a small, icon-only or text-less control (checkbox, chevron).
- merge_row_p: chance to return a compound row (label text + its small control) as one box.
- jitter: box edges move by up to this fraction of the box size.
- label_noise_p: chance a label comes back with one character dropped.
- state_seen_p: chance the model reports a checked/expanded state it can see (0 = state-blind).
- large_tier_error_scale: the large tier's miss and merge chances are multiplied by this.
- latency_ms: simulated call latency per tier, really waited, so gating and prefetch change wall time.
- occlusion: draw only what is on top (nothing wholly under a sticky header, toast or backdrop).

A text-less icon is labelled with what its picture depicts ("delete icon"), named from the file,
sprite symbol, SVG title or icon-font class it is drawn with (visible_geometry.picture_name), as a
model reading the pixels would name the drawing; it stays of kind "icon" for the error processes.

Deterministic for (seed, page state, tier, subgoal, hints)."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Literal

import xxhash
from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict, Field

from agents.perception.base import Candidate, NormBox, PerceptionResult, Tier
from agents.perception.visible_geometry import Region, read_regions
from tasks.text_match import coverage, word_set
from tasks.trace import Cost


class SyntheticConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Literal["synthetic"] = "synthetic"
    # A calibrated profile's name (conf/perception/synthetic_<profile>.yaml, written by
    # `groundbench-calibrate`); "" for the hand-set defaults. Runs are named synthetic_<profile>.
    profile: str = Field("", pattern=r"^[A-Za-z0-9_]*$")
    cap: dict[str, int] = Field(default_factory=lambda: {"small": 24, "large": 80})
    miss_small_p: float = Field(0.3, ge=0, le=1)
    merge_row_p: float = Field(0.7, ge=0, le=1)
    jitter: float = Field(0.04, ge=0, le=0.5)
    label_noise_p: float = Field(0.03, ge=0, le=1)
    state_seen_p: float = Field(0.0, ge=0, le=1)
    large_tier_error_scale: float = Field(0.3, ge=0, le=1)
    latency_ms: dict[str, float] = Field(default_factory=lambda: {"small": 0.0, "large": 0.0})
    # The simulation reads the page's geometry, not pixels, so by default the agent takes no
    # screenshot for it. True: capture the viewport for every call as for a model that reads
    # pixels, so a run pays what such a backend's capture costs (the image is not read).
    capture: bool = False
    # Draw only what is on top: a control wholly under a sticky header, a toast or a dialog's
    # backdrop is not seen, as a model reading pixels would not see it. Off by default: the
    # agent's fixtures and tables were measured without it (see README, "Perception backends").
    occlusion: bool = False


@dataclass
class DegradeStats:
    """What the error processes did on one call (for the calibration test and the trace)."""

    regions: int = 0
    eligible_small: int = 0
    missed_small: int = 0
    rows: int = 0
    merged_rows: int = 0
    truncated: int = 0
    noisy_labels: int = 0
    states_seen: int = 0


# Words of a hint that name a kind of control, not text the control shows.
KIND_WORDS = frozenset({"field", "button", "box", "link", "checkbox", "input", "textbox", "dropdown",
                        "slider", "toggle", "switch", "tab", "icon", "control", "the", "a", "an"})


# Kinds of region the reader tells apart by how they are drawn (visible_geometry's `kind`).
DRAWN_KINDS = frozenset({"slider", "checkbox", "field", "icon"})


def relevance(text: str, subgoal: str) -> float:
    return coverage(subgoal, text)


def degrade(regions: list[Region], rng: random.Random, cfg: SyntheticConfig, tier: Tier,
            subgoal: str, hints: list[str], cap: int | None, viewport: tuple[float, float]
            ) -> tuple[list[Candidate], DegradeStats]:
    stats = DegradeStats(regions=len(regions))
    scale = cfg.large_tier_error_scale if tier == "large" else 1.0
    vw, vh = viewport
    # "Tags field": the kind of control a hint names is what to look for, not words drawn on it;
    # a hint that is only a kind ("slider") has the model look for controls drawn as that kind
    hint_words = [w for w in (word_set(h) - KIND_WORDS for h in hints) if w]
    hint_kinds = {k for h in hints if not word_set(h) - KIND_WORDS for k in word_set(h) & DRAWN_KINDS}

    def hinted(text: str, kind: str = "") -> bool:
        return any(h <= word_set(text) for h in hint_words) or kind in hint_kinds

    merged_rows: set[int] = set()
    for i, r in enumerate(regions):
        if r.kind == "row":
            stats.rows += 1
            if rng.random() < cfg.merge_row_p * scale:
                merged_rows.add(i)
    stats.merged_rows = len(merged_rows)
    drafts: list[tuple[tuple[float, float, float, float], str, str, str]] = []
    for i, r in enumerate(regions):
        if r.row in merged_rows:
            continue  # drawn as part of its row's single box
        box, text, kind = r.box, r.label, r.kind
        if i in merged_rows:
            members = [m for m in regions if m.row == i]
            x0 = min([box[0], *(m.box[0] for m in members)])
            y0 = min([box[1], *(m.box[1] for m in members)])
            x1 = max([box[0] + box[2], *(m.box[0] + m.box[2] for m in members)])
            y1 = max([box[1] + box[3], *(m.box[1] + m.box[3] for m in members)])
            box, kind = (x0, y0, x1 - x0, y1 - y0), "row"
        elif (r.small or kind in ("icon", "checkbox") or not text) and not hinted(text, kind) \
                and not (r.caption and hinted(r.caption)):
            # A control the model was explicitly told to look for is not missed (an empty field
            # by the label beside it).
            stats.eligible_small += 1
            if rng.random() < cfg.miss_small_p * scale:
                stats.missed_small += 1
                continue
        drafts.append((box, text, kind, r.state))
    def priority(d: tuple) -> tuple[float, float, float, float]:
        box, text, kind, _ = d
        return (-float(hinted(text, kind)), -relevance(text, subgoal), round(box[1] / 8), box[0])

    drafts.sort(key=priority)
    limit = cap if cap is not None else cfg.cap[tier]
    stats.truncated = max(0, len(drafts) - limit)
    candidates = []
    for box, text, kind, state in drafts[:limit]:
        # Each edge moves on its own by up to `jitter` of the box size.
        bw, bh = box[2], box[3]
        left = box[0] + rng.uniform(-cfg.jitter, cfg.jitter) * bw
        top = box[1] + rng.uniform(-cfg.jitter, cfg.jitter) * bh
        right = box[0] + bw + rng.uniform(-cfg.jitter, cfg.jitter) * bw
        bottom = box[1] + bh + rng.uniform(-cfg.jitter, cfg.jitter) * bh
        x0, y0 = min(max(left / vw, 0.0), 0.999), min(max(top / vh, 0.0), 0.999)
        x1, y1 = min(max(right / vw, x0 + 0.001), 1.0), min(max(bottom / vh, y0 + 0.001), 1.0)
        # a model names what it sees drawn even without words on it: a knob on a track
        label = text or ("slider" if kind == "slider" else "")
        if label and rng.random() < cfg.label_noise_p:
            cut = rng.randrange(len(label))
            label = label[:cut] + label[cut + 1:]
            stats.noisy_labels += 1
        if state and rng.random() < cfg.state_seen_p:
            label = f"{label} ({state})".strip()
            stats.states_seen += 1
        candidates.append(Candidate(box=NormBox(x0=x0, y0=y0, x1=x1, y1=y1), label=label[:120],
                                    confidence=round(rng.uniform(0.6, 0.99), 3), kind=kind))
    return candidates, stats


class SyntheticBackend:
    """Simulated VLM bound to one episode's page; its pixels are the page's visible geometry."""

    name = "synthetic"

    def __init__(self, config: SyntheticConfig, seed: int, page: Page) -> None:
        self.config, self.seed, self.page = config, seed, page
        self.reads_pixels = config.capture
        self.last_stats = DegradeStats()

    async def perceive(self, image: bytes, subgoal: str, hints: list[str], tier: Tier,
                       cap: int | None = None) -> PerceptionResult:
        t0 = time.perf_counter()
        regions = await read_regions(self.page, self.config.occlusion)
        size = self.page.viewport_size or {"width": 1280, "height": 720}
        key = xxhash.xxh64(f"{self.seed}|{tier}|{subgoal}|{hints}|{cap}|".encode())
        for r in regions:
            key.update(f"{r.box}{r.text}{r.kind}".encode())
        rng = random.Random(key.intdigest())
        candidates, self.last_stats = degrade(regions, rng, self.config, tier, subgoal, hints, cap,
                                              (size["width"], size["height"]))
        spent = (time.perf_counter() - t0) * 1000
        wait = self.config.latency_ms.get(tier, 0.0) - spent
        if wait > 0:
            await asyncio.sleep(wait / 1000)
        return PerceptionResult(candidates=candidates, tier=tier,
                                cost=Cost(latency_ms=round((time.perf_counter() - t0) * 1000, 2)))
