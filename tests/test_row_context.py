"""A control's context is the whole row it belongs to (tests/language/sites/invoices/: each invoice a
list item whose number is at the far end from its Pay button; the item above says "Includes the
credit for INV-207"). With only the nearest pieces as context, the Pay button beside that memo wins;
with the row whole, the row of INV-207 does."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from agents.observation import parse_snapshot
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"

SNAPSHOT = """\
- list "Invoices" [ref=e1]:
  - listitem [ref=e2]:
    - generic [ref=e3]: INV-207
    - generic [ref=e4]: 2026-11-03
    - generic [ref=e5]: Hollis & Co
    - generic [ref=e6]: €120.00
    - generic [ref=e7]: Open
    - generic [ref=e8]: Net 30
    - button "Pay" [ref=e9]
  - listitem [ref=e10]:
    - generic [ref=e11]: INV-214
    - button "Pay" [ref=e12]
- generic [ref=e13]:
  - generic [ref=e14]: one
  - generic [ref=e15]: two
  - generic [ref=e16]: three
  - generic [ref=e17]: four
  - generic [ref=e18]: five
  - generic [ref=e19]: six
  - button "Go" [ref=e20]
"""


def test_a_row_is_context_whole_and_other_containers_their_nearest_pieces() -> None:
    elements = parse_snapshot(SNAPSHOT)
    pay = elements["e9"].context
    assert "INV-207" in pay and "Net 30" in pay  # the far end of its own row
    assert pay.index("Net 30") < pay.index("INV-207")  # nearest first
    assert "INV-214" not in pay
    go = elements["e20"].context  # not a row: the four nearest pieces
    assert "six" in go and "three" in go and "two" not in go and "one" not in go


FORM = """\
- main [ref=e1]:
  - generic [ref=e2]: Mobile number
  - textbox [ref=e3]
  - generic [ref=e4]: Backup e-mail
  - textbox [ref=e5]
  - generic [ref=e6]: Remarks
- generic [ref=e7]:
  - checkbox [ref=e8]
  - generic [ref=e9]: Pottery
  - checkbox [ref=e10]
  - generic [ref=e11]: Guitar
"""


def test_a_caption_right_before_the_next_field_is_not_this_fields() -> None:
    elements = parse_snapshot(FORM)
    # (captions stand before a field: "Backup e-mail" is the second box's, not the first's too)
    assert "Mobile number" in elements["e3"].context and "Backup e-mail" not in elements["e3"].context
    assert elements["e5"].context[0] == "Backup e-mail" and "Remarks" in elements["e5"].context
    # a checkbox's caption stands after it: both of its neighbours stay its context
    assert {"Pottery", "Guitar"} <= set(elements["e10"].context)


def test_the_row_of_the_named_key_is_chosen_over_a_row_that_mentions_it(tmp_path: Path) -> None:
    run = run_experiment(tmp_path, [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]",
                                    "suite=fixtures", "suite.ids=[invoices-pay]", "seeds=[0,1,2,3]",
                                    "perception=none", "trace.playwright=false"])
    assert run.episodes.success.all(), run.episodes.failure_detail.tolist()
    clicks = pd.read_parquet(run.run_dir / "steps.parquet").query("action == 'click'")
    assert clicks.target_context.str.contains("INV-207").all()
    assert not clicks.target_context.str.contains("credit").any()


# A record whose key lies further up than the control's own wrapper: an invoice row whose button
# shares its cell with a status tag, and a card whose button sits beside its price, two wrappers
# below its title (tests/language/sites/hostdesk, tourwiz). The words beside the control are the
# same in every record; the record's key is what tells them apart.
DEEP = """\
- table [ref=e1]:
  - rowgroup [ref=e2]:
    - row "INV-2041 Tomás Herrera €84.00 Overdue Send reminder" [ref=e3]:
      - cell "INV-2041" [ref=e4]
      - cell "Tomás Herrera" [ref=e5]
      - cell "€84.00" [ref=e6]
      - cell "Overdue Send reminder" [ref=e7]:
        - generic [ref=e8]: Overdue
        - button "Send reminder" [ref=e9]
- article [ref=e10]:
  - generic [ref=e11]:
    - heading "Castle Hill Walking Tour" [level=3] [ref=e12]
    - generic [ref=e13]: 2.5 h · small group
    - generic [ref=e14]:
      - generic [ref=e15]: from €39 / person
      - button "Select" [ref=e16]
- generic [ref=e17]:
  - generic [ref=e18]:
    - generic [ref=e19]: Page title
  - generic [ref=e20]:
    - generic [ref=e21]: Beside
    - button "Go" [ref=e22]
"""


def test_a_record_is_context_up_to_it_however_deep_the_control_sits() -> None:
    elements = parse_snapshot(DEEP)
    remind = elements["e9"].context
    assert "INV-2041" in remind and remind.index("Overdue") < remind.index("INV-2041")
    select = elements["e16"].context
    assert "Castle Hill Walking Tour" in select
    assert select.index("from €39 / person") < select.index("Castle Hill Walking Tour")
    # outside a record the nearest container that says something is still the control's own
    assert elements["e22"].context[:1] == ("Beside",) and "Page title" not in elements["e22"].context


def test_the_record_named_by_its_far_key_is_acted_on(tmp_path: Path) -> None:
    # hostdesk, written before the change: 0/5 (the invoice) and 2/5 (the room) each way
    run = run_experiment(tmp_path, [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]",
                                    "suite=fixtures", "suite.ids=[hostdesk-remind-invoice,hostdesk-add-guest]",
                                    "seeds=[0,1,2]", "perception=none", "trace.playwright=false",
                                    "trace.screenshots=none"])
    assert run.episodes.success.all(), run.episodes.failure_detail.tolist()
    clicks = pd.read_parquet(run.run_dir / "steps.parquet").query("action == 'click'")
    assert len(clicks) == 6
    for context in clicks.target_context:  # the record's key in the context, not its neighbour's
        assert ("INV-2041" in context.split(" | ")) != ("Garden Dorm" in context), context
        assert "Women only" not in context


def test_a_record_is_not_ranked_up_for_the_function_words_its_title_holds() -> None:
    # With the card's title in its context, "The Independente Suites" covered "the" of "View deal
    # button of the first result" and was listed before the first card (tripsearch, 4 of 5 seeds).
    from agents.marks import Mark
    from agents.observation import Box
    from agents.subgoal_relevance import rank

    box = Box(x=0, y=0, width=80, height=30)
    cards = [Mark(number=i, box=box, role="button", label="View deal", context=(price, title))
             for i, (price, title) in enumerate([("£248", "Memmo Alfama"), ("£712", "The Independente Suites")], 1)]
    ranked = rank(cards, "View deal button of the first result")
    assert [m.context[0] for m in ranked] == ["£248", "£712"]
    assert ranked[0].relevance == ranked[1].relevance > 0
