"""The gating trade-off analysis (harness.bench.gating_tradeoff) on a small sweep built with the
real trace writer, no browser: vision calls full against naive, naive's one call per action,
wrong-target actions with gating on, and prefetch's wall time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from synthetic_runs import episode

from harness.bench import gating_tradeoff
from harness.traces import TraceWriter
from tasks.trace import StepRecord

TAIL = "synthetic/scripted"
LONG = ["long-shopping", "ci"]


def step(i: int, action: str = "click", path: str = "declarative", effective: bool = True,
         calls: int | None = None, decisions: int = 1) -> dict[str, Any]:
    calls = (1 if path == "declarative" else 0) if calls is None else calls
    return StepRecord(step=i, subgoal_index=i, subgoal_action=action or "click", action=action,
                      path=path, effective=effective, vision_calls=calls,
                      vision_call=calls > 0, decisions=decisions).model_dump()


def write_config(sweep: Path, num: int, name: str, gating: bool, prefetch: bool,
                 episodes: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
    meta = {"config_name": name, "config": {"agent": {"name": name.split("[")[0].split("/")[0],
                                                      "gating": gating, "prefetch": prefetch}}}
    writer = TraceWriter(sweep / str(num), meta)
    for row, steps in episodes:
        row = {**row, "steps": len(steps),
               "vision_calls": sum(s["vision_calls"] for s in steps)}
        writer.add_episode(row, steps)
    writer.combine()


def shopping(config: str, seed: int, success: bool, calls: int, wall_s: float,
             actions: int = 20, extra: Sequence[dict[str, Any]] = (), ahead: int = 0) -> tuple[dict, list[dict]]:
    """A long-shopping episode: `actions` clicks of which the first `calls` perceive, each one
    decision of the worker, the first `ahead` two."""
    steps = [step(i, path="declarative" if i < calls else "procedural", decisions=1 + (i < ahead))
             for i in range(actions)]
    steps += [step(actions + j, **e) for j, e in enumerate(extra)]
    return episode(config, "mall-weekend-order", seed, success, 0, LONG, wall_s=wall_s), steps


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gt")
    naive, full = f"naive/{TAIL}", f"full/{TAIL}"
    nopf, nogate = f"full[prefetch=false]/{TAIL}", f"full[gating=false]/{TAIL}"
    write_config(root, 0, naive, False, False, [
        shopping(naive, 0, True, 20, 9.0),
        shopping(naive, 1, True, 20, 9.5),
        # A scroll and a wait cost no vision call and are not actions; a step that found no
        # target perceived but did not act: 21 calls for 20 actions.
        shopping(naive, 2, False, 20, 10.0, extra=[{"action": "scroll", "calls": 0},
                                                   {"action": "wait", "calls": 0},
                                                   {"action": "", "calls": 1, "effective": False}]),
    ])
    write_config(root, 1, full, True, True, [
        # prefetch's decisions made ahead and dropped: one more model call on some steps
        shopping(full, 0, True, 6, 11.0, ahead=3),
        shopping(full, 1, True, 7, 12.0, ahead=4),
        shopping(full, 2, True, 5, 10.0, ahead=2),
        # churn: one procedural click that changed nothing, one that worked.
        (episode(full, "results-blue-kettle", 0, True, 0, ["churn", "ci"]),
         [step(0), step(1, "wait", "", calls=0), step(2, path="procedural", effective=False),
          step(3, path="procedural")]),
        # moving: the plan ran through, the server state is wrong: both procedural actions count.
        (episode(full, "moving-sticky-review", 0, False, 0, ["moving", "ci"]),
         [step(0), step(1, path="procedural"), step(2, "type", "procedural"),
          step(3, effective=False)]),
        (episode(full, "moving-lazy-list", 0, True, 0, ["moving"]),
         [step(0, "scroll", "", calls=0), step(1), step(2, path="procedural")]),
    ])
    write_config(root, 2, nopf, True, False, [
        shopping(nopf, 0, True, 6, 14.0),
        shopping(nopf, 1, True, 6, 16.0),
        shopping(nopf, 2, True, 6, 15.0),
    ])
    write_config(root, 3, nogate, False, True, [
        shopping(nogate, 0, True, 20, 12.0),
        (episode(nogate, "results-blue-kettle", 0, False, 0, ["churn", "ci"]),
         [step(0), step(1, effective=False)]),
    ])
    return root


def test_long_shopping_full_against_naive(sweep: Path) -> None:
    fig = gating_tradeoff.analyse(sweep)["by_tail"][TAIL]["long_shopping"]
    assert fig["full_median_vision_calls"] == 6 and fig["naive_median_vision_calls"] == 20
    assert fig["full_calls_in_seed_range"] is True
    assert fig["full_success"]["successes"] == 3 and fig["naive_success"]["successes"] == 2
    assert fig["success_change"]["delta"] == pytest.approx(1 / 3)
    assert fig["success_change"]["full_below_naive_interval"] is False
    npa = fig["naive_calls_per_action"]
    assert (npa["episodes"], npa["one_call_per_action"]) == (3, 2)
    assert (npa["vision_calls"], npa["actions"]) == (61, 60)
    assert [p["vision_calls"] - p["actions"] for p in npa["per_episode"]] == [0, 0, 1]


def test_wrong_target_actions_count_procedural_steps_with_gating_on(sweep: Path) -> None:
    rows = gating_tradeoff.analyse(sweep)["by_tail"][TAIL]["wrong_targets"]
    # full[gating=false] has gating off in its resolved config: not counted at all.
    assert {r["config"] for r in rows} == {f"full/{TAIL}"}
    by = {(r["config"], r["tag"]): r for r in rows}
    churn, moving = by[(f"full/{TAIL}", "churn")], by[(f"full/{TAIL}", "moving")]
    assert (churn["procedural_actions"], churn["wrong_target_actions"], churn["not_effective"]) == (2, 1, 1)
    assert (moving["procedural_actions"], moving["wrong_target_actions"]) == (3, 2)
    assert (moving["in_wrong_target_episode"], moving["not_effective"]) == (2, 0)
    assert (moving["declarative_actions"], moving["declarative_not_effective"]) == (3, 1)
    assert (f"full[prefetch=false]/{TAIL}", "churn") not in by  # no churn episode ran there


def test_prefetch_wall_time_and_the_printed_report(sweep: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fig.json"
    assert gating_tradeoff.main([str(sweep), "--json", str(out)]) == 0
    figs = json.loads(out.read_text())["by_tail"][TAIL]["prefetch"]
    fig = figs["long-shopping"]
    assert (fig["median_wall_s_on"], fig["median_wall_s_off"]) == (11.0, 15.0)
    assert fig["ratio_on_off"] == pytest.approx(11 / 15)
    assert (fig["median_decisions_on"], fig["median_decisions_off"]) == (23.0, 20.0)
    assert figs["long-flow"]["ratio_on_off"] is None  # no long-flow episode in this sweep
    text = capsys.readouterr().out
    assert "median vision calls  full 6.0  naive 20.0" in text
    assert "naive one call per action: 2/3 episodes (61 calls / 60 targeted actions" in text
    assert ("long-shopping median wall time: prefetch on 11.00 s, off 15.00 s, on/off = 0.73; "
            "worker decisions per episode on 23.0, off 20.0") in text
    assert "long-flow median wall time: prefetch on missing s" in text


def test_missing_configs_are_reported_as_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = f"full/{TAIL}"
    write_config(tmp_path, 0, name, True, True, [shopping(name, 0, True, 6, 11.0)])
    fig = gating_tradeoff.analyse(tmp_path)["by_tail"][TAIL]
    assert fig["long_shopping"]["naive_median_vision_calls"] is None
    assert fig["long_shopping"]["naive_calls_per_action"] == {"episodes": 0}
    assert fig["prefetch"]["long-shopping"]["ratio_on_off"] is None
    assert gating_tradeoff.main([str(tmp_path)]) == 0
    assert "on/off = missing" in capsys.readouterr().out


def test_a_folder_without_traces_is_a_usage_error(tmp_path: Path) -> None:
    assert gating_tradeoff.main([str(tmp_path)]) == 2


def test_full_calls_by_cause_beside_the_pages_acted_on(tmp_path: Path) -> None:
    # Two pages, then a third after a text change on the second: 3 calls after navigation (the
    # epoch ended), 1 forced by the text; the scroll on page 3 is no targeted action.
    full = f"full/{TAIL}"

    def at(i: int, url: str, reason: str = "", action: str = "click") -> dict[str, Any]:
        return {**step(i, action, "declarative" if reason else "procedural"), "url": url,
                "miss_reason": reason}

    steps = [at(0, "/a", "no_epoch"), at(1, "/a"), at(2, "/b", "no_epoch"), at(3, "/b", "text"),
             at(4, "/b"), at(5, "/c", "no_epoch"), {**at(6, "/c"), "action": "scroll"}]
    write_config(tmp_path, 0, full, True, True,
                 [(episode(full, "mall-weekend-order", 0, True, 0, LONG), steps)])
    fig = gating_tradeoff.analyse(tmp_path)["by_tail"][TAIL]["long_shopping"]["full_calls_by_cause"]
    assert fig == {"episodes": 1, "median_calls_by_cause": {"no_epoch": 3.0, "text": 1.0},
                   "median_pages_acted_on": 3.0}
    assert "no_epoch 3, text 1; pages acted on 3" in gating_tradeoff.render(gating_tradeoff.analyse(tmp_path))
