"""A description that asks for a name *exactly* (tests/language/sites/notes/: "Field Notebook (Pocket)"
and "Field Notebook Large" in view, the plain "Field Notebook" only after the list loads its end):
a longer name that contains the wanted one is not the target; the agent looks further instead."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agents.worker.fit import exact_name, score
from tasks.schema import Subgoal
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"


@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_exactly_means_exactly(tmp_path: Path, perception: str) -> None:
    run = run_experiment(tmp_path, [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]",
                                    "suite=fixtures", "suite.ids=[notes-exact]", "seeds=[0,1,2]",
                                    f"perception={perception}", "trace.playwright=false"])
    assert run.episodes.success.all(), run.episodes.failure_detail.tolist()
    clicked = pd.read_parquet(run.run_dir / "steps.parquet").query("action == 'click'")
    assert set(clicked.target_name) == {"Field Notebook"}


def test_exact_name_comes_from_the_label_or_the_quoted_words() -> None:
    assert exact_name(Subgoal(action="click", target='link named exactly "Field Notebook"')) == "Field Notebook"
    assert exact_name(Subgoal(action="click", target="the exactly-named one", label="Pad")) == "Pad"
    assert exact_name(Subgoal(action="click", target='link named "Field Notebook"')) is None


def test_a_containing_name_scores_nothing_only_when_exactness_is_asked() -> None:
    from agents.marks import Mark
    from agents.observation import Box

    def mark(label: str) -> Mark:
        return Mark(number=1, box=Box(x=0, y=0, width=10, height=10), role="link", label=label)
    exact = Subgoal(action="click", target='notebook named exactly "Field Notebook"', label="Field Notebook")
    loose = Subgoal(action="click", target="Field Notebook link", label="Field Notebook")
    assert score(exact, mark("Field Notebook (Pocket)")) == 0 < score(exact, mark("Field Notebook"))
    assert score(loose, mark("Field Notebook (Pocket)")) > 0
