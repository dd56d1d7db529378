"""Interval statistics and per-group summaries over episode traces, shared by `reports/` and the
CI gate (`harness/check.py`): Wilson intervals, seeded bootstrap, two-proportion comparisons."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from harness.traces import read_metadata

# Tags that select a suite rather than describe a fixture case; left out of per-tag breakdowns.
# Tags that say which suite a task belongs to, not what makes it hard.
SUITE_TAGS = frozenset({"smoke", "ci", "miniwob", "planned", "unplanned"})
EPISODES_FILE = "episodes.parquet"
STEPS_FILE = "steps.parquet"


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a success rate; (0, 1) when there are no episodes."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    z = _z(confidence)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # Clamp: at k = 0 or k = n the bound equals the rate exactly, but rounding may cross it.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def _resampled_means(values: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    idx = rng.integers(0, len(values), size=(resamples, len(values)))
    return values[idx].mean(axis=1)


def bootstrap_mean_interval(values: Iterable[float], confidence: float = 0.95,
                            resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval for a mean, seeded so a report is reproducible.

    One value (or all equal) gives a zero-width interval; no values give (nan, nan)."""
    arr = np.asarray(list(values), dtype=float)
    if arr.size == 0:
        return math.nan, math.nan
    if arr.size == 1 or np.all(arr == arr[0]):
        return float(arr[0]), float(arr[0])
    means = _resampled_means(arr, resamples, np.random.default_rng(seed))
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


def bootstrap_difference_interval(baseline: Iterable[float], other: Iterable[float],
                                  confidence: float = 0.95, resamples: int = 2000,
                                  seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval for mean(other) - mean(baseline), each resampled alone."""
    a = np.asarray(list(baseline), dtype=float)
    b = np.asarray(list(other), dtype=float)
    if a.size == 0 or b.size == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    diffs = _resampled_means(b, resamples, rng) - _resampled_means(a, resamples, rng)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(diffs, [alpha, 1 - alpha])
    return float(low), float(high)


@dataclass(frozen=True)
class ProportionChange:
    """A success rate now against a baseline's.

    `delta_low..delta_high` is Newcombe's hybrid score interval for the difference (built from the
    two Wilson intervals; sound at small n and at 0 % / 100 %). `dropped` is the gate's rule: the
    rate now lies below the lower bound of the baseline's Wilson interval, so one failed episode
    of a task that always succeeded fails the gate, while a dip that the baseline's own sampling
    noise explains does not. `improved` is the mirror image (above the upper bound)."""

    baseline_successes: int
    baseline_n: int
    successes: int
    n: int
    baseline_rate: float
    rate: float
    delta: float
    delta_low: float
    delta_high: float
    baseline_low: float
    baseline_high: float
    dropped: bool
    improved: bool

    @property
    def significant(self) -> bool:
        """The difference interval excludes zero."""
        return self.delta_low > 0 or self.delta_high < 0


def compare_proportions(baseline_successes: int, baseline_n: int, successes: int, n: int,
                        confidence: float = 0.95) -> ProportionChange:
    """Compare successes/n with a baseline's; see ProportionChange for what each field means."""
    if baseline_n <= 0 or n <= 0:
        raise ValueError("both groups need at least one episode")
    p0, p1 = baseline_successes / baseline_n, successes / n
    l0, u0 = wilson_interval(baseline_successes, baseline_n, confidence)
    l1, u1 = wilson_interval(successes, n, confidence)
    delta = p1 - p0
    low = delta - math.sqrt((p1 - l1) ** 2 + (u0 - p0) ** 2)
    high = delta + math.sqrt((u1 - p1) ** 2 + (p0 - l0) ** 2)
    # A small epsilon so that a rate equal to the bound (e.g. k = n on both sides) never "drops".
    eps = 1e-12
    return ProportionChange(
        baseline_successes=baseline_successes, baseline_n=baseline_n, successes=successes, n=n,
        baseline_rate=p0, rate=p1, delta=delta, delta_low=max(-1.0, low), delta_high=min(1.0, high),
        baseline_low=l0, baseline_high=u0, dropped=p1 < l0 - eps, improved=p1 > u0 + eps,
    )


# ---- loading traces ------------------------------------------------------------------------

class RunFolderError(ValueError):
    """A path given as a run or sweep folder holds no readable traces."""


def find_run_dirs(paths: Sequence[Path]) -> list[Path]:
    """Run folders (those holding episodes.parquet) at or below each path, in a stable order."""
    found: list[Path] = []
    for path in paths:
        if not path.is_dir():
            raise RunFolderError(f"{path} is not a folder")
        if (path / EPISODES_FILE).is_file():
            runs = [path]
        else:
            runs = sorted((p.parent for p in path.rglob(EPISODES_FILE) if ".parts" not in p.parts),
                          key=_natural_key)
        if not runs:
            raise RunFolderError(f"{path} holds no {EPISODES_FILE} (not a run or sweep folder)")
        found.extend(r for r in runs if r not in found)
    return found


def _natural_key(path: Path) -> list[object]:
    # Sweep folders are numbered 0, 1, ..., 10: sort 10 after 9, not after 1.
    return [int(part) if part.isdigit() else part for part in path.parts]


def load_episodes(run_dirs: Sequence[Path]) -> pd.DataFrame:
    """Episodes of every run folder, one row each, with a `run_dir` column (the folder, as str).

    Raises RunFolderError for an unreadable trace or one from a newer schema version."""
    frames = []
    for run in run_dirs:
        path = run / EPISODES_FILE
        try:
            read_metadata(path)
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise RunFolderError(f"cannot read {path}: {exc}") from None
        frames.append(frame.assign(run_dir=str(run)))
    episodes = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if not episodes.empty:
        episodes = episodes.drop_duplicates("episode_id").reset_index(drop=True)
        episodes["tags"] = episodes["tags"].map(lambda t: [] if t is None else list(t))
        episodes["success"] = episodes["success"].astype(bool)
    return episodes


def load_steps(run_dirs: Sequence[Path]) -> pd.DataFrame:
    """Steps of every run folder that has a steps.parquet (oracle runs may have none)."""
    frames = [pd.read_parquet(run / STEPS_FILE) for run in run_dirs if (run / STEPS_FILE).is_file()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def explode_tags(episodes: pd.DataFrame) -> pd.DataFrame:
    """One row per (episode, fixture tag), suite tags (smoke, ci) left out, in column `tag`."""
    rows = episodes.assign(tag=episodes["tags"].map(
        lambda tags: [t for t in tags if t not in SUITE_TAGS])).explode("tag")
    return rows.dropna(subset=["tag"])


def summarise(episodes: pd.DataFrame, by: str | list[str], confidence: float = 0.95,
              seed: int = 0) -> pd.DataFrame:
    """Per group: episodes, successes, success rate with Wilson interval, mean vision calls and
    wall time per episode with bootstrap intervals, mean steps."""
    keys = [by] if isinstance(by, str) else list(by)
    rows = []
    for key, group in episodes.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        n, k = len(group), int(group["success"].sum())
        low, high = wilson_interval(k, n, confidence)
        calls_low, calls_high = bootstrap_mean_interval(group["vision_calls"], confidence, seed=seed)
        wall_low, wall_high = bootstrap_mean_interval(group["wall_s"], confidence, seed=seed)
        rows.append({
            **dict(zip(keys, key, strict=True)),
            "episodes": n, "successes": k, "success_rate": k / n,
            "success_low": low, "success_high": high,
            "vision_calls": float(group["vision_calls"].mean()),
            "vision_calls_low": calls_low, "vision_calls_high": calls_high,
            "wall_s": float(group["wall_s"].mean()), "wall_s_low": wall_low, "wall_s_high": wall_high,
            "steps": float(group["steps"].mean()),
        })
    return pd.DataFrame(rows)
