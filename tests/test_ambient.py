"""The ambient filter's rules in a real page: a click that changed nothing is not credited with a
ticking clock's change; a click that changed something new is; an element two actions in a row
rewrote is probed and, not changing by itself, credited; a list rendered twice while the page
started up is not taken for a ticker; a change inside a widget's shadow root (open or closed) is
the click's, though a document-wide observer cannot see it; switched off, the clock's tick is
credited. And text evidence older than the action (the page changed between the agent's look and
its click) is not the click's, while a style-only effect in the same position is. What only the
clock changed leaves the gating key; what anything else changed, or a new document, does not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from playwright.async_api import Page, async_playwright

from agents import fingerprint, validator
from agents.actions import Click
from agents.ambient import AMBIENT_JS, Watch
from agents.ambient_key import KEY_AMBIENT_JS
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

URL = "http://ambient.test/page.html"
PAGE = """<!doctype html><html><body>
<p>Ends in <span id="clock">0</span></p>
<ul id="list"></ul>
<button id="dead">Dead</button> <button id="live">Save</button> <button id="step">+</button>
<span id="qty">1</span> <button id="refresh">Refresh</button> <p id="msg"></p>
<div id="open-host"></div><div id="closed-host"></div>
<script>
for (const mode of ["open", "closed"]) {
  const root = document.getElementById(`${mode}-host`).attachShadow({ mode });
  root.innerHTML = `<button>Like</button> <span>0 likes</span>`;
  root.querySelector("button").onclick = () => { root.querySelector("span").textContent = "1 like"; };
}
let t = 0;
setInterval(() => { document.getElementById("clock").textContent = String(++t); }, 40);
const list = document.getElementById("list");
const render = (n) => { list.innerHTML = Array.from({length: n}, (_, i) => `<li>row ${i}</li>`).join(""); };
render(1);
setTimeout(() => render(3), 20);  // a placeholder, then the rows: both while starting up
document.getElementById("live").onclick = () => { document.getElementById("msg").textContent = "Saved"; };
document.getElementById("step").onclick = () => {
  const q = document.getElementById("qty"); q.textContent = String(Number(q.textContent) + 1);
};
document.getElementById("refresh").onclick = () => render(4);
</script></body></html>"""


async def act(page: Page, watch: Watch | None, selector: str) -> tuple[bool, str]:
    """One action as the agent takes it: fingerprint, mark, click, settle, fingerprint, verdict."""
    before = await fingerprint.take(page)
    if watch is not None:
        await watch.mark(page)
    if selector.endswith(" @left"):  # a point inside the element's left edge (a closed root's button)
        box = await page.locator(selector.removesuffix(" @left")).bounding_box()
        assert box is not None
        await page.mouse.click(box["x"] + 8, box["y"] + box["height"] / 2)
    else:
        await page.click(selector)
    await page.wait_for_timeout(120)  # the settle: the clock ticks in it
    after = await fingerprint.take(page)
    if watch is not None:
        await watch.verdict(page)
    veto = (lambda evidence: watch.vetoes(page, evidence)) if watch is not None else None
    return await validator.effect(page, Click(ref="e1", observation_id=0), "", before, after, None, veto)


@asynccontextmanager
async def opened(body: str, watched: bool = True, key: bool = False) -> AsyncIterator[tuple[Page, Watch | None]]:
    """The page served at URL in a fresh browser with the fingerprint's counter, the ambient
    filter's script when `watched`, and what agents/ambient_key.py installs when `key`."""
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        context = await browser.new_context()
        await context.add_init_script(script=fingerprint.MUTATION_COUNTER_JS)
        page = await context.new_page()
        watch = Watch(300) if watched else None
        if watch is not None:
            await page.context.add_init_script(script=AMBIENT_JS)
        if key:
            await context.add_init_script(script=KEY_AMBIENT_JS)
        await page.route(URL, lambda route: route.fulfill(body=body, content_type="text/html"))
        await page.goto(URL)
        try:
            yield page, watch
        finally:
            await browser.close()


async def scenario(on: bool) -> list[tuple[bool, str, float]]:
    async with opened(PAGE, watched=on) as (page, watch):
        await page.wait_for_timeout(100)
        if watch is not None:
            await watch.settled(page)  # start-up is over
        await page.wait_for_timeout(150)  # idle: the clock ticks three times or more
        out = []
        for selector in ("#dead", "#live", "#step", "#step", "#refresh", "#open-host button",
                         "#closed-host @left"):
            effective, evidence = await act(page, watch, selector)
            out.append((effective, evidence, watch.probe_ms if watch else 0.0))
    return out


def test_ambient_changes_are_no_effect_and_real_ones_are() -> None:
    dead, live, step1, step2, refresh, open_root, closed_root = asyncio.run(scenario(on=True))
    assert dead[:2] == (False, "ambient")  # only the clock changed
    assert live[:2] == (True, "text") and live[2] == 0  # a new element: no probe needed
    assert step1[:2] == (True, "text")
    # The quantity changed in an earlier window: a suspect, probed for the whole 300 ms, and
    # credited since it did not change again by itself.
    assert step2[:2] == (True, "text") and step2[2] >= 250
    assert refresh[:2] == (True, "text")  # the list's start-up renders did not make it ambient
    assert open_root[:2] == (True, "text") and closed_root[:2] == (True, "text")


def test_switched_off_the_clock_is_credited() -> None:
    dead, *_ = asyncio.run(scenario(on=False))
    assert dead[:2] == (True, "text")


LATE = """<!doctype html><html><head><style>
.tip { display: none } .tipbox:focus-within .tip { display: inline }
</style></head><body>
<p id="banner">Welcome</p> <button id="dead">Dead</button>
<div class="tipbox"><button id="help">Help</button> <span class="tip">Ask us anything</span></div>
</body></html>"""


async def late_scenario() -> list[tuple[bool, str]]:
    """The page changes its banner by itself after the agent's observation and before its click
    (the test stands in for the page's timer). A dead click is then not credited with the banner;
    a click whose effect is style alone (a `:focus-within` tip, no DOM change) still is."""
    async with opened(LATE) as (page, watch):
        assert watch is not None
        await watch.settled(page)
        out = []
        for selector, banner in (("#dead", "Sale today"), ("#help", "Sale ends soon")):
            before = await fingerprint.take(page)
            await page.evaluate("(t) => { document.getElementById('banner').textContent = t; }", banner)
            await watch.mark(page)
            await page.click(selector)
            await page.wait_for_timeout(120)
            after = await fingerprint.take(page)
            await watch.verdict(page)
            out.append(await validator.effect(page, Click(ref="e1", observation_id=0), "", before,
                                              after, None, lambda e: watch.vetoes(page, e)))
    return out


def test_text_evidence_older_than_the_action_is_not_its_effect() -> None:
    dead, help_ = asyncio.run(late_scenario())
    assert dead == (False, "ambient")
    assert help_ == (True, "text")


async def key_scenario(key: bool) -> dict[str, str]:
    """Fingerprints of the clock page: at a look, after the clock ticked (the agent idle), after
    the quantity changed too, and after a reload (a new document at the same URL)."""
    async with opened(PAGE, key=key) as (page, watch):
        assert watch is not None
        await page.wait_for_timeout(100)
        await watch.settled(page)
        await page.wait_for_timeout(150)  # the clock ticks, so it is known to change by itself
        look = await fingerprint.take(page)
        assert look is not None
        at_look = int(await page.text_content("#clock") or 0)  # the clock when looked at, or later
        await page.wait_for_timeout(150)
        ticked = await fingerprint.take(page)
        await page.evaluate("() => { document.getElementById('qty').textContent = '7'; }")
        qty = await fingerprint.take(page)
        await page.reload()
        await watch.settled(page)
        await page.wait_for_timeout(150)
        # the new document's clock starts again from 0: past the look's, its text differs (under
        # load it could otherwise show the very value the look saw, and the pages agree)
        await page.wait_for_function("(t) => Number(document.getElementById('clock').textContent) > t",
                                     arg=at_look)
        reloaded = await fingerprint.take(page)
    assert ticked is not None and qty is not None and reloaded is not None
    assert ticked.differs(look) == ["text"]  # the text part moves with the clock either way
    return {name: fp.key_differs(look, 0.05) for name, fp in
            (("ticked", ticked), ("qty", qty), ("reloaded", reloaded))}


def test_ambient_changes_leave_the_gating_key() -> None:
    keyed = asyncio.run(key_scenario(key=True))
    assert keyed == {"ticked": "", "qty": "text", "reloaded": "text"}


def test_without_the_ambient_key_the_clock_moves_the_key() -> None:
    assert asyncio.run(key_scenario(key=False))["ticked"] == "text"
