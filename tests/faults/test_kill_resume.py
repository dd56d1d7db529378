"""The whole run killed with SIGKILL mid-sweep: every parquet file left on disk is readable, and
`resume=true` into the same folder runs exactly the missing episodes, each (task, seed) once, and
deletes the temporary files the killed run left mid-write."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from faultkit import descendants

from harness.traces import PARTS

pytestmark = pytest.mark.browser

TASKS, SEEDS = ["shop-coupon"], [0, 1, 2, 3]


def groundbench(run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "harness", "suite=fixtures", f"suite.ids=[{','.join(TASKS)}]",
            f"seeds=[{','.join(map(str, SEEDS))}]", "concurrency=2", "trace.playwright=false",
            f"hydra.run.dir={run_dir}", *extra]


def parts(run_dir: Path) -> set[str]:
    return {p.name for p in (run_dir / PARTS).glob("episodes-*.parquet")}


def test_sigkill_mid_sweep_then_resume_runs_exactly_the_missing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(groundbench(run_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    tree: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / PARTS).is_dir() or not parts(run_dir):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-2000:]
            time.sleep(0.05)
        tree = descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        # Playwright starts Chromium in a process group of its own: kill the run's whole tree.
        for pid in [proc.pid, *tree]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    before = parts(run_dir)
    assert 0 < len(before) < len(TASKS) * len(SEEDS)
    for path in run_dir.rglob("*.parquet"):
        pq.read_table(path)  # none is half-written

    # The kill may land mid-write; a planted leftover stands for one when it did not.
    (run_dir / PARTS / ".episodes-killed.parquet.1.tmp").write_bytes(b"PAR1 half-written")
    resumed = subprocess.run(groundbench(run_dir, "resume=true"), capture_output=True, text=True,
                             timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    missing = len(TASKS) * len(SEEDS) - len(before)
    printed = " ".join(resumed.stdout.split())  # the console wraps long lines
    assert f"resume: {len(before)} episodes already in {run_dir}, {missing} to run" in printed
    after = parts(run_dir)
    assert not list(run_dir.rglob("*.tmp")), "resume leaves no unfinished file of the killed run"
    assert before < after and len(after - before) == missing
    episodes = pq.read_table(run_dir / "episodes.parquet").to_pandas()
    assert sorted(zip(episodes.task_id, episodes.seed)) == sorted((t, s) for t in TASKS for s in SEEDS)
    assert episodes.success.all(), episodes[["task_id", "seed", "failure", "failure_detail"]]
