"""agents/undrawn.py on tests/language/sites/inbox: a message archived a moment ago stays in the
list before the others, its row faded to opacity 0 but in the document, the accessibility tree and
the hit test with working controls. Every tick box is an invisible input (opacity 0 on the input
itself) over a drawn square, as design systems draw them. Read from the accessibility tree alone
(`perception=none`), "the 3rd Archive button" and "the 2nd check box" count the faded row's
controls unless they leave the listing; the tick boxes' own opacity must not make them leave it."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_experiment

pytestmark = pytest.mark.browser
HERE = Path(__file__).parent / "language"
TASKS = ["inbox-archive-third", "inbox-select-second"]
# seeds whose faded row sits before the first message shown and before the second (both kinds)
SEEDS = "[0,1,2,3]"


def _run(tmp_path: Path, *extra: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    run = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        f"suite.ids=[{','.join(TASKS)}]", f"seeds={SEEDS}", "perception=none",
        "trace.playwright=false", "trace.screenshots=none", *extra])
    return run.episodes, pd.read_parquet(run.run_dir / "steps.parquet")


def test_controls_faded_to_nothing_are_not_counted(tmp_path: Path) -> None:
    episodes, steps = _run(tmp_path)
    assert episodes.success.all(), episodes[~episodes.success][["task_id", "seed", "failure_detail"]]
    # the faded row's two controls left the listing: its tick box and its Archive button
    left = steps[steps.undrawn != ""].drop_duplicates("episode_id")
    assert len(left) == len(episodes)
    for _, step in left.iterrows():
        labels = json.loads(step.undrawn)
        assert "Archive" in labels and sum(label.startswith("Select") for label in labels) == 1, labels


def test_switched_off_the_faded_row_is_counted(tmp_path: Path) -> None:
    episodes, steps = _run(tmp_path, "agent.undrawn=false")
    assert (steps.undrawn == "").all()
    # every seed puts the faded row before the target: counted, it moves the count by one
    assert not episodes.success.any(), episodes[["task_id", "seed", "success"]]
    assert set(episodes.failure) == {"wrong_target"}


def test_an_ordinal_vision_miscounted_is_counted_again(tmp_path: Path) -> None:
    """With vision, "the 2nd check box" is counted among what vision listed: on these seeds the
    simulated model misses a tick box before the target, so its 2nd is the DOM's 3rd. The DOM's
    count (drawn controls in view) disagrees, and the second look it asks for sees them all."""
    run = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[inbox-select-second]", "seeds=[2,3,6,7]", "perception=synthetic",
        "trace.playwright=false", "trace.screenshots=none"])
    episodes, steps = run.episodes, pd.read_parquet(run.run_dir / "steps.parquet")
    assert episodes.success.all(), episodes[~episodes.success][["seed", "failure_detail"]]
    assert steps.groupby("episode_id").coverage_pass.any().all()
