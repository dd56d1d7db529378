"""The fixture server fails one request of an episode for real (HTTP 500, or no answer at all):
the episode ends with its outcome and the server errors in its row, and the sweep goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_experiment
from faultkit import fault_suite

pytestmark = pytest.mark.browser

CASES = {
    # The page's tip fails once and is fetched again; the start page of fault-gone fails for good.
    "500": ({"/faults/extra.json": "500", "/faults/gone.html": "500"},
            ["fault-extra", "fault-gone", "shop-coupon"]),
    # The tip is never answered; the page gives up on it after a second and fetches it again.
    "stall": ({"/faults/extra.json": "stall"}, ["fault-extra", "shop-coupon"]),
}


@pytest.mark.parametrize("kind", CASES)
def test_server_fault_is_recorded_and_not_fatal(tmp_path: Path, kind: str) -> None:
    faults, ids = CASES[kind]
    result = run_experiment(tmp_path / "run", [
        *fault_suite(tmp_path), "suite=fixtures", f"suite.ids=[{','.join(ids)}]", "seeds=[0]",
        "concurrency=1", "perception=none", "trace.playwright=false"], faults=faults)
    eps = result.episodes.set_index("task_id")
    assert sorted(eps.index) == sorted(ids)
    shown = eps[["success", "failure", "failure_detail", "server_errors"]]
    # A non-essential request failed once: recorded, and the plan still completes.
    assert eps.success["fault-extra"] and eps.server_errors["fault-extra"] == 1, shown
    assert eps.failure_detail["fault-extra"] == "", shown
    if kind == "500":
        # The start page itself failed: the episode fails, and its detail names the server error.
        assert not eps.success["fault-gone"] and eps.server_errors["fault-gone"] == 1, shown
        assert eps.failure["fault-gone"] == "no_target", shown
        assert "server errors: 1 (first: 500 main /faults/gone.html" in eps.failure_detail["fault-gone"]
    # The next episode of the same run, on the same server and browser, is untouched.
    assert eps.started_at["shop-coupon"] == eps.started_at.max()
    assert eps.success["shop-coupon"] and eps.server_errors["shop-coupon"] == 0, shown
