"""The mechanisms' reads of a settled page travel with the settle's last wait (`Settler.settle`'s
`reads`, `Mechanism.settle_read`), and their reads as an action starts in one round trip of their
own (`Episode.before_action`, `Mechanism.before_action_read`): one round trip instead of one more
per mechanism. A read that throws comes back None (its mechanism reads for itself); a hook that
waited on the page leaves the hooks after it to read for themselves (what the settle read is out
of date by then)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.async_api import Page, Route, async_playwright

from agents import fingerprint
from agents.act import settled_fingerprint
from agents.agent import AgentConfig, GroundingAgent
from agents.fingerprint import Fingerprint
from agents.observation import RefBook
from agents.pipeline import Episode, Mechanism
from agents.settle import Read, SettleConfig, Settler
from agents.worker.scripted import ScriptedWorker
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

# A page whose own policy forbids eval: the reads must not need it.
PAGE = "<title>Reads</title><p>hello</p>"
POLICY = "default-src 'self'; script-src 'self'"


@asynccontextmanager
async def _page() -> AsyncIterator[Page]:
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        page = await browser.new_page()

        async def serve(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html", body=PAGE,
                                headers={"Content-Security-Policy": POLICY})

        await page.route("http://reads.test/**", serve)
        await page.goto("http://reads.test/")
        try:
            yield page
        finally:
            await browser.close()


def _counted(page: Page) -> list[str]:
    calls: list[str] = []
    evaluate = page.evaluate

    async def counting(expression: str, arg: Any = None) -> Any:
        calls.append(expression)
        return await evaluate(expression, arg)

    page.evaluate = counting  # type: ignore[method-assign]
    return calls


def test_reads_come_back_with_the_settle_in_one_round_trip() -> None:
    async def main() -> tuple[list[Read | None] | None, int]:
        async with _page() as page:
            calls = _counted(page)
            got = await Settler(SettleConfig()).settle(page, [
                ("() => document.title", None), ("(x) => x * 2", 21),
                ("() => { throw new Error('no'); }", None), ("() => undefined", None)])
            return got, len(calls)

    got, calls = asyncio.run(main())
    assert got == [Read("Reads"), Read(42), None, Read(None)]
    assert calls == 1


def test_a_settle_that_only_waits_out_its_cap_reads_nothing() -> None:
    async def main() -> list[Read | None] | None:
        async with _page() as page:
            return await Settler(SettleConfig(settle_ms=50, settle_quiet_ms=50)).settle(
                page, [("() => 1", None)])

    assert asyncio.run(main()) is None


class _Reader(Mechanism):
    name = "reader"

    def __init__(self) -> None:
        self.reads: list[Read | None] = []

    def settle_read(self) -> tuple[str, Any] | None:
        return "() => document.querySelector('p').textContent", None

    async def settled(self, page: Page, read: Read | None = None) -> None:
        self.reads.append(read)


class _Waiter(Mechanism):
    """Waits on the page as a transient wait does, and changes it meanwhile."""

    name = "waiter"

    def __init__(self, waits: bool) -> None:
        self.waits = waits

    async def settled(self, page: Page, read: Read | None = None) -> bool:
        if self.waits:
            await page.evaluate("() => { document.querySelector('p').textContent = 'later'; }")
        return self.waits


@pytest.mark.parametrize("waits", [False, True])
def test_a_hook_that_waited_leaves_the_later_hooks_to_read_for_themselves(waits: bool) -> None:
    """...and the caller's own reads (the fingerprint after an action) too."""
    before, after = _Reader(), _Reader()
    also: list[list[Read | None] | None] = []

    async def main() -> None:
        async with _page() as page:
            agent = GroundingAgent(AgentConfig(), ScriptedWorker())
            episode = SimpleNamespace(page=page, mechanisms=[before, _Waiter(waits), after], refs=RefBook())
            also.append(await agent._settle(episode, [("(n) => document.title.repeat(n)", 2)]))  # type: ignore[arg-type]

    asyncio.run(main())
    assert before.reads == [Read("hello")]
    assert after.reads == ([None] if waits else [Read("hello")])
    assert also == ([None] if waits else [[Read("ReadsReads")]])


class _BeforeReader(Mechanism):
    """Asks for a read as an action starts; reads for itself when it gets none."""

    name = "before-reader"

    def __init__(self, source: str | None) -> None:
        self.source, self.got = source, []  # type: list[tuple[str, Any]]

    def before_action_read(self) -> tuple[str, Any] | None:
        return None if self.source is None else (self.source, 2)

    async def before_action(self, page: Page, read: Read | None = None) -> None:
        if read is not None:
            self.got.append(("batched", read.value))
        else:
            self.got.append(("own", await page.evaluate("() => document.title")))


def test_the_reads_before_an_action_travel_in_one_round_trip() -> None:
    title = _BeforeReader("(n) => document.title.repeat(n)")
    silent = _BeforeReader(None)
    failing = _BeforeReader("() => { throw new Error('no'); }")
    text = _BeforeReader("() => document.querySelector('p').textContent")

    async def main() -> int:
        async with _page() as page:
            calls = _counted(page)
            episode = Episode(page=page, brief=None, worker=ScriptedWorker(), backend=None,  # type: ignore[arg-type]
                              mechanisms=[title, silent, failing, text], settle=lambda: asyncio.sleep(0))
            await episode.before_action()
            return len(calls)

    calls = asyncio.run(main())
    assert title.got == [("batched", "ReadsReads")] and text.got == [("batched", "hello")]
    assert silent.got == [("own", "Reads")] and failing.got == [("own", "Reads")]
    assert calls == 3  # the batch, then the two that had nothing from it


@pytest.mark.parametrize("waits", [False, True])
def test_the_fingerprint_after_an_action_is_read_with_the_settle(waits: bool) -> None:
    """One round trip for the settle and the fingerprint after it, unless a hook waited on the page
    since: then the fingerprint is taken again, of the page as the hook left it."""

    async def main() -> tuple[int, Fingerprint | None, Fingerprint | None]:
        async with _page() as page:
            agent = GroundingAgent(AgentConfig(), ScriptedWorker())
            episode = SimpleNamespace(page=page, mechanisms=[_Waiter(waits)], refs=RefBook())
            episode.settle = lambda also=(): agent._settle(episode, also)  # type: ignore[arg-type]
            calls = _counted(page)
            got = await settled_fingerprint(episode)  # type: ignore[arg-type]
            return len(calls), got, await fingerprint.take(page)

    calls, got, now = asyncio.run(main())
    assert got is not None and now is not None
    assert (got.dom, got.text) == (now.dom, now.text)
    assert calls == (3 if waits else 1)  # settle (+ the waiter's change and the fingerprint again)
