"""The package runs anywhere: the wheel, installed into a fresh virtual environment, runs the
README's CI recipe from a folder outside the checkout (configs, sites and tasks ship inside it).

The fresh environment borrows the dev environment's dependencies through a .pth line (the same
pinned packages, no second download); groundbench itself comes only from the wheel."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
GATE_TASKS = "suite.ids=[iframes-delivery,sliders-volume,canvas-seat-d7,noop-follow]"
EXAMPLES = {
    "policy": ["policy=custom", "policy._target_=examples.policies.text_match.TextMatch"],
    "browsergym": ["policy=custom", "policy._target_=examples.browsergym_agent.KeywordAgent"],
    "perception": ["perception=custom", "perception._target_=examples.perception.blocks.Blocks"],
    "mechanism": ["hydra.searchpath=[file://examples/conf]", "experiment=keep_away",
                  "perception=synthetic"],
}


def _readme_ci_recipe() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    after = readme[readme.index("In your own CI"):]
    block = re.search(r"```sh\n(.*?)```", after, re.DOTALL)
    assert block is not None, "README's CI recipe is gone"
    return [line for line in block.group(1).splitlines() if line.strip()]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{shlex.join(args)}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


@pytest.mark.browser
def test_the_wheel_runs_the_readme_ci_recipe_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          str(ROOT), "-w", str(dist)], cwd=tmp_path)
    wheel = next(dist.glob("groundbench-*.whl"))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "dev-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = tmp_path / "my-agent-repo"
    work.mkdir()
    bin_dir = venv / "bin"
    recipe = _readme_ci_recipe()
    assert recipe[0].startswith("pip install groundbench-") and recipe[0].endswith(".whl")
    _run([str(bin_dir / "pip"), "install", "-q", "--no-deps", str(wheel)], cwd=work)
    found = _run([str(bin_dir / "python"), "-c", "import harness; print(harness.__file__)"], cwd=work)
    assert str(venv) in found.stdout  # the wheel's copy, not the checkout's
    gate, check = recipe[1], recipe[2]
    assert gate.startswith("groundbench suite=ci") and check.startswith("groundbench-check")
    # The recipe's own command on four of its tasks (a frame, a shadow root, a canvas, a plain
    # page): what is tested here is that the installed package runs it; `make gate` runs all of it.
    _run([*shlex.split(gate.replace("groundbench", str(bin_dir / "groundbench"), 1)), GATE_TASKS],
         cwd=work)
    baseline = shlex.split(check)[3]
    _run([str(bin_dir / "groundbench-check"), "runs/gate", "--baseline", baseline, "--update"],
         cwd=work)  # the first time: the baseline the team then commits
    _run(shlex.split(check.replace("groundbench-check", str(bin_dir / "groundbench-check"), 1)),
         cwd=work)
    _run([str(bin_dir / "groundbench-report"), "runs/gate"], cwd=work)
    assert (work / "runs" / "gate" / "episodes.parquet").is_file()

    # A config folder of the user's own goes on top of the packaged one.
    (work / "conf" / "suite").mkdir(parents=True)
    (work / "conf" / "suite" / "mine.yaml").write_text(
        "name: mine\nids: [noop-follow]\ntags: []\nexclude_tags: []\n")
    _run([str(bin_dir / "groundbench"), "--config-dir", "conf", "suite=mine", "trace.playwright=false",
          "hydra.run.dir=runs/mine"], cwd=work)
    assert len(pd.read_parquet(work / "runs" / "mine" / "episodes.parquet")) == 1

    # The examples, copied beside the user's code, run against the installed package.
    shutil.copytree(ROOT / "examples", work / "examples")
    env = {**os.environ, "PYTHONPATH": str(work)}
    for name, override in EXAMPLES.items():
        args = [str(bin_dir / "groundbench"), *override, "suite=fixtures", "suite.ids=[noop-follow]",
                "trace.playwright=false", f"hydra.run.dir=runs/{name}"]
        done = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
        _run([str(bin_dir / "groundbench-report"), f"runs/{name}"], cwd=work)
        _run([str(bin_dir / "groundbench-check"), f"runs/{name}", "--baseline",
              f"{name}.json", "--update"], cwd=work)
