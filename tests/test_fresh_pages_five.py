"""A fifth round of pages written outside the agent's code (tests/language/sites: homewares,
ledger, tourwiz, supportdesk, bikebuild; each writer saw the task format and the page helper,
never the agent). On first contact (d9eec52, 10 seeds each) they found four ways to describe a
page the agent did not read as a person does:

- homewares (a return form whose refund choices are radio cards: a title over a line that
  explains it): 10/10 with vision, 0/10 without. The radio's name is its label's whole text,
  "Original payment method Mastercard ending 1435 · 3–5 working days after we receive it"; the
  plan's label "Original payment method" was taken for a container showing it (a name more than
  six words longer), so no radio fitted. The title that leads a choice's name is its label
  (`fit.shows_label`).
- tourwiz (a booking wizard; lead traveller fields named only by placeholders): 0/10 each way.
  "e.g. Alex Morgan" and "you@example.com" were words contradicting "Full name" and "Email", and
  "Start typing…" contradicted "Country of residence". A field's name that only hints at its
  content (an example, an unfinished instruction, a number) contradicts nothing and its caption
  weighs as a name (`fit.names_by_hint`). Still 0/10 each way: its tour cards' "Select" sits in a
  footer with the price, two wrappers inside the card, so the price alone is its context, and
  "the group tour, not the Private one" picks the private tour, priced "/ group". The words a
  description rules out now count against a mark that shows them (`fit.ruled_out`); the card's
  title is not in the footer's context for them to be seen (lending a record's title to a control
  deep inside it moved `tripsearch`'s "first result" off the first: left, see docs/figures.md).
- bikebuild (add-on cards with a nameless switch beside a block holding the title, the blurb
  and the price as the block's own text): 0/10 each way. The block read as its price alone, so
  every switch tied and the first was taken twice. A container's own words are now read after
  its elements' (`surroundings.shown_label`). Its switches are hidden tick boxes drawn by their
  labels, pressed where the label draws them; the one below the fold was not (out of view, nothing
  is on top of it), so Playwright's click waited out its timeout three times and the fourth try, at
  a point, pressed the switch above it. A labelled tick box out of view is scrolled into view
  before it is looked at (`act._THROUGH_LABEL_JS`).
- ledger (an editable budget grid of plain divs) and supportdesk (conversation rows that are
  clickable divs named by nothing): not solved; see docs/figures.md. supportdesk's rows are now
  known by the name they show (tests/test_row_pieces.py), and its reply box, a contenteditable
  div, is a text field (tests/test_editing_hosts.py): solved with vision."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from test_fresh_pages import ARGS

from agents.marks import Mark
from agents.observation import Box, parse_snapshot
from agents.worker.fit import names_by_hint, ruled_out, score, shows_label
from tasks.schema import Subgoal

SOLVED = ["homewares-return-napkins", "bikebuild-configure-commuter"]


def _mark(ref: str, elements: dict, number: int = 1) -> Mark:
    el = elements[ref]
    return Mark(number=number, box=Box(x=0, y=0, width=10, height=10), role=el.role, label=el.label,
                context=el.context)


RADIO_CARDS = """- generic [ref=e1]:
  - generic [ref=e2]: How would you like your refund?
  - generic [ref=e3] [cursor=pointer]:
    - radio "Hearth & Loom store credit Recommended Instant · we add a 10% bonus" [checked] [ref=e4]
    - generic [ref=e5]:
      - generic [ref=e6]: Hearth & Loom store credit Recommended
      - generic [ref=e7]: Instant · we add a 10% bonus
  - generic [ref=e8] [cursor=pointer]:
    - radio "Original payment method Mastercard ending 1435 · 3–5 working days after we receive it" [ref=e9]
    - generic [ref=e10]:
      - generic [ref=e11]: Original payment method
      - generic [ref=e12]: Mastercard ending 1435 · 3–5 working days after we receive it
"""


def test_a_choice_shows_the_title_that_leads_its_name() -> None:
    elements = parse_snapshot(RADIO_CARDS)
    refund = Subgoal(action="click", target="Original payment method refund option", label="Original payment method")
    original, credit = _mark("e9", elements), _mark("e4", elements, 2)
    assert shows_label("Original payment method", original)
    assert score(refund, original) > 0 == score(refund, credit)
    # a container whose text merely holds the words is still none
    holder = original.model_copy(update={"role": "generic"})
    assert not shows_label("Original payment method", holder)
    # nor is a choice whose name holds the title further in
    assert not shows_label("payment method", original)


LEAD_TRAVELLER = """- generic [ref=e1]:
  - generic [ref=e2]:
    - generic [ref=e3]: Full name
    - textbox "e.g. Alex Morgan" [ref=e4]
  - generic [ref=e5]:
    - generic [ref=e6]: Email
    - textbox "you@example.com" [ref=e7]
  - generic [ref=e8]:
    - generic [ref=e9]: Country of residence
    - combobox "Start typing…" [ref=e10]
  - generic [ref=e11]:
    - generic [ref=e12]: Quantity
    - spinbutton [ref=e13]: "1"
"""


@pytest.mark.parametrize(("target", "ref"), [("Full name text box", "e4"), ("Email text box", "e7"),
                                             ("Country of residence box", "e10")])
def test_a_field_named_by_its_placeholder_is_known_by_its_caption(target: str, ref: str) -> None:
    elements = parse_snapshot(LEAD_TRAVELLER)
    marks = [_mark(r, elements, i) for i, r in enumerate(["e4", "e7", "e10"], 1)]
    field = Subgoal(action="type", target=target, text="x")
    scores = {m.ref or "": score(field, m) for m in marks}
    best = max(marks, key=lambda m: score(field, m))
    assert best.label == elements[ref].label and score(field, best) >= 1.5, scores


def test_what_a_field_name_only_hints_at() -> None:
    def field(label: str, role: str = "textbox") -> Mark:
        return Mark(number=1, box=Box(x=0, y=0, width=10, height=10), role=role, label=label)
    for hint in ["e.g. Alex Morgan", "E.g., London", "For example: 221B Baker Street", "you@example.com",
                 "Start typing…", "Search...", "2"]:
        assert names_by_hint(field(hint)), hint
    for name in ["Email", "Full name", "Egg count", "Exit code", "Search"]:
        assert not names_by_hint(field(name)), name
    assert not names_by_hint(field("e.g. Alex Morgan", "button"))  # only a field's name is a hint


def test_what_a_description_rules_out_counts_against_a_mark_that_shows_it() -> None:
    select = Subgoal(action="click", target="Select button on the Castle Hill Walking Tour card "
                                            "(the group tour, not the Private one)", label="Select")
    assert ruled_out(select.target or "") == {"private"}
    assert ruled_out("Delete button (not the one in the header)") == {"header"}

    def delete(where: str) -> Mark:
        return Mark(number=1, box=Box(x=0, y=0, width=10, height=10), role="button", label="Delete",
                    context=(where,))
    # the same to a description without the clause; the one in the header now less likely
    remove = Subgoal(action="click", target="Delete button (not the one in the header)")
    plain = Subgoal(action="click", target="Delete button")
    assert score(plain, delete("Page header")) == score(plain, delete("Invoice INV-2041"))
    assert score(remove, delete("Page header")) < score(remove, delete("Invoice INV-2041"))


ADDON_CARDS = """- generic [ref=e1]:
  - generic [ref=e2]:
    - generic [ref=e3]:
      - heading "Rear rack" [level=3] [ref=e4]
      - paragraph [ref=e5]: Alloy pannier rack, 25 kg load.
      - text: + £55.00
    - checkbox [ref=e6]
  - generic [ref=e7]:
    - generic [ref=e8]:
      - heading "Dynamo light set" [level=3] [ref=e9]
      - paragraph [ref=e10]: Hub dynamo wheel with 60 lux front.
      - text: + £119.00
    - checkbox [ref=e11]
"""


def test_a_block_with_words_of_its_own_is_read_with_its_elements() -> None:
    elements = parse_snapshot(ADDON_CARDS)
    assert elements["e11"].context[0].startswith("Dynamo light set")
    switch = Subgoal(action="click", target="toggle switch on the Dynamo light set add-on card", ensure="checked")
    assert score(switch, _mark("e11", elements)) > score(switch, _mark("e6", elements, 2))


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_the_fifth_round_of_pages_is_solved(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"suite.ids=[{','.join(SOLVED)}]", "seeds=[1]",
                                       f"perception={perception}"])
    episodes = result.episodes
    assert sorted(episodes.task_id) == sorted(SOLVED)
    assert episodes.success.all(), episodes[~episodes.success][["task_id", "failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    # each add-on's switch pressed once, where its label draws it, the one below the fold scrolled
    # into view first (pressed through Playwright's click, the hidden box waits out its timeout;
    # with vision the agent may scroll to it in a step of its own)
    switches = steps[(steps.task_id == "bikebuild-configure-commuter") & steps.subgoal_target.str.contains("switch")]
    pressed = switches[switches.action == "click"]
    assert len(pressed) == 2 and pressed.route.eq("point").all() and switches.error_type.eq("").all() \
        and switches.state_wrong.eq("").all(), switches[["subgoal_target", "action", "route", "error_type"]]
