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

from tasks.loader import FIXTURE_TASKS, load_tasks

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
        context = rest.split('"')[1] if rest.count('"') >= 2 else ""
        score = (shows and shows[1] == label) + (" in " in rest and bool(context) and context in subgoal)
        if best is None or score > best[0]:
            best = (score, number)
    if best is None:  # nothing listed fits the action: look further
        return StubReply.json({"action": "scroll", "direction": "down"}, tokens_in=100, tokens_out=10)
    reply = {"action": action, "mark": best[1]}
    if action == "drag":
        reply["offset"] = [0, 40]
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



UNTARGETED = ("scroll", "navigate", "back", "wait", "finish")


def plan_follower(request: RecordedRequest) -> StubReply:
    """A fake model that does what the subgoal says: untargeted steps as they are, targeted ones
    on the best-fitting listed mark (or a scroll when nothing is listed)."""
    text = "\n".join(request.texts())
    subgoal = re.search(r"Current subgoal: (.*)", text)
    action = subgoal.group(1).split()[0] if subgoal else "wait"
    if action in UNTARGETED:
        url = re.search(r"url (\S+)", subgoal.group(1)) if subgoal else None
        reply = {"action": action, "url": url.group(1)} if action == "navigate" and url else \
            {"action": action if action != "navigate" else "wait"}
        return StubReply.json(reply)
    if not any(LINE.match(line) for line in text.splitlines()):
        return StubReply.json({"action": "scroll", "direction": "down"})
    return listing_chooser(request)


# The kinds of page the worker's plumbing must get through (frames, shadow roots, canvas, covered
# and moving pages, widgets, off-domain bait); every plan action kind is covered too.
PAGE_KINDS = {"iframe-same", "iframe-cross", "shadow-slider", "canvas", "covered", "div-widget",
              "autocomplete", "moving", "off-domain", "no-op", "compound-row", "inner-scroll"}


def catalogue_cover() -> list[str]:
    """Fixture tasks that together hold every plan action kind and every page kind above, the
    shorter plans first (a greedy set cover): the whole catalogue's variety in a third of its
    steps."""
    tasks = load_tasks([FIXTURE_TASKS])
    features = {tid: {f"do:{s.action}" for s in task.plan} | (set(task.tags) & PAGE_KINDS)
                for tid, task in tasks.items()}
    need, chosen = set().union(*features.values()), []
    while need:
        best = max(sorted(features), key=lambda i: (len(features[i] & need), -len(tasks[i].plan)))
        chosen.append(best)
        need -= features[best]
    return chosen


def test_the_fixture_catalogue_runs_under_the_openai_worker(tmp_path: Path) -> None:
    # Plan steps without a target (scroll, wait...) used to call the OpenAI worker with the
    # scripted worker's signature: a TypeError aborted the whole run. Every kind of fixture task
    # now runs to an ordinary verdict, and the untargeted steps are answered by the model.
    ids = catalogue_cover()
    with StubOpenAI() as stub:
        stub.responder = plan_follower
        result = run_experiment(tmp_path, [
            "suite=fixtures", f"suite.ids=[{','.join(ids)}]", "seeds=[0]", "worker=openai",
            "perception=synthetic", f"worker.client.base_url={stub.base_url}",
            "worker.client.timeout_s=5", "trace.capture=live", "trace.playwright=false",
            "trace.screenshots=none"])
    episodes = result.episodes
    assert sorted(episodes.task_id) == sorted(ids) and len(ids) >= 10
    assert not episodes.failure.isin(["browser_crash", "timeout"]).any()
    assert not episodes.failure_detail.str.contains("Error|Traceback").any(), \
        episodes.failure_detail.tolist()
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    untargeted = steps[steps.subgoal_action.isin(UNTARGETED)]
    assert len(untargeted) and (untargeted.tokens_in > 0).all()
    # The fake model follows the plan by the listing's names: where the page's structure is all
    # that stands in the way (frames, a canvas, a covering layer, off-domain bait, a page that
    # moves), it succeeds; the traps for a name follower are allowed to catch it.
    structural = {"iframe-same", "iframe-cross", "canvas", "covered", "off-domain", "moving"}
    tags = {tid: set(task.tags) for tid, task in load_tasks([FIXTURE_TASKS]).items()}
    plain = episodes[episodes.task_id.map(lambda t: bool(tags[t] & structural))]
    assert len(plain) >= 5 and plain.success.all(), plain[~plain.success][["task_id", "failure"]]
