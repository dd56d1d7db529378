"""Submenus (agents/submenus.py): the item the plan names sits in a closed submenu; the agent
hovers the items that open one, one at a time, and looks again. On a page of its own
(tests/language/sites/menus) and on the MiniWoB menu whose icon the instruction draws."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment

from agents.pictures import RESEMBLES

pytestmark = pytest.mark.browser

HERE = Path(__file__).parent / "language"
ARGS = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "suite.ids=[menus-submenu]", "seeds=[0,1]", "perception=none", "trace.playwright=false",
        "trace.screenshots=none"]


def test_the_item_is_found_in_the_submenu_that_holds_it(tmp_path: Path) -> None:
    on = run_experiment(tmp_path / "on", ARGS)
    assert on.episodes.success.all(), on.episodes[["failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(on.run_dir / "steps.parquet")
    opened = steps[steps.effect.str.startswith("revealed: submenus")]
    # each episode hovered at least the submenu that holds the item, and only items that open one
    assert set(opened.seed) == {0, 1} and (opened.action == "hover").all()
    assert opened.target_name.str.endswith("›").all() and (opened.target_role == "menuitem").all()
    assert "Export ›" in set(opened.target_name)
    off = run_experiment(tmp_path / "off", [*ARGS, "agent.submenus=false"])
    assert not off.episodes.success.any() and (off.episodes.failure == "no_target").all()


def test_the_miniwob_menu_item_shown_as_an_icon_is_found_in_its_submenu(tmp_path: Path) -> None:
    # click-menu-2, seeds 2 and 3: "click on the item with the [icon] icon"; the instruction draws
    # the icon, read as a picture; seed 2's (Stop) is in the Playback submenu, seed 3's (Zoom In) not
    result = run_experiment(tmp_path, ["suite=miniwob", "suite.ids=[miniwob.click-menu-2]",
                                       "perception=synthetic", "seeds=[2,3]", "trace.playwright=false",
                                       "trace.screenshots=none"])
    eps = result.episodes
    assert eps.success.all(), eps[["seed", "failure", "failure_detail"]].to_dict("records")
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    clicks = steps[(steps.subgoal_target == "menu item with the icon") & (steps.action == "click")]
    assert len(clicks) == 2 and (clicks.resemblance >= RESEMBLES).all()
    assert set(steps[steps.effect.str.startswith("revealed: submenus")].seed) == {2}
