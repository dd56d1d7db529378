"""Sliders drawn as a knob on a track, with no role, no name and no title (as slider widget
libraries draw them), on a page of their own (tests/language/sites/mixer/: three such knobs,
"the 2nd slider" the only way to say which).

- the synthetic reader tells a knob on a track apart from an icon (kind `slider`, labelled so, as
  a model names what it sees drawn) and a kind hint ("slider") has it look for every one;
- the scripted worker counts "the 2nd slider" among the marks vision called sliders;
- an ordinal counted among marks only vision drew gets the coverage pass (a missed knob before
  the target would shift the count), and one thing drawn twice counts once.

Measured: 0/3 on b63cb2b (no mark matched "slider"); 5/5 now (3/5 with `agent.coverage=false`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agents.marks import Mark
from agents.observation import Box
from agents.worker.scripted import ScriptedWorker
from tasks.schema import Subgoal
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"


@pytest.mark.browser
def test_the_nth_knob_is_set(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[mixer-levels]", "seeds=[0,1,2]", "trace.playwright=false", "perception=synthetic"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    counted = steps[steps.subgoal_action == "set_value"]
    assert counted.coverage_pass.all()  # every ordinal by sight was looked at again
    assert set(counted.target_name) == {"slider"}


def _knob(number: int, y: float, dy: float = 0.0) -> Mark:
    return Mark(number=number, box=Box(x=40, y=y + dy, width=20, height=20), label="slider",
                source="vision")


def test_the_nth_slider_is_counted_once_per_knob_among_vision_s_sliders() -> None:
    worker = ScriptedWorker()
    marks = [_knob(1, 100), _knob(2, 150), _knob(3, 101, dy=1), _knob(4, 200),
             Mark(number=5, box=Box(x=40, y=250, width=60, height=24), label="Apply", role="button")]
    want = Subgoal(action="set_value", target="slider", nth=3, value=4)
    assert worker.match(want, marks).mark.number == 4  # knob 3 is knob 1 seen twice
    assert worker.match(want.model_copy(update={"nth": 4}), marks).mark is None
