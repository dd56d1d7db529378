"""A modal offer the page keeps unseen until the agent's first action shows it (tests/language/sites/
promo/: a shop list; the first "Add to basket" shows a club offer over the whole page, backdrop and
all, with "Join the club" and "No thanks"; it closes neither on Escape nor on a click outside).
?hide= says how the page keeps it unseen: the hidden attribute, visibility hidden, or opacity 0 (the
last two keep its buttons in the layout); ?at=corner draws its box far from the button that brought
it up; ?no= gives the turning-down button the site's own words ("Skip", "Decline", "Reject all").

- interruptions (agents/interruptions.py) knows a button by what a person can see: buttons kept
  unseen are not on the page before the action, so the offer's are new with it, and the offer is
  turned down ("No thanks") whichever way the page kept it;
- uncover (agents/uncover.py) turns down what covers the target when Escape and a click outside
  do not close it: the covering layer's own dismissing button, never the accepting one. This
  serves the offer that interruptions leaves alone (drawn away from what the action pressed, it
  disables nothing: no sign that it stands in the plan's way until the next target is under it).

Before (measured on e8166ff, 3 seeds, synthetic, with and without uncover): promo-offer-hidden 3/3,
promo-offer-visibility 0/3, promo-offer-opacity 0/3, promo-offer-corner 0/3; on 79a535b (the
refusals in other words) promo-offer-skip, -decline and -reject 0/3 each."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agents.pipeline import Episode, Step
from tasks.schema import Subgoal
from tasks.text_match import turning_down
from tests.conftest import run_experiment

HERE = Path(__file__).parent / "language"
SITE = [f"sites.dirs=[{HERE / 'sites'}]", f"tasks.dirs=[{HERE / 'tasks'}]", "suite=fixtures",
        "trace.playwright=false", "perception=synthetic", "seeds=[0,1,2]"]
UNSEEN = "suite.ids=[promo-offer-hidden,promo-offer-visibility,promo-offer-opacity]"


def test_a_popup_is_turned_down_by_its_dismissing_button_unless_the_plan_goes_on_inside_it() -> None:
    assert turning_down(["Join the club", "No thanks"], {"checkout"}) == "No thanks"
    assert turning_down(["Accept all", "×"], {"checkout"}) == "×"
    assert turning_down(["Join the club", "Sign up"], {"checkout"}) is None  # nothing turns it down
    assert turning_down(["Delete", "Cancel"], {"delete"}) is None  # the plan's own confirmation
    for refusal in ("Skip", "Decline", "Reject all", "Deny"):  # an offer's or a consent banner's
        assert turning_down(["Accept all", refusal], {"checkout"}) == refusal


def test_the_plan_words_are_those_of_the_targets_left() -> None:
    from agents.brief import Brief

    plan = [Subgoal(action="click", target="Join button"), Subgoal(action="click", target="Checkout button")]
    brief = Brief(task_id="t", goal="", start_url="about:blank", plan=plan, max_steps=5, allowed_origins=[])
    episode = Episode(page=None, brief=brief, worker=None, backend=None, mechanisms=[],  # type: ignore[arg-type]
                      settle=lambda: None)  # type: ignore[arg-type,return-value]
    assert Step(episode, plan[1], 1, 1, rec=None).plan_words() == {"checkout"}  # type: ignore[arg-type]
    assert Step(episode, plan[0], 0, 0, rec=None).plan_words() == {"join", "checkout"}  # type: ignore[arg-type]


@pytest.mark.browser
def test_an_offer_kept_unseen_until_the_action_is_new_with_it(tmp_path: Path) -> None:
    # uncover off: only interruptions can answer the offer
    result = run_experiment(tmp_path, [*SITE, UNSEEN, "agent.uncover=false"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    answered = steps[steps.interruption.str.startswith("dismissed")]
    assert sorted(answered.task_id) == sorted(result.episodes.task_id)  # once per episode
    assert set(answered.target_name) == {"No thanks"}


@pytest.mark.browser
def test_an_offer_is_turned_down_in_the_site_s_own_words(tmp_path: Path) -> None:
    ids = "suite.ids=[promo-offer-skip,promo-offer-decline,promo-offer-reject]"
    result = run_experiment(tmp_path, [*SITE, ids, "seeds=[0]", "agent.uncover=false"])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    answered = steps[steps.interruption.str.startswith("dismissed")]
    assert set(answered.target_name) == {"Skip", "Decline", "Reject all"}


@pytest.mark.browser
@pytest.mark.parametrize("uncover", [True, False])
def test_a_layer_over_the_target_that_closes_no_other_way_is_turned_down(tmp_path: Path, uncover: bool) -> None:
    result = run_experiment(tmp_path, [*SITE, "suite.ids=[promo-offer-corner]", f"agent.uncover={str(uncover).lower()}",
                                       *([] if uncover else ["seeds=[0]", "agent.action_timeout_ms=1000"])])
    steps = pd.read_parquet(tmp_path / "steps.parquet")
    assert (steps.interruption == "").all()  # away from what was pressed: no interruption
    if uncover:
        assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
        checkout = steps[steps.target_name == "Checkout"]
        assert list(checkout.uncovered) == ["dismiss: No thanks"] * len(result.episodes)
        assert (checkout.effective & (checkout.effect != "")).all()
    else:
        assert not result.episodes.success.any()
        assert "action_timeout" in set(steps.error_type)
    assert "Join the club" not in set(steps.target_name)


LAYERS = """<!doctype html><html><body style="margin:0">
<input id="tags" style="position:absolute; left:10px; top:60px; width:128px">
<button id="submit" style="position:absolute; left:10px; top:97px; width:96px; height:31px">Submit</button>
<ul id="menu" style="position:absolute; left:10px; top:92px; width:128px; height:40px; margin:0; padding:0;
    list-style:none; background:#fff; border:1px solid #999"><li>Russian Federation</li></ul>
<label style="position:absolute; left:10px; top:160px"><input type="checkbox" id="tick"
    style="opacity:0; width:20px; height:20px; margin:0"> Remember me</label>
<span style="position:absolute; left:10px; top:160px; width:20px; height:20px; border:2px solid #333;
    box-sizing:border-box"></span>
<button id="drawn" style="position:absolute; left:200px; top:97px; width:96px; height:31px">Save</button>
<span style="position:absolute; left:200px; top:97px; width:96px; height:31px; background:#2a6;
    color:#fff; text-align:center">Save</span>
</body></html>"""


@pytest.mark.browser
def test_a_layer_the_size_of_the_target_covers_it_when_it_says_words_of_its_own() -> None:
    """A one-item suggestion list about the size of the button under it (MiniWoB++'s
    use-autocomplete after its 300 ms delay) covers the button; a tick box painted over its hidden
    input, or a layer drawing a button's own words over it, is the control's own drawing."""
    import asyncio

    from playwright.async_api import async_playwright

    from agents.uncover import _COVERED_JS
    from harness.browser import BrowserSettings, launch

    async def covering() -> dict[str, object]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            page = await browser.new_page()
            await page.set_content(LAYERS)
            got = {sel: await page.locator(sel).evaluate(_COVERED_JS) for sel in ("#submit", "#tick", "#drawn")}
            await browser.close()
            return got

    got = asyncio.run(covering())
    assert got["#submit"] is not None
    assert got["#tick"] is None and got["#drawn"] is None
