"""The performance benchmarks (harness/bench: overhead, concurrency, memory, peer_browsergym):
the overhead benchmark end to end at its smallest size, and each other benchmark's figures computed
from measured numbers; their real runs at the smallest size are `slow`."""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from synthetic_runs import episode

from harness.bench import concurrency, machine, memory, overhead, peer_browsergym
from harness.traces import TraceWriter

MIB = 2**20
BGYM_PYTHON = Path(os.environ.get("BGYM_PYTHON", "/work/bgym-venv/bin/python"))


def test_machine_facts_and_the_memory_of_a_process_tree() -> None:
    facts = machine.facts()
    assert facts["cpus"] >= 1 and facts["memory_gib"] > 0 and len(facts["load_average"]) == 3
    mem = machine.tree_memory()
    assert 0 < mem["python_rss"] <= mem["tree_rss"] and 0 < mem["tree_pss"] <= mem["tree_rss"]



@pytest.mark.parametrize("interval_s", [None, 0.05])
def test_a_run_is_timed_to_its_exit_sampled_or_not(interval_s: float | None, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    popen = machine.psutil.Popen  # a child that takes 0.4 s stands in for groundbench
    monkeypatch.setattr(machine.psutil, "Popen", lambda args, **kw: popen(
        [sys.executable, "-c", "import time; time.sleep(0.4)"], **kw))
    sampled = machine.run_sampled(["suite=ci"], tmp_path / "run", interval_s=interval_s)
    assert sampled["wall_s"] >= 0.4
    assert (len(sampled["samples"]) > 0) == (interval_s is not None)

@pytest.mark.browser
def test_overhead_at_its_smallest_size(tmp_path: Path) -> None:
    out = tmp_path / "overhead.json"
    assert overhead.main(["--tasks", "filters-region-canada", "--rounds", "1", "--warmup", "0",
                          "--out", str(out)]) == 0
    fig = json.loads(out.read_text())
    assert {"cpus", "memory_gib", "load_average", "browser_version"} <= fig["meta"].keys()
    agents = ["none", "synthetic", "synthetic_capture"]
    assert list(fig["arms"]) == ["floor", "floor_keys", *agents]
    wall = {s["arm"]: s["wall_ms"] for s in fig["samples"]}
    assert all(s["success"] for s in fig["samples"])
    assert "ratio_to_floor" not in fig["arms"]["floor_keys"]  # a baseline, not an agent
    for arm in agents:
        assert fig["arms"][arm]["ratio_to_floor"] == pytest.approx(wall[arm] / wall["floor"])
        assert fig["arms"][arm]["ratio_to_floor_keys"] == pytest.approx(wall[arm] / wall["floor_keys"])
        assert fig["arms"][arm]["agent_steps_per_episode"] >= 2
    assert fig["arms"]["floor"]["ms_per_step"] == pytest.approx(wall["floor"] / 2)  # a 2-step plan
    cpu = {s["arm"]: s["cpu_ms"] for s in fig["samples"]}
    assert all(0 < cpu[arm] < wall[arm] * 2 for arm in cpu)  # this process's CPU, not the browser's
    assert all(fig["arms"][arm]["cpu_ms_per_episode"] == pytest.approx(cpu[arm]) for arm in cpu)
    assert [t["holds"] for t in fig["targets"]] == [wall[arm] / wall["floor"] <= 1.5 for arm in agents]


def _level_run(rnd: int, level: int, rate: float, peak: float, successes: int = 4) -> dict[str, Any]:
    return {"round": rnd, "level": level, "episodes": 4, "successes": successes, "episodes_per_minute": rate,
            "process_episodes_per_minute": rate / 2, "peak_tree_mib": peak, "peak_tree_pss_mib": peak / 2,
            "peak_python_mib": 150.0}


def test_concurrency_speedups_are_same_round_ratios_and_memory_is_a_slope() -> None:
    runs = [_level_run(0, 1, 10.0, 1000), _level_run(0, 2, 16.0, 1300), _level_run(0, 4, 16.4, 1900),
            _level_run(1, 1, 5.0, 1000), _level_run(1, 2, 8.5, 1300), _level_run(1, 4, 8.0, 1900)]
    summary = concurrency.summarise(runs, [1, 2, 4])
    rows = {r["level"]: r for r in summary["rows"]}
    assert rows[2]["speedup"] == pytest.approx(statistics.median([1.6, 1.7]))
    assert rows[4]["speedup"] == pytest.approx(statistics.median([1.64, 1.6]))
    assert rows[1]["episodes_per_minute"] == 7.5
    assert summary["mib_per_concurrent_episode"] == pytest.approx(300)  # 1000 + 300 * (level - 1)
    assert summary["pss_mib_per_concurrent_episode"] == pytest.approx(150)
    # level 4 gains nothing over level 2 (within 5% of the best): 2 is the suggestion
    assert summary["suggested_concurrency"] == 2
    assert "suggested default concurrency: 2" in concurrency.render(summary, {
        **machine.facts(), "suite": "ci", "seeds": 1, "rounds": 2,
        "load_average": {"before": (1, 1, 1), "after": (2, 2, 2)}})
    # a faster level that loses episodes is never suggested
    lossy = [_level_run(0, 1, 10.0, 1000), _level_run(0, 2, 12.0, 1300), _level_run(0, 4, 20.0, 1900, 3)]
    assert concurrency.summarise(lossy, [1, 2, 4])["suggested_concurrency"] == 2


def _sample(t: float, episodes: int, tree_mib: float) -> dict[str, Any]:
    return {"t": t, "episodes": episodes, "python_rss": 150 * MIB, "tree_rss": tree_mib * MIB,
            "tree_pss": tree_mib / 2 * MIB}


def test_memory_growth_compares_readings_after_few_and_many_episodes() -> None:
    samples = [_sample(t, t // 2, 1000 + (100 if t // 2 >= 18 else 0) + (t % 2) * 10) for t in range(42)]
    summary = memory.summarise({"samples": samples}, episodes=20, early=5, window=2)
    assert summary["memory_after_early_mib"]["tree_rss"] == pytest.approx(1005)  # samples at 3..5 done
    assert summary["memory_after_late_mib"]["tree_rss"] == pytest.approx(1100 + 5)
    assert summary["growth"]["tree_rss"] == pytest.approx(1105 / 1005)
    assert summary["growth"]["python_rss"] == pytest.approx(1.0)
    assert summary["peak_mib"]["tree_rss"] == pytest.approx(1110)
    assert summary["episodes_per_minute"] == {"first": pytest.approx(30.0), "last": pytest.approx(30.0)}
    [check] = memory.targets(summary)
    assert check["holds"] is True and check["measured"] == pytest.approx(1105 / 1005)


def test_combining_traces_is_paced_by_its_own_cost(tmp_path: Path) -> None:
    """Every part is on disk as its episode ends; the combined file, which holds them all, is
    rebuilt less often as it gets slower, so a long run does not spend its time combining."""
    writer = TraceWriter(tmp_path, {"config_name": "full"}, combine_every_s=0.0)
    writer.add_episode(episode("full", "a", 0, True, 1, ["ci"]), [])
    assert len(pd.read_parquet(tmp_path / "episodes.parquet")) == 1
    writer._combine_s = 60.0  # as if the last combine had taken a minute
    writer.add_episode(episode("full", "a", 1, True, 1, ["ci"]), [])
    assert len(list((tmp_path / ".parts").glob("episodes-*.parquet"))) == 2
    assert len(pd.read_parquet(tmp_path / "episodes.parquet")) == 1
    writer.combine()
    assert len(pd.read_parquet(tmp_path / "episodes.parquet")) == 2


def test_a_resumed_writer_combines_the_parts_an_earlier_process_left(tmp_path: Path) -> None:
    """The combined files are kept in memory, not reread from the parts: a writer taking a folder
    over (resume=true after a killed run) starts from the parts already there."""
    killed = TraceWriter(tmp_path, {"config_name": "full"}, combine_every_s=3600)
    killed.add_episode(episode("full", "a", 0, True, 1, ["ci"]), [{"step": 0}, {"step": 1}])
    killed.add_episode(episode("full", "b", 0, False, 2, ["ci"]), [{"step": 0}])
    assert not (tmp_path / "episodes.parquet").exists() or \
        len(pd.read_parquet(tmp_path / "episodes.parquet")) < 2  # killed before combining them
    resumed = TraceWriter(tmp_path, {"config_name": "full"}, combine_every_s=3600)
    resumed.add_episode(episode("full", "c", 0, True, 1, ["ci"]), [{"step": 0}])
    resumed.combine()
    episodes = pd.read_parquet(tmp_path / "episodes.parquet")
    assert sorted(episodes.task_id) == ["a", "b", "c"]
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    assert sorted(steps.task_id) == ["a", "a", "b", "c"]


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("bench", ["concurrency", "memory"])
def test_worker_benchmarks_at_their_smallest_size(bench: str, tmp_path: Path) -> None:
    out = tmp_path / f"{bench}.json"
    task = ["--tasks", "filters-region-canada", "--out", str(out)]
    if bench == "concurrency":
        assert concurrency.main([*task, "--levels", "1", "2", "--rounds", "1"]) == 0
        fig = json.loads(out.read_text())
        assert [r["level"] for r in fig["rows"]] == [1, 2] and fig["rows"][0]["speedup"] == 1.0
        assert all(r["peak_tree_mib"] > r["peak_python_mib"] > 0 for r in fig["runs"])
    else:
        assert memory.main([*task, "--episodes", "3", "--early", "1", "--window", "1"]) == 0
        fig = json.loads(out.read_text())
        assert fig["episodes_finished"] == 3 and fig["growth"]["tree_rss"] > 0
        assert fig["growth"]["tree_rss"] == pytest.approx(
            fig["memory_after_late_mib"]["tree_rss"] / fig["memory_after_early_mib"]["tree_rss"])


def _side(rnd: int, side: str, rate: float, obs: float) -> dict[str, Any]:
    return {"round": rnd, "side": side, "episodes": 9, "successes": 9, "episodes_per_minute": rate,
            "observation_ms_per_step": obs}


def test_peer_ratios_are_same_round_ratios() -> None:
    results = [_side(0, "browsergym", 20, 300), _side(0, "groundbench", 100, 150),
               _side(1, "browsergym", 10, 400), _side(1, "groundbench", 40, 100),
               _side(2, "browsergym", 20, 200), _side(2, "groundbench", 140, 100),
               _side(0, "browsergym-per-core", 40, 300), _side(1, "browsergym-per-core", 20, 400),
               _side(2, "browsergym-per-core", 35, 200),
               # one episode at a time: slower, and its observations wait for no other page
               _side(0, "groundbench-sequential", 50, 60), _side(1, "groundbench-sequential", 20, 100),
               _side(2, "groundbench-sequential", 70, 80)]
    summary = peer_browsergym.summarise(results)
    ratios = summary["ratios_groundbench_to_browsergym"]
    assert ratios["episodes_per_minute"] == 5.0 and ratios["observation_ms_per_step"] == 0.25
    assert ratios["observation_ms_per_step_concurrent"] == 0.5
    assert summary["ratios_groundbench_to_browsergym_per_core"]["episodes_per_minute"] == 2.5
    assert summary["sides"]["browsergym"]["episodes_per_minute"] == 20
    assert [c["holds"] for c in peer_browsergym.targets(summary)] == [True, False, True]
    alone = peer_browsergym.summarise([r for r in results if r["side"] == "browsergym"])
    assert [c["holds"] for c in peer_browsergym.targets(alone)] == [None, None, None]


def test_per_core_peer_deals_the_seeds_among_its_processes() -> None:
    assert peer_browsergym.split_seeds([0, 1, 2, 3, 4], 2) == [[0, 2, 4], [1, 3]]
    assert peer_browsergym.split_seeds([0], 2) == [[0]]


def test_peer_chromium_wrapper_execs_the_system_chromium(tmp_path: Path) -> None:
    root = peer_browsergym.chromium_wrapper(tmp_path)
    chrome = root / "chromium-1117" / "chrome-linux" / "chrome"
    text = chrome.read_text()
    assert os.access(chrome, os.X_OK) and text.startswith("#!/bin/sh\nexec ")
    assert "--no-sandbox" in text and '"$@"' in text
    if Path(peer_browsergym.BGYM_BROWSERS["headless-shell"]).is_file():
        shell = peer_browsergym.chromium_wrapper(tmp_path / "shell", "headless-shell")
        assert "chromium-headless-shell " in (shell / "chromium-1117" / "chrome-linux" / "chrome").read_text()


@pytest.mark.slow
@pytest.mark.skipif(not BGYM_PYTHON.is_file(), reason="no BrowserGym venv (make bgym-venv)")
def test_peer_browsergym_side_at_its_smallest_size(tmp_path: Path) -> None:
    out = tmp_path / "peer.json"
    assert peer_browsergym.main(["--only", "browsergym", "--tasks", "click-button", "--seeds", "0",
                                 "--rounds", "1", "--bgym-python", str(BGYM_PYTHON), "--out", str(out)]) == 0
    fig = json.loads(out.read_text())
    [run] = fig["runs"]
    assert run["episodes"] == 1 and run["observations"] == 2  # reset and one step
    assert fig["sides"]["browsergym"]["episodes_per_minute"] == pytest.approx(60 / run["process_s"])
