"""Policies by import path (agents/policy.py, harness/policies.py): a step policy of one's own runs
on the fixture tasks and is graded like groundbench's agent; what cannot run is refused before any
browser starts, and an answer outside the closed vocabulary is a recorded step."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.actions import Click, Finish
from agents.policy import Outcome, PageView, PolicyStep
from agents.worker.scripted import ScriptedWorker
from tasks.trace import Cost, StepRecord

ROOT = Path(__file__).resolve().parents[1]
COMMON = ["suite=fixtures", "seeds=[0]", "trace.capture=live", "trace.playwright=false",
          "trace.screenshots=none"]


class OutOfVocabulary:
    """Answers with something that is not an action (a JavaScript string), then a stale ref."""

    def __init__(self) -> None:
        self.calls = 0

    async def act(self, view: PageView) -> object:
        self.calls += 1
        return "document.querySelector('button').click()" if self.calls == 1 else \
            PolicyStep(action=Click(ref="e99999"), vision_calls=1)


def _groundbench(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("groundbench")
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


def test_the_example_text_match_policy_is_graded_like_any_agent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    result = run_experiment(tmp_path / "run", [
        *COMMON, "suite.ids=[noop-follow,disabled-register]", "policy=custom",
        "policy._target_=examples.policies.text_match.TextMatch", "+policy.min_overlap=1"])
    episodes = result.episodes
    assert set(episodes.config_name) == {"TextMatch"} and episodes.success.any()
    steps = pd.read_parquet(tmp_path / "run" / "steps.parquet")
    assert (steps.path == "policy").all() and (steps.ref != "").any()
    report = subprocess.run([str(Path(sys.executable).with_name("groundbench-report")),
                             str(tmp_path / "run")], capture_output=True, text=True, timeout=120,
                          check=False)
    assert report.returncode == 0, report.stderr


def test_an_answer_outside_the_vocabulary_is_a_recorded_action_error(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [*COMMON, "suite.ids=[shop-coupon]", "policy=custom",
                                       "policy._target_=test_policies.OutOfVocabulary"])
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    assert steps.error_type.iloc[0] == "action_error"
    assert "closed vocabulary" in steps.error.iloc[0]
    assert steps.error_type.iloc[1] == "stale_ref" and steps.vision_calls.iloc[1] == 1
    assert not result.episodes.success.any() and result.episodes.vision_calls.iloc[0] >= 1


@pytest.mark.parametrize(("target", "says"), [
    ("nosuchpackage.Agent", "cannot import 'nosuchpackage'"),
    ("json.JSONDecoder", "is not a policy: it has no `run` or `act` or `get_action`"),
    ("???", "a policy of your own needs its class"),
])
def test_a_policy_that_cannot_run_is_refused_before_any_browser(tmp_path: Path, target: str,
                                                                 says: str) -> None:
    done = _groundbench("policy=custom", f"policy._target_={target}",
                        f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run" / "episodes.parquet").exists()


class MarkPicker:
    """Asks for the Set-of-Mark listing and clicks the mark that shows the plan step's label."""

    wants_marks = True

    def __init__(self) -> None:
        self.seen: list[PageView] = []

    async def act(self, view: PageView) -> PolicyStep:
        self.seen.append(view)
        assert view.som_image and view.listing.startswith("[1]") and view.steps_left > 0
        wanted = view.subgoal.label if view.subgoal else None
        mark = next((m for m in view.marks if wanted and m.label == wanted), None)
        if mark is None:
            return PolicyStep(action=Finish(answer="nothing to do"))
        return PolicyStep(action=Click(ref=mark.ref), vision_calls=1,
                          cost=Cost(latency_ms=5, tokens_in=100, tokens_out=7))


def test_a_step_policy_can_act_on_the_set_of_mark_listing(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [*COMMON, "suite.ids=[disabled-register]", "policy=custom",
                                       "policy._target_=test_policies.MarkPicker"])
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    assert (steps[steps.action == "click"].tokens_in == 100).all()
    assert result.episodes.vision_calls.iloc[0] == steps.vision_calls.sum() > 0


class PlanWorker(ScriptedWorker):
    """A worker of one's own (here the scripted one under another name) inside groundbench's
    agent: `worker=custom worker._target_=test_policies.PlanWorker`."""

    def __init__(self, tag: str = "") -> None:
        self.tag = tag


def test_a_vision_backend_of_ones_own_runs_inside_the_agent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    result = run_experiment(tmp_path, [
        *COMMON, "suite.ids=[noop-follow,disabled-register]", "perception=custom",
        "perception._target_=examples.perception.blocks.Blocks", "+perception.cell=8",
        "worker=custom", "worker._target_=test_policies.PlanWorker", "+worker.tag=mine"])
    episodes = result.episodes
    assert set(episodes.config_name) == {"full/Blocks/PlanWorker"}
    assert episodes.success.any() and (episodes.vision_calls > 0).all()


@pytest.mark.parametrize("override", ["perception=custom", "worker=custom"])
def test_a_part_that_cannot_run_is_refused_before_any_browser(tmp_path: Path, override: str) -> None:
    group = override.split("=")[0]
    done = _groundbench(override, f"{group}._target_=json.JSONDecoder",
                        f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
    assert done.returncode == 2 and "is not a" in done.stderr and "Traceback" not in done.stderr


class LooksOnce:
    """An episode policy of one's own that uses groundbench's configured vision backend (through
    `from_setup`): one pass over the start page, recorded as its step."""

    def __init__(self, backend_for) -> None:
        self.backend_for = backend_for

    @classmethod
    def from_setup(cls, setup) -> LooksOnce:
        return cls(setup.backend_for)

    async def run(self, page, brief, on_step, prepare=None, episode_over=None):
        await page.goto(brief.start_url)
        backend = self.backend_for(page)
        result = await backend.perceive(b"", brief.goal, [], "small")
        on_step(StepRecord(step=0, subgoal_index=0, subgoal_action="look", vision_calls=1,
                           candidates=len(result.candidates), path="policy"))
        return Outcome(steps=1, plan_done=False, acted_at=time.monotonic())


def test_groundbench_perception_under_a_policy_of_ones_own(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [*COMMON, "suite.ids=[shop-coupon]", "policy=custom",
                                       "policy._target_=test_policies.LooksOnce",
                                       "perception=synthetic"])
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    assert result.episodes.vision_calls.iloc[0] == 1 and steps.candidates.iloc[0] > 0
