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
from reports.miniwob_table import RepeatsError, miniwob_table, repeats_table
from tasks.miniwob.catalog import load_miniwob_tasks, time_dependence
from tasks.miniwob.plans import PLAN_BUILDERS, UtteranceError, build_plan

REQUIRED = ["click-button", "click-button-sequence", "click-checkboxes", "click-checkboxes-large",
            "click-collapsible", "click-collapsible-2", "click-dialog", "click-dialog-2",
            "click-link", "click-option", "click-tab", "click-tab-2", "click-widget",
            "enter-password", "enter-text", "enter-text-2", "focus-text", "focus-text-2",
            "login-user", "login-user-popup", "choose-list", "use-autocomplete", "use-slider",
            "navigate-tree", "search-engine",
            # wider coverage (#20 item 3): hover, drag and scroll types among them
            "click-menu", "click-menu-2", "drag-items", "drag-items-grid", "drag-single-shape",
            "drag-circle", "sign-agreement", "enter-date", "enter-time", "form-sequence",
            "form-sequence-2", "form-sequence-3", "multi-layouts", "multi-orderings", "unicode-test",
            "click-test-transfer", "email-inbox-delete", "email-inbox-important", "use-slider-2",
            # nondeterministic
            "click-scroll-list", "choose-date", "choose-date-easy", "choose-date-medium",
            "choose-date-nodelay", "scroll-text-2", "phone-book", "click-pie", "click-pie-nodelay",
            "social-media"]

NONDETERMINISTIC_PLANNED = {"click-dialog", "click-dialog-2", "search-engine", "click-scroll-list",
                            "choose-date", "choose-date-easy", "choose-date-medium",
                            "choose-date-nodelay", "scroll-text-2", "phone-book", "click-pie",
                            "click-pie-nodelay", "social-media"}


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
    assert len(PLAN_BUILDERS) >= 50


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


def _said(plan: list) -> list[tuple]:
    return [(s.action, s.target, s.label, s.text, s.value, s.nth, s.to, s.offset) for s in plan]


def test_hover_plans_open_each_submenu() -> None:
    plan = build_plan("click-menu", "Select Almira>Sherye>Anissa")
    assert [(s.action, s.label) for s in plan] == [("hover", "Almira"), ("hover", "Sherye"),
                                                   ("click", "Anissa")]
    assert [(s.action, s.label) for s in build_plan("click-menu", "Select Martelle")] == [
        ("click", "Martelle")]
    menu2 = build_plan("click-menu-2", 'Click the "Menu" button, and then find and click on the '
                                       'item labeled "Zoom Out".')
    assert [(s.action, s.label) for s in menu2] == [("click", "Menu"), ("click", "Zoom Out")]
    # the instruction draws the icon; the episode reads it as "[picture 1]" and gives the picture
    icon = build_plan("click-menu-2", 'Click the "Menu" button, and then find and click on the '
                                      "item with the [picture 1] icon.")
    assert icon[1].looks_like == "[picture 1]" and icon[1].label is None
    text_only = build_plan("click-menu-2", 'Click the "Menu" button, and then find and click on '
                                           "the item with the icon.")
    assert text_only[1].looks_like is None and text_only[1].nth == 1


def test_drag_plans_name_the_item_and_where_it_goes() -> None:
    (to_third,) = build_plan("drag-items", "Drag Gerda to the 3rd position.")
    assert (to_third.action, to_third.label, to_third.to) == (
        "drag", "Gerda", "the list item in the 3rd position")
    (down,) = build_plan("drag-items", "Drag Margette down by one position.")
    assert down.to == "the list item just below Margette"
    (hyphen,) = build_plan("drag-items", "Drag Sara-Ann to the 1st position.")
    assert hyphen.label == "Sara-Ann" and hyphen.to == "the list item in the 1st position"
    # phrasings the page also uses, beyond MiniWoB's documented examples
    (top,) = build_plan("drag-items", "Drag Joana to the bottom.")
    assert top.to == "the last list item, at the bottom of the list"
    assert build_plan("drag-items-grid", "Drag Vally to the center.")[0].to == "the grid item at the center"
    assert build_plan("drag-items-grid", "Drag Vally to the center left.")[0].to == (
        "the grid item at the center left")
    assert build_plan("drag-items-grid", "Drag Vally right by one.")[0].to == (
        "the grid item just right of Vally")
    (corner,) = build_plan("drag-items-grid", "Drag Marcille to the bottom right.")
    assert (corner.label, corner.to) == ("Marcille", "the grid item at the bottom right")
    (up,) = build_plan("drag-items-grid", "Drag Drucy up by one.")
    assert up.to == "the grid item just above Drucy"
    left, submit = build_plan("drag-single-shape", "Drag the item left then press Submit.")
    assert left.action == "drag" and left.offset == (-40, 0) and left.to is None
    assert submit.label == "Submit"
    assert build_plan("drag-circle", "Drag the circle down then press Submit.")[0].offset == (0, 40)


def test_scroll_plans_scroll_inside_the_container() -> None:
    scroll, name, agree = build_plan("sign-agreement", 'Scroll to the bottom of the textarea, enter '
                                                        'the name "Olin" then press "Agree"')
    assert (scroll.action, scroll.target, scroll.direction, scroll.targeted) == (
        "scroll", "user agreement text area", "down", True)
    assert (name.action, name.text, agree.label) == ("type", "Olin", "Agree")
    assert [s.label for s in build_plan("sign-agreement", "Click the cancel button.")] == ["Cancel"]
    up = build_plan("scroll-text-2", "Scroll the textarea to the top of the text hit submit.")[0]
    assert (up.target, up.direction) == ("text area", "up")
    plan = build_plan("click-scroll-list", "Select Heard Island and McDonald Islands, Nicaragua "
                                           "from the scroll list and click Submit.")
    assert [(s.action, s.until, s.label) for s in plan] == [
        ("scroll", "Heard Island and McDonald Islands option", None),
        ("click", None, "Heard Island and McDonald Islands"),
        ("scroll", "Nicaragua option", None), ("click", None, "Nicaragua"), ("click", None, "Submit")]


def test_form_and_date_plans() -> None:
    assert _said(build_plan("form-sequence-2", 'Check the 2nd radio button and enter the number '
                                               '"48" into the 3rd textbox.'))[:2] == [
        ("click", "radio button", None, None, None, 2, None, None),
        ("type", "text box", None, "48", None, 3, None, None)]
    slider, box, _ = build_plan("form-sequence", "Select -4 with the slider, click the 1st checkbox, "
                                                 "then hit Submit.")
    assert (slider.value, box.nth, box.ensure) == (-4, 1, "checked")
    choose, click = build_plan("form-sequence-3", 'Choose 6 ft from the dropdown, then click the '
                                                  'button labeled "No".')
    assert (choose.action, choose.value, click.label) == ("select", "6 ft", "No")
    assert [s.text for s in build_plan("multi-orderings", "Search for historical movies directed by "
                                                          "Mcknight from year 1980.") if s.text] == [
        "historical", "Mcknight", "1980"]
    assert build_plan("enter-date", "Enter 05/20/2010 as the date and hit submit.")[0].text == "05/20/2010"
    assert build_plan("enter-time", "Enter 7:01 AM as the time and press submit.")[0].text == "7:01 AM"
    assert [s.value for s in build_plan("use-slider-2", "Set the sliders to the combination "
                                                        "[12,3,11] and submit.")] == [12, 3, 11, None]
    # The calendar opens on December 2016: November is one "Prev" away, January eleven.
    medium = build_plan("choose-date-medium", "Select 11/03/2016 as the date and hit submit.")
    assert [s.label for s in medium] == [None, "Prev", "3", "Submit"] and medium[1].once
    assert [s.label for s in build_plan("choose-date", "Select 01/14/2016 as the date and hit "
                                                       "submit.")].count("Prev") == 11


def test_other_new_plans() -> None:
    assert build_plan("unicode-test", 'Click on the "取消" button.')[0].label == "取消"
    assert build_plan("click-test-transfer", "Click button ONE.")[0].label == "ONE"
    email, trash = build_plan("email-inbox-delete", "Find the email by Coletta and click the trash "
                                                    "icon to delete it.")
    assert email.label == "Coletta" and "trash" in (trash.target or "")
    assert "star" in (build_plan("email-inbox-important", "Find the email by Gerta and click the "
                                 "star icon to mark it as important.")[1].target or "")
    (phone,) = build_plan("phone-book", "Find Verile in the contact book and click on their phone "
                                        "number.")
    assert "phone number" in (phone.target or "") and "Verile" in (phone.target or "") and phone.reveal
    expand, item = build_plan("click-pie", 'Expand the pie menu below and click on the item labeled "e".')
    assert (expand.action, expand.label, item.label) == ("expand", "+", "e")
    more, mute = build_plan("social-media", 'For the user @leo, click on the "Share via DM" button.')
    assert "@leo" in (more.target or "") and mute.label == "Share via DM"


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
    assert len(names) >= 50 - len(NONDETERMINISTIC_PLANNED)
    assert NONDETERMINISTIC_PLANNED.isdisjoint(names)
    cfg, _ = compose_config(["suite=miniwob_nondeterministic"])
    nondeterministic = suite_tasks(cfg)
    assert {t.task_type for t in nondeterministic} == NONDETERMINISTIC_PLANNED
    assert all(t.planned and t.nondeterministic for t in nondeterministic)
    assert len(names | NONDETERMINISTIC_PLANNED) >= 50


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


def test_repeats_table_shows_the_spread_and_the_flipped_seeds() -> None:
    rows = []
    for run, wins in (("r1", {0, 1}), ("r2", {0}), ("r3", {0, 1})):
        for seed in (0, 1):
            rows.append(("miniwob.click-dialog", "full", seed in wins, 1, 1,
                         "" if seed in wins else "wrong_target", run, seed))
            rows.append(("miniwob.search-engine", "full", seed == 0, 2, 4,
                         "" if seed == 0 else "no_target", run, seed))
    episodes = pd.DataFrame(rows, columns=["task_id", "config_name", "success", "vision_calls",
                                           "steps", "failure", "run_dir", "seed"])
    table = repeats_table(episodes).set_index("task type")
    assert list(table.loc["click-dialog", ["repeat 1", "repeat 2", "repeat 3"]]) == ["2/2", "1/2", "2/2"]
    assert table.loc["click-dialog", "spread over 3 repeats"] == "50%–100% (1–2/2)"
    assert table.loc["click-dialog", "seeds that flipped"] == 1
    assert table.loc["search-engine", "spread over 3 repeats"] == "50% every time (1/2)"
    assert table.loc["search-engine", "seeds that flipped"] == 0
    assert table.loc["all", "spread over 3 repeats"] == "50%–75% (2–3/4)"
    assert table.loc["all", "seeds that flipped"] == 1
    assert table.loc["all", "pooled (full)"] == "67% (8/12), 1.5 calls, 2.5 steps"
    assert table.loc["all", "failures (all repeats)"] == "no_target 3, wrong_target 1"
    with pytest.raises(RepeatsError, match="one config"):
        repeats_table(episodes.assign(config_name=episodes["run_dir"]))
    with pytest.raises(RepeatsError, match="same"):
        repeats_table(episodes[~((episodes.run_dir == "r2") & (episodes.seed == 1))])
