"""A control drawn by its label: radio cards whose inputs are clipped to one pixel, as design
systems hide them (tests/language/sites/rentals: "Compact", "Estate", "Van"). The radio is in the
accessibility tree and named by its card, but what is on top at its centre is the card's text, so
Playwright's click on the radio waits for it to be on top, which it never is (`action_timeout`
twice, then the target dropped). A person clicks the card; the label forwards the click. When the
hit at a control's centre lies in one of its own labels, the agent clicks there
(agents/act.py `_through_label`, route `point`). Before: 0/5 with synthetic vision, 0/5 without."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "suite.ids=[rentals-estate-booking]", "seeds=[0,1]", "trace.playwright=false", "trace.screenshots=none"]


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_a_radio_drawn_by_its_card_is_clicked_through_the_card(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    estate = steps[steps.subgoal_target == "Estate option"]
    # one click per episode, at the point where the card draws the radio, and it took
    assert len(estate) == 2 and (estate.route == "point").all() and estate.effective.all(), estate
    assert (estate.target_role == "radio").all() and (estate.error_type == "").all()
