"""The per-task table of fixture runs: one row per task with its trap class (the task's tags but
`ci`/`smoke`/`timed`), then per config "rate (k/n), median calls, median steps", and the failure
classes of the first config. `python -m reports.task_table DIR...` prints it as Markdown (the
trap-class table of docs/figures.md)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pandas as pd

from reports.markdown import md_table
from reports.miniwob_table import PREFIX, _cell, _failures, read_episodes, table_parser

EXIT_BAD_INPUT = 2
SUITE_TAGS = frozenset({"ci", "smoke", "timed"})


def task_table(episodes: pd.DataFrame, configs: Sequence[str] | None = None) -> pd.DataFrame:
    eps = episodes[~episodes["task_id"].str.startswith(PREFIX)] if not episodes.empty else episodes
    if eps.empty:
        return pd.DataFrame()
    configs = list(configs) if configs else list(dict.fromkeys(eps["config_name"]))
    rows = []
    for task, group in [*eps.groupby("task_id", sort=True), ("all", eps)]:
        tags = [] if task == "all" else [t for t in group["tags"].iloc[0] if t not in SUITE_TAGS]
        row = {"class": ", ".join(tags), "task": task}
        for config in configs:
            runs = group[group["config_name"] == config]
            row[config] = _cell(runs) if len(runs) else "–"
        first = group[group["config_name"] == configs[0]]
        row[f"failures ({configs[0]})"] = _failures(first) if len(first) else ""
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> int:
    args = table_parser(
        "python -m reports.task_table",
        "Per-task table (Markdown) of fixture tasks from groundbench run or sweep folders.").parse_args(argv)
    episodes = read_episodes(args.dirs, "task_table")
    if episodes is None:
        return EXIT_BAD_INPUT
    table = task_table(episodes, args.config)
    if table.empty:
        print("task_table: no fixture episodes in these folders", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(md_table(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
