"""A control whose whole name is words a description otherwise leaves out ("From" and "To" fields
of a journey, tests/language/sites/trips): "From field" is described by "from"
(agents/worker/fit.py `content_words`). Before, such a description had no word left to match
any name, and the plan ended at its first step with `no_target`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.marks import Mark
from agents.observation import Box
from agents.worker.fit import MIN_SCORE, content_words, least_score, score
from tasks.schema import Subgoal

HERE = Path(__file__).parent / "language"


def test_a_description_of_only_such_words_is_described_by_them() -> None:
    assert content_words("From field") == ["from"]
    assert content_words("the To field") == ["to"]
    # with a word of its own, the usual words are left out as before
    assert content_words("Departure station from the list") == ["departure", "station"]
    assert least_score(Subgoal(action="type", target="From field", text="Lisbon")) == MIN_SCORE


def test_the_field_named_by_the_word_fits_and_the_other_does_not() -> None:
    box = Box(x=0, y=0, width=120, height=24)
    origin = Mark(number=1, box=box, role="combobox", label="From")
    destination = origin.model_copy(update={"number": 2, "label": "To"})
    want = Subgoal(action="type", target="From field", text="Lisbon")
    assert score(want, origin) >= MIN_SCORE > score(want, destination)


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_journey_from_and_to_is_booked(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [
        f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[trips-book]", "seeds=[0,1]", "trace.playwright=false", "trace.screenshots=none",
        f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    typed = steps[steps.action == "type"].groupby("subgoal_target").target_name.agg(set).to_dict()
    assert typed == {"From field": {"From"}, "To field": {"To"}}
