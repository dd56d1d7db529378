"""The report's plots: vision calls against success (the Pareto view), the ablation deltas, success
per task and the stage timings, each drawn on its own matplotlib figure (no pyplot state)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation, Text
from matplotlib.transforms import Bbox, Transform

STAGES = ("observe", "perceive", "vision_wait", "enrich", "rank", "choose", "resolve", "act",
          "validate", "worker")
FONT = 11


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def config_colours(configs: Sequence[str]) -> dict[str, tuple[float, ...]]:
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
