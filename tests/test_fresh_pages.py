"""Pages written outside the agent's code, as a front-end developer writes them, by writers who did
not see the agent (tests/language/sites: roster, savings, restock, cabinstay, switchboard,
kilnshop; then dconsole, dorders, dmagazine). On first contact the agent solved four of the first
six and two of the next three, with synthetic vision and without:

- restock (a tag field that turns a word into a chip on Enter, a quantity stepper): 0/10 each way.
  The field empties as the word becomes a chip, so typing read back as `value_mismatch`, the word
  was typed again (a second chip, or the page refusing a duplicate and keeping the text), and the
  request was submitted with a word still in the field. A Type followed by a key (`then`) whose
  value does not read back is now judged by the page's change, as any other action is.
- kilnshop (product cards with the same "Add to cart", a header "Cart" button with a count badge):
  0/10 each way. The button's name is "Cart 2 items"; the badge's words contradicted "Cart button
  in the header", so nothing fit. A number in a name, and the word after it, no longer contradict
  a description that gives no number (`fit.shown_count`). Then the cards: each card's title is a
  link inside a heading, which Playwright's snapshot shows without a name of its own ("heading
  [level=3]" over `link "Speckled Stoneware Mug"`), so the "Add to cart" buttons had no title in
  their context and the first ones were pressed. What an element without a shown name says is now
  read from its content (`surroundings.shown_label`).
- dmagazine (an article with a cookie banner, a newsletter modal after a second, a topic's
  "+ Follow" above the headline and the author's "Follow" in the byline): 0/10 each way, the
  topic's button pressed for "Follow button next to the author's name": no context said
  "author", and the topic's, the whole article, held the description's other words. A byline
  ("By ...", or "By" alone before the writer's link) now says "author" (`fit.BYLINE`).
All three now 10/10 each way.

A third round (hovermail, planpick, tripsearch, paywidget), recorded on 5be3ac8 before the changes:
- planpick (a pricing page; a billing switch named by the text beside it, an FAQ below): 0/10
  each way, the FAQ's "Can I switch between monthly and yearly billing later?" pressed for "the
  Billed yearly billing switch above the plan cards". The kind a description's head word names
  now counts for a control of that kind, and is not a name word of a control of another kind.
- hovermail (a webmail whose row actions show only under the pointer): 6/10 with vision, 0/10
  without. Without vision nothing answered "the row of the email from Elena Varga ...": a row is
  no control; a description whose head word is a place is now answered by the places (rows,
  items, cards). With vision the sidebar's "Archive" folder tied with the Archive button of the
  row under the pointer; the sidebar's group name "Mail folders" now says "folder".
- paywidget (a card form in an iframe whose expiry field shows "09/30" as "09 / 30", and a country
  list of plain divs): 0/10 each way, the expiry read back as `value_mismatch` and retyped until
  the field was given up. A field that formats what is typed holds the typed letters and digits.
  Its country list is plain <div>s opened scrolled past "Ireland": a plain element Playwright
  shows with a pointer cursor is now a target (vision's box binds to it, and it is clicked by its
  ref, scrolled into view, not at a point where the list's button lies), and "Processing…" after
  "Pay", inside the frame, is a transient state waited out. 10/10 with vision; without, the
  closed dropdown (a <div> the snapshot folds into its parent, no cursor shown) is not found.
- tripsearch (suggestions after a debounce): 10/10 without vision, 7/10 with (a race, see
  docs/figures.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.input_formats import same_value
from agents.marks import Mark, Placed, dom_marks
from agents.observation import Box, parse_snapshot
from agents.worker.fit import head_word, score, shown_count
from agents.worker.places import names_place
from agents.worker.scripted import ScriptedWorker
from tasks.schema import Subgoal
from tasks.text_match import singular

HERE = Path(__file__).parent / "language"
FRESH = ["roster-remove-member", "savings-open-easy-access", "restock-tags-quantity",
         "cabinstay-checkin-date", "switchboard-digest-receipts", "kilnshop-sort-two-items",
         "dconsole-invoice-download", "dorders-refund-by-total", "dmagazine-follow-save",
         "hovermail-archive-invoice", "planpick-yearly-team", "tripsearch-suggest-lisbon"]
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "trace.playwright=false", "trace.screenshots=none", "concurrency=2"]


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_the_fresh_pages_are_solved(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"suite.ids=[{','.join(FRESH)}]", "seeds=[1]",
                                       f"perception={perception}"])
    episodes = result.episodes
    assert sorted(episodes.task_id) == sorted(FRESH)
    assert episodes.success.all(), episodes[~episodes.success][["task_id", "failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    # each word typed into the tag field once: made a chip by its Enter, credited at once
    tags = steps[(steps.task_id == "restock-tags-quantity") & (steps.action == "type")]
    assert len(tags) == 2 and tags.effective.all(), tags[["target_name", "effect", "error_type"]]
    # each "Add to cart" on the card the plan names
    added = steps[(steps.task_id == "kilnshop-sort-two-items") & (steps.target_name == "Add to cart")]
    assert len(added) == 2 and added.state_wrong.eq("").all()
    # the author's Follow, not the topic's above the headline nor the other writers'
    follow = steps[(steps.task_id == "dmagazine-follow-save") & (steps.subgoal_index == 0) & (steps.action == "click")]
    assert len(follow) == 1 and follow.state_wrong.eq("").all() and follow.target_context.str.startswith("By").all()
    # the billing switch itself, not the FAQ's question about switching billing
    billing = steps[(steps.task_id == "planpick-yearly-team") & (steps.subgoal_index == 0) & (steps.action == "click")]
    assert len(billing) == 1 and billing.target_role.eq("switch").all() and billing.state_wrong.eq("").all()
    # the email's row hovered (as a row without vision), then its own Archive button
    rows = steps[(steps.task_id == "hovermail-archive-invoice") & (steps.action == "hover")]
    assert len(rows) == 1 and rows.target_name.str.contains("Invoice #4471").all()
    if perception == "none":
        assert rows.target_role.eq("listitem").all()


def _mark(label: str, role: str = "button") -> Mark:
    return Mark(number=1, box=Box(x=0, y=0, width=10, height=10), role=role, label=label)


def test_a_count_in_a_name_does_not_contradict_a_description_without_one() -> None:
    cart = Subgoal(action="click", target="Cart button in the header")
    assert shown_count("Cart 2 items", ["cart", "header"]) == {"2", "items"}
    assert score(cart, _mark("Cart 2 items")) >= 1.5 > score(cart, _mark("Wishlist 2 items"))
    # a description that gives a number is contradicted by another
    page3 = Subgoal(action="click", target="Page 3 link")
    assert shown_count("Page 2", ["page", "3"]) == set()
    assert score(page3, _mark("Page 3", "link")) > score(page3, _mark("Page 2", "link"))


SNAPSHOT = """- main [ref=e1]:
  - article [ref=e2]:
    - generic [ref=e3]:
      - heading [level=3] [ref=e4]:
        - link "Linen Apron" [ref=e5]:
          - /url: "#"
      - generic [ref=e6]:
        - generic [ref=e7]: £32.00
      - button "Add to cart" [ref=e8]
      - generic [ref=e9]:
        - button "Compare" [ref=e10]
"""


def test_a_heading_shown_without_a_name_is_read_from_its_link() -> None:
    add = parse_snapshot(SNAPSHOT)["e8"]
    # the card's price and title beside the button, nearest first; a button beside it is not context
    assert add.context[:2] == ("£32.00", "Linen Apron") and "Compare" not in add.context


BYLINE = """- main [ref=e1]:
  - generic [ref=e2]:
    - link "Travel" [ref=e3]
    - button "+ Follow" [ref=e4]
  - heading "The quiet return of the night train" [level=1] [ref=e5]
  - generic [ref=e6]:
    - generic [ref=e7]:
      - generic [ref=e8]:
        - text: By
        - link "Ines Carvalho" [ref=e9]
      - button "Follow" [ref=e10]
    - generic [ref=e11]: October 12, 2024 · 9 min read
"""


def test_a_byline_names_the_author_of_its_button() -> None:
    elements = parse_snapshot(BYLINE)
    assert elements["e10"].context[0] == "By"  # the byline's word; the writer's link stands apart
    author = Subgoal(action="click", target="Follow button next to the author's name", label="Follow")
    marks = {ref: Mark(number=i, box=Box(x=0, y=0, width=10, height=10), role="button", label=elements[ref].name,
                       context=elements[ref].context) for i, ref in enumerate(["e4", "e10"], 1)}
    assert score(author, marks["e10"]) > score(author, marks["e4"])


def test_a_plural_and_its_singular_are_one_word() -> None:
    assert [singular(w) for w in ["folders", "categories", "boxes", "matches", "glasses", "status",
                                  "news", "yes", "address"]] == \
        ["folder", "category", "box", "match", "glass", "status", "news", "yes", "address"]
    # the sidebar's "Archive" sits in a list named "Mail folders"; the row's hover button does not
    folder = Subgoal(action="click", target="Archive folder in the left sidebar", label="Archive")
    sidebar = Mark(number=1, box=Box(x=0, y=0, width=10, height=10), role="link", label="Archive",
                   context=("Drafts", "Mail folders"))
    row = Mark(number=2, box=Box(x=0, y=0, width=10, height=10), role="button", label="Archive",
               context=("Invoice #4471 — September design retainer", "Elena Varga", "Messages"))
    assert score(folder, sidebar) > score(folder, row)


def test_the_kind_a_description_names_wins_over_its_word_in_a_name() -> None:
    switch = Subgoal(action="click", target="the Billed yearly billing switch above the plan cards")
    assert head_word(switch.target) == "switch"
    knob = Mark(number=1, box=Box(x=0, y=0, width=10, height=10), role="switch", label="Billed yearly — save 20%")
    question = Mark(number=2, box=Box(x=0, y=0, width=10, height=10), role="button",
                    label="Can I switch between monthly and yearly billing later?")
    assert score(switch, knob) > score(switch, question)
    # "switch" is a word of a button's name when the description names a button
    account = Subgoal(action="click", target="Switch account button in the header")
    assert head_word(account.target) == "button"
    assert score(account, _mark("Switch account")) > score(account, _mark("Account settings"))
    # a switch drawn on a tick box is a switch
    tick = Mark(number=3, box=Box(x=0, y=0, width=10, height=10), role="checkbox", label="Billed yearly")
    assert score(switch, tick) > score(switch, question)


def test_a_description_of_a_row_is_answered_by_the_row() -> None:
    hover = Subgoal(action="hover", target="the row of the email from Elena Varga about the Invoice for the September design retainer")
    assert names_place(hover) and not names_place(Subgoal(action="click", target="Archive button on the row"))
    rows = [Mark(number=i, box=Box(x=0, y=40 * i, width=600, height=40), role="listitem", label=label,
                 context=("Messages",))
            for i, label in enumerate(["Elena Varga Homepage mockups v3 — also next month's invoice",
                                       "Elena Varga Invoice #4471 — September design retainer",
                                       "Northwind Invoice INV-2209"], 1)]
    # no control fits; among the places, the row whose words the description says
    choice = ScriptedWorker().match(hover, [_mark("Refresh")], places=rows)
    assert choice.mark is not None and choice.mark.number == 2 and choice.reply.action == "hover"


def test_a_field_that_formats_what_is_typed_holds_the_typed_value() -> None:
    assert same_value("09 / 30", "09/30") and same_value("4035 5010 0000 0008", "4035501000000008")
    assert same_value("SW1A 1AA", "sw1a 1aa") and same_value("2025-12-04", "12/04/2025")
    # a character more, less or changed is another value
    assert not same_value("09 / 3", "09/30") and not same_value("Lisbon, Portugal", "Lisbon")
    assert not same_value("", "--") and not same_value("4035 5010 0000 0009", "4035501000000008")


CARELESS = """- generic [ref=e1]:
  - generic [ref=e2]: Country or region
  - generic [active] [ref=e3] [cursor=pointer]: United Kingdom
  - generic [ref=e4]:
    - generic [ref=e5] [cursor=pointer]: Iceland
    - generic [ref=e6] [cursor=pointer]: Ireland
    - generic [ref=e7]: Isle of Man
  - button "Pay" [ref=e8] [cursor=pointer]
  - generic [ref=e9] [cursor=pointer]
"""


def test_a_plain_element_the_page_made_clickable_is_a_target() -> None:
    elements = parse_snapshot(CARELESS)
    # where a pointer cursor starts on an element that says something: a list of plain <div>s
    assert [r for r, e in elements.items() if e.clickable] == ["e3", "e5", "e6"]
    assert [r for r, e in elements.items() if e.target] == ["e3", "e5", "e6", "e8"]
    placed = [Placed(e, Box(x=0, y=20 * i, width=100, height=20)) for i, e in enumerate(elements.values())]
    assert [m.label for m in dom_marks(placed, 1)] == ["United Kingdom", "Iceland", "Ireland", "Pay"]


@pytest.mark.browser
def test_a_careless_country_list_in_a_payment_frame(tmp_path: Path) -> None:
    """paywidget: the country list is plain <div>s in an iframe, opened scrolled past "Ireland";
    "Pay" says "Processing…" inside the frame for 0.9 s before the payment is recorded."""
    result = run_experiment(tmp_path, [*ARGS, "suite.ids=[paywidget-country-pay]", "seeds=[1]",
                                       "perception=synthetic"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    ireland = steps[steps.target_name == "Ireland"]
    assert len(ireland) == 1 and ireland.target_role.eq("generic").all()  # the <div>, by its ref
    pay = steps[steps.target_name.str.startswith("Pay")]
    assert len(pay) == 1 and (pay.transient_ms >= 500).all()  # the frame's "Processing…" waited out
