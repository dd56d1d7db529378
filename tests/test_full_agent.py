"""The full agent over the fixture tasks the gate does not run: it solves them, and with the
navigation guard on no episode sends a single request outside its allowed domains (from the
server's request log)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_experiment

pytestmark = pytest.mark.browser


def test_full_agent_solves_the_fixtures_and_stays_in_scope(tmp_path: Path) -> None:
    # The `ci` tasks (one per fixture case) are the gate's: `make test` runs them with this agent
    # on two seeds and fails on any drop. Here: the rest of the catalogue.
    result = run_experiment(tmp_path, ["suite=fixtures", "suite.exclude_tags=[ci]", "seeds=[0]",
                                       "perception=synthetic", "trace.playwright=false",
                                       "concurrency=3"])
    episodes = result.episodes
    assert len(episodes) >= 15 and not episodes.tags.map(lambda t: "ci" in t).any()
    assert (episodes.out_of_scope_requests == 0).all(), episodes[episodes.out_of_scope_requests > 0]
    assert episodes.success.mean() >= 0.9, episodes[~episodes.success][["task_id", "failure", "failure_detail"]]
