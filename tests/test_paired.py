"""reports.paired: two runs of the same tasks and seeds, episode by episode."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.metrics import RunFolderError
from reports.paired import paired


def _run(rows: list[tuple[str, int, bool, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["task_id", "seed", "success", "vision_calls", "steps"])


def test_paired_counts_the_episodes_that_differ_per_task() -> None:
    before = _run([("a", 0, True, 2, 3), ("a", 1, True, 2, 3), ("b", 0, False, 4, 8)])
    after = _run([("a", 0, True, 2, 3), ("a", 1, True, 3, 3), ("b", 0, True, 4, 8),
                  ("c", 0, True, 1, 1)])  # c has no partner: not paired
    totals, differ = paired(before, after)
    assert totals.loc["before", "succeeded"] == 2 and totals.loc["after", "succeeded"] == 3
    assert totals.loc["after", "episodes"] == 3
    assert differ["differ"].to_dict() == {"a": 1, "b": 1}
    assert differ["paired"].to_dict() == {"a": 2, "b": 1}


def test_paired_refuses_a_folder_with_two_configs() -> None:
    twice = _run([("a", 0, True, 2, 3), ("a", 0, False, 2, 3)])
    with pytest.raises(RunFolderError, match="twice"):
        paired(twice, twice)
