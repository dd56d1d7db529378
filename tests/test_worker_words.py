"""The scripted worker's reading of kinds of control in a description (agents/worker/fit.py):
"text area" names a multi-line text box (whose mark vision labels by the text it shows)."""

from __future__ import annotations

from agents.enrichment import MISSED_MARGIN
from agents.marks import Mark
from agents.observation import Box
from agents.worker.fit import MIN_SCORE, kind_words, score
from tasks.schema import Subgoal


def test_a_text_area_is_a_kind_of_control() -> None:
    assert kind_words("the user agreement text area") == ["the", "user", "agreement", "textarea"]
    box = Mark(number=1, box=Box(x=0, y=0, width=200, height=120), role="textbox",
               label="Ac congue magna dictumst. Ullamcorper feugiat lorem imperdiet.",
               context=("User agreement",))
    button = box.model_copy(update={"role": "button", "label": "Cancel"})
    want = Subgoal(action="scroll", target="user agreement text area", direction="down")
    assert score(want, box) >= MIN_SCORE > score(want, button)


def test_words_a_reader_ran_together_count_as_the_words_they_join() -> None:
    # OCR drops a narrow space: "Textmessages" read for the caption "Text messages"
    switch = Mark(number=1, box=Box(x=0, y=0, width=40, height=22), label="Textmessages")
    other = switch.model_copy(update={"label": "Weekly summary"})
    want = Subgoal(action="click", target="Text messages switch")
    assert score(want, switch) >= MIN_SCORE > score(want, other)
    assert score(want, switch) == score(want, switch.model_copy(update={"label": "Text messages"}))


def test_between_two_marks_showing_the_label_the_one_in_the_plans_case_wins() -> None:
    lower = Mark(number=1, box=Box(x=0, y=0, width=40, height=16), role="link", label="eget")
    upper = lower.model_copy(update={"number": 2, "label": "Eget"})
    want = Subgoal(action="click", target="Eget link", label="Eget")
    assert score(want, upper) > score(want, lower) >= MIN_SCORE
    assert score(want, upper) - score(want, lower) < MISSED_MARGIN


def _captioned(caption: str) -> Mark:
    # a text box without a name of its own, known by the caption beside it
    return Mark(number=1, box=Box(x=0, y=0, width=200, height=24), role="textbox", label="",
                context=(caption,))


def test_a_field_captioned_by_another_name_of_what_is_asked_for_fits() -> None:
    last = Subgoal(action="type", target="Last name field", text="Lovelace")
    assert score(last, _captioned("Surname")) >= MIN_SCORE
    # the caption sharing only the word "name" is another field
    assert score(last, _captioned("Given name")) < MIN_SCORE
    first = Subgoal(action="type", target="First name field", text="Ada")
    assert score(first, _captioned("Given name")) > score(first, _captioned("Family name"))
    assert score(first, _captioned("Family name")) < MIN_SCORE
    # a caption in the description's own words still beats a renamed one
    assert score(last, _captioned("Last name")) > score(last, _captioned("Surname"))
    # a year goes into the date when no field says "year"
    year = Subgoal(action="type", target="Year field", text="1974")
    assert score(year, _captioned("Released Date")) >= MIN_SCORE > score(year, _captioned("Genre"))
    assert score(year, _captioned("Year")) > score(year, _captioned("Released Date"))
    # a field's own name counts the same way ("Tel." is the phone)
    named = Mark(number=2, box=Box(x=0, y=0, width=200, height=24), role="textbox", label="Tel.")
    assert score(Subgoal(action="type", target="Phone field", text="555"), named) >= MIN_SCORE


def test_field_names_are_not_synonyms_for_other_controls() -> None:
    # a link or a button named "Surname" is not a "last name" anything: renaming is for fields
    link = Mark(number=1, box=Box(x=0, y=0, width=80, height=16), role="link", label="Surname")
    assert score(Subgoal(action="click", target="Last name link"), link) < MIN_SCORE
