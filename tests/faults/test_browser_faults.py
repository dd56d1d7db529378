"""Real browser faults in a real sweep: the Chromium process killed mid-episode, a page that never
finishes loading and a page that spins its main thread. Each ends its own episode with the right
failure class and the sweep goes on with every other episode written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_experiment
from faultkit import TriggerServer, fault_suite, kill_browsers

pytestmark = pytest.mark.browser
# Long enough for a live step on a loaded 2-core machine, short enough to keep the test quick.
HEARTBEAT = 6


def test_killed_browser_ends_one_episode_and_is_relaunched(tmp_path: Path) -> None:
    killed: list[int] = []

    def kill_once(path: str) -> None:
        if path == "/crash" and not killed:
            killed.extend(kill_browsers(os.getpid()))

    with TriggerServer(kill_once) as trigger:
        result = run_experiment(tmp_path / "run", [
            *fault_suite(tmp_path, trigger), "suite=fixtures", "suite.ids=[fault-crash,shop-coupon]",
            "seeds=[0,1]", "concurrency=1", "trace.playwright=false"])
    eps = result.episodes.set_index(["task_id", "seed"]).sort_index()
    assert len(killed) == 1 and trigger.paths == ["/crash", "/crash"]
    assert len(eps) == 4 and not eps.index.duplicated().any()
    crashed = eps[eps.failure != ""]
    assert list(crashed.index) == [("fault-crash", 0)], eps[["failure", "failure_detail"]]
    assert crashed.failure.iloc[0] == "browser_crash"
    # The same crash page on the relaunched browser, and the other task on both seeds, succeed.
    assert eps.drop(index=[("fault-crash", 0)]).success.all()


def test_heartbeat_ends_hung_pages_and_the_worker_recovers(tmp_path: Path) -> None:
    with TriggerServer(stall=("/never",)) as trigger:
        result = run_experiment(tmp_path / "run", [
            *fault_suite(tmp_path, trigger), "suite=fixtures",
            "suite.ids=[fault-never,fault-spin,shop-coupon]", "concurrency=1",
            f"heartbeat_s={HEARTBEAT}", "trace.capture=live"])
        assert trigger.paths == ["/never"]
    eps = result.episodes.set_index("task_id")
    for hung in ("fault-never", "fault-spin"):
        assert eps.failure[hung] == "timeout", eps[["failure", "failure_detail"]]
        assert eps.failure_detail[hung] == f"no step finished for {HEARTBEAT} s"
        assert HEARTBEAT <= eps.wall_s[hung] < HEARTBEAT + 10
    # Run after both hung episodes, on the same browser and Playwright connection.
    assert eps.started_at["shop-coupon"] > eps.started_at[["fault-never", "fault-spin"]].max()
    assert eps.success["shop-coupon"], eps.failure_detail["shop-coupon"]
    assert sorted(p.name for p in (result.run_dir / "playwright").iterdir()) == sorted(
        f"{e}.zip" for e in eps.episode_id[["fault-never", "fault-spin"]])
