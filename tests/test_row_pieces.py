"""A list whose rows are plain clickable <div>s named by nothing, each showing initials, a name, a
time and the last message (tests/language/sites/teamchat, written before the change; the pattern
of `supportdesk`'s conversation list, tests/test_fresh_pages_five.py). Vision's box of a row binds
to the row (agents/hit_binding.py), whose name is all of its words: "JB John Baker5m Can you look
at the release notes before noon?". A plan that gives the label "John Baker" found no row showing
it, since a label must be most of a name: on first contact (77ae444, 5 seeds) 0/5 with vision, every
first step `no_target`, and 0/5 without (no vision, no box to bind).

A control without a role made of several blocks now also shows the whole text of each block as a
label (`Mark.pieces`, `fit.shows_label`): the row is known by the name it shows, and not by a
message that mentions the name (Amir Khan's "John Baker asked me to send you the figures") nor by
a name a letter away (Jon, Joan, Johnny Baker, John Barker)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from test_fresh_pages import ARGS

from agents.marks import Mark
from agents.observation import Box
from agents.worker.fit import score, shows_label
from agents.worker.scripted import ScriptedWorker
from tasks.schema import Subgoal

BOX = Box(x=0, y=0, width=300, height=50)


def _row(number: int, initials: str, name: str, when: str, last: str) -> Mark:
    return Mark(number=number, box=BOX, label=f"{initials} {name}{when} {last}"[:80], source="vision",
                pieces=(initials, f"{name}{when}", name, when, last))


ROWS = [_row(1, "JB", "Jon Baker", "2m", "See you at the standup"),
        _row(2, "AK", "Amir Khan", "4h", "John Baker asked me to send you the figures"),
        _row(3, "JB", "John Barker", "Yesterday", "The invoice is attached"),
        _row(4, "JB", "John Baker", "5m", "Can you look at the release notes before noon?"),
        _row(5, "JB", "Johnny Baker", "3h", "Thanks, all sorted now")]
OPEN = Subgoal(action="click", target="John Baker in the chat list", label="John Baker")


def test_a_row_shows_the_label_one_of_its_blocks_shows_whole() -> None:
    assert [shows_label("John Baker", row) for row in ROWS] == [False, False, False, True, False]
    # (its name, all of the row's words, is far longer than the label)
    assert all(not shows_label("John Baker", row.model_copy(update={"pieces": ()})) for row in ROWS)


def test_only_a_control_without_a_role_shows_its_blocks_as_labels() -> None:
    # a control with a role has a name of its own: a block inside it is not its label
    button = ROWS[3].model_copy(update={"role": "button"})
    assert not shows_label("John Baker", button)


def test_the_worker_opens_the_row_that_shows_the_name() -> None:
    choice = ScriptedWorker().match(OPEN, ROWS)
    assert choice.mark == ROWS[3]
    assert [score(OPEN, row) > 0 for row in ROWS] == [False, False, False, True, False]


def _steps(run_dir: Path) -> pd.DataFrame:
    return pd.read_parquet(run_dir / "steps.parquet").sort_values(["seed", "step"])


@pytest.mark.browser
def test_the_row_named_by_the_plans_label_is_opened_and_the_message_sent(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [*ARGS, "suite.ids=[teamchat-message-john]", "seeds=[0,1]",
                                       "perception=synthetic"])
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]].to_dict("records")
    first = _steps(result.run_dir).groupby("seed").head(1)
    # each opened at the first try, by the row's point (it has no element the tree names)
    assert (first.action == "click").all() and (first.route == "point").all()
    assert first.target_name.str.contains("John Baker5m").all(), first.target_name.tolist()
