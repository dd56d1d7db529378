"""MiniWoB plan builders and catalogue, without a browser: every builder on the utterances MiniWoB
documents for its task type, and the suite selection that follows from the catalogue."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pandas as pd
import pytest
from conftest import compose_config

from harness.runner import SuiteConfigError, suite_tasks
from reports.miniwob_table import miniwob_table
from tasks.miniwob.catalog import load_miniwob_tasks, time_dependence
from tasks.miniwob.plans import PLAN_BUILDERS, UtteranceError, build_plan

REQUIRED = ["click-button", "click-button-sequence", "click-checkboxes", "click-checkboxes-large",
            "click-collapsible", "click-collapsible-2", "click-dialog", "click-dialog-2",
            "click-link", "click-option", "click-tab", "click-tab-2", "click-widget",
            "enter-password", "enter-text", "enter-text-2", "focus-text", "focus-text-2",
            "login-user", "login-user-popup", "choose-list", "use-autocomplete", "use-slider",
            "navigate-tree", "search-engine"]


def documented_utterances() -> dict[str, list[str]]:
    """The example utterances in the docstrings of the installed package's environments."""
    spec = importlib.util.find_spec("miniwob")
    assert spec is not None and spec.submodule_search_locations
    source = Path(next(iter(spec.submodule_search_locations)), "envs", "miniwob_envs.py").read_text()
    out: dict[str, list[str]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        doc = ast.get_docstring(node) or ""
        name = next(n.value.value for n in node.body if isinstance(n, ast.Assign))
        if "## Example utterances" in doc:
            block = doc.split("## Example utterances")[1].split("##")[0]
            out[name] = [line.strip()[2:] for line in block.splitlines() if line.strip().startswith("* ")]
    return out


DOCUMENTED = documented_utterances()


def test_every_required_task_type_has_a_builder() -> None:
    assert set(REQUIRED) <= set(PLAN_BUILDERS)


@pytest.mark.parametrize("task_type", sorted(PLAN_BUILDERS))
def test_builder_plans_every_documented_utterance(task_type: str) -> None:
    examples = DOCUMENTED[task_type]
    assert examples, f"MiniWoB documents no utterance for {task_type}"
    for utterance in examples:
        plan = build_plan(task_type, utterance)
        assert plan, utterance
        quoted = [w for w in utterance.split('"')[1::2] if w not in ("Search", "x", "text", "radio",
                                                                   "checkbox", "textarea", "button")]
        said = " ".join(f"{s.target} {s.label or ''} {s.text or ''} {s.value or ''}" for s in plan)
        for word in quoted:  # what the utterance quotes reaches the plan (as typed or as a label)
            assert word in said or word.lower() in said or word.upper() in said, (utterance, said)


def test_plans_say_what_the_utterance_asks() -> None:
    plan = build_plan("click-checkboxes", "Select 91YPF, i6Vdpn2 and click Submit.")
    assert [(s.action, s.label, s.ensure) for s in plan] == [
        ("click", "91YPF", "checked"), ("click", "i6Vdpn2", "checked"), ("click", "Submit", None)]
    assert [s.label for s in build_plan("click-checkboxes", "Select nothing and click Submit.")] == ["Submit"]
    assert [s.text for s in build_plan("enter-text-2", 'Type "agustina" in all upper case letters '
                                                       "in the text input and press Submit.")
            if s.text] == ["AGUSTINA"]
    assert build_plan("focus-text-2", "Focus into the 3rd input textbox.")[0].nth == 3
    search = build_plan("search-engine", 'Use the textbox to enter "Renda" and press "Search", then '
                                         "find and click the 7th search result.")
    assert [s.label for s in search] == [None, "Search", "3", "Renda"]  # 7th result: page 3
    first_page = build_plan("search-engine", 'Use the textbox to enter "Nathalie" and press '
                                             '"Search", then find and click the 1st search result.')
    assert [s.label for s in first_page] == [None, "Search", "Nathalie"]
    assert build_plan("click-dialog-2", 'Click the button in the dialog box labeled "x".')[0].label is None
    assert build_plan("use-slider", "Select -97 with the slider and hit Submit.")[0].value == -97
    assert build_plan("click-tab-2", 'Switch between the tabs to find and click on the link "ac".'
                      )[0].reveal


def test_unrecognised_utterance_is_a_typed_error() -> None:
    with pytest.raises(UtteranceError, match="click-button: cannot plan from utterance"):
        build_plan("click-button", "Press the big red button")
    with pytest.raises(UtteranceError, match="widget among"):
        build_plan("click-widget", 'Click on a "slider" widget.')
    with pytest.raises(KeyError, match="no plan builder"):
        build_plan("book-flight", "Book the cheapest one-way flight from: HIB to: SWD on 10/25/2016.")


def test_catalogue_carries_miniwobs_own_marks() -> None:
    tasks = load_miniwob_tasks()
    assert len(tasks) > 100
    dialog = tasks["miniwob.click-dialog"]
    assert "nondeterministic" in dialog.tags and "jQuery UI dialog" in dialog.nondeterministic
    assert "time-dependent" in tasks["miniwob.stock-market"].tags
    button = tasks["miniwob.click-button"]
    assert button.planned and not button.nondeterministic and not button.time_dependent
    assert "unplanned" in tasks["miniwob.book-flight"].tags


def test_time_dependence_reads_the_page(tmp_path: Path) -> None:
    page = tmp_path / "t.html"
    page.write_text("<script>var t = setInterval(tick, 100);</script>")
    assert time_dependence(page) == "its page calls setInterval"
    page.write_text("<script>var d = new Date(2016, 0, 1);</script>")  # a fixed date is not a clock
    assert time_dependence(page) == ""


def test_default_suite_is_planned_and_deterministic() -> None:
    cfg, _ = compose_config(["suite=miniwob"])
    tasks = suite_tasks(cfg)
    names = {t.task_type for t in tasks}
    assert len(names) >= 20
    assert all(t.planned and not t.nondeterministic and not t.time_dependent for t in tasks)
    assert {"click-dialog", "click-dialog-2", "search-engine"}.isdisjoint(names)
    cfg, _ = compose_config(["suite=miniwob_nondeterministic"])
    assert {t.task_type for t in suite_tasks(cfg)} == {"click-dialog", "click-dialog-2", "search-engine"}


def test_unplanned_task_types_need_a_planning_worker() -> None:
    cfg, _ = compose_config(["suite=miniwob_openai"])
    with pytest.raises(SuiteConfigError, match="no plan builder for .*bisect-angle"):
        suite_tasks(cfg)
    cfg, _ = compose_config(["suite=miniwob_openai", "worker=openai"])
    assert any(not t.planned for t in suite_tasks(cfg))
    cfg, _ = compose_config(["suite=miniwob", "policy=oracle"])
    with pytest.raises(SuiteConfigError, match="policy=oracle"):
        suite_tasks(cfg)


def test_table_per_task_type_and_config() -> None:
    rows = [("miniwob.click-tab", "full", True, 1, 1, ""), ("miniwob.click-tab", "full", False, 3, 4,
                                                            "wrong_target"),
            ("miniwob.click-tab", "naive", True, 2, 1, ""), ("miniwob.use-slider", "full", False, 8,
                                                             8, "no_target"),
            ("shop-coupon", "full", True, 1, 1, "")]
    episodes = pd.DataFrame(rows, columns=["task_id", "config_name", "success", "vision_calls",
                                           "steps", "failure"])
    table = miniwob_table(episodes).set_index("task type")
    assert list(table.index) == ["click-tab", "use-slider", "all"]  # fixture tasks left out
    assert table.loc["click-tab", "full"] == "50% (1/2), 2 calls, 2.5 steps"
    assert table.loc["use-slider", "naive"] == "–"
    assert table.loc["all", "full"] == "33% (1/3), 3 calls, 4 steps"
    assert table.loc["all", "failures (full)"] == "wrong_target 1, no_target 1"
    assert miniwob_table(episodes[episodes.task_id == "shop-coupon"]).empty
