"""The resolved run configuration: Hydra composes it, pydantic validates it once, and everything
downstream reads these typed values (never the raw DictConfig)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import xxhash
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from pydantic import BaseModel, ConfigDict, Field

from agents.factory import AgentConfig
from agents.imports import TargetConfig
from agents.perception.registry import PerceptionConfig
from agents.worker.registry import WorkerConfig
from harness.browser import BrowserSettings
from harness.policies import PolicyConfig


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuiteConfig(_Frozen):
    name: str
    # fixtures: the task files (tasks/fixtures and tasks.dirs); miniwob: the task types generated
    # from the installed MiniWoB++ package (ids are miniwob.<task type>).
    source: Literal["fixtures", "miniwob"] = "fixtures"
    ids: list[str] = []
    tags: list[str] = []
    exclude_tags: list[str] = []


class DirsConfig(_Frozen):
    dirs: list[str] = []


class TraceConfig(_Frozen):
    # Set-of-Mark images under screenshots/<episode>/: none, of failed episodes the last step and
    # the first that went wrong (tasks/wrong_step.py), or every step of every episode.
    screenshots: Literal["none", "failed", "all"] = "failed"
    # A Playwright trace (`playwright show-trace FILE`) under playwright/<episode>.zip.
    playwright: bool = True
    failed_only: bool = True
    # When they are recorded: `live` records every episode as it runs (recording costs time on
    # every step); `rerun` runs episodes unrecorded and reruns each failed one once, recorded, for
    # its artifacts (the episode's row stays the first run's; `trace_rerun` says whether the rerun
    # failed too). Playwright Test's "on-first-retry" idea, for artifacts of failed episodes only:
    # asking for every episode's artifacts (screenshots=all, failed_only=false) records live.
    capture: Literal["live", "rerun"] = "rerun"

    @property
    def live(self) -> bool:
        """Episodes are recorded as they run (else only the reruns of failed ones)."""
        return self.capture == "live" or self.screenshots == "all" or not self.failed_only


class RunConfig(_Frozen):
    agent: AgentConfig
    perception: PerceptionConfig
    worker: WorkerConfig
    suite: SuiteConfig
    browser: BrowserSettings
    policy: PolicyConfig = PolicyConfig()
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1)
    concurrency: int = Field(2, ge=1, le=64)
    heartbeat_s: float = Field(30, gt=0)
    final_settle_ms: int = Field(300, ge=0)
    # The run stops when this many model requests in a row failed, across episodes (0: never).
    max_consecutive_model_failures: int = Field(8, ge=0)
    resume: bool = False
    tasks: DirsConfig = DirsConfig()
    trace: TraceConfig = TraceConfig()
    # What the report calls this configuration; null: derived from the agent preset, the switch
    # overrides on the command line, the perception and the worker.
    name: str | None = None
    sites: DirsConfig = DirsConfig()

    @classmethod
    def from_container(cls, data: dict[str, Any]) -> RunConfig:
        data = {k: v for k, v in data.items() if k != "hydra"}
        return cls.model_validate(data)

    @property
    def config_name(self) -> str:
        """A short, readable name of what is being measured (not of seeds or the suite)."""
        if self.name:
            return self.name
        if self.policy.name == "custom":  # yours: named after its class unless you name it
            return self.policy.target.rpartition(".")[2]
        if self.policy.name != "agent":
            return self.policy.name
        parts = [p.class_name if isinstance(p, TargetConfig)
                 else f"{p.name}_{p.profile}" if getattr(p, "profile", "") else p.name
                 for p in (self.perception, self.worker)]
        return f"{self.agent.name}/{parts[0]}/{parts[1]}"

    @property
    def config_hash(self) -> str:
        """Identity of the measured configuration: agent, perception, worker, browser and policy."""
        part = self.model_dump(include={"agent", "perception", "worker", "browser", "policy"},
                               by_alias=True)
        if not part["agent"]["plugins"]:
            # Without plugins the configuration is what it was before plugins existed: its hash
            # stays the same, so committed baselines and resumed runs still match.
            del part["agent"]["plugins"]
        for section in ("perception", "worker"):
            # Checking the endpoint before the run measures nothing: the hash stays as it was.
            part[section].pop("preflight", None)
        if part["perception"].get("profile") == "":
            # Likewise the synthetic model's hand-set profile (no calibrated profile named).
            del part["perception"]["profile"]
        return xxhash.xxh64_hexdigest(json.dumps(part, sort_keys=True).encode())


# The configs ship inside the package (harness/conf links to the top-level conf/ in a checkout).
CONF = str(Path(__file__).resolve().parent / "conf")


def compose_run_config(overrides: list[str]) -> tuple[RunConfig, dict[str, Any]]:
    """The validated config the command line would build from these overrides (outside a Hydra
    app: for the proof runner and tests)."""
    with initialize_config_dir(config_dir=CONF, version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(resolved, dict)
    return RunConfig.from_container(resolved), resolved
