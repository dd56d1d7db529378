"""agents/navigation_undo.py on a page of its own (tests/language/sites/agree/): a terms box with no
name of its own beside "I agree to the [Terms of Service]", where the words that match the plan's
description best are the link. With the mechanism, the click that left for terms.html is a failed
effect: the agent goes back, leaves the link out and ticks the box; without it, the episode ends
stranded on terms.html."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agents.navigation_undo import document, meant_to_stay
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
COMMON = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
          "suite.ids=[agree-agree]", "seeds=[0,1]", "trace.playwright=false"]


@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_control_that_navigated_is_undone_and_chosen_again(tmp_path: Path, perception: str) -> None:
    on = run_experiment(tmp_path / "on", [*COMMON, f"perception={perception}"])
    assert on.episodes.success.all(), on.episodes.failure_detail.tolist()
    steps = pd.read_parquet(on.run_dir / "steps.parquet")
    undone = steps[steps.error_type == "unintended_navigation"]
    assert len(undone) == 2 and (undone.effect == "went_back").all()  # once per seed
    assert (undone.target_name == "Terms of Service").all() and "terms.html" in undone.error.iloc[0]
    after = steps[(steps.step > undone.step.min()) & (steps.subgoal_index == 0) & steps.effective]
    assert (after.target_role == "checkbox").all() and len(after) == 2
    off = run_experiment(tmp_path / "off", [*COMMON, f"perception={perception}",
                                            "agent.navigation_undo=false"])
    assert not off.episodes.success.any()
    stranded = pd.read_parquet(off.run_dir / "steps.parquet")
    assert "unintended_navigation" not in set(stranded.error_type)
    assert stranded.groupby("seed").url.last().str.contains("terms.html").all()


def test_what_counts_as_meant_to_stay() -> None:
    from types import SimpleNamespace

    from tasks.schema import Subgoal

    def stays(**subgoal) -> bool:
        return meant_to_stay(SimpleNamespace(subgoal=Subgoal(**subgoal)))  # type: ignore[arg-type]
    assert stays(action="click", target="I agree to the Terms checkbox")
    assert stays(action="click", target="Express radio button")
    assert stays(action="type", target="Name field", text="x")
    assert not stays(action="click", target="Terms of Service link")
    assert not stays(action="click", target="Place order button")  # a button may submit a form
    assert not stays(action="click", target="Walnut desk lamp")      # says nothing of its kind
    assert document("http://a/x.html?seed=1") == document("http://a/x.html?seed=2#top")
    assert document("http://a/x.html") != document("http://a/terms.html")
