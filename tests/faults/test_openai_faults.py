"""The `openai` vision backend, driven through a whole episode, gets HTTP 500s, timeouts, a body
that is not JSON, boxes out of range and then prose: retries are bounded and back off, every
failure is a recorded perception error in the steps trace, and the episode ends cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from stub_openai import StubOpenAI, StubReply

pytestmark = pytest.mark.browser
BACKOFF, TIMEOUT, RETRIES = 0.5, 0.3, 2
# How late the stub may note a request's arrival on a loaded machine (a gap shrinks by as much):
# CI saw 90 ms at two test workers per core. Without backoff a gap is ~0, without doubling the
# second is BACKOFF: both stay well below what the assertions allow.
LATE = 0.2


def test_model_faults_are_retried_with_backoff_and_recorded(tmp_path: Path) -> None:
    out_of_range = {"candidates": [{"box": [120, 40, 260, 80], "label": "Submit"}]}
    with StubOpenAI() as stub:
        stub.queue(*[StubReply.error(500, "model exploded")] * (1 + RETRIES),
                   *[StubReply.json(out_of_range, delay_s=2 * TIMEOUT)] * (1 + RETRIES),
                   StubReply(body=b"<html>502 Bad Gateway</html>"),
                   StubReply.json(out_of_range))
        stub.responder = lambda request: StubReply.text("I think the button is somewhere left")
        result = run_experiment(tmp_path, [
            "suite=fixtures", "suite.ids=[shop-coupon]", "perception=openai",
            f"perception.client.base_url={stub.base_url}", f"perception.client.timeout_s={TIMEOUT}",
            f"perception.client.max_retries={RETRIES}", f"perception.client.backoff_s={BACKOFF}",
            # One vision call per step, in order: no reuse, no background or second pass.
            "agent.gating=false", "agent.prefetch=false", "agent.coverage=false",
            "trace.capture=live"])  # no recorded rerun of the failed episode: it would call again
        arrivals = [r.t for r in stub.requests]
    episode = result.episodes.iloc[0]
    # No call answered usably: the episode is a perception failure, and a failed call is no
    # vision call (the budget counts what the model delivered).
    assert not episode.success and episode.failure == "perception_error", episode.failure_detail
    assert "failed model calls (first: http_error" in episode.failure_detail
    assert episode.vision_calls == 0
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    errors = [e for e in steps.perception_error if e]
    assert len(errors) == len(steps) >= 5 and steps.vision_calls.sum() == 0
    assert [e.split(":")[0] for e in errors] == [
        "http_error", "timeout", "bad_response", "invalid_boxes"] + ["bad_json"] * (len(errors) - 4)
    assert "500" in errors[0] and f"after {1 + RETRIES} attempts" in errors[0]
    assert f"after {1 + RETRIES} attempts" in errors[1]
    # Bounded: transient errors got 1 + max_retries attempts, the rest exactly one.
    assert len(arrivals) == len(errors) + 2 * RETRIES
    # Backoff: the wait before retry n is backoff_s * 2**(n-1) (after the attempt's own time).
    # The arrivals are noted by the stub, a little late when the machine is loaded: without any
    # backoff a gap would be at most LATE, with it at least the backoff less LATE.
    for first, extra in ((0, 0.0), (1 + RETRIES, TIMEOUT)):
        gaps = [arrivals[first + n + 1] - arrivals[first + n] - extra for n in range(RETRIES)]
        assert all(g >= BACKOFF * 2 ** n - LATE for n, g in enumerate(gaps)), gaps
    assert json.loads((tmp_path / "run.json").read_text())["config"]["perception"]["name"] == "openai"
