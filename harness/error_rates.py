"""What a real vision backend gets wrong, from its candidates and the page's regions: candidates
matched to regions, the matches counted per tier, and the synthetic model's error rates
estimated from the counts (`groundbench-calibrate`, harness/calibrate.py, collects the pages and
writes the profile).

Matching. A candidate and a region are a possible pair when the centre of either box lies inside
the other; pairs whose kinds agree are taken first, then the others, each greedily by descending
IoU, each candidate and region at most once.

Estimators (the synthetic model's definitions are in agents/perception/synthetic.py). A region
is *missable* as the synthetic model defines it: small, icon, checkbox or without text.
- merge_row_p: over rows (`kind == "row"`) that were matched and have at least one member the
  synthetic model never misses (a text control), the share whose members were none matched. A
  row whose members are all missable is ambiguous (merged, or each member missed) and is left to
  the miss estimator.
- miss_small_p: the maximum-likelihood rate (grid of 0.001) given merge_row_p: each missable
  region outside merged rows is a Bernoulli trial; an ambiguous matched row whose j members were
  none matched has likelihood g + (1 - g) p^j, one with k of j missed (1 - g) p^k (1 - p)^(j - k).
- jitter: the model moves each box edge by U(-j, j) of the box size, so |offset| is U(0, j) and
  j = 2 x the median |offset| over the four edges of every matched pair (merged rows and regions
  cut by the viewport's edge left out), capped at 0.5 (the config's limit).
- label_noise_p: over matched regions with text, the share whose label differs from the text
  (case and runs of white space ignored, a reported state suffix removed). Both tiers pooled.
- state_seen_p: over matched regions with a state (checked/expanded), the share whose label names
  it (and the region's text does not).
- large_tier_error_scale: the factor s in [0, 1] (grid of 0.001) that maximises the likelihood of
  the large tier's merges and misses at rates s x merge_row_p and s x miss_small_p.
- cap: the backend's own caps; latency_ms: the median measured latency per tier (really waited by
  the profile); capture and occlusion on (the backend reads pixels).
A parameter with no observation keeps the default synthetic value and is marked so. What the
synthetic model has no process for (regions it never misses that went unseen, candidates that
match no region) is counted beside the estimates in synthetic_<name>.json.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.perception.base import Candidate, Tier
from agents.perception.synthetic import SyntheticConfig
from agents.perception.visible_geometry import Region

TIERS: tuple[Tier, Tier] = ("small", "large")
GRID = 1000
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in viewport CSS px


# --------------------------------------------------------------------------- matching


def region_box(r: Region) -> Box:
    x, y, w, h = r.box
    return (x, y, x + w, y + h)


def candidate_box(c: Candidate, viewport: tuple[float, float]) -> Box:
    vw, vh = viewport
    return (c.box.x0 * vw, c.box.y0 * vh, c.box.x1 * vw, c.box.y1 * vh)


def _centre_in(a: Box, b: Box) -> bool:
    cx, cy = (a[0] + a[2]) / 2, (a[1] + a[3]) / 2
    return b[0] <= cx <= b[2] and b[1] <= cy <= b[3]


def iou(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(regions: Sequence[Region], candidates: Sequence[Candidate],
          viewport: tuple[float, float]) -> dict[int, int]:
    """Region index -> candidate index, one-to-one. A pair is possible when the centre of either
    box lies inside the other; pairs whose kinds agree (the candidate says what the region is)
    are taken first, then the rest, each greedily by descending IoU (ties: rows first, then
    region and candidate order)."""
    pairs = []
    cboxes = [candidate_box(c, viewport) for c in candidates]
    for i, r in enumerate(regions):
        rb = region_box(r)
        for j, cb in enumerate(cboxes):
            if _centre_in(rb, cb) or _centre_in(cb, rb):
                pairs.append((candidates[j].kind != r.kind, -iou(rb, cb), r.kind != "row", i, j))
    pairs.sort()
    out: dict[int, int] = {}
    used: set[int] = set()
    for *_, i, j in pairs:
        if i in out or j in used:
            continue
        out[i] = j
        used.add(j)
    return out


def missable(r: Region) -> bool:
    """The synthetic model's miss population (agents/perception/synthetic.py, `degrade`)."""
    return r.small or r.kind in ("icon", "checkbox") or not r.text


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


# --------------------------------------------------------------------------- counting


@dataclass
class TierCounts:
    """What one tier's calls showed, in the terms of the synthetic model's error processes."""

    calls: int = 0
    regions: int = 0
    candidates: int = 0
    rows_identifiable: int = 0  # matched rows with a member that is never missed
    rows_merged: int = 0  # ...of which no member was matched
    missable: int = 0  # missable regions outside merged and ambiguous rows
    missed: int = 0
    # matched rows whose members are all missable: [members, missed members] each
    ambiguous_rows: list[list[int]] = field(default_factory=list)
    labelled: int = 0  # matched regions with text
    noisy: int = 0
    stateful: int = 0  # matched regions with a visible state
    state_seen: int = 0
    offsets: list[float] = field(default_factory=list)  # |edge offset| / box size
    latency_ms: list[float] = field(default_factory=list)
    errors: int = 0
    # not modelled by the synthetic backend
    unseen_never_missed: int = 0  # regions it never misses (text, not small; rows) not matched
    unmatched_candidates: int = 0


def count_call(regions: Sequence[Region], candidates: Sequence[Candidate],
               viewport: tuple[float, float], counts: TierCounts) -> None:
    """Add one call's regions and candidates to `counts` (see the module docstring)."""
    vw, vh = viewport
    pairs = match(regions, candidates, viewport)
    counts.calls += 1
    counts.regions += len(regions)
    counts.candidates += len(candidates)
    counts.unmatched_candidates += len(candidates) - len(pairs)
    members: dict[int, list[int]] = {}
    for i, r in enumerate(regions):
        if r.row >= 0:
            members.setdefault(r.row, []).append(i)
    merged: set[int] = set()
    ambiguous: set[int] = set()
    for i, r in enumerate(regions):
        if r.kind != "row" or i not in pairs or not members.get(i):
            continue
        seen = [m for m in members[i] if m in pairs]
        if all(missable(regions[m]) for m in members[i]):
            ambiguous.add(i)
            counts.ambiguous_rows.append([len(members[i]), len(members[i]) - len(seen)])
            continue
        counts.rows_identifiable += 1
        if not seen:
            merged.add(i)
            counts.rows_merged += 1
    for i, r in enumerate(regions):
        if r.row in merged or r.row in ambiguous:
            pass
        elif missable(r) and r.kind != "row":
            counts.missable += 1
            counts.missed += i not in pairs
        elif i not in pairs:
            counts.unseen_never_missed += 1
        if i not in pairs:
            continue
        cand = candidates[pairs[i]]
        label = cand.label
        if r.state:
            named = r.state in label.casefold() and r.state not in r.text.casefold()
            counts.stateful += 1
            counts.state_seen += named
            label = label.removesuffix(f" ({r.state})").removesuffix(f"({r.state})")
        if r.text:
            counts.labelled += 1
            counts.noisy += _norm(label) != _norm(r.text[:120])
        x0, y0, x1, y1 = region_box(r)
        if i in merged or x0 < 0 or y0 < 0 or x1 > vw or y1 > vh:
            continue
        c = candidate_box(cand, viewport)
        w, h = x1 - x0, y1 - y0
        counts.offsets += [abs(c[0] - x0) / w, abs(c[1] - y0) / h, abs(c[2] - x1) / w,
                           abs(c[3] - y1) / h]


# --------------------------------------------------------------------------- estimating


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -1e9


def miss_loglik(p: float, g: float, counts: TierCounts) -> float:
    """Log-likelihood of a tier's misses at miss rate p, given merge rate g."""
    ll = counts.missed * _log(p) + (counts.missable - counts.missed) * _log(1 - p)
    for j, k in counts.ambiguous_rows:
        if k == j:
            ll += _log(g + (1 - g) * p ** j)
        else:
            ll += _log(1 - g) + k * _log(p) + (j - k) * _log(1 - p)
    return ll


def merge_loglik(g: float, counts: TierCounts) -> float:
    return counts.rows_merged * _log(g) + (counts.rows_identifiable - counts.rows_merged) * _log(1 - g)


def _argmax(f: Any) -> float:
    return max((k / GRID for k in range(GRID + 1)), key=f)


@dataclass
class Estimate:
    value: float
    measured: bool
    basis: str  # the counts it came from, in words


def estimate(small: TierCounts, large: TierCounts,
             default: SyntheticConfig | None = None) -> dict[str, Estimate]:
    """The synthetic model's error rates from the counts of both tiers (module docstring)."""
    default = default or SyntheticConfig()
    out: dict[str, Estimate] = {}
    if small.rows_identifiable:
        g = small.rows_merged / small.rows_identifiable
        out["merge_row_p"] = Estimate(round(g, 3), True, f"{small.rows_merged} merged of "
                                      f"{small.rows_identifiable} rows (small tier)")
    else:
        g = default.merge_row_p
        out["merge_row_p"] = Estimate(g, False, "no row with a text member was matched: default")
    if small.missable or small.ambiguous_rows:
        p = _argmax(lambda q: miss_loglik(q, g, small))
        out["miss_small_p"] = Estimate(p, True, (
            f"{small.missed} missed of {small.missable} missable regions, and "
            f"{len(small.ambiguous_rows)} rows of missable members only (small tier)"))
    else:
        p = default.miss_small_p
        out["miss_small_p"] = Estimate(p, False, "no missable region: default")
    offsets = small.offsets + large.offsets
    if offsets:
        j = min(0.5, 2 * statistics.median(offsets))
        out["jitter"] = Estimate(round(j, 3), True, f"2 x median of {len(offsets)} edge offsets"
                                 + (" (capped at 0.5)" if j == 0.5 else ""))
    else:
        out["jitter"] = Estimate(default.jitter, False, "no matched region: default")
    labelled, noisy = small.labelled + large.labelled, small.noisy + large.noisy
    if labelled:
        out["label_noise_p"] = Estimate(round(noisy / labelled, 3), True,
                                        f"{noisy} differ of {labelled} labels (both tiers)")
    else:
        out["label_noise_p"] = Estimate(default.label_noise_p, False, "no matched text: default")
    stateful, seen = small.stateful + large.stateful, small.state_seen + large.state_seen
    if stateful:
        out["state_seen_p"] = Estimate(round(seen / stateful, 3), True,
                                       f"{seen} named of {stateful} states (both tiers)")
    else:
        out["state_seen_p"] = Estimate(default.state_seen_p, False, "no matched state: default")
    large_data = large.rows_identifiable + large.missable + len(large.ambiguous_rows)
    if large_data and (p > 0 or g > 0):
        s = _argmax(lambda s: miss_loglik(s * p, s * g, large) + merge_loglik(s * g, large))
        out["large_tier_error_scale"] = Estimate(s, True, (
            f"large tier: {large.rows_merged} merged of {large.rows_identifiable} rows, "
            f"{large.missed} missed of {large.missable} missable regions, "
            f"{len(large.ambiguous_rows)} ambiguous rows"))
    else:
        out["large_tier_error_scale"] = Estimate(
            default.large_tier_error_scale, False,
            "no large-tier data or no small-tier error to scale: default")
    return out


def backend_caps(perception: Any) -> dict[str, int]:
    """The candidate caps per tier of a backend's configuration (the synthetic default else)."""
    caps = {}
    for tier in TIERS:
        part = getattr(perception, tier, None)
        cap = getattr(part, "cap", None)
        if isinstance(cap, int):
            caps[tier] = cap
    if isinstance(getattr(perception, "cap", None), dict):
        caps = dict(perception.cap)
    return caps if set(caps) == set(TIERS) else dict(SyntheticConfig().cap)


def profile_config(name: str, estimates: dict[str, Estimate], caps: dict[str, int],
                   latency_ms: dict[str, float]) -> SyntheticConfig:
    return SyntheticConfig(profile=name, cap=caps, latency_ms=latency_ms, capture=True,
                           occlusion=True, **{k: e.value for k, e in estimates.items()})
