"""Builds small run folders with the real trace schemas and metadata (harness.traces.TraceWriter),
no browser: the input of the report and check tests."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from harness.traces import TraceWriter
from tasks.trace import StepRecord

STAGE_MS = {"observe_ms": 20.0, "perceive_ms": 50.0, "vision_wait_ms": 5.0, "enrich_ms": 3.0,
            "rank_ms": 1.0, "choose_ms": 2.0, "resolve_ms": 4.0, "act_ms": 30.0,
            "validate_ms": 10.0, "worker_ms": 0.0}


def episode(config: str, task: str, seed: int, success: bool, vision_calls: int,
            tags: list[str], steps: int = 2, wall_s: float = 1.0, version: int = 1) -> dict[str, Any]:
    return {
        "episode_id": hashlib.sha1(f"{config}|{task}|{seed}".encode()).hexdigest()[:16],
        "task_id": task, "seed": seed,
        "config_name": config, "config_hash": f"h-{config}"[:16], "task_version": version,
        "tags": tags, "success": success, "steps": steps, "vision_calls": vision_calls,
        "wall_s": wall_s, "failure": "" if success else "wrong_target",
        "failure_detail": "" if success else "filters.region != Canada", "started_at": 0.0,
    }


def _steps(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The episode's step rows; `row["step_fields"]` (a list, one dict per step) sets columns."""
    n = max(1, row["steps"])
    calls = [row["vision_calls"] // n + (1 if i < row["vision_calls"] % n else 0) for i in range(n)]
    fields = row.get("step_fields") or [{}] * n
    return [StepRecord(**{"step": i, "subgoal_index": i, "subgoal_action": "click",
                          "subgoal_target": "Canada option", "vision_calls": calls[i],
                          "vision_call": calls[i] > 0, **STAGE_MS, **fields[i]}).model_dump()
            for i in range(n)]


def step_colour(step: int) -> tuple[int, int, int]:
    """The colour of the synthetic Set-of-Mark image of a step (tells which one was shown)."""
    return (200, 60 + 40 * step, 60)


def _png(step: int) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (320, 180), step_colour(step)).save(buf, format="PNG")
    return buf.getvalue()


def write_run(run_dir: Path, rows: list[dict[str, Any]], with_steps: bool = True,
              artefacts: bool = True, git_commit: str = "abc123", all_shots: bool = False,
              load_average: list[float] | None = None) -> Path:
    """A run folder as the runner leaves it; failed episodes get a Set-of-Mark PNG (of the last
    step, or of every step with `all_shots`) and a trace zip when `artefacts` is true."""
    meta = {"config_name": rows[0]["config_name"], "git_commit": git_commit,
            "config": {"suite": {"name": "ci"}, "seeds": sorted({r["seed"] for r in rows})},
            "load_average": load_average}
    # The writer's schemas carry the metadata; one write per table keeps the tests fast.
    writer = TraceWriter(run_dir, meta)
    keys = ("episode_id", "task_id", "seed", "config_name", "config_hash")
    steps = [{**{k: row[k] for k in keys}, **s} for row in rows if with_steps for s in _steps(row)]
    # (columns the schema does not have, such as step_fields, are left out)
    pq.write_table(pa.Table.from_pylist(rows, schema=writer.episodes_schema),
                   run_dir / "episodes.parquet")
    pq.write_table(pa.Table.from_pylist(steps, schema=writer.steps_schema), run_dir / "steps.parquet")
    for row in rows:
        if artefacts and not row["success"]:
            shots = run_dir / "screenshots" / row["episode_id"]
            shots.mkdir(parents=True, exist_ok=True)
            for step in range(row["steps"]) if all_shots else [row["steps"] - 1]:
                (shots / f"step-{step:03d}.png").write_bytes(_png(step))
            (run_dir / "playwright").mkdir(exist_ok=True)
            with zipfile.ZipFile(run_dir / "playwright" / f"{row['episode_id']}.zip", "w") as z:
                z.writestr("trace.trace", "")
    return run_dir
