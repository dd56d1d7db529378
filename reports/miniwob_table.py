"""The MiniWoB++ table: per task type and config, success rate over seeds, median vision calls and
median steps per episode, and the failure classes seen. `groundbench-report` adds it as a section;
`python -m reports.miniwob_table DIR...` prints it as Markdown (the table in the README).

With `--repeats`, the folders are repeats of one config (the nondeterministic task types, run
several times over the same seeds): the table shows each repeat's successes, the spread (the
lowest and highest success rate over the repeats), the seeds whose outcome differed between
repeats, and the pooled cell."""

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


class RepeatsError(ValueError):
    """Folders given as repeats that are not repeats of one config over the same episodes."""


def _spread(rates: list[tuple[int, int]]) -> str:
    lo, hi = min(rates, key=lambda r: r[0] / r[1]), max(rates, key=lambda r: r[0] / r[1])
    if lo[0] * hi[1] == hi[0] * lo[1]:
        return f"{pct(lo[0] / lo[1])} every time ({lo[0]}/{lo[1]})"
    return f"{pct(lo[0] / lo[1])}–{pct(hi[0] / hi[1])} ({lo[0]}–{hi[0]}/{hi[1]})"


def _flipped(group: pd.DataFrame) -> int:
    """Seeds whose outcome was not the same in every repeat."""
    outcomes = group.groupby("seed")["success"].nunique()
    return int((outcomes > 1).sum())


def repeats_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """One row per task type (and `all`): successes in each repeat (a run folder, `run_dir`), the
    spread over the repeats (lowest–highest success rate), the seeds that flipped, the pooled
    "rate (k/n), median calls, median steps", and the failure classes over all repeats."""
    eps = miniwob_episodes(episodes)
    if eps.empty:
        return pd.DataFrame()
    configs = list(dict.fromkeys(eps["config_name"]))
    if len(configs) != 1:
        raise RepeatsError(f"repeats must share one config, these folders hold {configs}")
    repeats = list(dict.fromkeys(eps["run_dir"]))
    if len(repeats) < 2:
        raise RepeatsError("--repeats needs at least two run folders of the same config")
    eps = eps.assign(task_type=eps["task_id"].str.removeprefix(PREFIX))
    per_repeat = [set(map(tuple, eps.loc[eps["run_dir"] == r, ["task_id", "seed"]].to_numpy()))
                  for r in repeats]
    if any(p != per_repeat[0] for p in per_repeat[1:]):
        raise RepeatsError("the repeats did not run the same (task, seed) episodes")
    n = len(repeats)
    rows = []
    for task_type, group in [*eps.groupby("task_type", sort=True), ("all", eps)]:
        row: dict[str, object] = {"task type": task_type}
        rates = []
        for i, run in enumerate(repeats, start=1):
            one = group[group["run_dir"] == run]
            k = int(one["success"].sum())
            rates.append((k, len(one)))
            row[f"repeat {i}"] = f"{k}/{len(one)}"
        row[f"spread over {n} repeats"] = _spread(rates)
        row["seeds that flipped"] = _flipped(group.assign(seed=group["task_id"] + "#" +
                                                           group["seed"].astype(str)))
        row[f"pooled ({configs[0]})"] = _cell(group)
        row["failures (all repeats)"] = _failures(group)
        rows.append(row)
    return pd.DataFrame(rows)


def table_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The command line every table printer shares: run or sweep folders, and the configs to show."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    parser.add_argument("--config", action="append", default=None, metavar="NAME",
                        help="configs to show, in this order (default: all, in run order)")
    return parser


def read_episodes(dirs: Sequence[Path], name: str) -> pd.DataFrame | None:
    """The folders' episodes; None (with one line on stderr) when they cannot be read."""
    try:
        return load_episodes(find_run_dirs(list(dirs)))
    except (RunFolderError, TraceFormatError) as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = table_parser(
        "python -m reports.miniwob_table",
        "Per-task-type MiniWoB++ table (Markdown) from groundbench run or sweep folders.")
    parser.add_argument("--repeats", action="store_true",
                        help="the folders are repeats of one config: show each repeat, the spread "
                             "(lowest–highest success) and the seeds that flipped")
    args = parser.parse_args(argv)
    episodes = read_episodes(args.dirs, "miniwob_table")
    if episodes is None:
        return EXIT_BAD_INPUT
    try:
        table = repeats_table(episodes) if args.repeats else miniwob_table(episodes, args.config)
    except RepeatsError as exc:
        print(f"miniwob_table: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if table.empty:
        print("miniwob_table: no MiniWoB episodes in these folders", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(md_table(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
