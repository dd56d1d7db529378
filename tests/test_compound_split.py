"""Compound split on boxes as a model draws them: edges a few pixels off the row they outline."""

from __future__ import annotations

from agents.compound_split import split
from agents.marks import Placed, Seen
from agents.observation import Box, Element

BUTTON = Placed(Element(ref="e9", role="button", name="Write a review"),
                Box(x=797, y=11, width=127, height=33))
HEADING = Placed(Element(ref="e8", role="heading", name="Reviews"), Box(x=24, y=10, width=90, height=34))


def test_a_row_box_that_ends_short_of_its_button_still_splits_into_it() -> None:
    # The row's right edge falls 34 px inside the button's (jitter): 73% of the button is covered.
    row = Seen(Box(x=9, y=4, width=881, height=50), "Reviews Write a review", 0.9)
    whole, parts, n = split([row], [BUTTON, HEADING])
    assert n == 1 and whole == [] and [p.element.ref for p, _ in parts] == ["e9"]


def test_a_box_that_half_covers_a_control_it_does_not_name_stays_whole() -> None:
    paragraph = Seen(Box(x=9, y=4, width=881, height=50), "Reviews of our lamps", 0.9)
    whole, parts, n = split([paragraph], [BUTTON])
    assert n == 0 and parts == [] and whole == [paragraph]


def test_a_named_control_mostly_outside_the_box_is_not_a_part() -> None:
    row = Seen(Box(x=9, y=4, width=820, height=50), "Reviews Write a review", 0.9)  # 23 of 127 px
    whole, parts, n = split([row], [BUTTON])
    assert n == 0 and parts == [] and whole == [row]


def test_a_control_inside_the_box_splits_whatever_the_label_says() -> None:
    row = Seen(Box(x=9, y=4, width=930, height=50), "Reviews", 0.9)
    _, parts, n = split([row], [BUTTON])
    assert n == 1 and [p.element.ref for p, _ in parts] == ["e9"]
