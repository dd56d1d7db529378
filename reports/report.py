"""Report from parquet traces: `groundbench-report DIR... [--out FOLDER]` reads run or sweep folders
and writes plots (Pareto, ablation, per-task, stage timing: reports/plots.py), report.md/.html with
its failure gallery (reports/gallery.py) and CSV tables."""

from __future__ import annotations

import argparse
import html
import math
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

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
from reports.gallery import gallery
from reports.markdown import md_table, pct
from reports.miniwob_table import miniwob_table
from reports.plots import (
    STAGES,
    config_colours,
    plot_ablation,
    plot_pareto,
    plot_stages,
    plot_tasks,
)

EXIT_BAD_INPUT = 2


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
    labels, colours = short_labels(names), config_colours(order)
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
