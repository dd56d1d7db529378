"""The import boundaries of the design ("Boundaries that keep the measurements honest"), indirect
imports included: each check runs in a fresh interpreter, so nothing another test imported hides
a leak."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> str:
    """stdout of `code` in a fresh interpreter started in the project root (so this checkout's
    packages are the ones imported)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _loaded_after(modules: list[str]) -> list[str]:
    """Every module in sys.modules after importing `modules` in a fresh interpreter."""
    code = (f"import importlib, json, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
            "print(json.dumps(sorted(sys.modules)))")
    return json.loads(_run(code))


def _of(loaded: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in loaded if m.split(".")[0] in packages]


def test_reports_load_nothing_of_the_agent() -> None:
    code = "import reports.report, sys; print(any(m.startswith('agents') for m in sys.modules))"
    assert _run(code).strip() == "False"
    loaded = _loaded_after(["reports.report", "reports.miniwob_table", "harness.metrics",
                            "harness.traces"])
    assert _of(loaded, ("agents", "sites")) == []


def test_tasks_do_not_import_sites_or_the_agent() -> None:
    for module in ("tasks.schema", "tasks.loader", "tasks.trace"):
        assert _of(_loaded_after([module]), ("agents", "sites")) == [], module
    # the trace schema is neutral: the agent writes it, the harness stores it, reports read it
    assert _of(_loaded_after(["tasks.trace"]), ("agents", "harness", "sites", "reports")) == []


def test_agents_do_not_import_sites_harness_or_reports() -> None:
    """Imports every module of agents/ in one interpreter and names, for each forbidden module
    loaded, the agents module whose import first loaded it."""
    code = """
import importlib, json, pkgutil, sys
import agents
leaks = {}
for info in pkgutil.walk_packages(agents.__path__, "agents."):
    importlib.import_module(info.name)
    for m in sys.modules:
        if m.split(".")[0] in ("sites", "harness", "reports") and m not in leaks:
            leaks[m] = info.name
print(json.dumps(leaks))
"""
    leaks = json.loads(_run(code))
    assert leaks == {}, "\n".join(f"importing {by} loads {m}" for m, by in leaks.items())
