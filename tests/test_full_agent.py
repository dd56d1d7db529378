"""The full agent over every fixture task: it solves the catalogue, and with the navigation guard
on no episode sends a single request outside its allowed domains (from the server's request log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_experiment

pytestmark = pytest.mark.browser


def test_full_agent_solves_the_fixtures_and_stays_in_scope(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, ["suite=fixtures", "seeds=[0]", "perception=synthetic",
                                       "trace.playwright=false", "concurrency=3"])
    episodes = result.episodes
    assert (episodes.out_of_scope_requests == 0).all(), episodes[episodes.out_of_scope_requests > 0]
    assert episodes.success.mean() >= 0.9, episodes[~episodes.success][["task_id", "failure", "failure_detail"]]
