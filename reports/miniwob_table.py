"""The MiniWoB++ table: per task type and config, success rate over seeds, median vision calls and
median steps per episode, and the failure classes seen. `groundbench-report` adds it as a section;
`python -m reports.miniwob_table DIR...` prints it as Markdown (the table in the README)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from harness.metrics import RunFolderError, find_run_dirs, load_episodes
from harness.traces import TraceFormatError
from reports.markdown import md_table, pct

EXIT_BAD_INPUT = 2

PREFIX = "miniwob."


def miniwob_episodes(episodes: pd.DataFrame) -> pd.DataFrame:
    if episodes.empty:
        return episodes
    return episodes[episodes["task_id"].str.startswith(PREFIX)]


def _cell(group: pd.DataFrame) -> str:
    n, k = len(group), int(group["success"].sum())
    return (f"{pct(k / n)} ({k}/{n}), {group['vision_calls'].median():g} calls, "
            f"{group['steps'].median():g} steps")


def _failures(group: pd.DataFrame) -> str:
    counts = group.loc[~group["success"], "failure"].value_counts()
    return ", ".join(f"{name} {n}" for name, n in counts.items())


def miniwob_table(episodes: pd.DataFrame, configs: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per task type (and an `all` row): per config, "rate (k/n), median calls, median
    steps"; then the failure classes of the first config."""
    eps = miniwob_episodes(episodes)
    if eps.empty:
        return pd.DataFrame()
    eps = eps.assign(task_type=eps["task_id"].str.removeprefix(PREFIX))
    configs = list(configs) if configs else list(dict.fromkeys(eps["config_name"]))
    rows = []
    for task_type, group in [*eps.groupby("task_type", sort=True), ("all", eps)]:
        row = {"task type": task_type}
        for config in configs:
            runs = group[group["config_name"] == config]
            row[config] = _cell(runs) if len(runs) else "–"
        first = group[group["config_name"] == configs[0]]
        row[f"failures ({configs[0]})"] = _failures(first) if len(first) else ""
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reports.miniwob_table",
        description="Per-task-type MiniWoB++ table (Markdown) from groundbench run or sweep folders.")
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    parser.add_argument("--config", action="append", default=None, metavar="NAME",
                        help="configs to show, in this order (default: all, in run order)")
    args = parser.parse_args(argv)
    try:
        episodes = load_episodes(find_run_dirs(args.dirs))
    except (RunFolderError, TraceFormatError) as exc:
        print(f"miniwob_table: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    table = miniwob_table(episodes, args.config)
    if table.empty:
        print("miniwob_table: no MiniWoB episodes in these folders", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(md_table(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
