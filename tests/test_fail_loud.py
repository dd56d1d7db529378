"""Mistakes a user makes are loud: found before any browser starts where they can be (exit 2, one
paragraph), and named in the trace where they cannot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_experiment
from pydantic import ValidationError

TASK = """id: my-{name}
site: {site}
start: /{site}/{page}
goal: Press Go.
max_steps: 3
plan:
  - {{action: click, target: Go button, label: Go}}
success:
  - {{path: done, equals: true}}
"""


def _groundbench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("groundbench")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


def _task(folder: Path, name: str, site: str, page: str = "index.html") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(TASK.format(name=name, site=site, page=page))
    return folder


def test_a_task_naming_no_site_folder_is_refused_before_any_browser(tmp_path: Path) -> None:
    tasks = _task(tmp_path / "tasks", "lost", "nosuchsite")
    for command in ([], ["tasks"]):
        done = _groundbench(*command, f"tasks.dirs=[{tasks}]", "suite=fixtures", "suite.ids=[my-*]",
                            f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "'my-lost' names site 'nosuchsite'" in done.stderr and "sites.dirs" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "run" / "episodes.parquet").exists()


def test_a_missing_sites_folder_is_refused_like_a_missing_tasks_folder(tmp_path: Path) -> None:
    for key in ("sites.dirs", "tasks.dirs"):
        done = _groundbench(f"{key}=[{tmp_path / 'no' / 'such'}]", f"hydra.run.dir={tmp_path / 'run'}",
                            cwd=tmp_path)
        assert done.returncode == 2 and "does not exist" in done.stderr, done.stderr
        assert key in done.stderr and "Traceback" not in done.stderr


def test_a_start_page_that_answers_an_error_is_its_own_failure_class(tmp_path: Path) -> None:
    (tmp_path / "sites" / "go").mkdir(parents=True)
    (tmp_path / "sites" / "go" / "index.html").write_text("<button>Go</button>")
    tasks = _task(tmp_path / "tasks", "broken", "go", page="missing.html")
    result = run_experiment(tmp_path / "run", [
        f"tasks.dirs=[{tasks}]", f"sites.dirs=[{tmp_path / 'sites'}]", "suite=fixtures",
        "suite.ids=[my-broken]", "trace.capture=live", "trace.playwright=false"])
    row = result.episodes.iloc[0]
    assert row.failure == "start_page_error" and row.server_errors >= 1
    assert "404" in row.failure_detail


def test_a_mistyped_key_or_group_gets_a_suggestion(tmp_path: Path) -> None:
    for override, suggestion in (("agnet=full", "Did you mean 'agent'?"),
                                 ("agent.gatin=false", "Did you mean 'agent.gating'?"),
                                 ("seed=3", "Did you mean 'seeds'?")):
        done = _groundbench(override, f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
        assert done.returncode == 2 and suggestion in done.stderr, done.stderr
        assert "+agnet" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_output_in_a_log_is_not_wrapped_and_help_names_the_commands(tmp_path: Path) -> None:
    listing = _groundbench("tasks", "suite=ci", cwd=tmp_path)
    assert listing.returncode == 0
    from harness.config import compose_run_config
    from harness.runner import suite_tasks
    longest = max((t for t in suite_tasks(compose_run_config(["suite=ci"])[0])), key=lambda t: len(t.goal))
    assert longest.goal in listing.stdout and len(longest.goal) > 80  # whole, on one line
    helped = _groundbench("--help", cwd=tmp_path)
    for command in ("groundbench tasks", "groundbench-report", "groundbench-check", "policy=",
                    "--config-dir"):
        assert command in helped.stdout


def test_a_backend_without_its_packages_is_refused_with_the_install_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.config import compose_run_config
    compose_run_config(["perception=ocr"])  # installed here: accepted
    monkeypatch.setitem(sys.modules, "cv2", None)  # as if the ocr extra were not installed
    with pytest.raises(ValidationError, match=r"needs cv2.*pip install 'groundbench\[ocr\]'"):
        compose_run_config(["perception=ocr"])


def test_the_proof_takes_the_same_overrides_as_a_run(tmp_path: Path) -> None:
    (tmp_path / "sites" / "go").mkdir(parents=True)
    (tmp_path / "sites" / "go" / "index.html").write_text(
        '<script src="/_gb/gb.js"></script><button onclick="GB.set({done: true})">Go</button>')
    tasks = _task(tmp_path / "tasks", "go", "go")
    with (tasks / "go.yaml").open("a") as f:
        f.write('oracle:\n  - {do: click, selector: "button"}\n')
    proof = [sys.executable, "-m", "harness.proof", "--tasks", "my-*", "--seeds", "0"]
    done = subprocess.run([*proof, f"tasks.dirs=[{tasks}]", f"sites.dirs=[{tmp_path / 'sites'}]",
                           "--out", str(tmp_path / "proof")], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0 and "my-go" in done.stdout, done.stderr
    lost = subprocess.run([*proof, f"tasks.dirs=[{tmp_path / 'nope'}]"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert lost.returncode == 2 and "does not exist" in lost.stderr and "Traceback" not in lost.stderr
