"""Shared fixtures: the fixture server, and a helper that runs a whole experiment in-process."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from harness.config import RunConfig, compose_run_config
from harness.runner import RunResult, run
from sites.server import FixtureServer


@pytest.fixture(scope="session")
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as srv:
        yield srv


def compose_config(overrides: list[str]) -> tuple[RunConfig, dict]:
    return compose_run_config(overrides)


def run_experiment(tmp_path: Path, overrides: list[str],
                   faults: Mapping[str, str] | None = None) -> RunResult:
    cfg, resolved = compose_config(overrides)
    return run(cfg, tmp_path, resolved, show_progress=False, faults=faults)
