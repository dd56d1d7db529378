"""The scripted worker's simulated decision latency (`worker.latency_ms`): really waited per decision
and recorded as the step's `worker_ms`, so prefetch and gating can be measured against a worker
that takes a model's time."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tests.conftest import run_experiment

TASK = ["suite=fixtures", "suite.ids=[shop-coupon]", "seeds=[0]", "perception=none",
        "trace.playwright=false"]


def test_the_scripted_worker_waits_its_latency_per_decision(tmp_path: Path) -> None:
    slow = run_experiment(tmp_path / "slow", [*TASK, "worker.latency_ms=250"])
    fast = run_experiment(tmp_path / "fast", TASK)
    assert slow.episodes.success.all() and fast.episodes.success.all()
    slow_steps = pd.read_parquet(slow.run_dir / "steps.parquet")
    decided = slow_steps[slow_steps.action != ""]
    assert len(decided) and (decided.worker_ms >= 250).all()
    assert (pd.read_parquet(fast.run_dir / "steps.parquet").worker_ms == 0).all()
    # the waiting happens inside the episode (not beside it): its wall time holds every wait
    # (compared within the slow run: against the fast run's wall time it was at the mercy of load)
    assert slow.episodes.wall_s.iloc[0] >= decided.worker_ms.sum() / 1000
    assert slow.episodes.config_hash.iloc[0] != fast.episodes.config_hash.iloc[0]
