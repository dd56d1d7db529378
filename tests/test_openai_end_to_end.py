"""The `openai` worker driven through the whole harness against a local stub model: a worker that
answers from the listing completes a task. (A vision model that fails or answers garbage:
tests/faults/test_openai_faults.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from stub_openai import RecordedRequest, StubOpenAI, StubReply

pytestmark = pytest.mark.browser
LINE = re.compile(r'^\[(\d+)\] (\w+) "([^"]*)"(.*)$')


def listing_chooser(request: RecordedRequest) -> StubReply:
    """A fake model: picks the listed mark whose role and label fit the current subgoal."""
    text = "\n".join(request.texts())
    subgoal = re.search(r"Current subgoal: (.*)", text).group(1)
    action = subgoal.split()[0]
    shows = re.search(r'\(shows "([^"]+)"\)', subgoal)
    best = None
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        number, role, label, rest = int(m[1]), m[2], m[3], m[4]
        if action == "type" and role != "textbox":
            continue
        score = (shows and shows[1] == label) + (" in " in rest and rest.split('"')[1] in subgoal)
        if best is None or score > best[0]:
            best = (score, number)
    reply = {"action": action, "mark": best[1]}
    if action == "type":
        reply["text"] = re.search(r'text "([^"]*)"', subgoal).group(1)
    return StubReply.json(reply, tokens_in=100, tokens_out=10)


def test_openai_worker_completes_a_task(tmp_path: Path) -> None:
    with StubOpenAI() as stub:
        stub.responder = listing_chooser
        result = run_experiment(tmp_path, [
            "suite=fixtures", "suite.ids=[shop-coupon]", "seeds=[0,1]", "worker=openai",
            f"worker.client.base_url={stub.base_url}", "worker.client.timeout_s=5"])
        assert result.episodes.success.all(), result.episodes[["failure", "failure_detail"]]
        steps = pd.read_parquet(tmp_path / "steps.parquet")
        assert (steps.tokens_in >= 100).all() and (steps.invalid_replies == 0).all()
        first = stub.requests[0]
        assert first.image_urls() and first.image_urls()[0].startswith("data:image/png;base64,")
        assert any("Coupon code" in t for t in first.texts())

