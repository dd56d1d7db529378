from pathlib import Path

import pytest

from tasks.loader import (
    FIXTURE_TASKS,
    TaskFileError,
    UnknownTaskError,
    load_task,
    load_tasks,
    select,
)

GOOD = """\
id: demo-task
site: shop
start: /shop/index.html
goal: Do a thing.
plan:
  - {action: click, target: Go button}
success:
  - {path: done, equals: true}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_valid_task_loads(tmp_path: Path) -> None:
    task = load_task(write(tmp_path, "t.yaml", GOOD))
    assert task.id == "demo-task" and task.allowed_domains == ["main", "alt"]
    assert task.check({"done": True}) == (True, [])
    ok, failed = task.check({"done": False})
    assert not ok and "done equals True" in failed[0]


@pytest.mark.parametrize(("patch", "field", "reason"), [
    (("action: click", "action: teleport"), "plan.0.action", "Input should be"),
    (("target: Go button", "label: Go"), "plan.0", "needs a target description"),
    (("goal: Do a thing.\n", ""), "goal", "Field required"),
    (("equals: true", "equals: true, exists: true"), "success.0", "exactly one operator"),
    (("start: /shop/index.html", "start: /elsewhere/index.html"), "<root>", "must be a path under /shop/"),
])
def test_invalid_task_names_file_and_field(tmp_path: Path, patch, field, reason) -> None:
    path = write(tmp_path, "bad.yaml", GOOD.replace(*patch))
    with pytest.raises(TaskFileError) as err:
        load_task(path)
    assert err.value.path == path and err.value.field == field
    assert reason in str(err.value) and str(path) in str(err.value)


def test_unknown_field_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="selector"):
        load_task(write(tmp_path, "bad.yaml", GOOD + "selector: '#go'\n"))


def test_yaml_syntax_error_names_file(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="not valid YAML"):
        load_task(write(tmp_path, "bad.yaml", "id: [unclosed\n"))


def test_include_inherits_and_overrides(tmp_path: Path) -> None:
    write(tmp_path, "_base.yaml", GOOD)
    task = load_task(write(tmp_path, "child.yaml", "include: _base.yaml\nid: child\nmax_steps: 3\n"))
    assert (task.id, task.max_steps, task.site) == ("child", 3, "shop")


def test_duplicate_ids_refused(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", GOOD)
    write(tmp_path, "b.yaml", GOOD)
    with pytest.raises(TaskFileError, match="duplicate task id 'demo-task'"):
        load_tasks([tmp_path])


def test_select_by_id_tag_and_glob() -> None:
    registry = load_tasks([FIXTURE_TASKS])
    smoke = select(registry, tags=["smoke"])
    assert {t.id for t in smoke} >= {"shop-region-filter", "checkout-iframe-pay"}
    assert [t.id for t in select(registry, ids=["shop-*"])] == sorted(
        t for t in registry if t.startswith("shop-"))
    with pytest.raises(UnknownTaskError, match="no task matches id 'nope'"):
        select(registry, ids=["nope"])
    # ids narrow a tagged suite: `suite=smoke suite.ids=[shop-*]` runs the smoke shop tasks only
    both = select(registry, ids=["shop-*"], tags=["smoke"])
    assert both and {t.id for t in both} == {t.id for t in smoke if t.id.startswith("shop-")}
    with pytest.raises(UnknownTaskError, match="suite.tags=\\[\\]"):
        select(registry, ids=["sliders-*"], tags=["smoke"])


def test_every_fixture_task_is_valid_and_on_a_real_site() -> None:
    registry = load_tasks([FIXTURE_TASKS])
    sites = Path(__file__).resolve().parents[1] / "sites"
    for task in registry.values():
        assert (sites / task.start.lstrip("/")).is_file(), f"{task.id}: start page {task.start} missing"
