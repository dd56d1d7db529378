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


@pytest.mark.parametrize(("patch", "field", "reason"), [
    (("{action: click, target: Go button}", "{action: drag, target: Card A}"), "plan.0", "one of to"),
    (("{action: click, target: Go button}", "{action: drag, target: Card A, to: Lane B, offset: [0, 40]}"),
     "plan.0", "one of to"),
    (("{action: click, target: Go button}", "{action: click, target: Go button, to: Lane B}"),
     "plan.0", "belong to action 'drag'"),
    (("{action: click, target: Go button}", "{action: click, target: Go button, until: Footer}"),
     "plan.0", "belong to action 'scroll'"),
    (("{action: click, target: Go button}", "{action: scroll, direction: sideways}"),
     "plan.0.direction", "Input should be"),
    (("{action: click, target: Go button}", "{action: hover}"), "plan.0", "needs a target"),
    (("{path: done, equals: true}", "{path: done, state_equals: {done: true}}"), "success.0",
     "stands alone"),
    (("{path: done, equals: true}", "{equals: true}"), "success.0", "needs a path"),
    (("{action: click, target: Go button}", "{action: click, target: Go, expect: {text_present: x}}"),
     "plan.0.expect.says", "Field required"),
])
def test_new_language_errors_name_the_field(tmp_path: Path, patch, field, reason) -> None:
    path = write(tmp_path, "bad.yaml", GOOD.replace(*patch))
    with pytest.raises(TaskFileError) as err:
        load_task(path)
    assert err.value.field == field and reason in str(err.value)


def test_new_actions_and_fields_load(tmp_path: Path) -> None:
    plan = """\
  - {action: scroll, target: Playlist strip, direction: right, until: Jazz tile}
  - {action: hover, target: Products menu}
  - {action: drag, target: Card A, to: Done lane}
  - {action: drag, target: Volume handle, offset: [120, 0]}
  - action: click
    target: Save button
    expect: {says: the settings are saved, text_present: Saved, text_absent: Unsaved}
"""
    task = load_task(write(tmp_path, "t.yaml", GOOD.replace("  - {action: click, target: Go button}\n", plan)))
    scroll, hover, drag_to, drag_by, click = task.plan
    assert scroll.targeted and scroll.direction == "right" and scroll.until == "Jazz tile"
    assert hover.targeted and drag_to.to == "Done lane" and drag_by.offset == (120, 0)
    assert click.expect is not None and click.expect.checkable and click.expect.text_absent == "Unsaved"
    assert not load_task(write(tmp_path, "u.yaml", GOOD.replace(
        "{action: click, target: Go button}", "{action: scroll}"))).plan[0].targeted


def test_exact_state_fails_on_any_extra_key(tmp_path: Path) -> None:
    text = GOOD.replace("{path: done, equals: true}", "{state_equals: {done: true, cart.items: 1}}")
    task = load_task(write(tmp_path, "t.yaml", text))
    assert task.check({"done": True, "cart": {"items": 1}}) == (True, [])
    ok, failed = task.check({"done": True, "cart": {"items": 1}, "newsletter": True})
    assert not ok and "state equals" in failed[0] and "newsletter" in failed[0]
    assert not task.check({"done": True, "cart": {"items": 2}})[0]
    assert not task.check({"done": True})[0]


def test_shipped_json_schema_is_generated_from_the_model() -> None:
    import json

    from tasks.schema import json_schema
    shipped = json.loads((Path(__file__).parents[1] / "docs" / "task.schema.json").read_text())
    assert shipped == json_schema(), "regenerate: python -m tasks.schema > docs/task.schema.json"
    props = shipped["$defs"]["Subgoal"]["properties"]
    assert {"until", "to", "offset", "expect", "label"} <= set(props)
    assert all(props[name].get("description") for name in ("label", "until", "to", "offset", "expect"))


def test_every_fixture_task_validates_against_the_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from tasks.schema import json_schema
    schema = json_schema()
    files = sorted(FIXTURE_TASKS.rglob("*.yaml"))
    assert files
    for path in files:
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)


def test_broken_names_what_a_step_set_wrong(tmp_path: Path) -> None:
    text = GOOD.replace("  - {path: done, equals: true}\n",
                        "  - {path: memory.ram, equals: 16 GB}\n  - {path: qty, gte: 2}\n"
                        "  - {path: gift, exists: false}\n")
    task = load_task(write(tmp_path, "t.yaml", text))
    assert task.broken({}) == []  # nothing set yet is not wrong, only not done
    assert task.broken({"memory": {"ram": "16 GB", "graphics": "16 GB"}, "qty": 3}) == []
    assert task.broken({"memory": {"ram": "8 GB"}, "qty": 1}) == [
        "memory.ram = '8 GB' (wants equals '16 GB')", "qty = 1 (wants gte 2.0)"]
    exact = load_task(write(tmp_path, "e.yaml", GOOD.replace(
        "{path: done, equals: true}", "{state_equals: {played: Mix 2}}")))
    assert exact.broken({"played": "Mix 2"}) == []
    assert exact.broken({"played": "Mix 1", "saved": True}) == [
        "played = 'Mix 1' (wants 'Mix 2')", "saved = True (not expected)"]


def test_second_long_shopping_flow_loads_and_joins_the_efficiency_suite() -> None:
    """outfitter-trail-order (#23 item 3): 20 steps over 4 documents, judged on the whole state,
    in the `efficiency` suite through its long-flow tag (the mall's long-shopping figures stay the
    mall's) and kept out of `ci`."""
    registry = load_tasks([FIXTURE_TASKS])
    task = registry["outfitter-trail-order"]
    assert len(task.plan) == 20 and task.max_steps == 40 and task.oracle
    assert set(task.tags) == {"long-flow", "outfitter"}
    assert [a.operator for a in task.success] == ["state_equals"]
    want = task.success[0].expected_state()
    assert task.check(want) == (True, [])
    ok, _ = task.check({**want, "cart": {**want["cart"], "rejected_codes": ["TRAIL5"]}})
    assert not ok
    sites = Path(__file__).resolve().parents[1] / "sites" / "outfitter"
    assert {p.name for p in sites.glob("*.html")} == {"index.html", "product.html", "cart.html",
                                                      "checkout.html"}
    import yaml

    from harness.config import CONF
    suite = yaml.safe_load((Path(CONF) / "suite" / "efficiency.yaml").read_text())
    efficiency = select(registry, tags=suite["tags"])
    assert "outfitter-trail-order" in {t.id for t in efficiency}
    assert "outfitter-trail-order" not in {t.id for t in select(registry, tags=["ci"])}
