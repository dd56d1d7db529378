"""Security: the navigation guard holds against every off-domain bait (judged from the browser
context's own request log and the fixture server's), the fixture server binds loopback only and
refuses path traversal, the agent's action vocabulary has nothing that runs page JavaScript, and an
API key never reaches any output file."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import run_experiment
from pydantic import TypeAdapter, ValidationError
from stub_openai import StubOpenAI, StubReply

import harness.episode
from agents.actions import Action, AnyAction, Navigate
from agents.marks import Mark
from agents.navigation_guard import content_policy
from agents.observation import Box
from agents.worker.openai_worker import InvalidReply, check_reply
from sites.server import FixtureServer

BAITS = {  # task id: (start page, the bait described in words, its label)
    "bait-portal": ("/offdomain/index.html", "Download invoice #1042 (secure portal) link",
                    "Download invoice #1042 (secure portal)"),
    "bait-track": ("/offdomain/index.html", "Track parcel link among the order actions", "Track parcel"),
    "bait-fast-mirror": ("/offdomain/downloads.html", "Download report.csv (fast mirror) link",
                         "Download report.csv (fast mirror)"),
    "bait-cdn": ("/offdomain/downloads.html", "Download report.csv link in the Global CDN row",
                 "Download report.csv"),
    # Not a link: the page's own image request, redirected to the third origin on load.
    "bait-logo": ("/offdomain/receipt.html", "Email receipt button", "Email receipt"),
}


def bait_tasks(folder: Path) -> Path:
    """One task per bait of the off-domain fixture whose plan takes the bait."""
    folder.mkdir(parents=True)
    for task_id, (start, target, label) in BAITS.items():
        (folder / f"{task_id}.yaml").write_text(
            f"id: {task_id}\nsite: offdomain\nstart: {start}\ngoal: Follow the link.\nmax_steps: 2\n"
            f"allowed_domains: [main, alt]\nplan:\n  - {{action: click, target: '{target}', "
            f"label: '{label}'}}\nsuccess:\n  - {{path: offsite.visited, exists: false}}\n")
    return folder


@pytest.mark.browser
@pytest.mark.parametrize("seeds", [pytest.param([0], id="seed0"),
                                   pytest.param(list(range(1, 10)), id="seeds1-9", marks=pytest.mark.slow)])
def test_navigation_guard_holds_against_every_bait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   seeds: list[int]) -> None:
    requested, answered, offsite = [], [], set()
    real = harness.episode.new_episode_context

    async def logged(browser: Any, settings: Any, origins: dict[str, str], *args: Any) -> Any:
        # The browser context's own log of what it requested and what was answered.
        context = await real(browser, settings, origins, *args)
        offsite.add(origins["offsite"])
        context.on("request", lambda r: requested.append(r.url))
        context.on("response", lambda r: answered.append(r.url))
        return context

    monkeypatch.setattr(harness.episode, "new_episode_context", logged)
    result = run_experiment(tmp_path / "run", [
        "suite=fixtures", "suite.ids=[bait-*]", f"tasks.dirs=[{bait_tasks(tmp_path / 'tasks')}]",
        f"seeds=[{','.join(map(str, seeds))}]", "trace.playwright=false"])
    eps, steps = result.episodes, pd.read_parquet(result.run_dir / "steps.parquet")
    assert len(eps) == len(BAITS) * len(seeds)
    # Every bait was taken (so the guard had something to stop) ...
    assert (steps.groupby(["task_id", "seed"]).blocked_navigation.sum() > 0).all(), steps[
        ["task_id", "seed", "target_name", "blocked_navigation", "error"]]
    assert any(url.startswith(tuple(offsite)) for url in requested)  # a direct link was attempted
    # ... and nothing answered from outside the allowed origins: not in the browser's log, not in
    # the fixture server's, and the off-domain pages never recorded a visit.
    assert not [url for url in answered if url.startswith(tuple(offsite))]
    assert (eps.out_of_scope_requests == 0).all() and eps.success.all(), eps[["task_id", "failure_detail"]]


def test_fixture_server_listens_on_loopback_only(server: FixtureServer) -> None:
    ports = {int(o.rsplit(":", 1)[1]) for o in server.origins.values()}
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.rsplit(":", 1)
            if state == "0A" and int(port, 16) in ports:  # 0A: LISTEN
                listening.add(address)
    assert listening == {"0100007F"}  # 127.0.0.1, nothing on 0.0.0.0 or ::
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect(("10.255.255.255", 1))  # no packet is sent; picks the outward interface
    outward = probe.getsockname()[0]
    probe.close()
    # The socket table above is the proof; where the machine has an outward address, a connection
    # to it is refused as well.
    for port in ports if not outward.startswith("127.") else ():
        with pytest.raises(OSError), socket.create_connection((outward, port), timeout=2):
            pass


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture(scope="module")
def escape_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FixtureServer]:
    """A fixture server whose site `escape` holds symlinks to a file and a folder outside it."""
    tmp = tmp_path_factory.mktemp("escape")
    (tmp / "outside").mkdir()
    (tmp / "outside" / "secret.txt").write_text("secret")
    (tmp / "sites" / "escape").mkdir(parents=True)
    (tmp / "sites" / "escape" / "secret.txt").symlink_to(tmp / "outside" / "secret.txt")
    (tmp / "sites" / "escape" / "link").symlink_to(tmp / "outside")
    (tmp / "sites" / "escape" / "loop").symlink_to(tmp / "sites" / "escape" / "loop")
    with FixtureServer([tmp / "sites"]) as server:
        yield server


@pytest.mark.parametrize("path", [
    "/shop/..%2f..%2fpyproject.toml", "/shop/%2e%2e%2f%2e%2e%2fpyproject.toml", "/shop/..%5c..%5cpyproject.toml",
    "/shop/%252e%252e/%252e%252e/pyproject.toml", "//etc/passwd", "/shop//etc/passwd",
    "/shop/%00/../../pyproject.toml", "/escape/secret.txt", "/escape/link/secret.txt", "/escape/loop/x"])
def test_fixture_server_refuses_path_traversal(escape_server: FixtureServer, path: str) -> None:
    for origin in escape_server.origins.values():
        assert _status(origin + path) == 404


def test_action_vocabulary_is_closed_and_runs_no_page_script() -> None:
    kinds = {get_args(cls.model_fields["kind"].annotation)[0] for cls in get_args(AnyAction)}
    assert kinds == {"click", "type", "select", "set_value", "expand", "read", "hover", "drag",
                     "scroll", "navigate", "back", "wait", "finish"}
    adapter = TypeAdapter(Action)
    for smuggled in ({"kind": "evaluate", "script": "document.title"},
                     {"kind": "click", "ref": "e1", "script": "alert(1)"},
                     {"kind": "navigate", "url": "javascript:alert(1)"},
                     {"kind": "navigate", "url": "JavaScript:alert(1)"},
                     {"kind": "navigate", "url": "data:text/html,<script>alert(1)</script>"},
                     {"kind": "navigate", "url": "file:///etc/passwd"}):
        with pytest.raises(ValidationError):
            adapter.validate_python(smuggled)
    assert Navigate(url="http://127.0.0.1:8000/shop/").url.startswith("http")
    marks = [Mark(number=1, box=Box(x=0, y=0, width=10, height=10), label="Go", role="button")]
    for reply in ('{"action": "evaluate", "script": "document.title"}',
                  '{"action": "click", "mark": 1, "script": "alert(1)"}',
                  '{"action": "navigate", "url": "javascript:alert(1)"}'):
        with pytest.raises(InvalidReply):
            check_reply(reply, marks)


def _texts(path: Path) -> list[bytes]:
    """What a file holds, decoded where it is compressed (parquet, zip)."""
    if path.suffix == ".parquet":
        table = pq.read_table(path)
        return [str(table.schema.metadata).encode(), str(table.to_pylist()).encode()]
    if path.suffix == ".zip":
        with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as zf:
            return [zf.read(name) + name.encode() for name in zf.namelist()]
    return [path.read_bytes()]


@pytest.mark.slow
@pytest.mark.browser
def test_api_key_never_reaches_an_output_file(tmp_path: Path) -> None:
    key, env_name = "sk-live-GROUNDBENCH-SECRET-5e1f0c9a", "GB_TEST_SECRET_KEY"
    run_dir = tmp_path / "run"
    env = {**os.environ, env_name: key}
    with StubOpenAI() as stub:
        stub.responder = lambda request: StubReply.text(f"no idea, your key is {key}")
        run = subprocess.run([sys.executable, "-m", "harness", "suite=fixtures", "suite.ids=[shop-coupon]",
                              "perception=openai", f"perception.client.base_url={stub.base_url}",
                              f"perception.client.api_key_env={env_name}", "perception.client.max_retries=0",
                              # every reply is garbage: the run must go on to write every file
                              "max_consecutive_model_failures=0", "trace.screenshots=all", f"hydra.run.dir={run_dir}"],
                             capture_output=True, text=True, env=env, timeout=300, check=False)
        assert run.returncode == 0, run.stderr[-2000:]
        assert all(r.headers.get("Authorization") == f"Bearer {key}" for r in stub.requests)
        assert stub.requests  # the key was really in use
    report = subprocess.run([sys.executable, "-m", "reports.report", str(run_dir)],
                            capture_output=True, text=True, env=env, timeout=300, check=False)
    assert report.returncode == 0, report.stderr[-2000:]
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    kinds = {p.suffix for p in files}
    assert {".parquet", ".json", ".zip", ".png", ".md", ".yaml"} <= kinds, kinds
    for path in files:
        assert key not in str(path.relative_to(tmp_path))
        for text in _texts(path):
            assert key.encode() not in text, path
    for out in (run.stdout, run.stderr, report.stdout, report.stderr):
        assert key not in out


def test_content_policy_names_only_the_allowed_origins() -> None:
    policy = content_policy(["http://127.0.0.1:8000", "https://shop.example", "[::1]", "http://[::1]:5000"])
    default = policy.split(";")[0].split()
    assert default[0] == "default-src"
    # each origin with its WebSocket twin; subdomains of a name, not of an address
    for source in ("http://127.0.0.1:8000", "ws://127.0.0.1:8000", "https://shop.example",
                   "https://*.shop.example", "wss://*.shop.example", "http://[::1]:5000", "ws://[::1]:5000"):
        assert source in default, source
    assert not any(s.startswith("http://*.127") or s in ("*", "http:", "https:") for s in default)
    assert "form-action" in policy
