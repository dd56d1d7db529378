"""Loads and validates task files (YAML, with `include:` inheritance) into a registry and selects
suites from it by id, tag or glob. Every error names the file and the field."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import yaml
from PIL import Image
from pydantic import ValidationError

from tasks.schema import Task

FIXTURE_TASKS = Path(__file__).resolve().parent / "fixtures"


class TaskFileError(ValueError):
    """A task file that cannot be used; the message names the file, the field and the reason."""

    def __init__(self, path: Path, field: str, reason: str) -> None:
        self.path, self.field, self.reason = path, field, reason
        super().__init__(f"{path}: field '{field}': {reason}")


class UnknownTaskError(LookupError):
    pass


def _read_yaml(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    if path in seen:
        raise TaskFileError(path, "include", "include cycle: " + " -> ".join(map(str, seen + (path,))))
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise TaskFileError(path, "<yaml>", f"not valid YAML: {exc}") from None
    except OSError as exc:
        raise TaskFileError(path, "<file>", str(exc)) from None
    if not isinstance(data, dict):
        raise TaskFileError(path, "<root>", "a task file must be a mapping")
    include = data.pop("include", None)
    if include is None:
        return data
    base_path = (path.parent / str(include)).resolve()
    if not base_path.is_file():
        raise TaskFileError(path, "include", f"included file {base_path} does not exist")
    return {**_read_yaml(base_path, seen + (path,)), **data}


def load_task(path: Path) -> Task:
    data = _read_yaml(path)
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "<root>"
        raise TaskFileError(path, field, err["msg"]) from None
    return _with_pictures(path, task)


def _with_pictures(path: Path, task: Task) -> Task:
    """A subgoal's `looks_like` file, resolved against the task file's folder and checked to be a
    picture Pillow can read (a data: URL is read when it is used)."""
    plan = list(task.plan)
    for i, sub in enumerate(plan):
        if sub.looks_like is None or sub.looks_like.startswith("data:"):
            continue
        picture = (path.parent / sub.looks_like).resolve()
        try:
            with Image.open(picture) as im:
                im.verify()
        except (OSError, SyntaxError) as exc:
            raise TaskFileError(path, f"plan.{i}.looks_like", f"not a picture: {picture} ({exc})") from None
        plan[i] = sub.model_copy(update={"looks_like": str(picture)})
    return task.model_copy(update={"plan": plan}) if plan != list(task.plan) else task


def load_tasks(dirs: Iterable[str | Path]) -> dict[str, Task]:
    """All task files under the given folders; files whose name starts with '_' are include bases."""
    registry: dict[str, Task] = {}
    origin: dict[str, Path] = {}
    for folder in dirs:
        folder = Path(folder)
        if not folder.is_dir():
            raise TaskFileError(folder, "tasks.dirs", "folder does not exist")
        for path in sorted(folder.rglob("*.yaml")):
            if path.name.startswith("_"):
                continue
            task = load_task(path)
            if task.id in registry:
                raise TaskFileError(path, "id", f"duplicate task id {task.id!r} (also in {origin[task.id]})")
            registry[task.id] = task
            origin[task.id] = path
    return registry


class Selectable(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def tags(self) -> list[str]: ...


T = TypeVar("T", bound=Selectable)


def select(registry: dict[str, T], ids: Sequence[str] = (), tags: Sequence[str] = (),
           exclude_tags: Sequence[str] = ()) -> list[T]:
    """The tasks whose id matches one of `ids` (globs allowed) and that carry one of `tags`,
    minus those carrying one of `exclude_tags`. An empty `ids` or `tags` does not narrow, so a
    suite's tags plus `suite.ids=[...]` on the command line runs just those ids of that suite.

    An id pattern that matches nothing, or ids whose every match the suite's tags leave out, is an
    error, so a typo in a suite never silently shrinks it."""
    chosen = dict(registry)
    if ids:
        chosen = {}
        for pattern in ids:
            hits = {i: t for i, t in registry.items() if fnmatch.fnmatchcase(t.id, pattern)}
            if not hits:
                raise UnknownTaskError(f"no task matches id {pattern!r}; known ids: {', '.join(sorted(registry))}")
            chosen.update(hits)
    if tags:
        tagged = {i: t for i, t in chosen.items() if set(t.tags) & set(tags)}
        if ids and not tagged:
            raise UnknownTaskError(f"ids {list(ids)} match only tasks without the suite's tags "
                                   f"{list(tags)}; add suite.tags=[] to run them anyway")
        chosen = tagged
    return sorted((t for t in chosen.values() if not set(t.tags) & set(exclude_tags)),
                  key=lambda t: t.id)
