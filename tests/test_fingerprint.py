"""The composite fingerprint and the gate, in a real browser: a page that did not change is a
cache hit; each kind of change is a miss that names the part that moved (dom, text, frames, url);
what must not count (typed values, volatile ids and classes) does not; navigation ends the epoch.
And the whole agent on a fixture task: procedural steps happen, and every recorded miss reason is
one the gate documents.

One Chromium serves the whole module (one event loop kept for it); each test gets a fresh context."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import xxhash
from conftest import run_experiment
from playwright.async_api import Page, async_playwright

from agents import enrichment, fingerprint, validator, viewport_scope
from agents.actions import Click
from agents.fingerprint import Fingerprint
from agents.gating import Gate
from agents.marks import Placed, Seen
from agents.observation import RefBook
from harness.browser import BrowserSettings, launch, new_episode_context
from sites.server import FixtureServer
from tasks.schema import Subgoal

pytestmark = pytest.mark.browser

TOLERANCE = 0.05  # conf/agent/full.yaml: gating_tolerance
# Gate.check's documented answers ("" is a hit); the trace's miss_reason is one of the others.
MISS_REASONS = {"forced", "no_epoch", "navigating", "dom", "text", "frames", "url", "delta", "tier"}

PAGE = """<!doctype html><html><body style="margin:0;font:16px sans-serif">
<header id="h-91" class="hdr x7f"><h1 id="title">Lamps</h1><p id="note">Free delivery today.</p></header>
<main id="m-3" class="main q2">
  <form id="f-8" class="frm"><label>Name <input id="name" name="name"></label>
    <label>Notes <textarea id="notes"></textarea></label>
    <select id="size"><option>S</option><option>M</option></select>
    <button id="save" type="button" class="btn b1">Save</button></form>
  <ul id="list">%s</ul>
  <div style="height:2400px">tall filler</div>
</main></body></html>"""
ITEMS = "".join(f'<li id="li{i}" class="row r{i}"><a href="#p{i}">Lamp {i}</a> '
                f'<button type="button" class="add">Add lamp {i}</button></li>' for i in range(50))

# The same page with a same-origin frame in view, above the form.
FRAMED = PAGE.replace('<main id="m-3"', '<iframe srcdoc="<button>Pay now</button>" width="300" height="60">'
                      '</iframe><main id="m-3"')

# Pages served by a FixtureServer from a temporary site folder (main and alt origins).
SITE = {
    "a.html": "<!doctype html><body><h1>Same</h1><a href='b.html'>Next</a><button>Go</button></body>",
    "b.html": "<!doctype html><body><h1>Same</h1><a href='b.html'>Next</a><button>Go</button></body>",
    "outer.html": """<!doctype html><body><h1>Outer</h1><button>Top</button>
<iframe id="inner" width="400" height="200"></iframe>
<script>document.getElementById('inner').src = new URLSearchParams(location.search).get('inner');</script>
</body>""",
    "inner.html": """<!doctype html><body><p id="total">Total: 5</p><button id="b">Pay</button></body>""",
}


class _Chromium:
    """One browser on one event loop for the whole module."""

    def __init__(self, server: FixtureServer) -> None:
        self.server = server
        self.settings = BrowserSettings()
        self.loop = asyncio.new_event_loop()
        self.pw = self.loop.run_until_complete(async_playwright().start())
        self.browser = self.loop.run_until_complete(launch(self.pw, self.settings))
        self._n = 0

    def run(self, body: Callable[[Page], Awaitable[Any]], html: str | None = None,
            path: str | None = None) -> Any:
        async def main() -> Any:
            self._n += 1
            context = await new_episode_context(self.browser, self.settings, self.server.origins,
                                                f"fp{self._n}", 0)
            try:
                page = await context.new_page()
                if html is not None:
                    await page.set_content(html)
                    await page.evaluate(fingerprint.MUTATION_COUNTER_JS)  # as the agent's init script
                elif path is not None:
                    await page.goto(f"{self.server.origin()}{path}")
                return await body(page)
            finally:
                await context.close()

        return self.loop.run_until_complete(main())

    def close(self) -> None:
        self.loop.run_until_complete(self.browser.close())
        self.loop.run_until_complete(self.pw.stop())
        self.loop.close()


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Chromium]:
    root = tmp_path_factory.mktemp("fpsites")
    (root / "gbfp").mkdir()
    for name, text in SITE.items():
        (root / "gbfp" / name).write_text(text)
    with FixtureServer(extra_dirs=[root]) as server:
        browser = _Chromium(server)
        try:
            yield browser
        finally:
            browser.close()


async def take(page: Page) -> Fingerprint:
    fp = await fingerprint.take(page)
    assert fp is not None
    return fp


async def before_after(page: Page, script: str) -> tuple[Fingerprint, Fingerprint]:
    """Fingerprints around one in-page change."""
    before = await take(page)
    await page.evaluate(script)
    return before, await take(page)


def gate_on(fp: Fingerprint) -> Gate:
    gate = Gate(TOLERANCE)
    gate.start(fp, [], "small")
    return gate


def test_unchanged_page_is_a_cache_hit(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        first = await take(page)
        await page.wait_for_timeout(50)
        second = await take(page)
        assert first == second and first.differs(second) == [] and first.delta(second) == 0
        assert gate_on(first).check(second, "small") == ""

    chromium.run(body, html=PAGE % ITEMS)


def test_text_change_is_a_text_miss_and_a_label_change_a_dom_miss(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        before, after = await before_after(page, "document.getElementById('note').textContent = 'Delivery 3 EUR.'")
        assert before.differs(after) == ["text"] and 0 < before.delta(after) < TOLERANCE
        assert gate_on(before).check(after, "small") == "text"
        # An interactive element's label is part of the interactive set (and of the text).
        before, after = await before_after(page, "document.getElementById('save').textContent = 'Saved'")
        assert before.differs(after) == ["dom", "text"]
        assert gate_on(before).check(after, "small") == "dom"
        assert before.delta(after) == pytest.approx(2 / before.size)  # a text node removed, one added

    chromium.run(body, html=PAGE % ITEMS)


def test_long_page_text_part_reads_the_view_and_counts_changes_below(chromium: _Chromium) -> None:
    # A long page's text part is the text in view (the whole body's text is the costliest read
    # of a 40,000-element page); a change below the fold is no text miss (no box in view moved)
    # but still an effect of the action that made it.
    async def body(page: Page) -> None:
        before, after = await before_after(page, "document.querySelector('main > div').firstChild.data = 'x'")
        assert before.text_scope == "view" and before.differs(after) == []
        assert before.changed_out_of_view(after) and not before.changed_out_of_view(before)
        effective, evidence = await validator.effect(page, Click(ref="e1", observation_id=0), "",
                                                     before, after, None)
        assert effective and evidence == "changes"
        # in view, outside any control's container: a text miss as on a short page
        before, after = await before_after(page, "document.getElementById('note').textContent = 'Closed.'")
        assert before.differs(after) == ["text"]
        # hidden text is not rendered text, on a long page as in a short one's innerText
        await page.evaluate("document.body.insertAdjacentHTML('afterbegin', "
                            "'<p id=\"hid\" hidden>secret</p>')")
        before, after = await before_after(page, "document.getElementById('hid').textContent = 'other'")
        assert before.differs(after) == [] and before.changed_out_of_view(after)
        # the short page reads its whole text
        await page.set_content(PAGE.replace("height:2400px", "height:0") % "")
        assert (await take(page)).text_scope == "document"

    chromium.run(body, html=PAGE % ITEMS)


def test_state_change_of_a_control_is_a_dom_miss(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        before, after = await before_after(
            page, "document.getElementById('save').setAttribute('aria-expanded', 'true')")
        assert before.differs(after) == ["dom"] and gate_on(before).check(after, "small") == "dom"

    chromium.run(body, html=PAGE % ITEMS)


def test_scroll_is_a_text_miss(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        before, after = await before_after(page, "window.scrollTo(0, 600)")
        assert before.differs(after) == ["text"] and gate_on(before).check(after, "small") == "text"
        await page.evaluate("window.scrollTo(0, 0)")
        assert (await take(page)) == before  # scrolling back restores the key

    chromium.run(body, html=PAGE % ITEMS)


TILES = "".join(f'<span style="flex:0 0 120px">Tile {i}</span>' for i in range(12))
STRIP_PAGE = ('<!doctype html><body style="margin:0;height:100vh;overflow:hidden">'
              f'<div id="strip" style="display:flex;overflow-x:auto;width:400px">{TILES}</div></body>')


def test_a_scroll_inside_the_page_is_a_text_miss(chromium: _Chromium) -> None:
    # the window does not move, no text changes and no control moves: only the strip scrolled,
    # and what is in view is no longer what was perceived
    async def body(page: Page) -> None:
        before = await take(page)
        await page.evaluate("document.getElementById('strip').scrollLeft = 500")
        await page.wait_for_timeout(50)  # the scroll event fires on the next frame
        after = await take(page)
        assert before.differs(after) == ["text"] and gate_on(before).check(after, "small") == "text"

    chromium.run(body, html=STRIP_PAGE)


IFRAME_PAGE = """<!doctype html><body><h1>Checkout</h1><button>Top</button>
<iframe id="fr" width="400" height="200" srcdoc="<p id=t>Total: 5</p><div id=box></div><button>Pay</button>"></iframe>
</body>"""


def test_same_origin_iframe_change_moves_the_frames_part(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        await page.wait_for_function(
            "() => document.getElementById('fr').contentDocument?.getElementById('t') !== null")
        doc = "document.getElementById('fr').contentDocument"
        # Structure inside the frame without any text or control: only the frame signature moves.
        before, after = await before_after(page, f"{doc}.getElementById('box').append({doc}.createElement('span'))")
        assert before.differs(after) == ["frames"] and gate_on(before).check(after, "small") == "frames"
        # A text change inside the frame is the frame's, not the top document's.
        before, after = await before_after(page, f"{doc}.getElementById('t').textContent = 'Total: 17'")
        assert before.differs(after) == ["frames"] and gate_on(before).check(after, "small") == "frames"
        # A change of the same length is still a change of the frame's content.
        before, after = await before_after(page, f"{doc}.getElementById('t').textContent = 'Total: 18'")
        assert before.differs(after) == ["frames"]
        # A control added inside the frame is a change of the interactive set.
        before, after = await before_after(
            page, f"{doc}.body.append(Object.assign({doc}.createElement('button'), {{textContent: 'Back'}}))")
        assert before.differs(after)[0] == "dom"

    chromium.run(body, html=IFRAME_PAGE)


def test_cross_origin_iframe_change_is_a_frames_miss(chromium: _Chromium) -> None:
    inner = f"{chromium.server.origin('alt')}/gbfp/inner.html"

    async def body(page: Page) -> None:
        frame = None
        for _ in range(50):
            frame = next((f for f in page.frames[1:] if f.url == inner), None)
            if frame is not None and await frame.locator("#b").count():
                break
            await page.wait_for_timeout(100)
        assert frame is not None
        before = await take(page)
        await frame.evaluate("document.getElementById('total').textContent = 'Total: 17'")
        after = await take(page)
        # The top document cannot read the frame; Playwright's frame handle can.
        assert before.differs(after) == ["frames"] and gate_on(before).check(after, "small") == "frames"

    chromium.run(body, path=f"/gbfp/outer.html?inner={inner}")


def test_navigation_is_a_url_miss_and_ends_the_epoch(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        a = await take(page)
        gate = gate_on(a)
        await page.click("text=Next")
        await page.wait_for_url("**/gbfp/b.html")
        b = await take(page)
        # Same content on another URL: only the url part moves.
        assert a.differs(b) == ["url"] and a.delta(b) == 1.0  # another document: delta unknown
        assert gate.check(b, "small") == "url"
        # What the agent does after an action that changed the URL: the epoch is gone, even
        # for a page whose fingerprint equals it again (a round trip back to a).
        gate.end()
        assert gate.check(b, "small") == "no_epoch" and gate.check(a, "small") == "no_epoch"
        assert gate.check(None, "small") == "no_epoch"
        gate.start(b, [], "small")
        assert gate.check(None, "small") == "navigating"  # take() answers None while a page navigates
        assert gate.check(await take(page), "small") == ""
        gate.force_fresh()
        assert gate.check(b, "small") == "forced" and gate.check(b, "small") == ""  # forced once, then agrees again
        # A fragment change is a URL change too.
        await page.evaluate("location.hash = '#x'")
        assert gate.check(await take(page), "small") == "url"

    chromium.run(body, path="/gbfp/a.html")


def test_adding_and_removing_controls_is_a_dom_miss_with_a_delta(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        before, after = await before_after(page, """
            const b = document.createElement('button'); b.type = 'button'; b.textContent = 'Compare';
            document.getElementById('f-8').append(b);""")
        assert "dom" in before.differs(after) and gate_on(before).check(after, "small") == "dom"
        assert after.size == before.size + 1
        assert before.delta(after) == pytest.approx(1 / after.size)
        before, after = await before_after(
            page, "for (const i of [1, 2, 3]) document.getElementById('li' + i).remove()")
        assert gate_on(before).check(after, "small") == "dom"
        assert before.delta(after) == pytest.approx(3 / before.size)  # three <li> subtrees removed
        # Reordering keeps the set but not the sequence: a dom miss with a small delta.
        before, after = await before_after(
            page, "const l = document.getElementById('list'); l.prepend(l.lastElementChild)")
        assert before.differs(after) == ["dom", "text"] and 0 < before.delta(after) < TOLERANCE
        assert gate_on(before).check(after, "small") == "dom"

    chromium.run(body, html=PAGE % ITEMS)


def test_gate_keeps_the_epoch_for_a_mutation_within_tolerance(chromium: _Chromium) -> None:
    """Nodes replaced by look-alikes leave every hash part equal; the mutation delta decides."""
    clone = "for (const i of %s) { const li = document.getElementById('li' + i); li.replaceWith(li.cloneNode(true)); }"

    async def body(page: Page) -> None:
        before, small = await before_after(page, clone % "[7, 8]")
        gate = gate_on(before)
        assert before.differs(small) == [] and 0 < before.delta(small) <= TOLERANCE
        assert gate.check(small, "small") == ""
        _, big = await before_after(page, clone % "[...Array(40).keys()].map(i => i + 5)")
        assert before.differs(big) == [] and before.delta(big) > TOLERANCE
        assert gate.check(big, "small") == "delta"
        assert gate.check(small, "large") == "tier"  # escalated since: the cached cut is not reused

    chromium.run(body, html=PAGE % ITEMS)


def test_typing_changes_values_but_not_the_gating_key(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        before = await take(page)
        await page.fill("#name", "Ada Lovelace")
        await page.fill("#notes", "ring twice")
        await page.select_option("#size", "M")
        after = await take(page)
        assert before.values != after.values
        assert before.differs(after) == [] and before.delta(after) == 0
        assert gate_on(before).check(after, "small") == ""

    chromium.run(body, html=PAGE % ITEMS)


def test_volatile_ids_and_classes_do_not_change_the_fingerprint(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        before, after = await before_after(page, """
            let n = 0;
            for (const el of document.querySelectorAll('*')) {
              if (el.id) el.id = 'v' + (n++) + '-' + el.id.length;
              el.className = 'c' + Math.random().toString(36).slice(2, 8);
            }""")
        assert before == after and gate_on(before).check(after, "small") == ""

    chromium.run(body, html=PAGE % ITEMS)


SHIFT_PAGE = """<!doctype html><body style="margin:0">
<div id="banner" style="height:0"></div>
<button id="one" style="display:block;width:200px;height:40px">Buy lamp</button>
<button id="two" style="display:block;width:200px;height:40px">Remove lamp</button>
</body>"""


def test_layout_shift_under_cached_boxes_is_a_miss(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        refs = RefBook()
        before = await take(page)
        obs = await refs.observe(page)
        remove = next(e for e in obs.interactive() if e.name == "Remove lamp")
        cached = [Seen(remove.box, "Remove lamp", 0.9)]
        gate = Gate(TOLERANCE)
        gate.start(before, cached, "small")
        await page.evaluate("document.getElementById('banner').style.height = '40px'")
        after = await take(page)
        fresh = await refs.observe(page)
        placed = [Placed(e, e.box) for e in fresh.interactive() if e.box is not None]
        hit = enrichment.match(remove.box, "Remove lamp", placed)
        assert hit is not None and hit.name == "Buy lamp"  # the cached box is on another control now
        assert gate.check(after, "small") != ""  # ... so the epoch must not have authority any more

    chromium.run(body, html=SHIFT_PAGE)


def test_agent_reuses_vision_and_records_only_documented_miss_reasons(tmp_path: Path) -> None:
    result = run_experiment(tmp_path, ["suite=fixtures", "suite.ids=[shop-shipping-submit]",
                                       "perception=synthetic", "trace.playwright=false"])
    steps = pd.read_parquet(result.run_dir / "steps.parquet")
    assert result.episodes.success.all()
    hits = steps[steps.cache == "hit"]
    assert len(hits) and (hits.path == "procedural").all() and (hits.miss_reason == "").all()
    assert (hits.vision_calls == 0).any()  # reuse is a step without a vision call
    misses = steps[steps.cache == "miss"]
    assert set(misses.miss_reason) <= MISS_REASONS and (misses.miss_reason != "").all()
    assert set(steps.cache) <= {"hit", "miss", ""}
    assert (steps[steps.cache == ""].miss_reason == "").all()
    assert set(steps[steps.path == "declarative"].cache) <= {"miss"}


def test_in_page_hash_is_xxhash32(chromium: _Chromium) -> None:
    """The digests computed in the page are the xxhash library's xxh32 of the same UTF-8 bytes."""
    samples = ["", "a", "abc", "0123456789abcde", "0123456789abcdef", "0123456789abcdefg",
               "Lamp 12 — 20 % off, naïve café ☕", "x" * 1000 + "ü" * 333]

    async def body(page: Page) -> list[str]:
        return [await page.evaluate(f"(s) => ({fingerprint.XXH32_JS})(s)", s) for s in samples]

    got = chromium.run(body, html="<!doctype html><body></body>")
    assert got == [xxhash.xxh32_hexdigest(s.encode("utf-8")) for s in samples]


def test_viewport_index_names_the_containers_in_view_and_the_controls_below(chromium: _Chromium) -> None:
    """On a page taller than the viewport, the walk lists containers holding every control in view
    (and no control below the fold), and the labels of the controls outside the view; a scoped
    observation reads exactly those controls, and a ref from any of its scopes acts."""
    async def body(page: Page) -> None:
        fp = await take(page)
        assert fp.scopes, "a page taller than the viewport is read by scope"
        in_view = await page.evaluate("""(paths) => {
            const roots = paths.map((p) => document.evaluate(p.slice(6), document, null, 9, null).singleNodeValue);
            const out = {covered: 0, inView: 0, belowInScope: 0};
            for (const el of document.querySelectorAll('a[href],button,input,select,textarea')) {
              const r = el.getBoundingClientRect();
              const seen = r.bottom > 0 && r.top < innerHeight;
              const inScope = roots.some((root) => root && root.contains(el));
              if (seen) { out.inView++; if (inScope) out.covered++; }
              else if (inScope) out.belowInScope++;
            }
            return out; }""", list(fp.scopes))
        assert in_view["inView"] > 0 and in_view["covered"] == in_view["inView"]
        assert in_view["belowInScope"] < 10, in_view  # only the edge row straddling the fold
        assert "Add lamp 49" in fp.offscreen and "Save" not in fp.offscreen

        refs = RefBook()
        obs = await refs.observe(page, fp.scopes, fp.framed)
        assert obs.scope == "viewport" and len(fp.framed) == 1
        names = {e.name for e in obs.elements.values()}
        assert {"Save", "Add lamp 0", "Pay now"} <= names and "Add lamp 49" not in names
        pay = next(e for e in obs.elements.values() if e.name == "Pay now")
        assert pay.frame != "" and await (await refs.live(page, pay.ref, obs.id)).inner_text() == "Pay now"
        # Refs of two different scopes both act (the second one is read again first).
        save = next(e for e in obs.elements.values() if e.name == "Save")
        lamp = next(e for e in obs.elements.values() if e.name == "Add lamp 0")
        assert obs.scopes[save.ref] != obs.scopes[lamp.ref]
        for el in (save, lamp):
            assert await (await refs.live(page, el.ref, obs.id)).get_attribute("type") == "button"

    chromium.run(body, html=FRAMED % ITEMS)


def test_viewport_scope_reads_the_document_when_the_target_may_be_below(chromium: _Chromium) -> None:
    async def body(page: Page) -> None:
        fp = await take(page)
        here = Subgoal(action="click", target="Save button", label="Save")
        below = Subgoal(action="click", target="Add lamp 49 button", label="Add lamp 49")
        assert viewport_scope.choose(here, fp) == (fp.scopes, "in_view")
        assert viewport_scope.choose(below, fp) == (None, "target_may_be_offscreen")

    chromium.run(body, html=PAGE % ITEMS)
    small = "<!doctype html><body><button>One</button><a href='#x'>Two</a></body>"
    fp_small = chromium.run(take, html=small)
    assert fp_small.scopes is None
    assert viewport_scope.choose(Subgoal(action="click", target="One button"), fp_small) == (None, "small_page")
