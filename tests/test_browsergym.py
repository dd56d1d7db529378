"""BrowserGym-style agents (agents/browsergym.py): action strings map to the closed vocabulary
through the step's bids, nothing is ever executed as code, and the example agent runs ci tasks
with its traces graded like any agent's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.actions import Back, Click, Drag, Finish, Hover, Navigate, Scroll, Select, Type, Wait
from agents.browsergym import to_action
from agents.policy import OutsideVocabulary

ROOT = Path(__file__).resolve().parents[1]
BIDS = {"3": "e7", "12": "f1e4"}


@pytest.mark.parametrize(("text", "action"), [
    ('click("12")', Click(ref="f1e4")),
    ("click('3', button='left')", Click(ref="e7")),
    ('fill("3", "tents")', Type(ref="e7", text="tents", clear=True)),
    ('select_option("3", ["Blue"])', Select(ref="e7", value="Blue")),
    ('press("3", "Enter")', Type(ref="e7", text="", clear=False, then="enter")),
    ("scroll(0, -300)", Scroll(direction="up", pixels=300)),
    ("scroll(250, 0)", Scroll(direction="right", pixels=250)),
    ('hover("12")', Hover(ref="f1e4")),
    ('drag_and_drop("3", "12")', Drag(ref="e7", to_ref="f1e4")),
    ('goto("http://127.0.0.1:8000/shop/")', Navigate(url="http://127.0.0.1:8000/shop/")),
    ("go_back()", Back()),
    ("noop(500)", Wait(seconds=0.5)),
    ('send_msg_to_user("it costs $12")', Finish(answer="it costs $12")),
])
def test_browsergym_actions_map_to_the_closed_vocabulary(text: str, action: object) -> None:
    assert to_action(text, BIDS) == action


@pytest.mark.parametrize("text", [
    'click("99")',                          # no such element in this observation
    "__import__('os').system('true')",      # code is parsed, never run
    'click(bid="3")',                        # keyword ids are not BrowserGym's shape
    'press("3", "Control+a")',              # a key the vocabulary has no action for
    'drag_and_drop("3", "99")',
    "click('3'); click('12')",
])
def test_anything_else_is_outside_the_vocabulary(text: str) -> None:
    with pytest.raises(OutsideVocabulary):
        to_action(text, BIDS)


def test_the_example_browsergym_agent_runs_ci_tasks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    # Seven of the ci suite's tasks: a plain page, two frames, a covering layer, off-domain bait,
    # a settings page and a canvas (the agent solves some, falls in the others).
    ids = ["noop-follow", "crosspay-pay", "iframes-delivery", "covered-consent",
           "offdomain-invoice", "settings-email-on", "canvas-seat-d7"]
    result = run_experiment(tmp_path / "run", [
        "suite=ci", f"suite.ids=[{','.join(ids)}]", "seeds=[0]", "trace.capture=live",
        "trace.playwright=false", "trace.screenshots=none", "policy=custom",
        "policy._target_=examples.browsergym_agent.KeywordAgent"])
    episodes = result.episodes
    assert sorted(episodes.task_id) == sorted(ids) and set(episodes.config_name) == {"KeywordAgent"}
    assert episodes.success.any() and not episodes.failure.isin(["browser_crash", "timeout"]).any()
    steps = pd.read_parquet(tmp_path / "run" / "steps.parquet")
    assert (steps.path == "policy").all() and (steps.ref != "").any()
    bin_dir = Path(sys.executable).parent
    for args in ([str(bin_dir / "groundbench-report"), str(tmp_path / "run")],
                 [str(bin_dir / "groundbench-check"), str(tmp_path / "run"), "--baseline",
                  str(tmp_path / "baseline.json"), "--update"]):
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
