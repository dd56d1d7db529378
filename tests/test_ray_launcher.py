"""Opt-in (`make test-all`): a sweep on the Ray launcher, on a local Ray instance it starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytestmark = [pytest.mark.ray, pytest.mark.browser]


def test_ablation_sweep_runs_on_a_local_ray_instance(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "-m", "experiment=ablation", "hydra/launcher=ray",
         "suite=fixtures", "suite.ids=[shop-coupon]", "seeds=[0]", "ablate=none,gating",
         "trace.playwright=false", f"hydra.sweep.dir={tmp_path}"],
        capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = {pd.read_parquet(p).config_name.iloc[0] for p in tmp_path.glob("*/episodes.parquet")}
    assert names == {"full/synthetic/scripted", "full[gating=false]/synthetic/scripted"}
