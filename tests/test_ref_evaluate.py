"""`RefBook.evaluate`: a JS function of the live element behind a ref, in one round trip to the
browser (a locator's `evaluate` takes three: wait for the element, evaluate, release the handle),
for elements of the top document and of frames alike; a ref whose element is gone fails at once
(no wait that could not bring it back), a ref of a spent observation is stale."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from playwright.async_api import async_playwright

from agents.observation import RefBook, StaleRefError
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

PAGE = """<button id=top>Top</button><input type=date aria-label=When>
<iframe srcdoc="<button>Inner</button>"></iframe>"""
TAG = "(el, prefix) => prefix + el.tagName + ':' + (el.type || el.textContent)"


def test_a_ref_is_evaluated_in_one_round_trip() -> None:
    async def probe() -> dict[str, Any]:
        async with async_playwright() as pw:
            browser = await launch(pw, BrowserSettings())
            page = await browser.new_page()
            await page.set_content(PAGE)
            await page.frame_locator("iframe").locator("button").wait_for()
            refs = RefBook()
            obs = await refs.observe(page)
            by_name = {e.name: e.ref for e in obs.interactive()}
            sent: list[str] = []
            connection = page._impl_obj._connection  # the messages to Playwright's driver
            send = connection.send_message_to_server

            def counted(obj: Any, method: str, params: Any, *args: Any, **kwargs: Any) -> Any:
                sent.append(method)
                return send(obj, method, params, *args, **kwargs)

            connection.send_message_to_server = counted
            got = {name: await refs.evaluate(page, ref, obs.id, TAG, "> ")
                   for name, ref in by_name.items()}
            calls = list(sent)
            connection.send_message_to_server = send
            await page.evaluate("document.getElementById('top').remove()")
            try:
                await refs.evaluate(page, by_name["Top"], obs.id, TAG, "")
                gone: BaseException | None = None
            except PlaywrightError as exc:
                gone = exc
            refs.spend()
            try:
                await refs.evaluate(page, by_name["When"], obs.id, TAG, "")
                stale = False
            except StaleRefError:
                stale = True
            await browser.close()
            return {"got": got, "calls": calls, "gone": gone, "stale": stale}

    r = asyncio.run(probe())
    assert r["got"] == {"Top": "> BUTTON:submit", "When": "> INPUT:date", "Inner": "> BUTTON:submit"}
    assert r["calls"] == ["evalOnSelector"] * 3, r["calls"]
    assert r["gone"] is not None and not isinstance(r["gone"], PlaywrightTimeoutError), r["gone"]
    assert r["stale"]
