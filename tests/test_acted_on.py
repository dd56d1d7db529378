"""The effect of an action is judged against the page as it was acted on.

A page may change between the step's reading (the fingerprint, then the snapshot and vision) and
the action: an offer slides in while vision looks, and the agent, seeing it, closes it. Judged
against the fingerprint read before the offer came, the page after the close is the page read:
"nothing changed", the close condemned as dead and its target excluded (first met on a fresh page
of glyph buttons, tests/language/sites/tablebook, in about one episode of twenty with the
synthetic perception). The page is read again just before the action when it changed since the
step's reading (`before_retaken`)."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import async_playwright

from agents import act, fingerprint
from agents.actions import Click
from agents.agent import AgentConfig, GroundingAgent
from agents.pipeline import Episode, Step
from agents.worker.scripted import ScriptedWorker
from harness.browser import BrowserSettings, launch
from tasks.schema import Subgoal
from tasks.trace import StepRecord

PAGE = """<meta charset="utf-8"><button id="book">Book table</button>
<div id="offer" hidden><button id="close">×</button> 10% off your first visit</div>
<script>document.getElementById("close").onclick = () => { document.getElementById("offer").hidden = true; };</script>"""


async def _close_the_offer(comes_after_reading: bool) -> StepRecord:
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        try:
            page = await browser.new_page()
            agent = GroundingAgent(AgentConfig(), ScriptedWorker())
            await page.add_init_script(fingerprint.MUTATION_COUNTER_JS)
            await page.route("http://localhost:9/", lambda route: route.fulfill(body=PAGE, content_type="text/html"))
            await page.goto("http://localhost:9/")
            if not comes_after_reading:
                await page.evaluate("() => { document.getElementById('offer').hidden = false; }")
            rec = StepRecord(step=0, subgoal_index=0, subgoal_action="click")
            episode = Episode(page=page, brief=None, worker=ScriptedWorker(), backend=None,  # type: ignore[arg-type]
                              mechanisms=[], settle=lambda also=(): agent._settle(episode, also))
            agent.settler.watch(page)
            step = Step(episode, Subgoal(action="click", target="close button of the offer"), 0, 0, rec)
            step.fp_before = await fingerprint.take(page)
            if comes_after_reading:  # the offer slides in after the step read the page
                await page.evaluate("() => { document.getElementById('offer').hidden = false; }")
            obs = await episode.refs.observe(page)
            ref = next(r for r, e in obs.elements.items() if e.name == "×")
            await act.act(step, Click(ref=ref, observation_id=obs.id))
            assert await page.is_hidden("#offer")
            return rec
        finally:
            await browser.close()


@pytest.mark.browser
@pytest.mark.parametrize("comes_after_reading", [False, True])
def test_closing_what_came_after_the_reading_is_an_effect(comes_after_reading: bool) -> None:
    rec = asyncio.run(_close_the_offer(comes_after_reading))
    assert rec.effect == "text" and rec.effective
    assert rec.before_retaken is comes_after_reading  # read again only when the page had moved
