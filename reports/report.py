"""Report from parquet traces: `groundbench-report DIR... [--out FOLDER]` reads run or sweep folders
and writes plots (Pareto, ablation, per-task, stage timing), report.md/.html and CSV tables."""

from __future__ import annotations

import argparse
import html
import math
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox, Transform
from PIL import Image

from harness.console import exit_without_teardown
from harness.metrics import (
    EPISODES_FILE,
    RunFolderError,
    bootstrap_difference_interval,
    bootstrap_mean_interval,
    compare_proportions,
    explode_tags,
    find_run_dirs,
    load_episodes,
    load_steps,
    summarise,
)
from harness.traces import TraceFormatError, read_metadata
from reports.frontier import indistinct, pareto_frontier
from reports.markdown import md_table, pct
from reports.miniwob_table import miniwob_table
from tasks.wrong_step import first_wrong

EXIT_BAD_INPUT = 2
STAGES = ("observe", "perceive", "vision_wait", "enrich", "rank", "choose", "resolve", "act",
          "validate", "worker")
FONT = 11
THUMB_WIDTH = 960


@dataclass(frozen=True)
class Options:
    baseline: str | None = None
    max_failures: int = 40
    confidence: float = 0.95
    seed: int = 0


# ---- names and formatting ------------------------------------------------------------------

def short_labels(names: Sequence[str]) -> dict[str, str]:
    """Display labels: the `/perception/worker` tail shared by every config is dropped, so
    `full[gating=false]/synthetic/scripted` reads `full[gating=false]` when all are synthetic."""
    slashed = [n for n in names if "/" in n]
    tails = {n.split("/", 1)[1] for n in slashed}
    if len(tails) != 1 or len(slashed) != len(names):
        return {n: n for n in names}
    labels = {n: n.split("/", 1)[0] for n in names}
    return labels if len(set(labels.values())) == len(labels) else {n: n for n in names}


def common_tail(names: Sequence[str]) -> str:
    labels = short_labels(names)
    return "" if all(labels[n] == n for n in names) else names[0].split("/", 1)[1]


def default_baseline(names: Sequence[str]) -> str | None:
    """The unablated full agent: `full/...` with no [switch=value] overrides, else one whose
    overrides only switch mechanisms on (`full[snapping=true]` from a sweep over true,false)."""
    def all_on(agent: str) -> bool:
        switches = re.fullmatch(r"full\[(.*)\]", agent)
        return switches is not None and all(
            part.split("=", 1)[-1].lower() == "true" for part in switches.group(1).split(","))

    agents = {n: n.split("/", 1)[0] for n in names}
    plain = sorted(n for n, a in agents.items() if a == "full")
    return (plain or sorted(n for n, a in agents.items() if all_on(a)) or [None])[0]


def playwright_command() -> str:
    """The `playwright` of this environment (a venv's is not on PATH unless it is activated)."""
    here = Path(sys.executable).with_name("playwright")
    return str(here) if here.is_file() else "playwright"


def default_out(dirs: Sequence[Path]) -> Path:
    """A folder of the input's own: `<DIR>/report` for one run or sweep folder; for several,
    `report-<names>` in the folder that holds them all (two reports never share a folder)."""
    if len(dirs) == 1:
        return dirs[0] / "report"
    paths = [d.resolve() for d in dirs]
    common = Path(os.path.commonpath(paths))
    names = "+".join(p.relative_to(common).as_posix().replace("/", "-") for p in paths)
    return common / f"report-{names[:120]}"


def interval(mid: float, low: float, high: float, fmt: str = "{:.2f}", scale: float = 1.0,
             signed: bool = False) -> str:
    if mid is None or math.isnan(mid):
        return "–"
    spec = fmt.replace("{:", "{:+") if signed else fmt
    text = spec.format(mid * scale)
    if low is None or math.isnan(low) or (low == high == mid):
        return text
    return f"{text} [{fmt.format(low * scale)}, {fmt.format(high * scale)}]"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"


# ---- tables ---------------------------------------------------------------------------------

PAIR_KEYS = ["task_id", "seed"]


def _pairs(base: pd.DataFrame, now: pd.DataFrame) -> pd.MultiIndex | None:
    """The (task, seed) keys when both sides ran exactly the same episodes once each, else None."""
    b, n = base.set_index(PAIR_KEYS).index, now.set_index(PAIR_KEYS).index
    if b.has_duplicates or n.has_duplicates or not b.sort_values().equals(n.sort_values()):
        return None
    return b


def _difference_interval(base: pd.DataFrame, now: pd.DataFrame, column: str,
                         pairs: pd.MultiIndex | None, opts: Options) -> tuple[float, float]:
    """Bootstrap interval for mean(now) - mean(base). Episodes matched by task and seed are
    resampled as pairs, which removes the (large) spread between tasks from the interval."""
    if pairs is None:
        return bootstrap_difference_interval(base[column], now[column], opts.confidence,
                                             seed=opts.seed)
    diffs = now.set_index(PAIR_KEYS)[column].loc[pairs] - base.set_index(PAIR_KEYS)[column].loc[pairs]
    return bootstrap_mean_interval(diffs, opts.confidence, seed=opts.seed)


def ablation_table(episodes: pd.DataFrame, baseline: str, opts: Options) -> pd.DataFrame:
    """Each other config against the baseline, overall and per fixture tag both share."""
    tagged = explode_tags(episodes)
    scopes: list[tuple[str, pd.DataFrame]] = [("overall", episodes)]
    scopes += [(tag, tagged[tagged["tag"] == tag]) for tag in sorted(tagged["tag"].unique())]
    rows = []
    for config in config_order(episodes, baseline)[1:]:
        for scope, frame in scopes:
            base = frame[frame["config_name"] == baseline]
            now = frame[frame["config_name"] == config]
            if base.empty or now.empty:
                continue
            change = compare_proportions(int(base["success"].sum()), len(base),
                                         int(now["success"].sum()), len(now), opts.confidence)
            paired = _pairs(base, now)
            calls = _difference_interval(base, now, "vision_calls", paired, opts)
            wall = _difference_interval(base, now, "wall_s", paired, opts)
            rows.append({
                "config_name": config, "scope": scope,
                "baseline_episodes": len(base), "episodes": len(now),
                "baseline_success": change.baseline_rate, "success": change.rate,
                "delta_success": change.delta, "delta_success_low": change.delta_low,
                "delta_success_high": change.delta_high, "significant": change.significant,
                "baseline_vision_calls": base["vision_calls"].mean(),
                "vision_calls": now["vision_calls"].mean(),
                "delta_vision_calls": now["vision_calls"].mean() - base["vision_calls"].mean(),
                "delta_vision_calls_low": calls[0], "delta_vision_calls_high": calls[1],
                "baseline_wall_s": base["wall_s"].mean(), "wall_s": now["wall_s"].mean(),
                "delta_wall_s": now["wall_s"].mean() - base["wall_s"].mean(),
                "delta_wall_s_low": wall[0], "delta_wall_s_high": wall[1],
                "paired": paired is not None,
            })
    return pd.DataFrame(rows)


def config_order(episodes: pd.DataFrame, baseline: str | None) -> list[str]:
    names = sorted(episodes["config_name"].unique())
    return ([baseline] + [n for n in names if n != baseline]) if baseline in names else names


def stage_means(steps: pd.DataFrame) -> pd.DataFrame:
    """Mean ms per step for each stage and config. worker_ms is part of choose_ms as recorded,
    so choose is shown without it and the two stack without double counting."""
    if steps.empty:
        return pd.DataFrame(columns=["config_name", *STAGES])
    frame = pd.DataFrame({"config_name": steps["config_name"]})
    for stage in STAGES:
        frame[stage] = steps[f"{stage}_ms"].astype(float)
    frame["choose"] = (frame["choose"] - frame["worker"]).clip(lower=0)
    return frame.groupby("config_name", sort=False)[list(STAGES)].mean()


# Configs whose 1-minute load averages at the start of their runs differ by both this factor and
# this many runnable processes ran under different loads.
LOAD_FACTOR, LOAD_GAP = 1.5, 1.0


def _clock(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M")


def timing_caveat(episodes: pd.DataFrame, loads: dict[str, float | None], order: Sequence[str],
                  labels: dict[str, str], detail: bool = True) -> str:
    """Why the configs' timings may not compare: their episodes ran in windows that do not
    overlap, or their runs started under different load averages (`loads`, per config; None:
    not recorded). "" when neither holds; `detail`: with each config's window and load."""
    spans = {c: (g["started_at"].min(), (g["started_at"] + g["wall_s"]).max())
             for c, g in episodes.groupby("config_name") if c in order}
    reasons = []
    names = [c for c in order if c in spans]
    apart = any(spans[a][1] < spans[b][0] or spans[b][1] < spans[a][0]
                for i, a in enumerate(names) for b in names[i + 1:])
    if apart:
        reasons.append("at different times" + (" (" + "; ".join(
            f"{labels[c]}: {_clock(spans[c][0])}–{_clock(spans[c][1])[11:]} UTC" for c in names)
            + ")" if detail else ""))
    known = {c: loads[c] for c in names if loads.get(c) is not None}
    if len(known) > 1:
        low, high = min(known.values()), max(known.values())  # type: ignore[type-var]
        if high - low >= LOAD_GAP and high >= LOAD_FACTOR * low:  # type: ignore[operator]
            reasons.append("under different loads" + (
                " (1-minute load average as each started: " + "; ".join(
                    f"{labels[c]} {v:.1f}" for c, v in known.items()) + ")" if detail else ""))
    if not reasons:
        return ""
    return (f"These configs ran {' and '.join(reasons)}: times depend on machine load, so compare "
            "them only between configs run side by side.")


def run_loads(run_dirs: Sequence[Path], episodes: pd.DataFrame) -> dict[str, float | None]:
    """Per config, the mean 1-minute load average recorded as its runs started (None: none of
    its runs recorded one)."""
    found: dict[str, list[float]] = {}
    for run in run_dirs:
        try:
            load = read_metadata(run / EPISODES_FILE).get("load_average")
        except (OSError, TraceFormatError):
            load = None
        for config in episodes.loc[episodes["run_dir"] == str(run), "config_name"].unique():
            found.setdefault(config, [])
            if load:
                found[config].append(float(load[0]))
    return {c: (sum(v) / len(v) if v else None) for c, v in found.items()}


# ---- plots ----------------------------------------------------------------------------------

def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _colours(configs: Sequence[str]) -> dict[str, tuple[float, ...]]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if len(configs) <= 10 else "tab20"]
    return {c: cmap(i % cmap.N) for i, c in enumerate(configs)}


def _label(ax: Axes, text: str, anchor: tuple[float, float, Transform], colour: object,
           dx: float, dy: float) -> Annotation:
    x, y, transform = anchor
    leader = {"arrowstyle": "-", "color": colour, "lw": 0.6, "alpha": 0.6}
    return ax.annotate(text, (x, y), xycoords=transform, xytext=(dx, dy),
                       textcoords="offset points", ha="left" if dx >= 0 else "right",
                       fontsize=FONT - 1, color=colour,
                       arrowprops=leader if abs(dx) + abs(dy) > 30 else None)


def _place_labels(fig: Figure, ax: Axes, anchors: Sequence[tuple[float, float, Transform]],
                  texts: Sequence[str], colours: Sequence[object], bars: Sequence[Bbox]) -> None:
    """Label each point at the first nearby offset whose box overlaps no other label or point
    (and, if one is free, no error bar); labels far from their point get a leader line."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    fig.canvas.draw()
    points = [t.transform((x, y)) for x, y, t in anchors]
    point_boxes = [Bbox.from_extents(px - 7, py - 7, px + 7, py + 7) for px, py in points]
    axes_box = ax.get_window_extent(renderer)
    taken: list[Bbox] = []
    offsets = [(dx * r, dy * r) for r in (1, 2, 3, 4, 6)
               for dx, dy in ((8, 5), (8, -13), (-8, 5), (-8, -13), (0, 12), (0, -20))]
    for i, (text, colour) in enumerate(zip(texts, colours, strict=True)):
        options = []
        for dx, dy in offsets:
            ann = _label(ax, text, anchors[i], colour, dx, dy)
            # The text alone: an Annotation's own extent also covers its leader line.
            ann.update_positions(renderer)
            box = Text.get_window_extent(ann, renderer).expanded(1.04, 1.1)
            ann.remove()
            inside = axes_box.contains(box.x0, box.y0) and axes_box.contains(box.x1, box.y1)
            if not inside or any(box.overlaps(b) for b in [*taken, *point_boxes]):
                continue
            options.append((any(box.overlaps(b) for b in bars), len(options), (dx, dy), box))
            if not options[-1][0]:
                break
        _, _, (dx, dy), box = min(options, key=lambda o: (o[0], o[1])) if options else (
            False, 0, (8, 5), None)
        ann = _label(ax, text, anchors[i], colour, dx, dy)
        ann.update_positions(renderer)
        taken.append(box if box is not None else Text.get_window_extent(ann, renderer))


def plot_pareto(summary: pd.DataFrame, labels: dict[str, str], colours: dict, path: Path,
                confidence: float) -> None:
    fig, ax = _figure(8.5, 6)
    xs = summary["vision_calls"].to_numpy(float)
    ys = summary["success_rate"].to_numpy(float)
    # Configs with the same values are one point, labelled with all their names ("a = b"), not
    # drawn side by side where the eye would read a difference.
    spots = list(zip(np.round(xs, 6), np.round(ys, 6), strict=True))
    first = [spots.index(spot) == i for i, spot in enumerate(spots)]
    names = [labels[c] for c in summary["config_name"]]
    joined = [" = ".join(n for n, s in zip(names, spots, strict=True) if s == spot) for spot in spots]
    transforms = [ax.transData for _ in spots]
    for row, transform in zip(summary.itertuples(), transforms, strict=True):
        xerr = [[row.vision_calls - row.vision_calls_low], [row.vision_calls_high - row.vision_calls]]
        yerr = [[row.success_rate - row.success_low], [row.success_high - row.success_rate]]
        ax.errorbar(row.vision_calls, row.success_rate, xerr=xerr, yerr=yerr, fmt="o", ms=8,
                    capsize=4, color=colours[row.config_name], zorder=3, transform=transform,
                    mfc=colours[row.config_name] if row.pareto else "white", mew=2)
    xmax = max(1.0, float(np.nanmax(summary["vision_calls_high"].to_numpy(float))) * 1.15)
    front = summary[summary["pareto"]].sort_values("vision_calls")
    fx = [*front["vision_calls"], xmax]
    fy = [*front["success_rate"], front["success_rate"].iloc[-1]]
    ax.step(fx, fy, where="post", color="black", lw=1.3, ls="--", alpha=0.7, zorder=2,
            label="Pareto frontier (fewer calls, higher success)")
    ax.set_xlim(-0.03 * xmax, xmax)
    # Zoom to the points' intervals (in steps of 10 %) so close configs stay apart.
    floor = math.floor(10 * float(np.nanmin(summary["success_low"].to_numpy(float)))) / 10
    ax.set_ylim(max(0.0, floor - 0.1) - 0.03, 1.06)
    ax.set_xlabel("vision calls per episode (mean, bootstrap CI)", fontsize=FONT + 1)
    ax.set_ylabel(f"success rate (Wilson {confidence:.0%} CI)", fontsize=FONT + 1)
    ax.set_title("Vision budget against success", fontsize=FONT + 3)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.tick_params(labelsize=FONT)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=FONT - 1)
    fig.canvas.draw()
    bars = []
    for row, transform in zip(summary.itertuples(), transforms, strict=True):
        (x0, y0), (x1, y1) = transform.transform([(row.vision_calls_low, row.success_low),
                                                  (row.vision_calls_high, row.success_high)])
        (px, py) = transform.transform((row.vision_calls, row.success_rate))
        bars += [Bbox.from_extents(px - 5, y0, px + 5, y1), Bbox.from_extents(x0, py - 5, x1, py + 5)]
    keep = [i for i, f in enumerate(first) if f]
    _place_labels(fig, ax, [(xs[i], ys[i], transforms[i]) for i in keep], [joined[i] for i in keep],
                  [colours[summary["config_name"].iloc[i]] for i in keep], bars)
    fig.savefig(path)


def plot_ablation(overall: pd.DataFrame, labels: dict[str, str], baseline_label: str,
                  path: Path, confidence: float) -> None:
    n = len(overall)
    fig = Figure(figsize=(11, 1.6 + 0.55 * n), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2, sharey=True)
    ypos = np.arange(n)[::-1]
    names = [labels[c] for c in overall["config_name"]]
    panels = (("delta_success", 100, "Δ success rate (percentage points)"),
              ("delta_vision_calls", 1, "Δ vision calls per episode"))
    for ax, (col, scale, title) in zip(axes, panels, strict=True):
        mid = overall[col].to_numpy(float) * scale
        low = overall[f"{col}_low"].to_numpy(float) * scale
        high = overall[f"{col}_high"].to_numpy(float) * scale
        good = (high < 0) if col == "delta_vision_calls" else (low > 0)
        bad = (low > 0) if col == "delta_vision_calls" else (high < 0)
        colours = ["tab:green" if g else "tab:red" if b else "tab:gray"
                   for g, b in zip(good, bad, strict=True)]
        err = np.nan_to_num(np.vstack([mid - low, high - mid]), nan=0.0).clip(min=0)
        ax.barh(ypos, mid, xerr=err, color=colours, alpha=0.85, capsize=4, height=0.6)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_title(title, fontsize=FONT + 1)
        ax.tick_params(labelsize=FONT)
        ax.grid(axis="x", alpha=0.3)
        span = np.nanmax(np.abs(np.concatenate([low, high, mid, [1.0]])))
        ax.set_xlim(-span * 1.15, span * 1.15)
    axes[0].set_yticks(ypos, names, fontsize=FONT)
    axes[0].set_ylim(-0.7, n - 0.3)
    fig.suptitle(f"Change against {baseline_label} ({confidence:.0%} intervals; green better, "
                 f"red worse, grey not significant)", fontsize=FONT + 1)
    fig.savefig(path)


def plot_tasks(rates: pd.DataFrame, counts: pd.DataFrame, labels: dict[str, str],
               path: Path) -> None:
    n_rows, n_cols = rates.shape
    fig, ax = _figure(max(6.0, 2.8 + 1.25 * n_cols), max(3.0, 1.6 + 0.32 * n_rows))
    from matplotlib import colormaps

    cmap = colormaps["RdYlGn"].with_extremes(bad="#dddddd")
    values = np.ma.masked_invalid(rates.to_numpy(float))
    image = ax.imshow(values, cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for i in range(n_rows):
        for j in range(n_cols):
            rate = rates.iat[i, j]
            text = "–" if math.isnan(rate) else counts.iat[i, j]
            dark = not math.isnan(rate) and (rate < 0.2 or rate > 0.85)
            ax.text(j, i, text, ha="center", va="center", fontsize=FONT - 2,
                    color="white" if dark else "black")
    ax.set_xticks(range(n_cols), [labels[c] for c in rates.columns], rotation=30, ha="right",
                  fontsize=FONT)
    ax.set_yticks(range(n_rows), rates.index, fontsize=FONT - 1)
    ax.set_title("Success by task (successes/episodes)", fontsize=FONT + 2)
    fig.colorbar(image, ax=ax, shrink=0.6, label="success rate")
    fig.savefig(path)


def plot_stages(means: pd.DataFrame, labels: dict[str, str], path: Path, caveat: str = "") -> None:
    """`caveat`: why the configs' times may not compare (timing_caveat), printed in the figure."""
    from matplotlib import colormaps

    n = len(means)
    fig, ax = _figure(10, 2.2 + 0.55 * n + (0.35 if caveat else 0))
    ypos = np.arange(n)[::-1]
    left = np.zeros(n)
    cmap = colormaps["tab10"]
    for k, stage in enumerate(STAGES):
        width = means[stage].to_numpy(float)
        ax.barh(ypos, width, left=left, color=cmap(k), label=stage, height=0.6)
        left += width
    for y, total in zip(ypos, left, strict=True):
        ax.text(total, y, f" {total:,.0f} ms", va="center", fontsize=FONT - 1)
    ax.set_yticks(ypos, [labels[c] for c in means.index], fontsize=FONT)
    ax.set_xlim(0, max(1.0, left.max()) * 1.15)
    ax.set_xlabel("mean ms per step", fontsize=FONT)
    ax.set_title("Where a step's time goes", fontsize=FONT + 2)
    if caveat:
        fig.suptitle("\n".join(textwrap.wrap(f"Warning: {caveat.rstrip('.')} (the report says when and how).",
                                             110)), fontsize=FONT - 1, color="#b35900")
    ax.tick_params(labelsize=FONT)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=5,
               fontsize=FONT - 1, frameon=False)
    fig.savefig(path)


# ---- failure gallery ------------------------------------------------------------------------

def failure_selection(episodes: pd.DataFrame, order: Sequence[str], cap: int) -> pd.DataFrame:
    """Failed episodes, at most `cap`, taken round-robin over configs so each one is shown."""
    failed = episodes[~episodes["success"]].sort_values(["task_id", "seed"])
    queues = [failed[failed["config_name"] == c] for c in order]
    picked: list[pd.Series] = []
    depth = 0
    while len(picked) < cap and any(depth < len(q) for q in queues):
        picked += [q.iloc[depth] for q in queues if depth < len(q)][: cap - len(picked)]
        depth += 1
    if not picked:
        return failed.iloc[0:0]
    chosen = pd.DataFrame(picked)
    rank = {c: i for i, c in enumerate(order)}
    return chosen.sort_values(["config_name", "task_id", "seed"],
                              key=lambda s: s.map(rank) if s.name == "config_name" else s)


def screenshots(run_dir: Path, episode_id: str) -> dict[int, Path]:
    """The episode's Set-of-Mark images by step number."""
    return {int(p.stem.split("-")[1]): p
            for p in sorted((run_dir / "screenshots" / episode_id).glob("step-*.png"))}


def shown_step(steps: pd.DataFrame) -> tuple[dict, str]:
    """The step of a failed episode the gallery shows: the first that went wrong (its action
    failed, had no effect, or chose a target the plan does not describe: tasks/wrong_step.py),
    with why; else the last step, with ""."""
    rows = steps.sort_values("step").to_dict("records")
    found = first_wrong(rows)
    if found is not None:
        return dict(found[0]), found[1]
    return rows[-1], ""


def describe_step(s: dict) -> str:
    """The step's subgoal, what it chose and where (the nearest piece of the target's context
    that is not its own name: "in “Graphics memory”"), and its error."""
    what = f"{s['subgoal_action']} “{s['subgoal_target']}”"
    places = [p for p in str(s.get("target_context") or "").split(" | ")
              if p and p != s["target_name"]]
    where = f" in “{places[0]}”" if places else ""
    role = f"{s['target_role']} " if s["target_role"] else ""
    chose = f"; chose {role}“{s['target_name']}”{where}" if s["target_name"] else ""
    err = f"; error {s['error_type']}: {s['error']}" if s["error_type"] else ""
    return f"{what}{chose}{err}"


def thumbnail(source: Path, target: Path) -> bool:
    try:
        with Image.open(source) as image:
            image.thumbnail((THUMB_WIDTH, THUMB_WIDTH))
            target.parent.mkdir(parents=True, exist_ok=True)
            image.save(target)
        return True
    except OSError:
        return False


def gallery(episodes: pd.DataFrame, steps: pd.DataFrame, order: Sequence[str],
            labels: dict[str, str], out: Path, cap: int) -> tuple[list[str], pd.DataFrame]:
    failed = episodes[~episodes["success"]]
    table = failed[["config_name", "task_id", "seed", "failure", "failure_detail", "episode_id",
                    "run_dir"]].sort_values(["config_name", "task_id", "seed"])
    if failed.empty:
        return ["No failed episodes."], table
    chosen = failure_selection(episodes, order, cap)
    for stale in (out / "failures").glob("*.png"):  # from an earlier report into the same folder
        stale.unlink()
    lines = []
    if len(failed) > len(chosen):
        lines += [(f"Showing {len(chosen)} of {len(failed)} failed episodes "
                  f"({len(failed) - len(chosen)} left out; all are listed in `failures.csv`)."), ""]
    by_episode = dict(tuple(steps.groupby("episode_id"))) if not steps.empty else {}
    for ep in chosen.itertuples():
        run_dir = Path(ep.run_dir)
        lines.append(f"### {ep.task_id} · seed {ep.seed} · {labels[ep.config_name]}")
        lines.append(f"- config: `{ep.config_name}`; episode `{ep.episode_id}`; "
                     f"{ep.steps} steps, {ep.vision_calls} vision calls")
        lines.append(f"- failure: **{ep.failure or 'unclassified'}**"
                     + (f" — {ep.failure_detail}" if ep.failure_detail else ""))
        shots = screenshots(run_dir, ep.episode_id)
        shown: int | None = None
        if ep.episode_id in by_episode:
            episode_steps = by_episode[ep.episode_id]
            step, why = shown_step(episode_steps)
            shown = int(step["step"])
            last = int(episode_steps["step"].max())
            if why:
                said = describe_step(step)
                lines.append(f"- first wrong step {shown}: {said}"
                             + ("" if why in said else f" — {why}"))
            if not why or shown != last:
                final = episode_steps.sort_values("step").iloc[-1].to_dict()
                lines.append(f"- last step {last}: {describe_step(final)}")
        if shots and shown not in shots:
            # That step has no image (no mark was chosen on it: a wait, a scroll, a step a
            # mechanism took over): the first wrong step that has one, else the last image.
            imaged = [r for r in by_episode[ep.episode_id].sort_values("step").to_dict("records")
                      if r["step"] in shots] if shown is not None else []
            found = first_wrong(imaged)
            shown = int(found[0]["step"]) if found is not None else max(shots)
        rel = Path("failures") / f"{slug(ep.episode_id)}.png"
        if shown is not None and shown in shots and thumbnail(shots[shown], out / rel):
            lines.append(f"- Set-of-Mark image of step {shown} (the chosen mark in a yellow "
                         f"halo): `{shots[shown].resolve()}`")
            lines.append(f"\n![{ep.task_id} seed {ep.seed}]({rel.as_posix()})\n")
        else:
            lines.append("- no Set-of-Mark image recorded for this episode")
        trace = run_dir / "playwright" / f"{ep.episode_id}.zip"
        if trace.is_file():
            lines.append(f"- Playwright trace: `{playwright_command()} show-trace {trace.resolve()}`")
        else:
            lines.append("- no Playwright trace recorded for this episode")
        lines.append("")
    return lines, table


# ---- the report -----------------------------------------------------------------------------

def _summary_columns(summary: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({
        "config": [labels[c] for c in summary["config_name"]],
        "episodes": summary["episodes"],
        "success": [f"{k}/{n}" for k, n in zip(summary["successes"], summary["episodes"], strict=True)],
        "success rate [CI]": [interval(r.success_rate, r.success_low, r.success_high, "{:.0f}%", 100)
                              for r in summary.itertuples()],
        "vision calls/episode [CI]": [interval(r.vision_calls, r.vision_calls_low,
                                               r.vision_calls_high, "{:.2f}")
                                      for r in summary.itertuples()],
        "wall s/episode [CI]": [interval(r.wall_s, r.wall_s_low, r.wall_s_high, "{:.1f}")
                                for r in summary.itertuples()],
        "steps/episode": summary["steps"].round(1),
        "Pareto": ["yes" if p else "" for p in summary["pareto"]],
        "overlaps (both intervals)": summary["indistinct_from"].map(
            lambda names: ", ".join(labels.get(n, n) for n in names.split(", ")) if names else ""),
    })


def _ablation_columns(frame: pd.DataFrame, first: str, first_values: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame({
        first: first_values,
        "episodes (base/now)": [f"{b}/{n}" for b, n in zip(frame["baseline_episodes"],
                                                           frame["episodes"], strict=True)],
        "success base → now": [f"{pct(b)} → {pct(n)}" for b, n in zip(frame["baseline_success"],
                                                                     frame["success"], strict=True)],
        "Δ success pp [CI]": [interval(r.delta_success, r.delta_success_low, r.delta_success_high,
                                       "{:.0f}", 100, signed=True) + (" *" if r.significant else "")
                              for r in frame.itertuples()],
        "Δ vision calls/ep [CI]": [interval(r.delta_vision_calls, r.delta_vision_calls_low,
                                            r.delta_vision_calls_high, "{:.2f}", signed=True)
                                   for r in frame.itertuples()],
        "Δ wall s/ep [CI]": [interval(r.delta_wall_s, r.delta_wall_s_low, r.delta_wall_s_high,
                                      "{:.1f}", signed=True) for r in frame.itertuples()],
    })


def _runs_table(run_dirs: Sequence[Path], episodes: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for run in run_dirs:
        eps = episodes[episodes["run_dir"] == str(run)]
        try:
            commit = read_metadata(run / EPISODES_FILE).get("git_commit", "")
        except (OSError, TraceFormatError):
            commit = ""
        rows.append({"run folder": str(run), "config": ", ".join(sorted(eps["config_name"].unique())),
                     "episodes": len(eps),
                     "seeds": ", ".join(str(s) for s in sorted(eps["seed"].unique())),
                     "git commit": commit[:12] + ("-dirty" if commit.endswith("-dirty") else "")})
    return pd.DataFrame(rows)


def build_report(dirs: Sequence[Path], out: Path, opts: Options = Options()) -> Path:
    """Write the report for the run or sweep folders `dirs` into `out`; returns report.md."""
    run_dirs = find_run_dirs(dirs)
    episodes = load_episodes(run_dirs)
    if episodes.empty:
        raise RunFolderError(f"no episodes in {', '.join(str(d) for d in dirs)}")
    steps = load_steps(run_dirs)
    names = sorted(episodes["config_name"].unique())
    if opts.baseline is not None and opts.baseline not in names:
        by_label = {v: k for k, v in short_labels(names).items()}
        if opts.baseline not in by_label:
            raise RunFolderError(f"--baseline {opts.baseline!r} is none of the configs: "
                                 f"{', '.join(names)}")
        opts = Options(by_label[opts.baseline], opts.max_failures, opts.confidence, opts.seed)
    baseline = opts.baseline or default_baseline(names)
    order = config_order(episodes, baseline)
    labels, colours = short_labels(names), _colours(order)
    out.mkdir(parents=True, exist_ok=True)
    conf = opts.confidence

    summary = summarise(episodes, "config_name", conf, opts.seed)
    summary = summary.set_index("config_name").loc[order].reset_index()
    summary["pareto"] = pareto_frontier(summary)
    summary["indistinct_from"] = indistinct(summary)
    summary.to_csv(out / "summary.csv", index=False)

    md: list[str] = [
        "# groundbench report", "",
        (f"Generated {datetime.now(UTC):%Y-%m-%d %H:%M} UTC from {len(run_dirs)} run folder(s), "
        f"{len(episodes)} episodes, {len(names)} config(s). Intervals are {conf:.0%}: Wilson for "
        f"success rates, seeded percentile bootstrap (seed {opts.seed}) for means, Newcombe's "
        "score interval for differences of success rates."), "",
    ]
    tail = common_tail(names)
    if tail:
        md += [f"Every config uses perception/worker `{tail}`; labels below leave it out.", ""]
    hashes = episodes.groupby("config_name")["config_hash"].nunique()
    for name in hashes[hashes > 1].index:
        md += [(f"> Note: `{name}` appears with {hashes[name]} different config hashes; its runs "
               "are pooled."), ""]
    runs = _runs_table(run_dirs, episodes)
    md += ["## Runs", "", md_table(runs), ""]
    if runs["git commit"].nunique() > 1:
        md += [(f"> Note: the runs come from {runs['git commit'].nunique()} different groundbench "
                "commits; differences between configs may include code changes."), ""]

    md += ["## Summary", "", md_table(_summary_columns(summary, labels)), "",
           "(`summary.csv` holds the same numbers unrounded.)", "",
           "## Vision budget: Pareto plot", "",
           "![Pareto plot](pareto.png)", "",
           ("Filled points are on the frontier: no other config has both fewer vision calls per "
           "episode and a higher success rate. Error bars are the intervals above."), ""]
    plot_pareto(summary, labels, colours, out / "pareto.png", conf)

    md += ["## Ablation against the baseline", ""]
    if baseline is None:
        md += ["No baseline: no config is the plain `full/...` agent. Pass `--baseline NAME`.", ""]
    elif len(order) < 2:
        md += [f"Only one config (`{baseline}`): nothing to compare.", ""]
    else:
        ablation = ablation_table(episodes, baseline, opts)
        wall_caveat = timing_caveat(episodes, run_loads(run_dirs, episodes), order, labels)
        ablation.to_csv(out / "ablation.csv", index=False)
        overall = ablation[ablation["scope"] == "overall"]
        plot_ablation(overall, labels, labels[baseline], out / "ablation.png", conf)
        md += [(f"Baseline: `{baseline}`. Δ is config minus baseline; * marks a success change "
               "whose interval excludes zero (Newcombe, unpaired). Δ vision calls and Δ wall time "
               "intervals resample episodes in pairs matched by task and seed when both configs "
               "ran the same episodes (`paired` in `ablation.csv`, which has every number). "
               "Per-tag rows use fixture tags (not smoke/ci). Wall time depends on machine load: "
               "compare it only between runs made side by side."), "",
               *([f"> Warning: {wall_caveat}", ""] if wall_caveat else []),
               "![Ablation](ablation.png)", "",
               md_table(_ablation_columns(overall, "config",
                                          [labels[c] for c in overall["config_name"]])), ""]
        for config in order[1:]:
            per_tag = ablation[(ablation["config_name"] == config) & (ablation["scope"] != "overall")]
            if per_tag.empty:
                continue
            md += [f"### {labels[config]} by tag", "",
                   md_table(_ablation_columns(per_tag, "tag", list(per_tag["scope"]))), ""]

    by_task = summarise(episodes, ["task_id", "config_name"], conf, opts.seed)
    by_task.to_csv(out / "tasks.csv", index=False)
    rates = by_task.pivot(index="task_id", columns="config_name",
                          values="success_rate").reindex(columns=order)
    counts = by_task.assign(text=[f"{k}/{n}" for k, n in zip(by_task["successes"],
                                                             by_task["episodes"], strict=True)])
    counts = counts.pivot(index="task_id", columns="config_name", values="text").reindex(columns=order)
    rank = rates.mean(axis=1).sort_values(kind="stable")
    rates, counts = rates.loc[rank.index], counts.loc[rank.index]
    plot_tasks(rates, counts, labels, out / "tasks.png")
    md += ["## Success by task", "", "![Per-task success](tasks.png)", "",
           "Hardest tasks first. `tasks.csv` has the intervals.", ""]

    tagged = explode_tags(episodes)
    if not tagged.empty:
        by_tag = summarise(tagged, ["tag", "config_name"], conf, opts.seed)
        cells = by_tag.assign(cell=[f"{pct(r)} ({k}/{n})" for r, k, n in zip(
            by_tag["success_rate"], by_tag["successes"], by_tag["episodes"], strict=True)])
        wide = cells.pivot(index="tag", columns="config_name", values="cell")
        wide = wide.reindex(columns=order).astype(object).fillna("–")
        wide.columns = [labels[c] for c in wide.columns]
        md += ["## Success by fixture tag", "", md_table(wide.reset_index()), ""]

    miniwob = miniwob_table(episodes, order)
    if not miniwob.empty:
        miniwob.columns = [labels.get(c, c) for c in miniwob.columns]
        md += ["## MiniWoB++ by task type", "",
               ("Per task type and config: success rate over seeds (successes/episodes), median "
                "vision calls and median steps per episode."), "", md_table(miniwob), ""]

    md += ["## Stage timing", ""]
    means = stage_means(steps)
    present = [c for c in order if c in means.index]
    if present:
        means = means.loc[present]
        loads = run_loads(run_dirs, episodes)
        caveat = timing_caveat(episodes, loads, present, labels)
        plot_stages(means, labels, out / "stages.png",
                    timing_caveat(episodes, loads, present, labels, detail=False))
        table = means.round(1).reset_index()
        table["config_name"] = [labels[c] for c in table["config_name"]]
        table = table.rename(columns={"config_name": "config"})
        table["total"] = means.sum(axis=1).round(1).to_numpy()
        md += ["![Stage timing](stages.png)", "",
               ("Mean ms per step. `perceive` counts a whole vision pass even when prefetch ran it "
               "in the background (`vision_wait` is the part the step waited for); `choose` "
               "excludes the worker's own time, shown as `worker`."), "",
               *([f"> Warning: {caveat}", ""] if caveat else []), md_table(table), ""]
    missing = [labels[c] for c in order if c not in means.index]
    if missing:
        md += [(f"No step traces for: {', '.join(missing)} (baselines such as the oracle record "
               "episodes only)."), ""]

    md += ["## Failure gallery", ""]
    lines, failures = gallery(episodes, steps, order, labels, out, opts.max_failures)
    failures.to_csv(out / "failures.csv", index=False)
    md += lines

    report = out / "report.md"
    report.write_text("\n".join(md) + "\n")
    write_html(report, out / "report.html")
    return report


def write_html(markdown_path: Path, html_path: Path) -> None:
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark").enable("table").render(markdown_path.read_text())
    style = ("body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:1em 0;font-size:90%}"
             "th,td{border:1px solid #ccc;padding:3px 8px}th{background:#f4f4f4}"
             "img{max-width:100%;border:1px solid #ddd}code{background:#f6f6f6}")
    html_path.write_text(f"<!doctype html><html><head><meta charset='utf-8'>"
                         f"<title>{html.escape('groundbench report')}</title>"
                         f"<style>{style}</style></head><body>{body}</body></html>\n")


def main(argv: Sequence[str] | None = None) -> int:
    exit_without_teardown()
    parser = argparse.ArgumentParser(
        prog="groundbench-report",
        description="Plots and tables from groundbench run or sweep folders (parquet traces).")
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR",
                        help="run folders or sweep folders (searched for episodes.parquet)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: DIR/report, a folder of the input's own; "
                             "for several inputs report-NAME+NAME in the folder holding them)")
    parser.add_argument("--baseline", default=None,
                        help="config the ablation compares against (default: the plain full/... agent)")
    parser.add_argument("--max-failures", type=int, default=40,
                        help="failed episodes shown in the gallery (default 40)")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    args = parser.parse_args(argv)
    out = args.out or default_out(args.dirs)
    try:
        report = build_report(args.dirs, out, Options(args.baseline, args.max_failures,
                                                      args.confidence, args.seed))
    except (RunFolderError, TraceFormatError) as exc:
        print(f"groundbench-report: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    summary = pd.read_csv(report.parent / "summary.csv")
    rows = [(str(r.config_name), f"{r.successes}/{r.episodes} ({r.success_rate:.0%})",
             f"{r.vision_calls:.2f}") for r in summary.itertuples()]
    width = max(len("config"), *(len(r[0]) for r in rows))
    print(f"{'config':<{width}}  {'success':>14}  {'vision calls/episode':>20}")
    for name, success, calls in rows:
        print(f"{name:<{width}}  {success:>14}  {calls:>20}")
    print(f"Pareto plot: {report.parent / 'pareto.png'}")
    print(f"report: {report} (and {report.with_suffix('.html').name}, plots, CSV tables in "
          f"{report.parent})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
