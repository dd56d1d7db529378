"""CI gate: `groundbench-check RUN_DIR --baseline FILE` compares a run's success and vision calls per
task, per fixture tag and overall with a committed baseline JSON; exit 1 on a regression."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.console import console as make_console
from harness.console import exit_without_teardown
from harness.metrics import (
    EPISODES_FILE,
    RunFolderError,
    compare_proportions,
    explode_tags,
    find_run_dirs,
    load_episodes,
)
from harness.traces import TraceFormatError, read_metadata

# 2: the baseline also keeps each (task, seed) episode's outcome, for the paired comparison.
BASELINE_FORMAT = 2
EXIT_OK, EXIT_REGRESSION, EXIT_BAD_INPUT = 0, 1, 2
SCOPES = ("overall", "task", "tag")
# Backends whose runs are deterministic per (task, seed): an episode can be compared with its own
# baseline episode. A model (ocr, openai, yours) is judged by the intervals only.
DETERMINISTIC_PERCEPTION = frozenset({"synthetic", "none"})


class BadInput(Exception):
    """Printed as one line; exit code 2."""


@dataclass(frozen=True)
class Rules:
    """When a scope regresses. Success: the run's rate is below the lower bound of the baseline's
    Wilson interval (two-sided `confidence`). Vision calls: the run's mean per episode exceeds
    baseline × (1 + tolerance) + slack."""

    tolerance_calls: float = 0.25
    slack_calls: float = 0.5
    confidence: float = 0.95

    def calls_limit(self, baseline_mean: float) -> float:
        return baseline_mean * (1 + self.tolerance_calls) + self.slack_calls


@dataclass
class Verdict:
    scope: str
    name: str
    baseline: dict[str, Any] | None
    now: dict[str, Any] | None
    # what failed (success, calls, missing) -> the sentence that explains it
    failures: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    baseline_low: float | None = None
    calls_limit: float | None = None

    @property
    def failed(self) -> bool:
        return bool(self.failures)

    @property
    def changed(self) -> bool:
        if self.failures or self.notes or self.baseline is None or self.now is None:
            return True
        keys = ("episodes", "successes", "vision_calls_mean")
        return any(abs(self.baseline[k] - self.now[k]) > 1e-9 for k in keys)


# ---- the baseline ---------------------------------------------------------------------------

def _stats(frame: pd.DataFrame) -> dict[str, Any]:
    n, k = len(frame), int(frame["success"].sum())
    return {"episodes": n, "successes": k, "success_rate": round(k / n, 6),
            "vision_calls_mean": round(float(frame["vision_calls"].mean()), 6)}


def measure(episodes: pd.DataFrame) -> dict[str, dict[str, dict[str, Any]]]:
    """Per scope ('overall', 'task', 'tag') and name: episodes, successes, rate, mean vision calls."""
    tasks = {}
    for task_id, group in episodes.groupby("task_id", sort=True):
        tasks[str(task_id)] = {**_stats(group), "task_version": int(group["task_version"].max()),
                               "tags": sorted({t for tags in group["tags"] for t in tags})}
    tagged = explode_tags(episodes)
    tags = {str(tag): _stats(group) for tag, group in tagged.groupby("tag", sort=True)}
    return {"overall": {"all episodes": _stats(episodes)}, "task": tasks, "tag": tags}


def default_command(run_dir: str, baseline: str, meta: dict[str, Any]) -> str:
    """The command that reruns the suite into run_dir and rewrites the baseline from it: the
    run's own Hydra overrides when .hydra/overrides.yaml is there, else the config's groups."""
    overrides_file = Path(run_dir) / ".hydra" / "overrides.yaml"
    overrides: list[str] = []
    if overrides_file.is_file():
        overrides = [str(o) for o in (yaml.safe_load(overrides_file.read_text()) or [])
                     if not str(o).startswith("hydra.")]
    else:
        config = meta.get("config") or {}
        for group in ("suite", "agent", "perception", "worker"):
            name = (config.get(group) or {}).get("name")
            if name:
                overrides.append(f"{group}={name}")
        if config.get("seeds") is not None:
            overrides.append(f"seeds=[{','.join(str(s) for s in config['seeds'])}]")
    run = " ".join(shlex.quote(o) for o in [*overrides, f"hydra.run.dir={run_dir}"])
    return (f"groundbench {run} && groundbench-check {shlex.quote(run_dir)} "
            f"--baseline {shlex.quote(baseline)} --update")


def build_baseline(episodes: pd.DataFrame, meta: dict[str, Any], regenerate: str) -> dict[str, Any]:
    scopes = measure(episodes)
    return {
        "format": BASELINE_FORMAT,
        "config_name": str(episodes["config_name"].iloc[0]),
        "config_hash": str(episodes["config_hash"].iloc[0]),
        "seeds": sorted(int(s) for s in episodes["seed"].unique()),
        "git_commit": meta.get("git_commit", "unknown"),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "regenerate": regenerate,
        "overall": scopes["overall"]["all episodes"],
        "tasks": scopes["task"],
        "tags": scopes["tag"],
        "episodes": {episode_key(row.task_id, row.seed): {"success": bool(row.success),
                                                          "vision_calls": int(row.vision_calls)}
                     for row in episodes.sort_values(["task_id", "seed"]).itertuples()},
    }


def episode_key(task_id: object, seed: object) -> str:
    return f"{task_id}@{int(seed)}"  # type: ignore[call-overload]


# A task whose page acts on its own clock (content that arrives, re-sorts or ticks after a delay):
# under a deterministic backend its outcome can still vary with the machine's load, so the paired
# comparison leaves it to the interval rules.
TIMED_TAG = "timed"


def paired(baseline: dict[str, Any], episodes: pd.DataFrame) -> list[Verdict]:
    """Episode by episode: a (task, seed) that succeeded in the baseline and fails now is a
    regression of its own, however the task's interval looks."""
    before = baseline.get("episodes") or {}
    verdicts = []
    for row in episodes.sort_values(["task_id", "seed"]).itertuples():
        if TIMED_TAG in row.tags:
            continue  # its page runs on its own clock: judged by its interval only
        base = before.get(episode_key(row.task_id, row.seed))
        if base is not None and base["success"] and not row.success:
            verdict = Verdict("episode", f"{row.task_id} seed {int(row.seed)}",
                              {"episodes": 1, "successes": 1, "success_rate": 1.0,
                               "vision_calls_mean": base["vision_calls"]},
                              {"episodes": 1, "successes": 0, "success_rate": 0.0,
                               "vision_calls_mean": int(row.vision_calls)})
            verdict.failures["flipped"] = (f"succeeded in the baseline, fails now "
                                           f"({row.failure or 'failed'})")
            verdicts.append(verdict)
    return verdicts


def is_deterministic(meta: dict[str, Any]) -> bool:
    perception = ((meta.get("config") or {}).get("perception") or {}).get("name")
    return perception in DETERMINISTIC_PERCEPTION


def read_baseline(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise BadInput(f"baseline {path} does not exist (create it with --update)") from None
    except (OSError, ValueError) as exc:
        raise BadInput(f"baseline {path} is unreadable: {exc}") from None
    if not isinstance(data, dict) or not {"tasks", "tags", "overall"} <= data.keys():
        raise BadInput(f"baseline {path} is not a groundbench baseline (needs tasks, tags, overall)")
    if data.get("format", 0) > BASELINE_FORMAT:
        raise BadInput(f"baseline {path} has format {data['format']} > {BASELINE_FORMAT}; "
                       "upgrade groundbench to read it")
    return data


def write_baseline(path: Path, baseline: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(baseline, indent=2, sort_keys=False) + "\n")
    tmp.replace(path)


# ---- the comparison -------------------------------------------------------------------------

def judge(scope: str, name: str, base: dict[str, Any] | None, now: dict[str, Any] | None,
          rules: Rules) -> Verdict:
    verdict = Verdict(scope, name, base, now)
    if now is None:
        verdict.failures["missing"] = "missing from the run"
        return verdict
    if base is None:
        verdict.notes.append("new")
        return verdict
    change = compare_proportions(base["successes"], base["episodes"], now["successes"],
                                 now["episodes"], rules.confidence)
    verdict.baseline_low = change.baseline_low
    if change.dropped:
        verdict.failures["success"] = (f"success {change.rate:.0%} < baseline's lower bound "
                                       f"{change.baseline_low:.0%}")
    elif change.improved:
        verdict.notes.append("better")  # success above the baseline's interval
    limit = verdict.calls_limit = rules.calls_limit(base["vision_calls_mean"])
    if now["vision_calls_mean"] > limit + 1e-9:
        verdict.failures["calls"] = (f"vision calls {now['vision_calls_mean']:.2f} > limit "
                                     f"{limit:.2f}")
    if "task_version" in base and base["task_version"] != now.get("task_version"):
        verdict.notes.append(f"task v{base['task_version']}→{now.get('task_version')}")
    return verdict


def compare(baseline: dict[str, Any], episodes: pd.DataFrame, rules: Rules) -> list[Verdict]:
    """Verdicts for the overall row, every task and every fixture tag of baseline or run."""
    now = measure(episodes)
    before = {"overall": {"all episodes": baseline["overall"]}, "task": baseline["tasks"],
              "tag": baseline["tags"]}
    verdicts = []
    for scope in SCOPES:
        for name in sorted(before[scope].keys() | now[scope].keys()):
            verdicts.append(judge(scope, name, before[scope].get(name), now[scope].get(name), rules))
    return verdicts


# ---- output ---------------------------------------------------------------------------------

def _success_cell(stats: dict[str, Any] | None) -> str:
    return "–" if stats is None else (f"{stats['successes']}/{stats['episodes']} "
                                      f"({stats['success_rate']:.0%})")


def _calls_cell(stats: dict[str, Any] | None) -> str:
    return "–" if stats is None else f"{stats['vision_calls_mean']:.2f}"


def render(verdicts: Sequence[Verdict], console: Console, show_all: bool, title: str) -> None:
    shown = [v for v in verdicts if show_all or v.changed]
    if not shown:
        console.print(f"{title}: no changes against the baseline.")
        return
    table = Table(title=title, title_justify="left")
    for col, justify in (("scope", "left"), ("name", "left"), ("success base", "right"),
                         ("success now", "right"), ("lower bound", "right"),
                         ("calls base", "right"), ("calls now", "right"), ("calls limit", "right"),
                         ("verdict", "left")):
        table.add_column(col, justify=justify, no_wrap=col != "verdict")  # type: ignore[arg-type]
    for v in shown:
        parts = [f"[bold red]FAIL[/] {escape(', '.join(v.failures))}"] if v.failed else []
        parts += [f"[yellow]{escape(', '.join(v.notes))}[/]"] if v.notes else []
        text = " ".join(parts) or "[green]ok[/]"
        low = "–" if v.baseline_low is None else f"{v.baseline_low:.0%}"
        limit = "–" if v.calls_limit is None else f"{v.calls_limit:.2f}"
        table.add_row(v.scope, escape(v.name), _success_cell(v.baseline), _success_cell(v.now), low,
                      _calls_cell(v.baseline), _calls_cell(v.now), limit, text)
    console.print(table)
    if not show_all and len(shown) < len(verdicts):
        console.print(f"({len(verdicts) - len(shown)} unchanged rows hidden; --all shows them)")


# ---- command line ---------------------------------------------------------------------------

def load_run(run_dir: Path, config: str | None, baseline_config: str | None
             ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The run's episodes for one config, and that run's metadata."""
    if not run_dir.exists():
        raise BadInput(f"run folder {run_dir} does not exist")
    try:
        run_dirs = find_run_dirs([run_dir])
        episodes = load_episodes(run_dirs)
    except (RunFolderError, TraceFormatError) as exc:
        raise BadInput(str(exc)) from None
    if episodes.empty:
        raise BadInput(f"{run_dir} holds no episodes")
    names = sorted(episodes["config_name"].unique())
    if config is None:
        if len(names) == 1:
            config = names[0]
        elif baseline_config in names:
            config = baseline_config
        else:
            raise BadInput(f"{run_dir} holds {len(names)} configs ({', '.join(names)}); "
                           "choose one with --config NAME")
    if config not in names:
        raise BadInput(f"{run_dir} has no episodes of config {config!r} (it has: {', '.join(names)})")
    episodes = episodes[episodes["config_name"] == config].reset_index(drop=True)
    meta = read_metadata(Path(episodes["run_dir"].iloc[0]) / EPISODES_FILE)
    return episodes, meta


def run_check(args: argparse.Namespace, console: Console) -> int:
    rules = Rules(args.tolerance_calls, args.slack_calls, args.confidence)
    old: dict[str, Any] | None = None
    if not args.update or args.baseline.exists():
        old = read_baseline(args.baseline)
    episodes, meta = load_run(args.run_dir, args.config, old.get("config_name") if old else None)
    config = str(episodes["config_name"].iloc[0])
    seeds = sorted(int(s) for s in episodes["seed"].unique())
    console.print(f"run {escape(str(args.run_dir))}: [bold]{escape(config)}[/], {len(episodes)} "
                  f"episodes, seeds {seeds}, commit {meta.get('git_commit', 'unknown')}",
                  soft_wrap=True)
    verdicts: list[Verdict] = []
    if old is not None:
        console.print(f"baseline {escape(str(args.baseline))}: {escape(str(old.get('config_name')))}, "
                      f"{old['overall']['episodes']} episodes, seeds {old.get('seeds')}, "
                      f"commit {old.get('git_commit', 'unknown')}", soft_wrap=True)
        if old.get("config_name") != config:
            console.print(f"[yellow]note[/]: the baseline was recorded for "
                          f"{escape(str(old.get('config_name')))}, this run is {escape(config)}")
        verdicts = compare(old, episodes, rules)
        if args.paired == "on" or (args.paired == "auto" and is_deterministic(meta)):
            if not old.get("episodes"):
                console.print("[yellow]note[/]: the baseline keeps no episodes (format 1): "
                              "regenerate it for the paired comparison")
            verdicts += paired(old, episodes)
        render(verdicts, console, args.all, "changes against the baseline")
    if args.update:
        regenerate = args.command or (old or {}).get("regenerate") or default_command(
            str(args.run_dir), str(args.baseline), meta)
        baseline = build_baseline(episodes, meta, regenerate)
        write_baseline(args.baseline, baseline)
        console.print(f"baseline written: {escape(str(args.baseline))} ({len(baseline['tasks'])} "
                      f"tasks, {len(baseline['tags'])} tags); regenerate with:\n  "
                      f"{escape(regenerate)}", soft_wrap=True)
        return EXIT_OK
    failed = [v for v in verdicts if v.failed]
    if failed:
        console.print(f"[bold red]FAIL[/]: {len(failed)} regression(s) "
                      f"(success below the baseline's {rules.confidence:.0%} Wilson lower bound, "
                      f"or vision calls above baseline × {1 + rules.tolerance_calls:g} + "
                      f"{rules.slack_calls:g}, a (task, seed) that succeeded in the baseline and "
                      f"fails now, or missing):")
        for v in failed:
            console.print(f"  {v.scope} {escape(v.name)}: {escape('; '.join(v.failures.values()))}",
                          soft_wrap=True)
        console.print(f"If the change is intended, regenerate the baseline: "
                      f"{escape(str(old.get('regenerate', '')) if old else '')}", soft_wrap=True)
        return EXIT_REGRESSION
    console.print(f"[bold green]PASS[/]: {sum(v.scope == 'task' for v in verdicts)} tasks, "
                  f"{sum(v.scope == 'tag' for v in verdicts)} tags and overall within the baseline.")
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="groundbench-check",
        description="Compare a run with a committed baseline per task, per fixture tag and overall. "
                    "Exit 0 pass, 1 regression, 2 bad input.",
        epilog="A task, tag or the overall row regresses when its success rate falls below the "
               "lower bound of the baseline's Wilson interval, when its mean vision calls per "
               "episode exceed baseline x (1 + tolerance) + slack, or when it is in the baseline "
               "but not in the run. New tasks are reported, not failed.")
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="run folder or sweep folder")
    p.add_argument("--baseline", type=Path, required=True, metavar="FILE", help="baseline JSON")
    p.add_argument("--update", action="store_true",
                   help="rewrite the baseline from this run (after showing what changed)")
    p.add_argument("--tolerance-calls", type=float, default=0.25, metavar="X",
                   help="relative rise in vision calls per episode allowed (default 0.25)")
    p.add_argument("--slack-calls", type=float, default=0.5, metavar="N",
                   help="absolute rise in vision calls per episode allowed on top (default 0.5)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="confidence of the baseline's Wilson interval (default 0.95)")
    p.add_argument("--config", default=None,
                   help="config to check when RUN_DIR holds several (default: the baseline's)")
    p.add_argument("--command", default=None,
                   help="with --update: the command that regenerates the baseline, stored in it")
    p.add_argument("--all", action="store_true", help="show unchanged rows too")
    p.add_argument("--paired", choices=("auto", "on", "off"), default="auto",
                   help="compare episode by episode too: a (task, seed) that succeeded in the "
                        "baseline and fails now fails the check (auto: when the run's perception "
                        "is deterministic, synthetic or none)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    exit_without_teardown()
    args = parser().parse_args(argv)
    console = make_console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 140)
    try:
        return run_check(args, console)
    except BadInput as exc:
        print(f"groundbench-check: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
