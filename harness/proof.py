"""Proof that each fixture trap springs: runs the oracle and the naive text policy over tasks and
seeds through the ordinary runner, and checks the oracle always succeeds while naive grounding
fails every task that declares a `naive_trap`.

    python -m harness.proof [--tasks GLOB ...] [--seeds 0 1 2] [--out DIR] [OVERRIDE ...]

OVERRIDEs are the run's own ('tasks.dirs=[DIR]', 'sites.dirs=[DIR]', ...), so a user's tasks are
proved where they run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pandas as pd
from hydra.errors import CompactHydraException
from pydantic import ValidationError

from harness.cli import BAD_INPUT, EXIT_BAD_INPUT
from harness.config import RunConfig, compose_run_config
from harness.runner import run, suite_tasks


def config_for(policy: str, task_globs: list[str], seeds: list[int], extra: list[str] = ()) -> tuple[RunConfig, dict]:
    overrides = [f"policy={policy}", "suite=fixtures", f"seeds=[{','.join(map(str, seeds))}]",
                 "concurrency=4", "trace.playwright=false", "trace.screenshots=none", *extra]
    if task_globs:
        overrides.append(f"suite.ids=[{','.join(task_globs)}]")
    return compose_run_config(overrides)


def prove(task_globs: list[str], seeds: list[int], out: Path, show_progress: bool = False,
          extra: list[str] = ()) -> pd.DataFrame:
    """Episodes of both policies, one row per (policy, task, seed), with the task's trap note."""
    frames = []
    for policy in ("oracle", "naive_text"):
        cfg, resolved = config_for(policy, task_globs, seeds, extra)
        frames.append(run(cfg, out / policy, resolved, show_progress=show_progress).episodes)
    episodes = pd.concat(frames, ignore_index=True)
    traps = {t.id: t.naive_trap or "" for t in suite_tasks(cfg)}
    episodes["naive_trap"] = episodes.task_id.map(traps)
    return episodes


def violations(episodes: pd.DataFrame) -> list[str]:
    """Oracle failures, and trap tasks that naive grounding passed on some seed."""
    bad = []
    for row in episodes[(episodes.config_name == "oracle") & ~episodes.success].itertuples():
        bad.append(f"oracle failed {row.task_id} seed {row.seed}: {row.failure_detail}")
    naive = episodes[(episodes.config_name == "naive_text") & (episodes.naive_trap != "")]
    for row in naive[naive.success].itertuples():
        bad.append(f"naive passed trap {row.task_id} seed {row.seed}: the fixture is not hard enough")
    return bad


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=[], help="task id globs (default: all fixtures)")
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here")
    argv = sys.argv[1:] if argv is None else argv
    # Hydra overrides (KEY=VALUE) may stand anywhere, also after --tasks or --seeds.
    overrides = [a for a in argv if "=" in a and not a.startswith("-")]
    args = parser.parse_args([a for a in argv if a not in overrides])
    args.overrides = overrides
    out = args.out or Path(tempfile.mkdtemp(prefix="groundbench-proof-"))
    try:
        episodes = prove(args.tasks, args.seeds, out, show_progress=sys.stderr.isatty(),
                         extra=args.overrides)
    except (*BAD_INPUT, ValidationError, CompactHydraException) as exc:
        print(f"harness.proof: {' '.join(str(exc).split())}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)
    table = episodes.pivot_table(index="task_id", columns="config_name", values="success", aggfunc="mean")
    print(table.to_string(float_format=lambda v: f"{v:.2f}"))
    problems = violations(episodes)
    for p in problems:
        print("VIOLATION", p)
    print(f"runs in {out}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
