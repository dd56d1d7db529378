"""Shared fixtures: the fixture server, and a helper that runs a whole experiment in-process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from harness.cli import CONF
from harness.config import RunConfig
from harness.runner import RunResult, run
from sites.server import FixtureServer


@pytest.fixture(scope="session")
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as srv:
        yield srv


def compose_config(overrides: list[str]) -> tuple[RunConfig, dict]:
    from omegaconf import OmegaConf

    with initialize_config_dir(config_dir=CONF, version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    return RunConfig.from_container(resolved), resolved


def run_experiment(tmp_path: Path, overrides: list[str]) -> RunResult:
    cfg, resolved = compose_config(overrides)
    return run(cfg, tmp_path, resolved, show_progress=False)
