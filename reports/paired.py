"""Paired comparison of two runs of the same tasks and seeds (a change against the code before
it, two configs, two machines): per suite totals and, per task, how many episodes differ in
success, vision calls or steps. `python -m reports.paired BEFORE AFTER` prints it as Markdown."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from harness.metrics import RunFolderError, load_episodes
from reports.markdown import md_table

EXIT_BAD_INPUT = 2
KEY = ["task_id", "seed"]
COMPARED = ["success", "vision_calls", "steps"]


def paired(before: pd.DataFrame, after: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(totals per side, per task: episodes paired and episodes that differ), over the episodes
    both runs have."""
    for side, frame in (("before", before), ("after", after)):
        if frame.duplicated(KEY).any():
            raise RunFolderError(f"the {side} run holds a task and seed twice (several configs?): "
                                 "compare one configuration per folder")
    joined = before[KEY + COMPARED].merge(after[KEY + COMPARED], on=KEY, how="inner",
                                          suffixes=("_before", "_after")).set_index(KEY)
    differs = pd.Series(False, index=joined.index)
    for column in COMPARED:
        differs |= joined[f"{column}_before"] != joined[f"{column}_after"]
    totals = pd.DataFrame({
        side: {"episodes": len(joined), "succeeded": int(joined[f"success_{side}"].sum()),
               "vision calls": int(joined[f"vision_calls_{side}"].sum()),
               "steps": int(joined[f"steps_{side}"].sum())}
        for side in ("before", "after")}).T
    per_task = pd.DataFrame({"paired": differs.groupby(level="task_id").size(),
                             "differ": differs.groupby(level="task_id").sum().astype(int)})
    return totals, per_task[per_task["differ"] > 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.paired", description=__doc__)
    parser.add_argument("before", type=Path, help="run folder (holds episodes.parquet)")
    parser.add_argument("after", type=Path, help="run folder of the same tasks and seeds")
    args = parser.parse_args(argv)
    try:
        totals, differ = paired(load_episodes([args.before]), load_episodes([args.after]))
    except RunFolderError as exc:
        print(f"reports.paired: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(md_table(totals.reset_index(names="run")))
    print()
    print(f"Episodes that differ in success, vision calls or steps: {int(differ['differ'].sum())}")
    if len(differ):
        print()
        print(md_table(differ.reset_index()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
