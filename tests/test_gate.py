"""The CI gate catches a broken build: the ci suite with a mechanism switched off fails against
the committed baseline (which `make gate` checks main against on every run of `make test`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
BASELINE = Path(__file__).resolve().parent / "baselines" / "ci.json"


def test_gate_fails_when_snapping_is_switched_off(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "harness", "suite=ci", "perception=synthetic", "seeds=[0]",
         "agent.snapping=false", "trace.playwright=false", f"hydra.run.dir={tmp_path}"],
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    gate = subprocess.run([sys.executable, "-m", "harness.check", str(tmp_path), "--baseline", str(BASELINE),
                           "--config", "full[snapping=false]/synthetic/scripted"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert gate.returncode == 1, gate.stdout[-3000:] + gate.stderr[-1000:]
    for task in ("iframes-delivery", "crosspay-pay", "canvas-seat-d7"):
        assert task in gate.stdout
