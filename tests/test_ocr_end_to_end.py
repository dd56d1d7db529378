"""perception=ocr through the whole harness: text-labelled targets are found from pixels alone,
and the traces show the vision calls, tiers and coverage passes it took."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

pytestmark = pytest.mark.browser


def test_ocr_solves_text_labelled_smoke_tasks(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, ["suite=fixtures", "suite.ids=[shop-coupon,shop-region-filter]",
                                       "perception=ocr", "trace.playwright=false"])
    episodes = result.episodes.set_index("task_id")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    assert episodes.loc["shop-coupon", "success"]
    assert (episodes.vision_calls > 0).all() and set(steps.tier) >= {"small"}
    assert "large" in set(steps.coverage_tier)  # the coverage pass uses the large tier
    # The region row's chevron is an icon without text: OCR misses it and a coverage pass is tried.
    assert steps[steps.task_id == "shop-region-filter"].coverage_pass.any()


HERE = Path(__file__).parent / "language"


def test_ocr_names_text_less_controls_by_their_captions(tmp_path: Path) -> None:
    # tests/language/sites/alerts/: nothing has an accessible name; the fields are drawn as a line
    # under a caption, the switches are divs drawn as pills at the far end of their rows. From
    # pixels: the underlines and the pills, each named by the caption beside it.
    args = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
            "suite.ids=[alerts-texts]", "seeds=[0]", "trace.playwright=false"]
    ocr = run_experiment(tmp_path / "ocr", [*args, "perception=ocr"])
    assert ocr.episodes.success.all(), ocr.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(ocr.run_dir / "steps.parquet")
    switches = steps[steps.subgoal_target.str.endswith("switch")]
    # no role: bound by where vision drew them, named by the caption the backend tied to them
    assert (switches.target_role == "").all()
    assert set(switches.target_name.str.replace(" ", "")) == {"Pushnotices", "Textmessages"}
    # without vision the accessibility tree has no switch at all
    none = run_experiment(tmp_path / "none", [*args, "perception=none"])
    assert not none.episodes.success.any() and (none.episodes.failure == "no_target").all()
