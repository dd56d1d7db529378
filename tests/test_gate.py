"""The CI gate catches a broken build: ci tasks run with a mechanism switched off fail against
the committed baseline (which `make gate` checks main against on every run of `make test`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
BASELINE = Path(__file__).resolve().parent / "baselines" / "ci.json"
# Tasks that need iframe snapping (a same-origin frame, a cross-origin one, a canvas) and three that
# do not (a plain page, a form, a shadow-DOM slider): the gate must name the first three, only them.
SNAPPED = ("iframes-delivery", "crosspay-pay", "canvas-seat-d7")
CONTROLS = ("noop-follow", "forms3-callback", "sliders-volume")


def committed_baseline_for(tasks: tuple[str, ...], path: Path) -> Path:
    """The committed baseline cut to these tasks (and the tags they carry): what the gate holds a
    run of only these tasks to. The overall row stays the whole suite's."""
    baseline = json.loads(BASELINE.read_text())
    baseline["tasks"] = {t: row for t, row in baseline["tasks"].items() if t in tasks}
    baseline["episodes"] = {k: row for k, row in baseline["episodes"].items()
                            if k.rpartition("@")[0] in tasks}
    run_tags = {tag for row in baseline["tasks"].values() for tag in row.get("tags", [])}
    baseline["tags"] = {tag: row for tag, row in baseline["tags"].items() if tag in run_tags}
    path.write_text(json.dumps(baseline))
    return path


def test_gate_fails_when_snapping_is_switched_off(tmp_path: Path) -> None:
    tasks = SNAPPED + CONTROLS
    run = subprocess.run(
        [sys.executable, "-m", "harness", "suite=ci", f"suite.ids=[{','.join(tasks)}]",
         "perception=synthetic", "seeds=[0]", "agent.snapping=false", "trace.playwright=false",
         f"hydra.run.dir={tmp_path / 'run'}"],
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    baseline = committed_baseline_for(tasks, tmp_path / "baseline.json")
    assert sorted(json.loads(baseline.read_text())["tasks"]) == sorted(tasks)
    gate = subprocess.run([sys.executable, "-m", "harness.check", str(tmp_path / "run"), "--baseline",
                           str(baseline), "--config", "full[snapping=false]/synthetic/scripted"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert gate.returncode == 1, gate.stdout[-3000:] + gate.stderr[-1000:]
    regressions = gate.stdout.rpartition("regression(s)")[2].splitlines()
    failed = {line.split(":")[0].split()[1] for line in regressions
              if line.startswith("  task ")}
    assert failed == set(SNAPPED), gate.stdout[-3000:]
    assert "missing from the run" not in gate.stdout
