"""Episodes per minute and memory as concurrent episodes grow, one worker process, against one
concurrent episode measured in the same round (the curve `conf/config.yaml` `concurrency` is
set from):

    python -m harness.bench.concurrency [--levels 1 2 4 8] [--rounds N] [--suite ci | --tasks ID ...] [--seeds K]
                                        [--out FILE.json] [--plot FILE.png]

Each run is the command a user types, in a child process: `groundbench suite=SUITE
perception=synthetic concurrency=N 'seeds=[0..K-1]'` (one browser, a fresh context per episode,
default trace settings). While it runs, the resident memory (RSS) of the Python process and of it
plus all its Chromium processes is sampled every 0.25 s (`harness/bench/machine.py`); RSS counts
pages shared between Chromium's processes once per process, as `ps` does, so the sum is an upper
bound of what the worker holds; PSS (shared pages split between their sharers) is recorded beside.

Per run: episodes per minute from the first episode's start to the last one's end (the run's
episodes.parquet: `started_at`, `wall_s`), and over the whole process (start-up, browser launch
and trace combining included); the peak of each RSS. Each round runs every level once, in an
order rotated from round to round; a level's *speed-up* is the median over rounds of (its
episodes per minute / those of one concurrent episode in the same round), so load from other work
mostly cancels. Memory per concurrent episode is the least-squares slope of peak memory (Python
and browser, RSS and PSS) against the level. The suggested default is, among the levels that
succeed on as many episodes as the lowest level (concurrency must not cost correctness), the
smallest whose speed-up is within 5% of the best of them: more than that only costs memory."""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.bench import machine, output
from harness.config import compose_run_config

MIB = 2**20
NEAR_BEST = 0.05  # a level within this fraction of the best speed-up is as good as the best


def run_level(level: int, chosen: list[str], seeds: int, run_dir: Path) -> dict[str, Any]:
    overrides = [*chosen, "perception=synthetic", f"concurrency={level}",
                 f"seeds=[{','.join(map(str, range(seeds)))}]"]
    sampled = machine.run_sampled(overrides, run_dir)
    eps = pd.read_parquet(run_dir / "episodes.parquet")
    span_s = float((eps.started_at + eps.wall_s).max() - eps.started_at.min())
    samples = sampled["samples"]
    return {"level": level, "episodes": len(eps), "successes": int(eps.success.sum()),
            "episodes_per_minute": 60 * len(eps) / span_s,
            "process_episodes_per_minute": 60 * len(eps) / sampled["wall_s"],
            "span_s": span_s, "process_s": sampled["wall_s"],
            "peak_tree_mib": max(s["tree_rss"] for s in samples) / MIB,
            "peak_tree_pss_mib": max(s["tree_pss"] for s in samples) / MIB,
            "peak_python_mib": max(s["python_rss"] for s in samples) / MIB,
            "load_average": machine.facts()["load_average"]}


def run(levels: Sequence[int], rounds: int, chosen: list[str], seeds: int) -> list[dict[str, Any]]:
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(rounds):
            shift = rnd % len(levels)
            for level in list(levels[shift:]) + list(levels[:shift]):
                out = run_level(level, chosen, seeds, Path(tmp) / f"r{rnd}-c{level}")
                print(f"round {rnd} concurrency {level}: {out['episodes_per_minute']:.1f} episodes/min, "
                      f"peak {out['peak_tree_mib']:.0f} MiB, load {out['load_average'][0]:.1f}",
                      file=sys.stderr)
                runs.append({"round": rnd, **out})
    return runs


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(set(xs)) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def summarise(runs: list[dict[str, Any]], levels: Sequence[int]) -> dict[str, Any]:
    base = min(levels)
    by = {(r["round"], r["level"]): r for r in runs}
    rows = []
    for level in levels:
        mine = [r for r in runs if r["level"] == level]
        speedups = [r["episodes_per_minute"] / by[(r["round"], base)]["episodes_per_minute"] for r in mine]
        rows.append({
            "level": level, "runs": len(mine),
            "episodes": sum(r["episodes"] for r in mine), "successes": sum(r["successes"] for r in mine),
            "episodes_per_minute": statistics.median(r["episodes_per_minute"] for r in mine),
            "process_episodes_per_minute": statistics.median(r["process_episodes_per_minute"] for r in mine),
            "speedup": statistics.median(speedups),
            "peak_tree_mib": statistics.median(r["peak_tree_mib"] for r in mine),
            "peak_tree_pss_mib": statistics.median(r["peak_tree_pss_mib"] for r in mine),
            "peak_python_mib": statistics.median(r["peak_python_mib"] for r in mine),
        })
    # Concurrency must not cost episodes: only levels whose success rate is as good as the lowest
    # level's are candidates, then the smallest one that is nearly as fast as the fastest of them.
    base_rate = rows[0]["successes"] / rows[0]["episodes"]
    safe = [r for r in rows if r["successes"] / r["episodes"] >= base_rate]
    best = max(r["speedup"] for r in safe)
    suggested = min(r["level"] for r in safe if r["speedup"] >= best * (1 - NEAR_BEST))
    xs = [r["level"] for r in runs]
    return {"rows": rows, "mib_per_concurrent_episode": _slope(xs, [r["peak_tree_mib"] for r in runs]),
            "pss_mib_per_concurrent_episode": _slope(xs, [r["peak_tree_pss_mib"] for r in runs]), "suggested_concurrency": suggested,
            "configured_concurrency": compose_run_config([])[0].concurrency}


def render(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    load = meta["load_average"]
    lines = [(f"concurrency, suite {meta['suite']} x {meta['seeds']} seeds per run, {meta['rounds']} rounds, "
             f"{meta['cpus']} cpus, {meta['memory_gib']} GiB, load average {load['before'][0]:.1f} -> "
             f"{load['after'][0]:.1f}"),
             "medians over rounds; speed-up = episodes/min over those of the lowest level, same round", "",
             (f"{'level':>5} {'ok':>9} {'eps/min':>8} {'(process)':>9} {'speed-up':>9} {'peak RSS':>9} "
             f"{'PSS':>6} {'python':>7}  (MiB)")]
    for r in summary["rows"]:
        lines.append(f"{r['level']:>5} {r['successes']:>4}/{r['episodes']:<4} {r['episodes_per_minute']:>8.1f} "
                     f"{r['process_episodes_per_minute']:>9.1f} {r['speedup']:>9.2f} "
                     f"{r['peak_tree_mib']:>9.0f} {r['peak_tree_pss_mib']:>6.0f} {r['peak_python_mib']:>7.0f}")
    rss, pss = summary["mib_per_concurrent_episode"], summary["pss_mib_per_concurrent_episode"]
    lines += ["", "memory per concurrent episode (slope of peak memory, Python + Chromium): " +
              ("missing" if rss is None else f"RSS {rss:.0f} MiB, PSS {pss:.0f} MiB"),
              (f"suggested default concurrency: {summary['suggested_concurrency']} "
              f"(conf/config.yaml has {summary['configured_concurrency']})")]
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["rows"]
    xs = [r["level"] for r in rows]
    fig, (rate, mem) = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    rate.plot(xs, [r["episodes_per_minute"] for r in rows], marker="o", label="in run")
    rate.plot(xs, [r["process_episodes_per_minute"] for r in rows], marker="s", label="whole process")
    rate.set_ylabel("episodes per minute (median)")
    mem.plot(xs, [r["peak_tree_mib"] for r in rows], marker="o", label="Python + Chromium, RSS")
    mem.plot(xs, [r["peak_tree_pss_mib"] for r in rows], marker="D", label="Python + Chromium, PSS")
    mem.plot(xs, [r["peak_python_mib"] for r in rows], marker="s", label="Python")
    mem.set_ylabel("peak memory (MiB, median)")
    for ax in (rate, mem):
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [str(x) for x in xs])
        ax.minorticks_off()
        ax.set_xlabel("concurrent episodes")
        ax.grid(True, alpha=0.3)
    output.save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = output.parser("concurrency", __doc__)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--suite", default="ci", help="a suite under conf/suite")
    parser.add_argument("--tasks", nargs="+", default=[], help="fixture task ids or globs instead of a suite")
    parser.add_argument("--seeds", type=int, default=1, help="seeds per run (episodes = tasks x seeds)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seeds < 1 or min(args.levels) < 1:
        parser.error("--rounds, --seeds and every level must be >= 1")
    levels = sorted(set(args.levels))
    load_before = machine.facts()["load_average"]
    runs = run(levels, args.rounds, machine.selection(args.suite, args.tasks), args.seeds)
    summary = summarise(runs, levels)
    meta = {**machine.facts(), "suite": ",".join(args.tasks) or args.suite, "seeds": args.seeds, "rounds": args.rounds,
            "levels": levels}
    meta["load_average"] = {"before": load_before, "after": meta["load_average"]}
    print(render(summary, meta))
    output.write(args, {"meta": meta, **summary, "runs": runs}, lambda path: plot(summary, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
