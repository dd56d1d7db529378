"""Experiment files compose and run, sweeps resume without repeating work, and a rerun with the
same seed reproduces the same per-step trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import compose_config, run_experiment

from harness.cli import derived_name

EXPERIMENTS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "conf" / "experiment").glob("*.yaml"))
STEP_COLUMNS = ["task_id", "seed", "step", "subgoal_index", "path", "vision_calls", "tier", "candidates",
                "unmatched", "action", "ref", "route", "target_name", "effective", "effect", "error_type"]


def groundbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          timeout=600, check=False)


# Experiments that measure (over the fixtures, 5 seeds or more, an ablation axis); the first look
# is a quick demonstration on the smoke tasks (tested on its own below).
MEASURING = [name for name in EXPERIMENTS if name != "first_look"]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_composes(name: str) -> None:
    cfg, resolved = compose_config([f"experiment={name}"])
    assert cfg.perception.name == "synthetic"
    if name in MEASURING:
        assert len(cfg.seeds) >= 5 and resolved["suite"]["name"] in ("fixtures", "efficiency")


@pytest.mark.parametrize("name", MEASURING)
def test_experiment_composes_on_the_slurm_launcher(name: str) -> None:
    from hydra import compose, initialize_config_dir

    from harness.cli import CONF

    with initialize_config_dir(config_dir=CONF, version_base="1.3"):
        cfg = compose(config_name="config", return_hydra_config=True,
                      overrides=[f"experiment={name}", "hydra/launcher=submitit_slurm",
                                 "hydra.launcher.partition=cpu"])
    assert cfg.hydra.launcher._target_.endswith("SlurmLauncher")
    assert "none" in cfg.hydra.sweeper.params.ablate


def test_every_switch_has_an_ablation_and_the_ablation_sweep_runs_each() -> None:
    from hydra import compose, initialize_config_dir

    from agents.agent import AgentConfig
    from harness.cli import CONF

    switches = {name for name, f in AgentConfig.model_fields.items() if f.annotation is bool}
    files = {p.stem for p in (Path(CONF) / "ablate").glob("*.yaml")} - {"none", "naive"}
    assert files == switches
    with initialize_config_dir(config_dir=CONF, version_base="1.3"):
        cfg = compose(config_name="config", return_hydra_config=True, overrides=["experiment=ablation"])
    assert set(cfg.hydra.sweeper.params.ablate.split(",")) == switches | {"none"}


def test_derived_names_say_which_switch_is_off() -> None:
    _, resolved = compose_config(["perception=synthetic", "ablate=gating"])
    assert derived_name(resolved, ["ablate=gating"], "gating") == "full[gating=false]/synthetic/scripted"
    _, resolved = compose_config(["ablate=naive"])
    assert derived_name(resolved, [], "naive") == "naive/none/scripted"
    _, resolved = compose_config(["agent.snapping=false"])
    assert derived_name(resolved, ["agent.snapping=false"], "none") == "full[snapping=false]/none/scripted"
    _, resolved = compose_config(["agent.snapping=True"])
    assert derived_name(resolved, ["agent.snapping=True"], "none") == "full/none/scripted"
    _, resolved = compose_config(["agent=naive", "agent.gating=true"])
    assert derived_name(resolved, ["agent.gating=true"], "none") == "naive[gating=true]/none/scripted"


@pytest.mark.browser
def test_experiment_smoke_runs_as_a_sweep(tmp_path: Path) -> None:
    # Every experiment composes (above); one runs for real as a sweep on the joblib launcher.
    proc = groundbench("-m", "experiment=ablation", "suite=fixtures", "suite.ids=[shop-coupon]",
                       "seeds=[0]", "ablate=none,gating", "hydra.launcher.n_jobs=2",
                       "perception.latency_ms={small:0,large:0}", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    runs = sorted(tmp_path.glob("*/episodes.parquet"))
    assert len(runs) == 2
    names = {pd.read_parquet(r).config_name.iloc[0] for r in runs}
    assert names == {"full/synthetic/scripted", "full[gating=false]/synthetic/scripted"}


@pytest.mark.browser
def test_resume_runs_only_the_missing_episodes(tmp_path: Path) -> None:
    base = ["suite=fixtures", "suite.ids=[shop-coupon,shop-region-filter]", f"hydra.run.dir={tmp_path}"]
    assert groundbench(*base, "seeds=[0]").returncode == 0
    first = pd.read_parquet(tmp_path / "episodes.parquet")
    refused = groundbench(*base, "seeds=[0,1]")
    assert refused.returncode == 2 and "resume=true" in refused.stderr
    proc = groundbench(*base, "seeds=[0,1]", "resume=true")
    assert proc.returncode == 0, proc.stderr[-2000:]
    both = pd.read_parquet(tmp_path / "episodes.parquet")
    assert len(both) == 4 and both.groupby(["task_id", "seed"]).size().max() == 1
    assert set(first.episode_id) <= set(both.episode_id)  # the first run's episodes were kept, not redone


@pytest.mark.browser
def test_same_seed_reproduces_the_same_steps(tmp_path: Path) -> None:
    overrides = ["suite=fixtures", "suite.ids=[shop-*,checkout-*]", "seeds=[0]", "perception=synthetic",
                 "agent.prefetch=false"]
    a = run_experiment(tmp_path / "a", overrides)
    b = run_experiment(tmp_path / "b", overrides)
    steps_a = pd.read_parquet(a.run_dir / "steps.parquet")[STEP_COLUMNS].sort_values(["task_id", "seed", "step"])
    steps_b = pd.read_parquet(b.run_dir / "steps.parquet")[STEP_COLUMNS].sort_values(["task_id", "seed", "step"])
    pd.testing.assert_frame_equal(steps_a.reset_index(drop=True), steps_b.reset_index(drop=True))


def test_the_first_look_shows_vision_calls_against_success(tmp_path: Path) -> None:
    # What `make run` runs on a fresh clone: full and naive side by side, then the report's table.
    proc = groundbench("-m", "experiment=first_look", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr
    report = subprocess.run([str(Path(sys.executable).with_name("groundbench-report")), str(tmp_path)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert report.returncode == 0, report.stderr
    lines = report.stdout.splitlines()
    full = next(line for line in lines if line.startswith("full/synthetic/scripted"))
    naive = next(line for line in lines if line.startswith("naive/synthetic/scripted"))
    assert float(full.split()[-1]) < float(naive.split()[-1])  # gating and prefetch save calls
    assert (tmp_path / "report" / "pareto.png").is_file() and "Pareto plot:" in report.stdout
