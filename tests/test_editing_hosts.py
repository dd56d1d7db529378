"""Text fields that are no form fields: an editing host (`contenteditable`) without a role, as rich-text
editors, message boxes and values edited in place are written. Playwright's aria snapshot calls one
`generic` and reads its drawn placeholder or its content as text, so no plan could type into it:
tests/language/sites/devforum (written before the change: an answer editor named only by the
placeholder a style draws, and a status edited in place after the words "Status:") failed 0/5 with
and without vision on both tasks, and supportdesk's reply box stopped its task at the second step.

The fingerprint's walk now reports the top document's editing hosts (box, name, empty), the
observation makes the element the snapshot shows for each a textbox (agents/editing_hosts.py), and the
validator reads the text a host holds. tests/language/sites/kbadmin (written before frames were
looked in: an article body edited in an iframe whose <body> is contenteditable and empty, so the
snapshot shows a bare `iframe`) failed 0/5 each way; a frame edited whole is now the textbox, typed
into through its body. Three rules any field follows came with it: a text field's
value is not its name (a field holding "Available" beside "Status:" goes by its caption), a caption
right before a field is that field's alone, and a possessive says nothing of which control ("your
status" is the status)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import async_playwright

from agents import fingerprint
from agents.editing_hosts import Host, mark
from agents.marks import Mark
from agents.observation import Box, Element, RefBook, parse_snapshot
from agents.worker.fit import least_score, score
from harness.browser import BrowserSettings, launch
from tasks.schema import Subgoal

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "suite.ids=[devforum-post-answer,devforum-set-status,kbadmin-publish-article]", "seeds=[0,1]",
        "trace.playwright=false",
        "trace.screenshots=none"]

SNAPSHOT = """- generic [ref=e1] [box=0,0,1280,800]:
  - heading "Your answer" [level=3] [ref=e2] [box=42,574,724,19]
  - generic [ref=e3] [box=42,636,724,112]: Write your answer…
  - generic [ref=e4] [box=824,108,260,21]:
    - generic [ref=e5] [box=824,112,46,15]: "Status:"
    - generic [ref=e6] [box=876,108,80,21]: Available
  - paragraph [ref=e7] [box=9,300,1262,18]: Type / for commands
  - generic [ref=e8] [box=8,400,600,60]:
    - paragraph [ref=e9] [box=10,402,580,20]: First line
    - paragraph [ref=e10] [box=10,432,580,20]: Second line
  - generic [ref=e11] [box=0,600,1280,80]:
    - generic [ref=e12] [box=10,602,200,20]: Tags
    - generic [ref=e13] [box=300,602,200,20]: Notes
  - textbox "Title" [ref=e14] [box=8,700,600,20]
  - generic "Reply" [ref=e15] [box=8,800,600,40]:
    - paragraph [ref=e16] [box=10,802,580,18]: Thanks!
"""


def test_the_element_an_editing_host_shows_becomes_a_textbox() -> None:
    elements = parse_snapshot(SNAPSHOT)
    hosts = [Host(42, 636.5, 724, 112, "", True),          # empty: its placeholder drawn by a style
             Host(875.8, 108, 80.4, 21, "", False),        # a value edited in place
             Host(8, 299, 1264, 20, "Body", True),         # folded into its one paragraph; aria-label
             Host(8, 400, 600, 60, "", False),             # two paragraphs in it
             Host(8, 600, 600, 60, "", False),             # two elements drawn in it: not told apart
             Host(8, 700, 600, 20, "Title", True),         # already a textbox
             Host(8, 800, 600, 40, "Reply", False)]        # named by aria-label, holding a paragraph
    out = mark(elements, hosts)
    answer, status, body = out["e3"], out["e6"], out["e7"]
    assert (answer.role, answer.name, answer.text) == ("textbox", "Write your answer…", "")
    assert (status.role, status.name, status.text, status.label) == ("textbox", "", "Available", "")
    assert "Status:" in status.context
    assert (body.role, body.name) == ("textbox", "Body")
    assert (out["e8"].role, out["e8"].text) == ("textbox", "First line Second line")
    assert out["e9"] == elements["e9"]
    assert (out["e15"].name, out["e15"].text) == ("Reply", "Thanks!")  # its name is not what it holds
    assert [out[r] for r in ("e11", "e12", "e13", "e14")] == [elements[r] for r in ("e11", "e12", "e13", "e14")]
    assert mark(elements, []) == elements


def test_a_text_field_goes_by_its_name_not_by_what_it_holds() -> None:
    box = Box(x=0, y=0, width=80, height=20)
    held = Element(ref="e1", role="textbox", text="Available", box=box)
    assert held.label == "" and Element(ref="e2", role="textbox", name="Status", text="x").label == "Status"
    assert Element(ref="e3", role="generic", text="Available").label == "Available"
    status = Subgoal(action="type", target="your Status", text="Out")
    field = Mark(number=1, box=box, role="textbox", label=held.label, context=("Status:",))
    answer = Mark(number=2, box=box, role="textbox", label="Write your answer…", context=("Your answer",))
    valued = Mark(number=3, box=box, role="textbox", label="Available", context=("Status:",))
    assert score(status, field) >= least_score(status) > score(status, answer)
    assert score(status, valued) < score(status, field)  # a value read as a name contradicts it


FRAMES = """- generic [ref=e1] [box=0,0,1280,800]:
  - generic [ref=e2] [box=8,8,600,15]: Article body
  - iframe [ref=e3] [box=8,30,600,160]
  - iframe [ref=e4] [box=8,200,600,160]:
    - paragraph [ref=f2e2] [box=10,8,580,18]: Hello
  - iframe [ref=e5] [box=8,400,600,160]:
    - generic [ref=f3e2] [box=8,8,584,18]: Notes
    - generic [ref=f3e3] [box=8,30,584,60]: Call the customer back
  - generic [ref=e6] [box=10,40,580,18]: drawn over the first frame, outside it
"""


def test_a_frame_edited_whole_is_the_textbox_and_a_host_in_a_frame_is_found_there() -> None:
    elements = parse_snapshot(FRAMES)
    out = mark(elements, [
        Host(0, 0, 600, 160, "", True, frame=(8, 30, 600, 160), whole=True),     # empty: shows nothing
        Host(0, 0, 600, 160, "", False, frame=(8, 200, 600, 160), whole=True),
        Host(8, 30, 584, 60, "", False, frame=(8, 400, 600, 160)),              # a div in a frame
        Host(0, 0, 600, 160, "", True, frame=(300, 300, 600, 160), whole=True)])  # no such frame
    assert (out["e3"].role, out["e3"].text) == ("textbox", "")
    assert (out["e4"].role, out["e4"].text) == ("textbox", "Hello")
    assert (out["f3e3"].role, out["f3e3"].text) == ("textbox", "Call the customer back")
    # the box of a host in a frame is its frame's: the top document's element there is not it
    assert out["e6"] == elements["e6"] and out["f2e2"] == elements["f2e2"]


CAPTIONS_ABOVE = """- generic [ref=e1]:
  - generic [ref=e2]: Family name
  - textbox [ref=e3]
  - generic [ref=e4]: Postcode
  - textbox [ref=e5]
  - generic [ref=e6]: Forename
  - textbox [ref=e7]
"""


def test_a_caption_right_before_a_field_is_that_fields_alone() -> None:
    """Once a filled field no longer says what it holds, the first name field (captioned
    "Forename", two places after "Postcode") fitted "ZIP code field" on the caption before the
    field before it (tests/language/tasks/booking-fields.yaml, seed 2)."""
    elements = parse_snapshot(CAPTIONS_ABOVE)
    assert [elements[r].context for r in ("e3", "e5", "e7")] == [("Family name",), ("Postcode",), ("Forename",)]


EDITORS = """
<style>.e:empty::before { content: attr(data-placeholder); color: #999 }
       p.is-empty::before { content: attr(data-placeholder); float: left; height: 0 }</style>
<div class=e contenteditable data-placeholder="Write here…" style="min-height:40px; border:1px solid"></div>
<div><div contenteditable style="border:1px solid"><p class=is-empty data-placeholder="Type / for commands"><br></p></div></div>
<div contenteditable aria-label="Message body" style="border:1px solid">hello <b>world</b></div>
<div contenteditable role=textbox aria-label="Has a role" style="border:1px solid"></div>
<div contenteditable style="border:1px solid">outer <span contenteditable=false>chip</span> <b>inner</b></div>
<iframe srcdoc="<body contenteditable><p>in a frame</p></body>"></iframe>
<iframe srcdoc="<body><p>designed</p><script>document.designMode = 'on'</script></body>"></iframe>
"""


def test_an_observation_shows_editing_hosts_as_text_fields() -> None:
    async def observed() -> tuple[fingerprint.Fingerprint, dict[str, Element]]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            try:
                page = await browser.new_page()
                await page.set_content(EDITORS)
                await page.wait_for_function("() => [...document.querySelectorAll('iframe')].every("
                                             "(f) => f.contentDocument?.body?.isContentEditable)")
                fp = await fingerprint.take(page)
                assert fp is not None
                obs = await RefBook().observe(page)
                fields = mark(obs.elements, fp.editables).values()
                return fp, {e.name or e.text: e for e in fields if e.interactive}
            finally:
                await browser.close()

    fp, fields = asyncio.run(observed())
    # one per host without a role (the chip and the bold text are parts of theirs)
    assert [(h.name, h.empty, h.frame is not None, h.whole) for h in fp.editables] == [
        ("Write here…", True, False, False), ("Type / for commands", True, False, False),
        ("Message body", False, False, False), ("", False, False, False), ("", False, True, True),
        ("", False, True, True)]  # the second frame's document is in design mode
    assert fields["Write here…"].role == fields["Type / for commands"].role == "textbox"
    assert (fields["Message body"].role, fields["Message body"].text) == ("textbox", "hello world")
    assert fields["Has a role"].role == "textbox"
    assert fields["outer chip inner"].role == "textbox"
    for edited in ("in a frame", "designed"):  # the frame's element
        assert (fields[edited].role, fields[edited].ref[0]) == ("textbox", "e"), edited


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_text_is_typed_into_editors_and_read_back(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"perception={perception}"])
    episodes = result.episodes
    assert episodes.success.all(), episodes[["task_id", "seed", "failure_detail"]]
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    typed = steps[steps.action == "type"]
    assert len(typed) == 8 and (typed.target_role == "textbox").all()
    # the text each host holds is read back (a frame's, through its document): what was typed is there
    assert (typed.effect == "value").all(), typed[["task_id", "effect"]]
    answer = typed[typed.task_id == "devforum-post-answer"]
    assert (answer.target_name == "Write your answer…").all()


@pytest.mark.browser
def test_a_reply_box_written_outside_the_project_takes_the_reply(tmp_path: Path) -> None:
    """supportdesk (tests/test_fresh_pages_five.py): a reply box with no role, no label and a
    placeholder drawn by CSS; its rows are seen by vision only."""
    result = run_experiment(tmp_path, [*ARGS, "suite.ids=[supportdesk-reply-and-tag]", "seeds=[1]",
                                       "perception=synthetic"])
    assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]]
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    reply = steps[steps.subgoal_target.str.startswith("reply message box") & (steps.action == "type")]
    assert reply[["target_role", "target_name", "effect"]].values.tolist() == [["textbox", "Reply to Maria…", "value"]]
