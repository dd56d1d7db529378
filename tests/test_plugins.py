"""Mechanisms are plug-ins: the factory is the only code that reads a switch, and a mechanism
that is switched off is absent (none of its module's code runs in an episode)."""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path
from types import FrameType

import pandas as pd
import pytest
from conftest import run_experiment

import agents
from agents.factory import AgentConfig, build_mechanisms, switches

AGENTS = Path(agents.__file__).parent
TASK = ["suite=fixtures", "suite.ids=[checkout-iframe-pay]", "perception=synthetic", "seeds=[0]",
        "trace.capture=live", "trace.playwright=false", "trace.screenshots=none"]
# A mechanism that works only where the others leave nothing to act on gets an episode that
# needs it: without vision, nothing in the listing fits a hand-written picker (agents/folded.py).
LANGUAGE = AGENTS.parent / "tests" / "language"
OWN_TASK = {"folded": ["suite=fixtures", f"tasks.dirs=[{LANGUAGE / 'tasks'}]", f"sites.dirs=[{LANGUAGE / 'sites'}]",
                       "suite.tags=[]", "suite.ids=[shelter-meet-mabel]", "perception=none", "seeds=[0]",
                       "trace.capture=live", "trace.playwright=false", "trace.screenshots=none"]}


def test_every_boolean_switch_is_a_mechanism_of_the_factory() -> None:
    booleans = {name for name, f in AgentConfig.model_fields.items() if f.annotation is bool}
    assert booleans == set(switches())
    assert [m.name for m in build_mechanisms(AgentConfig())] == switches()
    for name in switches():
        off = build_mechanisms(AgentConfig(**{name: False}))
        assert name not in [m.name for m in off]


def test_only_the_factory_reads_a_switch() -> None:
    reads = re.compile(r"\b(?:config|cfg|c|self\.config)\.(" + "|".join(switches()) + r")\b")
    offenders = [f"{path.relative_to(AGENTS)}:{n}: {line.strip()}"
                 for path in AGENTS.rglob("*.py") if path.name != "factory.py"
                 for n, line in enumerate(path.read_text().splitlines(), 1) if reads.search(line)]
    assert not offenders, offenders


def _modules_called(tmp_path: Path, task: list[str], overrides: list[str]) -> set[str]:
    """The agents/ modules whose functions ran during one episode (a profiler sees every call)."""
    called: set[str] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            called.add(frame.f_code.co_filename)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        result = run_experiment(tmp_path, [*task, *overrides])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert len(result.episodes) == 1
    return {Path(f).stem for f in called if f.startswith(str(AGENTS)) and "/perception/" not in f}


@pytest.mark.browser
def test_every_mechanism_runs_when_switched_on(tmp_path: Path) -> None:
    # the control of the test below: on its task every mechanism's module does run
    everything = _modules_called(tmp_path, TASK, [])
    assert set(switches()) - set(OWN_TASK) <= everything, set(switches()) - set(OWN_TASK) - everything
    for name, task in OWN_TASK.items():
        assert name in _modules_called(tmp_path / name, task, []), name


@pytest.mark.browser
@pytest.mark.parametrize("name", switches())
def test_a_switched_off_mechanism_never_runs(tmp_path: Path, name: str) -> None:
    # (one test per switch: the suite's workers share them out)
    ran = _modules_called(tmp_path, OWN_TASK.get(name, TASK), [f"agent.{name}=false"])
    assert name not in ran, f"agents/{name}.py ran with agent.{name}=false"


_DRAFTS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Drafts</title>
<script src="/_gb/gb.js"></script></head>
<body><h1>Your draft</h1>
<button type="button" onclick="GB.set({kept: true}); this.textContent = 'Kept'">Keep draft</button>
<button type="button" onclick="GB.set({deleted: true}); this.textContent = 'Deleted'">Delete draft</button>
</body></html>
"""

_DRAFTS_TASK = """id: drafts-delete
site: drafts
start: /drafts/index.html
goal: Delete the draft.
tags: [test]
max_steps: 4
plan:
  - {action: click, target: Delete draft button, label: Delete draft}
success:
  - {path: deleted, equals: true}
"""


@pytest.mark.browser
def test_the_worked_example_mechanism_changes_what_the_traces_show(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/agent.md, "Adding a mechanism": examples/mechanisms/keep_away.py switched on by its one
    # config file (examples/conf/experiment/keep_away.yaml) keeps "Delete draft" from the worker.
    root = AGENTS.parent
    monkeypatch.syspath_prepend(str(root))
    (tmp_path / "sites" / "drafts").mkdir(parents=True)
    (tmp_path / "sites" / "drafts" / "index.html").write_text(_DRAFTS)
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "drafts.yaml").write_text(_DRAFTS_TASK)
    common = [f"sites.dirs=[{tmp_path / 'sites'}]", f"tasks.dirs=[{tmp_path / 'tasks'}]",
              "suite=fixtures", "suite.ids=[drafts-delete]", "seeds=[0]", "perception=synthetic",
              "trace.capture=live", "trace.playwright=false", "trace.screenshots=none"]
    plain = run_experiment(tmp_path / "plain", common)
    assert plain.episodes.success.all()
    guarded = run_experiment(tmp_path / "guarded", [
        *common, f"hydra.searchpath=[file://{root / 'examples' / 'conf'}]", "experiment=keep_away"])
    assert not guarded.episodes.success.any()
    steps = pd.read_parquet(tmp_path / "guarded" / "steps.parquet")
    assert set(steps.error_type) == {"no_target"} and "Delete draft" not in set(steps.target_name)
    assert plain.episodes.config_hash.iloc[0] != guarded.episodes.config_hash.iloc[0]


def test_the_docs_show_the_example_as_it_is() -> None:
    root = AGENTS.parent
    docs = (root / "docs" / "agent.md").read_text()
    for example in ("examples/mechanisms/keep_away.py", "examples/conf/experiment/keep_away.yaml"):
        assert (root / example).read_text().rstrip("\n") in docs, f"docs/agent.md shows an old {example}"
