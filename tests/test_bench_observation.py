"""The observation-cost benchmark (harness.bench.observation_cost) at a tiny size, in a real
browser: its JSON carries every measurement, ratios computed from the measured samples, the scope
each step read (the viewport for a target in view, the whole document for one below the fold),
and a verdict per target."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from harness.bench import observation_cost

pytestmark = pytest.mark.browser


def test_observation_cost_bench_reports_same_run_ratios(tmp_path: Path) -> None:
    out = tmp_path / "oc.json"
    assert observation_cost.main(["--sizes", "600", "--repeats", "1", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert row["elements"] > 500 and row["below_fold"] > 0
    assert row["scope"] == {"observation": "viewport", "observation_offscreen": "document"}
    samples = data["samples"]["600"]
    for kind in observation_cost.KINDS[1:]:
        ratio = statistics.median(v / s for v, s in zip(samples[kind], samples["screenshot"], strict=True))
        assert row[f"{kind}_ratio"] == pytest.approx(ratio)
    assert set(row["parts_ms"]) == set(observation_cost.PARTS)
    verdicts = {t["target"]: t for t in data["targets"]}
    obs = verdicts["observation / screenshot <= 2 at 600 elements"]
    assert obs["measured"] == row["observation_ratio"] and obs["holds"] == (row["observation_ratio"] <= 2)
