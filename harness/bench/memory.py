"""Whether one worker's memory grows with the episodes it has run: the worker's memory after many
episodes against its memory after a few, in the same run (no leak from contexts, pages,
screenshots or trace rows held in memory; traces stream to disk):

    python -m harness.bench.memory [--episodes 500] [--early 50] [--window 10] [--suite ci | --tasks ID ...]
                                   [--out FILE.json] [--plot FILE.png]

One worker is the command a user types, in a child process, at the default concurrency
(`conf/config.yaml`): `groundbench suite=SUITE perception=synthetic 'seeds=[0..K-1]'` with K seeds,
enough for --episodes episodes (a few more when the suite does not divide them). Every 0.5 s the
resident memory of the Python process and of it plus all its Chromium processes (RSS, and PSS:
shared pages split between their sharers) is sampled with the number of episodes finished so far
(`harness/bench/machine.py`).

Memory *after k episodes* is the median of the samples taken while the finished count was in
[k - window, k]; the growth is memory after --episodes over memory after --early, for the Python
process, the tree's RSS and the tree's PSS. Peak memory is the largest sample over the run. The
episode rate of the first --early episodes and of the last --early ones is reported beside, since
work that grows with the run's length shows there first.

Project target: the worker's memory (Python + browser, RSS) after 500 episodes within 10% of its
memory after 50."""

from __future__ import annotations

import math
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.bench import machine, output
from harness.config import compose_run_config
from harness.runner import suite_tasks

MIB = 2**20
KINDS = ("python_rss", "tree_rss", "tree_pss")
TARGET = 1.10  # memory after --episodes / memory after --early, at most


def run(chosen: list[str], episodes: int, run_dir: Path) -> dict[str, Any]:
    tasks = suite_tasks(compose_run_config(chosen)[0])
    seeds = math.ceil(episodes / len(tasks))
    overrides = [*chosen, "perception=synthetic", f"seeds=[{','.join(map(str, range(seeds)))}]"]
    return {"overrides": overrides, "planned_episodes": seeds * len(tasks),
            **machine.run_sampled(overrides, run_dir, interval_s=0.5)}


def after(samples: list[dict[str, Any]], k: int, window: int) -> dict[str, float] | None:
    """Median memory (MiB) over the samples taken while k - window <= finished episodes <= k."""
    near = [s for s in samples if k - window <= s["episodes"] <= k]
    if not near:
        return None
    return {kind: statistics.median(s[kind] for s in near) / MIB for kind in KINDS} | {"samples": len(near)}


def rate(samples: list[dict[str, Any]], first: int, last: int) -> float | None:
    """Episodes per minute between the first samples that saw `first` and `last` episodes done."""
    def when(k: int) -> float | None:
        return next((s["t"] for s in samples if s["episodes"] >= k), None)

    t0, t1 = when(first), when(last)
    return None if t0 is None or t1 is None or t1 <= t0 else 60 * (last - first) / (t1 - t0)


def summarise(raw: dict[str, Any], episodes: int, early: int, window: int) -> dict[str, Any]:
    samples = raw["samples"]
    finished = max((s["episodes"] for s in samples), default=0)
    mem_early, mem_late = after(samples, early, window), after(samples, episodes, window)
    growth = {kind: mem_late[kind] / mem_early[kind] for kind in KINDS} if mem_early and mem_late else None
    return {"episodes_finished": finished, "early": early, "late": episodes, "window": window,
            "memory_after_early_mib": mem_early, "memory_after_late_mib": mem_late, "growth": growth,
            "peak_mib": {kind: max(s[kind] for s in samples) / MIB for kind in KINDS},
            "episodes_per_minute": {"first": rate(samples, 0, early),
                                    "last": rate(samples, episodes - early, episodes)}}


def targets(summary: dict[str, Any]) -> list[dict[str, Any]]:
    growth = summary["growth"]
    measured = None if growth is None else growth["tree_rss"]
    return [{"target": f"worker memory (Python + browser, RSS) after {summary['late']} episodes <= "
                       f"{TARGET:g}x its memory after {summary['early']}",
             "measured": measured, "holds": measured is not None and measured <= TARGET}]


def render(summary: dict[str, Any], checks: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    load = meta["load_average"]
    early, late = summary["memory_after_early_mib"], summary["memory_after_late_mib"]
    lines = [(f"worker memory over {summary['episodes_finished']} episodes, suite {meta['suite']}, "
             f"concurrency {meta['concurrency']}, {meta['cpus']} cpus, {meta['memory_gib']} GiB, "
             f"load average {load['before'][0]:.1f} -> {load['after'][0]:.1f}"), "",
             f"{'MiB':<28} {'python RSS':>10} {'tree RSS':>9} {'tree PSS':>9}"]

    def row(name: str, values: dict[str, float] | None) -> str:
        if values is None:
            return f"{name:<28} {'missing':>10}"
        return f"{name:<28} " + " ".join(f"{values[k]:>{w}.0f}" for k, w in zip(KINDS, (10, 9, 9), strict=True))

    lines += [row(f"after {summary['early']} episodes", early), row(f"after {summary['late']} episodes", late),
              row("peak", summary["peak_mib"])]
    if summary["growth"]:
        lines.append(f"{'growth (late / early)':<28} " + " ".join(
            f"{summary['growth'][k]:>{w}.3f}" for k, w in zip(KINDS, (10, 9, 9), strict=True)))
    first, last = summary["episodes_per_minute"]["first"], summary["episodes_per_minute"]["last"]
    if first and last:
        lines.append(f"episodes per minute: first {summary['early']} {first:.1f}, last {summary['early']} {last:.1f}")
    lines += ["", "targets:"]
    lines += [f"  {'holds' if c['holds'] else 'DOES NOT HOLD':<13} {c['target']} (measured "
              f"{'missing' if c['measured'] is None else format(c['measured'], '.3f')})" for c in checks]
    return "\n".join(lines)


def plot(samples: list[dict[str, Any]], summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.8), constrained_layout=True)
    xs = [s["episodes"] for s in samples]
    for kind, label in zip(KINDS, ("Python RSS", "Python + Chromium RSS", "Python + Chromium PSS"), strict=True):
        ax.plot(xs, [s[kind] / MIB for s in samples], linewidth=0.8, label=label)
    for k in (summary["early"], summary["late"]):
        ax.axvline(k, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("episodes finished")
    ax.set_ylabel("MiB")
    ax.set_title("one worker's memory as episodes accumulate")
    ax.grid(True, alpha=0.3)
    output.save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = output.parser("memory", __doc__)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--early", type=int, default=50)
    parser.add_argument("--window", type=int, default=10, help="episodes a memory reading spans")
    parser.add_argument("--suite", default="ci", help="a suite under conf/suite")
    parser.add_argument("--tasks", nargs="+", default=[], help="fixture task ids or globs instead of a suite")
    args = parser.parse_args(argv)
    if not 0 < args.early < args.episodes or args.window < 0:
        parser.error("need 0 < --early < --episodes and --window >= 0")
    load_before = machine.facts()["load_average"]
    with tempfile.TemporaryDirectory() as tmp:
        raw = run(machine.selection(args.suite, args.tasks), args.episodes, Path(tmp))
    summary = summarise(raw, args.episodes, args.early, args.window)
    checks = targets(summary)
    meta = {**machine.facts(), "suite": ",".join(args.tasks) or args.suite, "overrides": raw["overrides"],
            "planned_episodes": raw["planned_episodes"], "wall_s": raw["wall_s"],
            "concurrency": compose_run_config([])[0].concurrency}
    meta["load_average"] = {"before": load_before, "after": meta["load_average"]}
    print(render(summary, checks, meta))
    output.write(args, {"meta": meta, **summary, "targets": checks, "samples": raw["samples"]},
                 lambda path: plot(raw["samples"], summary, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
