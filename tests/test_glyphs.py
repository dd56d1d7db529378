"""Controls that show a glyph instead of a word: a stepper's "−" and "+", a carousel's "‹" and
"›", a dialog's "×". The page names such a button by its character alone, and a plan names it
either by that character as its label or in words ("the plus button", "the next arrow").

Trap page first (tests/language/sites/tablebook, a table booking whose stepper, carousel and
offer close are bare glyphs, the "−" and "‹" first in reading order). First contact (HEAD
e1a4856, 10 seeds each): 0/20 with vision and 0/20 without. A glyph label has no word, and a
label with no word was shown by every short name: the offer's "×" step closed nothing and pressed
the stepper's "−"; a description in words found no mark at all ("minus" is no word of "−"). Now a
glyph label is shown only by the same glyph or a name of its symbol ("Close" for "×"), and a
glyph's name is the word for it ("+": plus; its symbol's other names, add and increase, count as
an icon's synonyms do); "arrow", "sign" or "icon" in a description fit a glyph. The same round
also found that an effect was judged against a page read before the page changed
(tests/test_acted_on.py)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from test_fresh_pages import ARGS

from agents.marks import Mark
from agents.observation import Box
from agents.worker.fit import score, shows_label
from tasks.schema import Subgoal
from tasks.text_match import glyph_words, label_matches

TASKS = ["tablebook-four-on-terrace", "tablebook-one-in-garden"]


def _button(label: str, number: int = 1, context: tuple[str, ...] = ()) -> Mark:
    return Mark(number=number, box=Box(x=10 * number, y=0, width=10, height=10), role="button",
                label=label, context=context)


def test_a_glyph_is_named_by_its_word() -> None:
    assert glyph_words("+") == ["plus"] and glyph_words("−") == ["minus"] and glyph_words("×") == ["close"]
    assert glyph_words("‹ ›") == ["previous", "next"] and glyph_words("⋮") == ["more"]
    assert glyph_words("+ Add tag") == [] and glyph_words("") == [] and glyph_words("%") == []


def test_a_glyph_label_is_shown_by_its_glyph_or_a_name_of_its_symbol() -> None:
    assert label_matches("+", "+") and label_matches("+", "＋") and label_matches("×", "✕")
    assert label_matches("×", "Close") and label_matches("+", "Add one Falafel wrap")
    assert label_matches("+", "+ Add tag")
    # not by any name short enough, as a label without words was before
    assert not label_matches("+", "−") and not label_matches("×", "−") and not label_matches("›", "‹")
    assert not label_matches("+", "Subscribe") and not label_matches("+", "")
    # labels with words are matched as before
    assert label_matches("Book table", "Book table") and not label_matches("Book table", "Cancel")


def test_a_description_in_words_fits_the_glyph_it_names() -> None:
    minus, plus = _button("−", 1, ("Party size",)), _button("+", 2, ("Party size",))
    prev, nxt = _button("‹", 3), _button("›", 4)
    fewer = Subgoal(action="click", target="minus button of the party size")
    assert score(fewer, minus) > 0 and score(fewer, minus) > score(fewer, plus)
    more = Subgoal(action="click", target="the button that increases the party size")
    assert score(more, plus) > score(more, minus)  # "increase": a name of plus's symbol
    forward = Subgoal(action="click", target="next arrow of the seating photos")
    assert score(forward, nxt) > score(forward, prev) and score(forward, nxt) >= 1.5
    labelled = Subgoal(action="click", target="plus button of the party size", label="+")
    assert shows_label("+", plus) and not shows_label("+", minus) and score(labelled, minus) == 0


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_glyph_buttons_are_found_by_their_glyph_and_by_words(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"suite.ids=[{','.join(TASKS)}]", "seeds=[1,2]",
                                       f"perception={perception}"])
    episodes = result.episodes
    assert sorted(set(episodes.task_id)) == TASKS
    assert episodes.success.all(), episodes[~episodes.success][["task_id", "failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    # each glyph pressed as often as the plan says and never in vain (a first look may come
    # before the offer does: nothing to act on yet)
    assert steps.error_type.isin(["", "no_target"]).all(), steps[steps.error_type != ""][["task_id", "seed", "step", "error_type"]]
    pressed = steps[steps.action == "click"].groupby(["task_id", "seed"]).target_name.agg(sorted)
    plans = {TASKS[0]: ["×", "+", "+", "›", "Choose this seating", "Book table"],
             TASKS[1]: ["×", "−", "›", "›", "Choose this seating", "Book table"]}
    assert pressed.to_dict() == {(t, s): sorted(p) for t, p in plans.items() for s in (1, 2)}, pressed
