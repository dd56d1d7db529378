"""Mistakes a user makes are loud: found before any browser starts where they can be (exit 2, one
paragraph), and named in the trace where they cannot."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from pydantic import ValidationError
from stub_openai import RecordedRequest, StubOpenAI, StubReply

from agents.openai_client import CallBreaker

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


def _free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_model_endpoint_that_is_down_stops_the_run_before_any_browser(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    done = _groundbench("perception=openai", f"perception.client.base_url={url}",
                        "perception.client.model=my-vl", "perception.client.max_retries=0",
                        f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    message = done.stderr.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert (f"the perception model endpoint {url}/chat/completions (model my-vl) did not answer the "
            "request sent before the run: connection: cannot reach") in message
    assert "refused" in message and "perception.preflight=false" in message
    assert not (tmp_path / "run" / "run.json").exists()  # written once the browser is up


def test_a_model_endpoint_that_answers_garbage_stops_the_run_before_any_browser(
        tmp_path: Path) -> None:
    with StubOpenAI() as stub:
        stub.preflight = None  # the preflight meets the endpoint as it is
        for reply, cause in ((StubReply(body=b"<html>502 Bad Gateway</html>"),
                              "bad_response: HTTP 200 with a non-JSON body: '<html>502 Bad Gateway"),
                             (StubReply.text("Sure! I am happy to help."),
                              "bad_response: the reply to the preflight request holds no JSON")):
            stub.responder = lambda request, reply=reply: reply
            done = _groundbench("worker=openai", f"worker.client.base_url={stub.base_url}",
                                f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
            assert done.returncode == 2, done.stderr
            assert f"the worker model endpoint {stub.base_url}/chat/completions (model " \
                   f"Qwen/Qwen2.5-VL-7B-Instruct) did not answer" in done.stderr
            assert cause in done.stderr and "worker.preflight=false" in done.stderr
            assert not (tmp_path / "run" / "run.json").exists()
        assert len(stub.requests) == 2  # one preflight each, nothing after it


def test_the_preflight_asks_each_model_once_and_a_healthy_endpoint_passes() -> None:
    from harness.config import compose_run_config
    from harness.runner import preflight
    with StubOpenAI() as stub:
        cfg, _ = compose_run_config([
            "perception=openai", f"perception.client.base_url={stub.base_url}",
            "perception.client.model=vl-small", "perception.large.model=vl-large",
            "worker=openai", f"worker.client.base_url={stub.base_url}/",
            "worker.client.model=vl-small"])
        asyncio.run(preflight(cfg))
        # the worker's model is the small tier's at the same URL: asked once
        assert [r.json["model"] for r in stub.preflights] == ["vl-small", "vl-large"]
        first = stub.preflights[0]
        assert "Reply with the JSON object" in first.texts()[0]
        assert first.image_urls()[0].startswith("data:image/png;base64,")
        assert not stub.requests
        stub.preflight = StubReply.error(503, "loading")
        off, _ = compose_run_config([
            "perception=openai", f"perception.client.base_url={stub.base_url}",
            "perception.preflight=false"])
        asyncio.run(preflight(off))  # not asked
        assert len(stub.preflights) == 2


def test_the_breaker_opens_after_the_limit_of_failed_calls_in_a_row() -> None:
    opened: list[str] = []
    breaker = CallBreaker(3, on_open=lambda: opened.append(breaker.cause))
    for error in ("http_error: a", "timeout: b", "", "bad_json: c", "http_error: d"):
        breaker.record(error)
    assert not breaker.is_open and breaker.in_row == 2
    breaker.record("timeout: e")
    assert breaker.is_open and opened == [
        "3 model calls in a row failed (first: bad_json: c; last: timeout: e)"]
    breaker.record("")  # open stays open, and says so once
    assert breaker.is_open and len(opened) == 1
    never = CallBreaker(0)
    for _ in range(100):
        never.record("http_error: down")
    assert not never.is_open


def test_an_endpoint_that_goes_down_mid_run_stops_it_and_the_finished_episodes_are_written(
        tmp_path: Path) -> None:
    from test_openai_end_to_end import listing_chooser
    run_dir = tmp_path / "run"

    def model(request: RecordedRequest) -> StubReply:
        # healthy until the first episode is written, then HTTP 500 for good
        if list((run_dir / ".parts").glob("episodes-*.parquet")):
            return StubReply.error(500, "CUDA out of memory")
        return listing_chooser(request)

    with StubOpenAI() as stub:
        stub.responder = model
        done = _groundbench("suite=fixtures", "suite.ids=[shop-coupon]", "seeds=[0,1,2]",
                            "concurrency=1", "worker=openai", f"worker.client.base_url={stub.base_url}",
                            "worker.client.max_retries=0", "max_consecutive_model_failures=3",
                            "trace.playwright=false", f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert ("groundbench: stopped the run: 3 model calls in a row failed (first and last: "
            "http_error: HTTP 500 from") in done.stderr and "CUDA out of memory" in done.stderr
    assert "1 of 3 episodes finished and are written" in done.stderr and "resume=true" in done.stderr
    assert "1/1 episodes succeeded" in done.stdout  # the summary of what was written
    episodes = pd.read_parquet(run_dir / "episodes.parquet")
    assert len(episodes) == 1 and episodes.success.all() and episodes.seed.tolist() == [0]
    steps = pd.read_parquet(run_dir / "steps.parquet")
    assert len(steps) == episodes.steps.sum() > 0
    # No call after the third failure: the second episode stopped, the third never started.
    assert len(stub.requests) == episodes.steps.sum() + 3, len(stub.requests)
