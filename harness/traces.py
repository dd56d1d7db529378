"""Trace writer: one parquet part per finished episode (atomic rename), combined into
`steps.parquet` and `episodes.parquet` with the run metadata in the schema, so an interrupted run
loses nothing and readers never see a half-written file."""

from __future__ import annotations

import functools
import json
import os
import time
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from tasks.trace import EPISODE_KEYS, SCHEMA_VERSION, EpisodeRecord, StepRecord

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow (and the numpy it loads) is imported where traces are read or written, not with this
# module: the runner imports it on a thread while the browser starts (~0.1 s of start-up).

METADATA_KEY = b"groundbench"
PARTS = ".parts"
# Combining rewrites the whole run's two files, so its cost grows with the run: it waits at least
# this many times its last duration, which keeps it under ~5% of a long run's time.
COMBINE_PACING = 20


def _arrow_type(annotation: Any) -> pa.DataType:
    """The column type of a record field: a scalar, `X | None` (a nullable X) or `list[X]`."""
    import pyarrow as pa

    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation)
        return pa.list_(_arrow_type(item))
    return {bool: pa.bool_(), int: pa.int64(), float: pa.float64(), str: pa.string()}[annotation]


def _columns(model: type[BaseModel]) -> list[tuple[str, pa.DataType]]:
    return [(name, _arrow_type(f.annotation)) for name, f in model.model_fields.items()]


@functools.cache
def schemas() -> tuple[pa.Schema, pa.Schema]:
    """The columns of episodes.parquet and of steps.parquet (each step row carries its
    episode's keys)."""
    import pyarrow as pa

    episodes = pa.schema(_columns(EpisodeRecord))
    return episodes, pa.schema([episodes.field(k) for k in EPISODE_KEYS] + _columns(StepRecord))


class TraceFormatError(ValueError):
    pass


def _write_atomic(table: pa.Table, path: Path) -> None:
    import pyarrow.parquet as pq

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def remove_unfinished(run_dir: Path) -> list[Path]:
    """Deletes the temporary files a killed run left mid-write (in the run folder and its parts);
    only for a run taking the folder over, as `resume=true` does. Returns what it deleted."""
    stale = [*run_dir.glob(".*.parquet.*.tmp"), *(run_dir / PARTS).glob(".*.parquet.*.tmp")]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale


class TraceWriter:
    """Writes traces into a run folder as episodes finish."""

    def __init__(self, run_dir: Path, metadata: dict[str, Any], combine_every_s: float = 2.0) -> None:
        import pyarrow.parquet as pq

        self.run_dir = run_dir
        self.parts = run_dir / PARTS
        self.parts.mkdir(parents=True, exist_ok=True)
        meta = {METADATA_KEY: json.dumps({"schema_version": SCHEMA_VERSION, **metadata}).encode()}
        episodes, steps = schemas()
        self.steps_schema = steps.with_metadata(meta)
        self.episodes_schema = episodes.with_metadata(meta)
        self.combine_every_s = combine_every_s
        self._last_combine = 0.0
        self._combine_s = 0.0
        self.episodes_written = 0
        # What the combined files hold, kept in memory: the parts an earlier process left (a
        # resumed run) read once here, then each episode's rows as they are written.
        self._tables: dict[str, list[pa.Table]] = {
            kind: [pq.read_table(f, schema=schema) for f in sorted(self.parts.glob(f"{kind}-*.parquet"))]
            for kind, schema in (("steps", self.steps_schema), ("episodes", self.episodes_schema))}

    def add_episode(self, episode: dict[str, Any], steps: list[dict[str, Any]]) -> None:
        import pyarrow as pa

        key = episode["episode_id"]
        step_rows = [{**{k: episode[k] for k in EPISODE_KEYS}, **s} for s in steps]
        tables = {"steps": pa.Table.from_pylist(step_rows, schema=self.steps_schema),
                  "episodes": pa.Table.from_pylist([episode], schema=self.episodes_schema)}
        for kind, table in tables.items():
            _write_atomic(table, self.parts / f"{kind}-{key}.parquet")
        for kind, table in tables.items():  # both parts on disk: now part of the combined files
            self._tables[kind].append(table)
        self.episodes_written += 1
        wait_s = max(self.combine_every_s, COMBINE_PACING * self._combine_s)
        if time.monotonic() - self._last_combine >= wait_s:
            self.combine()

    def combine(self) -> None:
        import pyarrow as pa

        started = time.monotonic()
        for kind, schema in (("steps", self.steps_schema), ("episodes", self.episodes_schema)):
            tables = self._tables[kind]
            table = pa.concat_tables(tables) if tables else schema.empty_table()
            _write_atomic(table.replace_schema_metadata(schema.metadata), self.run_dir / f"{kind}.parquet")
        self._last_combine = time.monotonic()
        self._combine_s = self._last_combine - started


def read_metadata(path: Path) -> dict[str, Any]:
    """The run metadata stored in a trace file; refuses files from a newer schema version."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(METADATA_KEY)
    if raw is None:
        raise TraceFormatError(f"{path} is not a groundbench trace (no {METADATA_KEY.decode()} metadata)")
    meta = json.loads(raw)
    if meta.get("schema_version", 0) > SCHEMA_VERSION:
        raise TraceFormatError(f"{path} was written by a newer groundbench (trace schema "
                               f"{meta['schema_version']} > {SCHEMA_VERSION}); upgrade to read it")
    return meta
