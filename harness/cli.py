"""Command line: `groundbench [overrides]` runs an experiment (a Hydra app, so `-m` sweeps);
`groundbench tasks [overrides]` lists the suite the same overrides would run."""

from __future__ import annotations

import difflib
import os
import re
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import CompactHydraException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError
from pydantic import ValidationError
from rich.markup import escape
from rich.table import Table

from agents.factory import AgentConfig
from harness.browser import BrowserNotFoundError
from harness.config import CONF, RunConfig
from harness.console import console, exit_without_teardown
from harness.runner import (
    EndpointPreflightError,
    RunDirInUseError,
    RunResult,
    RunStoppedError,
    SuiteConfigError,
    run,
    suite_tasks,
)
from tasks.loader import TaskFileError, UnknownTaskError
from tasks.miniwob.catalog import MiniwobNotInstalledError, MiniwobTask

EXIT_BAD_INPUT = 2
EXIT_STOPPED = 3  # the run stopped early (its model calls kept failing); what finished is written


class UsageError(Exception):
    """Bad input found before any browser starts: printed as one paragraph, exit code 2."""


def preset_values(name: str) -> dict:
    """The values an agent preset file sets, its `defaults` (other presets) applied first."""
    path = Path(CONF) / "agent" / f"{name}.yaml"
    if not path.is_file():
        return {}
    raw = OmegaConf.to_container(OmegaConf.load(path))
    assert isinstance(raw, dict)
    values: dict = {}
    for base in raw.pop("defaults", []):
        if isinstance(base, str) and base != "_self_":
            values.update(preset_values(base))
    return {**values, **raw}


def part_label(part: dict) -> str:
    """A part's name in a configuration's name: a part of your own is named after its class."""
    if part.get("name") == "custom":
        return str(part.get("_target_", "custom")).rpartition(".")[2]
    if part.get("profile"):  # a calibrated synthetic profile (groundbench-calibrate)
        return f"{part['name']}_{part['profile']}"
    return str(part["name"])


def derived_name(resolved: dict, overrides: list[str], ablate: str | None = None) -> str:
    """preset[switch=value,...]/perception/worker: the agent switches that differ from the
    preset, whether set by `ablate=` or by agent.* overrides."""
    agent = resolved["agent"]
    preset = preset_values(agent["name"])
    touched = {o.removeprefix("agent.").split("=", 1)[0] for o in overrides if o.startswith("agent.")}
    if ablate:
        touched.add(ablate)
    switches = sorted(f"{k}={str(agent[k]).lower()}" for k in touched
                      if k != "name" and k in agent and agent[k] != preset.get(k, agent[k]))
    label = agent["name"] + (f"[{','.join(switches)}]" if switches else "")
    return f"{label}/{part_label(resolved['perception'])}/{part_label(resolved['worker'])}"


def load_config(cfg: DictConfig) -> tuple[RunConfig, dict]:
    resolved = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(resolved, dict)
    if resolved.get("name") is None and resolved.get("policy", {}).get("name", "agent") == "agent" and \
            HydraConfig.initialized():
        hydra_cfg = HydraConfig.get()
        resolved["name"] = derived_name(resolved, list(hydra_cfg.overrides.task),
                                        hydra_cfg.runtime.choices.get("ablate"))
    try:
        return RunConfig.from_container(resolved), resolved
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"])
        raise UsageError(f"config key '{key}': {err['msg']}. Check the override on the command "
                         f"line or the file under conf/ that sets it.") from None


def print_tasks(cfg: RunConfig) -> None:
    tasks = suite_tasks(cfg)
    table = Table(title=f"suite {cfg.suite.name}: {len(tasks)} tasks")
    for col in ("id", "site", "tags", "steps", "goal"):
        table.add_column(col)
    for t in tasks:
        if isinstance(t, MiniwobTask):  # plans come from the utterance each episode shows
            why = "; ".join(r for r in (t.nondeterministic, t.time_dependent) if r)
            table.add_row(t.id, "miniwob", ", ".join(t.tags), "-", why)
        else:
            table.add_row(t.id, t.site, ", ".join(t.tags), str(len(t.plan)), t.goal)
    console().print(table)


BAD_INPUT = (UsageError, TaskFileError, UnknownTaskError, BrowserNotFoundError, RunDirInUseError,
             SuiteConfigError, MiniwobNotInstalledError, EndpointPreflightError)
FIXES = {
    TaskFileError: "Fix that field in the file (every field: docs/task-format.md), or leave its "
                   "folder out of tasks.dirs.",
    UnknownTaskError: "Check suite.ids on the command line or in the suite file under conf/suite/; "
                      "`groundbench tasks suite=fixtures` lists every id.",
}
_COMMAND = "run"
_VERBOSE = False


def bad_input(message: str) -> None:
    """Bad input ends the run with one paragraph on stderr and exit code 2 (a traceback only
    with --verbose, where the caller re-raises instead)."""
    print("groundbench: " + " ".join(message.split()), file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def known_keys(parent: str) -> set[str]:
    """The keys a config may have at the top (parent "") or inside a group or section."""
    conf = Path(CONF)
    if not parent:
        top = OmegaConf.to_container(OmegaConf.load(conf / "config.yaml"))
        assert isinstance(top, dict)
        return {p.name for p in conf.iterdir() if p.is_dir()} | (set(top) - {"defaults"})
    if parent == "agent":
        return set(AgentConfig.model_fields)
    keys: set[str] = set()
    for path in (conf / parent).glob("*.yaml") if (conf / parent).is_dir() else ():
        raw = OmegaConf.to_container(OmegaConf.load(path))
        keys |= set(raw) - {"defaults"} if isinstance(raw, dict) else set()
    return keys


def did_you_mean(key: str) -> str:
    """' Did you mean `agent`?' for a mistyped key or group, else ''."""
    parent, _, last = key.lstrip("+~").rpartition(".")
    if parent.count("."):
        return ""
    close = difflib.get_close_matches(last, sorted(known_keys(parent)), n=1, cutoff=0.6)
    return f" Did you mean '{parent + '.' if parent else ''}{close[0]}'?" if close else ""


def config_error(exc: CompactHydraException) -> str:
    """Hydra's message for an override it cannot apply, as one paragraph with the fix."""
    text = " ".join(str(exc).split("Config search path:")[0].split()).rstrip(".") + "."
    fix = "Check the override against the files under conf/ (`groundbench --cfg job` prints the " \
          "whole config)."
    cause = exc.__cause__
    if isinstance(cause, (ConfigAttributeError, ConfigKeyError)) and cause.full_key:
        return f"unknown config key '{cause.full_key}'.{did_you_mean(cause.full_key)} {fix}"
    overridden = re.search(r"Could not override '([^']+)'", text)
    if overridden:
        return f"unknown config key or group '{overridden[1]}'.{did_you_mean(overridden[1])} {fix}"
    return f"{text} {fix}"


@hydra.main(config_path=CONF, config_name="config", version_base="1.3")
def hydra_main(cfg: DictConfig) -> None:
    try:
        _main(cfg)
    except BAD_INPUT as exc:
        if _VERBOSE:
            raise
        # Hydra reports ordinary exceptions with a traceback and exit 1; bad input is exit 2.
        bad_input(f"{str(exc).rstrip('.')}. {FIXES.get(type(exc), '')}")


def _main(cfg: DictConfig) -> None:
    run_cfg, resolved = load_config(cfg)
    if _COMMAND == "tasks":
        print_tasks(run_cfg)
        return
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        run(run_cfg, run_dir, resolved, show_progress=sys.stderr.isatty())
    except RunStoppedError as exc:
        if _VERBOSE:
            raise
        if (run_dir / "episodes.parquet").is_file():
            summarize(run_cfg, run_dir)
        print("groundbench: " + " ".join(str(exc).split()).rstrip(".") + ".", file=sys.stderr)
        sys.exit(EXIT_STOPPED)
    summarize(run_cfg, run_dir)


def summarize(run_cfg: RunConfig, run_dir: Path) -> None:
    """The run's summary line, each failure class with its first detail, and the trace paths."""
    import pandas as pd  # (imported by the run while its browser started: a third of the CLI's imports)

    ok, episodes, calls = RunResult(run_dir).tally()
    out = console()
    out.print(f"[bold]{escape(run_cfg.config_name)}[/]: {ok}/{episodes} episodes succeeded, "
              f"{calls:.1f} vision calls per episode")
    table = pd.read_parquet(run_dir / "episodes.parquet", columns=["success", "failure",
                                                                   "failure_detail"])
    failed = table[~table["success"]]
    for failure, group in failed.groupby("failure", sort=True):
        first = str(group["failure_detail"].iloc[0])[:200]
        out.print(f"  {escape(str(failure))}: {len(group)}" + (f" (first: {escape(first)})"
                                                              if first else ""))
    out.print(f"traces: {run_dir / 'episodes.parquet'}, {run_dir / 'steps.parquet'}, "
              f"{run_dir / 'run.json'}")


def main() -> None:
    global _COMMAND, _VERBOSE
    exit_without_teardown()
    if "--verbose" in sys.argv:
        sys.argv.remove("--verbose")
        _VERBOSE = True
    if len(sys.argv) > 1 and sys.argv[1] == "tasks":
        _COMMAND = "tasks"
        del sys.argv[1]
        sys.argv.extend(["hydra.run.dir=.", "hydra.output_subdir=null", "hydra/job_logging=disabled",
                         "hydra/hydra_logging=disabled"])
    # Hydra prints a config it cannot compose (unknown key, missing option, bad override syntax)
    # and exits 1; asked to raise instead, it lets that be reported here as bad input.
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        hydra_main()
    except CompactHydraException as exc:
        if _VERBOSE:
            raise
        bad_input(config_error(exc))
