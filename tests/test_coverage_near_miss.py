"""A reused vision epoch (a gate hit) was listed for an earlier subgoal, and its cap kept what fitted
that one. When it shows the expected label only inside longer names ("Night Drive Mix" for the
playlist "Night Drive"), the coverage pass looks again with the label as its hint before the agent
acts on the near miss (tunes-play-playlist: the library row scrolled into view for the scroll
subgoal's check was not among the candidates listed for it)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from agents.coverage import only_longer_names
from agents.marks import Mark
from agents.observation import Box
from tests.conftest import run_experiment


def _mark(label: str) -> Mark:
    return Mark(number=1, box=Box(x=0, y=0, width=10, height=10), label=label)


def test_only_longer_names() -> None:
    assert only_longer_names([_mark("Night Drive Mix"), _mark("Late Night Drives")], "Night Drive")
    assert not only_longer_names([_mark("Night Drive Mix"), _mark("Night Drive")], "Night Drive")
    assert not only_longer_names([_mark("Night Drive Mix")], None)


def test_a_reused_near_miss_gets_a_second_look(tmp_path: Path) -> None:
    common = ["suite=fixtures", "suite.ids=[tunes-play-playlist]", "seeds=[0,1]",
              "perception=synthetic", "trace.playwright=false"]
    on = run_experiment(tmp_path / "on", common)
    assert on.episodes.success.all(), on.episodes.failure_detail.tolist()
    steps = pd.read_parquet(on.run_dir / "steps.parquet")
    clicks = steps[steps.action == "click"]
    assert (clicks.target_name.str.startswith("Night Drive Playlist")).all()
    assert (steps[(steps.cache == "hit") & (steps.subgoal_action == "click")].coverage_pass).all()
    off = run_experiment(tmp_path / "off", [*common, "agent.coverage=false"])
    assert not off.episodes.success.any()
