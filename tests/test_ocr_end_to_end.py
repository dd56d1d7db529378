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
