"""Sections (agents/sections.py): the plan names a control that sits in a closed section and not
the section. Nothing on the page fits; the agent reads what each closed section holds and opens
the one holding a control that fits, by its header, then looks again.

Pages of their own: tests/language/sites/helpdesk (a <details> whose summary wraps a heading,
task helpdesk-return-unopened) and tests/language/sites/console (ARIA tabs whose panels are
hidden, an accordion button with aria-expanded/aria-controls inside one, and a tab holding
nothing the task needs). Before the mechanism: 0/10 (the two × 5 seeds) with synthetic vision and 0/10 without
(`no_target` at the first step)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures", "suite.tags=[]",
        "suite.ids=[helpdesk-return-unopened,console-security-timeout]", "seeds=[0,1]",
        "trace.playwright=false", "trace.screenshots=none"]


def _revealed(run_dir: Path) -> pd.DataFrame:
    steps = pd.read_parquet(run_dir / "steps.parquet")
    return steps[steps.effect.fillna("").str.startswith("revealed: sections")]


@pytest.mark.browser
@pytest.mark.parametrize("perception", ["none", "synthetic"])
def test_the_closed_section_that_holds_the_control_is_opened(tmp_path: Path, perception: str) -> None:
    result = run_experiment(tmp_path, [*ARGS, f"perception={perception}"])
    assert result.episodes.success.all(), result.episodes[["task_id", "failure", "failure_detail"]].to_dict("records")
    opened = _revealed(result.run_dir)
    per_episode = opened.groupby(["task_id", "seed"]).target_name.apply(list).to_dict()
    for seed in (0, 1):
        assert per_episode[("helpdesk-return-unopened", seed)] == ["Returns"]
        # the Security tab, then the accordion inside it; never the Billing tab
        assert per_episode[("console-security-timeout", seed)] == ["Security", "Advanced options"]


@pytest.mark.browser
def test_without_the_switch_nothing_fits_and_nothing_is_opened(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, [*ARGS, "perception=none", "agent.sections=false", "seeds=[0]"])
    assert not result.episodes.success.any()
    assert set(result.episodes.failure) == {"no_target"}
    assert _revealed(result.run_dir).empty
