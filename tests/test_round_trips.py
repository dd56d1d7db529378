"""Round trips the agent saves keep what they did: a field is cleared before typing only when it
holds something (read after the click that focused it), and the frames of a new document get
Playwright's injected scripts while the page settles, whatever has become of them by then."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from playwright.async_api import Page, Route, async_playwright

from agents.actions import Type, execute
from agents.observation import RefBook
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

FIELDS = """<title>Fields</title>
<label>Empty <input id="empty"></label>
<label>Filled <input id="filled" value="old text"></label>
<label>Prefixed <input id="prefixed"></label>
<label>Notes <textarea id="notes">old notes</textarea></label>
<div role="textbox" aria-label="Editor" contenteditable="true" id="editor">old words</div>
<script>
  // a field that fills itself as it gains focus, as a phone field with a country code does
  document.getElementById("prefixed").addEventListener("focus", (e) => { e.target.value = "+1 "; });
</script>"""

FRAMED = """<title>Framed</title><p>outer</p><iframe src="/inner"></iframe>
<button onclick="document.querySelector('iframe').remove()">Drop the frame</button>"""


@asynccontextmanager
async def _page(pages: dict[str, str]) -> AsyncIterator[Page]:
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        page = await browser.new_page()

        async def serve(route: Route) -> None:
            path = "/" + route.request.url.split("/", 3)[3]
            await route.fulfill(status=200, content_type="text/html", body=pages.get(path, "<p>inner</p>"))

        await page.route("http://trips.test/**", serve)
        try:
            yield page
        finally:
            await browser.close()


def test_typing_replaces_what_a_field_holds_and_types_into_an_empty_one() -> None:
    async def main() -> dict[str, str]:
        async with _page({"/": FIELDS}) as page:
            await page.goto("http://trips.test/")
            refs, typed = RefBook(), {}
            for name, text in (("Empty", "alpha"), ("Filled", "beta"), ("Prefixed", "555 0134"),
                               ("Notes", "gamma"), ("Editor", "delta")):
                obs = await refs.observe(page)
                field = next(e for e in obs.interactive() if e.name == name)
                await execute(page, refs, Type(ref=field.ref, observation_id=obs.id, text=text))
            for selector in ("#empty", "#filled", "#prefixed", "#notes"):
                typed[selector] = await page.input_value(selector)
            typed["#editor"] = await page.inner_text("#editor")
            return typed

    assert asyncio.run(main()) == {"#empty": "alpha", "#filled": "beta", "#prefixed": "555 0134",
                                   "#notes": "gamma", "#editor": "delta"}


def test_typing_without_clear_keeps_what_the_field_holds() -> None:
    async def main() -> str:
        async with _page({"/": FIELDS}) as page:
            await page.goto("http://trips.test/")
            refs = RefBook()
            obs = await refs.observe(page)
            field = next(e for e in obs.interactive() if e.name == "Filled")
            await execute(page, refs, Type(ref=field.ref, observation_id=obs.id, text="!", clear=False))
            return await page.input_value("#filled")

    assert asyncio.run(main()) == "old text!"


def test_every_frame_of_a_new_document_is_warmed_once_and_a_gone_frame_is_left_alone() -> None:
    async def main() -> tuple[int, int, int, bool]:
        async with _page({"/": FRAMED}) as page:
            refs = RefBook()
            refs.watch(page)
            await page.goto("http://trips.test/")
            await page.wait_for_load_state("load")
            loaded = len(refs._unwarmed)  # the top document and its frame's
            await refs.warm()
            after = len(refs._unwarmed)
            await page.reload()
            await page.click("text=Drop the frame")  # the reloaded frame goes before it is warmed
            await refs.warm()
            obs = await refs.observe(page)  # the warmed document reads as before
            return loaded, after, len(refs._unwarmed), any(e.name == "Drop the frame" for e in obs.interactive())

    loaded, after, left, read = asyncio.run(main())
    assert loaded == 2 and after == 0 and left == 0 and read


BUSY = """<title>Busy</title><p>busy</p>
<script>setTimeout(() => { const t = Date.now(); while (Date.now() - t < 6000) {} }, 50);</script>"""


def test_a_document_that_does_not_answer_holds_the_warming_no_longer_than_its_bound() -> None:
    async def main() -> float:
        async with _page({"/": BUSY}) as page:
            refs = RefBook()
            refs.watch(page)
            await page.goto("http://trips.test/")
            await asyncio.sleep(0.3)  # the page's script now holds its main thread for 6 s
            t0 = time.monotonic()
            await refs.warm(timeout_s=0.5)
            return time.monotonic() - t0

    assert asyncio.run(main()) < 3.0  # the bound, not the 6 s the document is busy
