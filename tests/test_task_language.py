"""The task language's actions and fields in a real browser (tests/language/: one page with a hover
menu, a horizontal strip in a page that does not scroll, a drag-to-reorder list, a slider handle
dragged by an offset and a save button): the oracle and the full agent carry out hover, drag (onto
a target and by an offset) and scroll inside a container until a target is in view; `expect:` is
judged per step into the trace; `state_equals` fails a run whose state holds one key too many."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
COMMON = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
          "seeds=[0]", "trace.playwright=false"]


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory):
    return run_experiment(tmp_path_factory.mktemp("full"), [
        *COMMON, "suite.ids=[studio-all,studio-unmet,studio-extra]", "perception=none"])


def _steps(run, task_id: str) -> pd.DataFrame:
    steps = pd.read_parquet(run.run_dir / "steps.parquet")
    return steps[steps.task_id == task_id].sort_values("step")


def test_the_oracle_does_hover_drag_and_wheel_over_an_element(tmp_path: Path) -> None:
    episodes = run_experiment(tmp_path, [*COMMON, "suite.ids=[studio-all]", "policy=oracle"]).episodes
    assert episodes.success.all(), episodes[["failure", "failure_detail"]]


def test_the_agent_hovers_drags_and_scrolls_inside_a_strip_until_the_target_shows(full_run) -> None:
    episode = full_run.episodes.set_index("task_id").loc["studio-all"]
    assert episode.success, episode.failure_detail
    steps = _steps(full_run, "studio-all")
    done = steps[steps.effective]
    by_subgoal = done.groupby("subgoal_index")
    assert by_subgoal.action.first().tolist()[:2] == ["hover", "click"]
    scroll = steps[steps.subgoal_action == "scroll"]
    # scrolled (inner_scroll brings the clipped target into view through its strip), then the
    # until-target found in view
    assert (scroll.action == "scroll").any() and scroll.effect.iloc[-1] == "in_view"
    assert scroll.target_name.iloc[-1] == "Mix 12"
    drags = steps[(steps.action == "drag") & steps.effective]
    assert drags.target_name.tolist() == ["Charlie card", "Volume handle"]


def test_expect_is_judged_per_step(full_run) -> None:
    held = _steps(full_run, "studio-all")
    last = held[held.subgoal_action == "click"].iloc[-1]
    assert last.expect_held == True
    assert held[held.subgoal_index < 6].expect_held.isna().all()
    unmet = _steps(full_run, "studio-unmet")
    # the click changed the page ("Saved"), but not into what the plan expects: not the effect,
    # so the subgoal is tried again (and then changes nothing). Every step that acted is judged
    # unmet; a last step may find the button dropped by the dead-action guard (its two no-ops
    # spread over dead_action_min_ms, as on a loaded machine) and act on nothing (None).
    acted = unmet[unmet.action != ""]
    assert len(acted) >= 2 and (acted.expect_held == False).all()
    assert unmet[unmet.action == ""].expect_held.isna().all()
    assert unmet.error_type.iloc[0] == "expect_unmet" and "published" in unmet.error.iloc[0]
    assert not unmet.effective.any()


def test_state_equals_fails_on_a_key_the_plan_should_not_have_written(full_run) -> None:
    episode = full_run.episodes.set_index("task_id").loc["studio-extra"]
    assert not episode.success
    assert "state equals" in episode.failure_detail and "saved" in episode.failure_detail


def test_naive_text_follows_the_new_actions(tmp_path: Path) -> None:
    # naive drags by text match: the reorder lands (its hover takes "All products" for the
    # Products menu, so the menu item is never reached)
    run = run_experiment(tmp_path, [*COMMON, "suite.ids=[studio-all]", "policy=naive_text"])
    assert "'order': 'Charlie card,Alpha card,Bravo card'" in run.episodes.failure_detail.iloc[0]


def test_the_step_that_set_something_wrong_is_named(full_run) -> None:
    # studio-extra plays Mix 1 first (the task wants Mix 2 and nothing else), then Mix 2, then
    # saves: the harness names the first and the last step, and the gallery's rule picks the first
    from tasks.wrong_step import first_wrong
    steps = _steps(full_run, "studio-extra")
    wrong = steps[steps.state_wrong != ""]
    assert wrong.target_name.tolist() == ["Mix 1", "Save settings"]
    assert "played = 'Mix 1'" in wrong.state_wrong.iloc[0] and "saved" in wrong.state_wrong.iloc[1]
    found = first_wrong(steps.to_dict("records"))
    assert found is not None and found[0]["target_name"] == "Mix 1"


def test_a_targeted_scroll_turns_the_wheel_over_its_container_by_the_plans_pixels(tmp_path: Path) -> None:
    # without inner_scroll's direct route the subgoal is carried out as written: wheel turns of
    # the plan's 300 px over the strip (one turn of the default 600 px brings Mix 12 in)
    run = run_experiment(tmp_path, [*COMMON, "suite.ids=[studio-all]", "perception=none",
                                    "agent.inner_scroll=false"])
    assert run.episodes.success.all(), run.episodes.failure_detail.tolist()
    scroll = _steps(run, "studio-all").query("subgoal_action == 'scroll'")
    wheel = scroll[scroll.action == "scroll"]
    assert len(wheel) >= 2 and (wheel.target_name == "Mix 1").all()
    assert scroll.effect.iloc[-1] == "in_view"
