"""Interval statistics used by the report and the CI gate: known values, edge cases, seeding."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.metrics import (
    bootstrap_difference_interval,
    bootstrap_mean_interval,
    compare_proportions,
    explode_tags,
    summarise,
    wilson_interval,
)


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (5, 10, 0.2366, 0.7634),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (1, 1, 0.2065, 1.0),
    (81, 263, 0.2553, 0.3662),
])
def test_wilson_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_wilson_without_episodes_says_nothing_is_known() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_narrows_with_more_episodes_and_lower_confidence() -> None:
    small, large = wilson_interval(8, 10), wilson_interval(80, 100)
    assert large[1] - large[0] < small[1] - small[0]
    l90, h90 = wilson_interval(8, 10, confidence=0.90)
    assert small[0] < l90 and h90 < small[1]


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [0, 1, 2, 3, 4, 5, 6, 7, 8, 20]
    a, b = bootstrap_mean_interval(values, seed=7), bootstrap_mean_interval(values, seed=7)
    assert a == b
    assert a[0] < sum(values) / len(values) < a[1]
    assert bootstrap_mean_interval(values, seed=8) != a


def test_bootstrap_degenerate_inputs() -> None:
    assert bootstrap_mean_interval([3.0]) == (3.0, 3.0)
    assert bootstrap_mean_interval([0, 0, 0]) == (0.0, 0.0)
    low, high = bootstrap_mean_interval([])
    assert math.isnan(low) and math.isnan(high)


def test_bootstrap_difference_sign() -> None:
    low, high = bootstrap_difference_interval([1, 1, 2, 2, 1], [4, 5, 4, 6, 5])
    assert 2 < low < high < 4.5


def test_newcombe_interval_matches_published_example() -> None:
    # Newcombe (1998), method 10: 56/70 against 48/80, difference 0.2 in [0.0524, 0.3339].
    change = compare_proportions(48, 80, 56, 70)
    assert change.delta == pytest.approx(0.2)
    assert (change.delta_low, change.delta_high) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert change.significant


def test_gate_rule_one_failure_of_an_always_passing_task_drops() -> None:
    assert compare_proportions(1, 1, 0, 1).dropped
    assert not compare_proportions(1, 1, 1, 1).dropped
    # 10/10 has Wilson lower bound 0.72: 8/10 is within the interval, 7/10 is not.
    assert not compare_proportions(10, 10, 8, 10).dropped
    assert compare_proportions(10, 10, 7, 10).dropped
    # A task that never passed cannot drop.
    assert not compare_proportions(0, 3, 0, 3).dropped


def test_improvement_is_flagged_not_dropped() -> None:
    change = compare_proportions(0, 10, 9, 10)
    assert change.improved and not change.dropped


def test_summarise_and_tags() -> None:
    eps = pd.DataFrame({
        "config_name": ["a", "a", "a", "b"], "success": [True, True, False, False],
        "vision_calls": [2, 4, 0, 0], "wall_s": [1.0, 1.0, 1.0, 2.0], "steps": [2, 2, 2, 1],
        "tags": [["smoke", "iframe-same"], ["ci"], ["dense", "ci"], []],
    })
    table = summarise(eps, "config_name").set_index("config_name")
    assert table.loc["a", "success_rate"] == pytest.approx(2 / 3)
    assert table.loc["a", "vision_calls"] == pytest.approx(2.0)
    assert table.loc["b", "episodes"] == 1
    assert table.loc["b", "vision_calls_low"] == table.loc["b", "vision_calls_high"] == 0
    assert sorted(explode_tags(eps)["tag"]) == ["dense", "iframe-same"]
