"""A form whose words are not the plan's, on a page of its own (tests/language/sites/signin/: a
sign-in form whose fields are captioned by plain divs, "Work e-mail" and "Your account password",
whose only action button says "Continue", with "Create an account" under it; with ?notice=email or
=password a session notice, "Leave this page?" with Leave / Stay, pops up over the form when that
field takes the focus and disables the form until it is answered).

- "Password field" fits the nameless box captioned "Your account password": a short caption that
  holds every word of the description and a few more (agents/worker/fit.py `context_fit`);
- "Sign in button" goes to the form's action button, "Continue", the nearest button after the
  fields the plan filled, when no mark is named so (`form_button`); an exact name always wins;
- the notice is an interruption (agents/interruptions.py): it appeared on the agent's action,
  offers a choice the plan does not mention and left the target disabled; the agent answers it
  with its dismissing choice (Stay), never Leave, and goes on.

Before these (measured on c80b8c7, 3 seeds, synthetic): signin-continue 0/3, signin-notice-email
0/3, signin-notice-password 0/3."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agents.interruptions import interruption
from agents.marks import Mark
from agents.observation import Box
from agents.worker.fit import FORM_BUTTON_SCORE, MIN_SCORE, score
from agents.worker.scripted import ScriptedWorker, names_submission
from tasks.schema import Subgoal
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
SITE = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "trace.playwright=false", "perception=synthetic", "seeds=[0,1,2]"]
FILLED = ["type  -> changed the page", "type  -> changed the page"]


def _mark(n: int, label: str, role: str, y: float, x: float = 20, context: tuple[str, ...] = (),
          width: float = 140) -> Mark:
    return Mark(number=n, box=Box(x=x, y=y, width=width, height=24), label=label, role=role,
                context=context)


def _field(target: str) -> Subgoal:
    return Subgoal(action="type", target=target, text="x")


def test_a_caption_that_says_more_than_the_description_names_a_nameless_box() -> None:
    genre = _field("Genre field")
    assert score(genre, _mark(1, "", "textbox", 40, context=("Movie Genre",))) >= MIN_SCORE
    # the exact caption still wins, and so does the box's own caption over its neighbour's
    assert score(genre, _mark(1, "", "textbox", 40, context=("Genre",))) > score(
        genre, _mark(1, "", "textbox", 40, context=("Movie Genre",)))
    password = _field("Password field")
    own = _mark(2, "", "textbox", 80, context=("Your account password", "Work e-mail"))
    neighbour = _mark(1, "", "textbox", 40, context=("Work e-mail", "Your account password"))
    assert score(password, own) > score(password, neighbour)


def test_a_caption_without_the_descriptions_words_still_does_not_fit() -> None:
    year = _field("Year field")
    assert score(year, _mark(1, "", "textbox", 40, context=("Favourite colour",))) < MIN_SCORE
    # (a caption naming the field by another name, "Released Date", does fit: test_worker_words)
    # a sentence that mentions the word is no caption
    sentence = ("Please tell us which genre of film you like best",)
    assert score(_field("Genre field"), _mark(1, "", "textbox", 40, context=sentence)) < MIN_SCORE


def _form(extra: list[Mark] = ()) -> list[Mark]:
    return [_mark(1, "Help", "button", 0, x=400),
            _mark(2, "", "textbox", 40, context=("Username",)),
            _mark(3, "", "textbox", 80, context=("Password",)),
            _mark(4, "Forgot your password?", "link", 110),
            _mark(5, "OK", "button", 140, width=40),
            _mark(6, "Create an account", "button", 200), *extra]


def test_a_submission_no_mark_names_goes_to_the_forms_action_button() -> None:
    login = Subgoal(action="click", target="login button")
    choice = ScriptedWorker().match(login, _form(), history=FILLED)
    assert choice.mark is not None and choice.mark.label == "OK"
    assert choice.score == FORM_BUTTON_SCORE
    # nothing filled yet, or no history: no fallback
    assert ScriptedWorker().match(login, _form(), history=[]).mark is None
    assert ScriptedWorker().match(login, _form()).mark is None
    # the plan's label does not hold either when no mark shows it (a "Search" button for "Submit")
    submit = Subgoal(action="click", target="Submit button", label="Submit")
    search = _form()[:4] + [_mark(5, "Search", "", 140, width=60)]
    assert ScriptedWorker().match(submit, search, history=FILLED).mark.label == "Search"


def test_the_exact_name_wins_and_a_dismissing_button_is_never_the_action() -> None:
    login = Subgoal(action="click", target="login button")
    named = _form([_mark(7, "Login", "button", 300)])
    assert ScriptedWorker().match(login, named, history=FILLED).mark.label == "Login"
    side_by_side = [m for m in _form() if m.label != "OK"] + [
        _mark(7, "Cancel", "button", 140, x=20, width=60), _mark(8, "OK", "button", 140, x=90, width=40)]
    assert ScriptedWorker().match(login, side_by_side, history=FILLED).mark.label == "OK"
    # a caption written under the last box is not a button
    captioned = [_mark(2, "", "textbox", 40, context=("Year",)), _mark(3, "Year", "", 66, width=40),
                 _mark(4, "Search", "", 120, width=60)]
    assert ScriptedWorker().match(login, captioned, history=FILLED).mark.label == "Search"
    # a real button beats a role-less name (a caption whose field the listing lacks)
    uncaptioned = [_mark(2, "", "textbox", 40), _mark(3, "Genre", "", 70, width=50),
                   _mark(4, "Search", "button", 120, width=60)]
    assert ScriptedWorker().match(login, uncaptioned, history=FILLED).mark.label == "Search"


def test_what_names_a_submission() -> None:
    assert names_submission(Subgoal(action="click", target="Sign in button"))
    assert names_submission(Subgoal(action="click", target="the Go button"))
    assert not names_submission(Subgoal(action="click", target="Delete draft button"))
    assert not names_submission(Subgoal(action="click", target="Save link"))
    assert not names_submission(Subgoal(action="type", target="Search field", text="x"))


@pytest.mark.browser
def test_a_form_whose_words_are_not_the_plans(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [*SITE, "suite.ids=[signin-continue]"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    clicked = steps[(steps.subgoal_index == 2) & steps.effective]
    assert set(clicked.target_name) == {"Continue"}
    assert set(clicked.match_score) == {FORM_BUTTON_SCORE}


def _layer(*names: str, fresh: bool = True, disabled: int = 3) -> dict:
    return {"box": [30, 40, 230, 120], "disabled": disabled,
            "buttons": [{"text": n, "x": 0, "y": 0, "fresh": fresh} for n in names]}


def test_what_makes_a_popup_an_interruption() -> None:
    plan = {"e", "mail", "password", "sign"}
    assert interruption(_layer("Leave", "Stay"), 0, None, plan).dismiss == "Stay"
    assert interruption(_layer("OK", "Cancel"), 0, None, {"username", "login"}).dismiss == "Cancel"
    # covering the target is in the way too, without disabling anything
    assert interruption(_layer("Close"), 3, (50, 60, 100, 20), plan).dismiss == "Close"
    # the plan goes on inside it (a confirmation it expects), it was there before, it is in
    # nobody's way, or it cannot be turned down: no interruption
    assert interruption(_layer("Delete", "Cancel"), 0, None, {"delete"}) is None
    assert interruption(_layer("Leave", "Stay", fresh=False), 0, None, plan) is None
    assert interruption(_layer("Leave", "Stay"), 3, (400, 400, 10, 10), plan) is None
    assert interruption(_layer("Leave", "Exit"), 0, None, plan) is None


@pytest.mark.browser
@pytest.mark.parametrize("interruptions", [True, False])
def test_a_popup_the_plan_does_not_mention_is_turned_down(tmp_path: Path, interruptions: bool) -> None:
    # switched off, every episode runs out of steps on timeouts: one seed, shorter timeouts, shows it
    result = run_experiment(tmp_path, [*SITE, "suite.ids=[signin-notice-email,signin-notice-password]",
                                       f"agent.interruptions={str(interruptions).lower()}",
                                       *([] if interruptions else ["seeds=[0]", "agent.action_timeout_ms=1000"])])
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    if interruptions:
        assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
        answered = steps[steps.interruption.str.startswith("dismissed")]
        assert set(answered.target_name) == {"Stay"}
        assert len(answered) == len(result.episodes)  # once per episode
    else:
        assert not result.episodes.success.any()
        assert (steps.interruption == "").all()
    assert "Leave" not in set(steps.target_name)
