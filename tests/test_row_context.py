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
