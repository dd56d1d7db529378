"""A select the page draws itself: a button (aria-haspopup="listbox") that opens a list box of
options, as design systems build one, with no <select> and no <option> (tests/language/sites/
shipping, "Country dropdown" set to "Portugal", the options in a seeded order; then a segmented
control of toggle buttons). A `select` subgoal took only a native select or a combobox, and chose
by <option> value: "Country dropdown" was `no_target` at every step. Now a button may be a select's
target, a select whose name shows its value ("Country Choose…") is not contradicted by it, and a
select without options of its own is opened by a click and its option clicked in the list it
opened (agents/actions.py `choose_from_popup`). Before: 0/5 with synthetic vision, 0/5 without."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.marks import Mark
from agents.observation import Box
from agents.worker.scripted import ScriptedWorker
from tasks.schema import Subgoal

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "suite.ids=[shipping-portugal-express]", "seeds=[0,1]", "trace.playwright=false", "trace.screenshots=none"]


def test_a_select_may_be_a_button_showing_its_value_but_a_native_one_still_wins() -> None:
    box = Box(x=0, y=0, width=200, height=24)
    drawn = Mark(number=1, box=box, role="button", label="Country Choose…")
    native = Mark(number=2, box=box, role="combobox", label="Country")
    other = Mark(number=3, box=box, role="button", label="Use this address")
    worker = ScriptedWorker()
    subgoal = Subgoal(action="select", target="Country dropdown", value="Portugal")
    assert worker.match(subgoal, [drawn, other]).mark == drawn
    assert worker.match(subgoal, [drawn, native, other]).mark in (drawn, native)
    assert worker.match(Subgoal(action="select", target="Country", value="Portugal"), [other]).mark is None
    # but a button is no select to count: "the 1st dropdown list" is never the Submit button
    # (MiniWoB choose-list, after its select was found dead)
    submit = Mark(number=4, box=box, role="button", label="Submit")
    assert worker.match(Subgoal(action="select", target="dropdown list", value="Kiara", nth=1), [submit]).mark is None


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_select_the_page_draws_is_opened_and_its_option_clicked(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    country = steps[steps.subgoal_target == "Country dropdown"]
    assert len(country) == 2 and (country.target_role == "button").all() and country.effective.all(), country


@pytest.mark.browser
def test_a_value_the_list_does_not_show_is_an_action_error_and_the_list_is_closed(tmp_path: Path) -> None:
    task = (HERE / "tasks" / "shipping.yaml").read_text().replace("value: Portugal", "value: Atlantis")
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "shipping.yaml").write_text(task)
    result = run_experiment(tmp_path / "run", [*ARGS, f"tasks.dirs=[{tasks}]", "perception=none", "seeds=[0]"])
    assert not result.episodes.success.any()
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    country = steps[steps.subgoal_target == "Country dropdown"]
    assert (country.error_type == "action_error").any()
    assert country.error.str.contains("no option 'Atlantis'").any()
