"""agents/inner_scroll.py on a page of its own (tests/language/sites/depot/): a console one
viewport tall whose page never scrolls; order #1050 is clipped below the edge of a short scrolling
panel and "Kestrel Freight" right of the edge of a horizontal strip, both within the viewport's
height, while toolbar buttons in view carry the same words. With the mechanism the agent sees the
DOM's better fit is clipped and scrolls it into view through its container; without it, the
clipped target counts as in view, and the decoy in view is clicked (or nothing)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
COMMON = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
          "suite.ids=[depot-assign]", "seeds=[0,2]", "trace.playwright=false", "perception=synthetic"]


def test_a_target_clipped_by_its_container_is_scrolled_into_view(tmp_path: Path) -> None:
    on = run_experiment(tmp_path / "on", COMMON)
    assert on.episodes.success.all(), on.episodes.failure_detail.tolist()
    steps = pd.read_parquet(on.run_dir / "steps.parquet")
    scrolled = steps[steps.effect == "scrolled_into_view"]
    assert len(scrolled) >= 2 and set(scrolled.target_name) <= {"#1050", "Kestrel Freight"}
    off = run_experiment(tmp_path / "off", [*COMMON, "agent.inner_scroll=false"])
    assert not off.episodes.success.any()
    # the decoy in view carrying the same words was clicked
    assert off.episodes.failure_detail.str.contains("rates|reprinted").all()
