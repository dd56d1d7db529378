"""What the page has scheduled (agents/schedule.py). In a real page: nothing scheduled, a timeout
due within the wait and one due after it, a cancelled timeout, an interval, an animation-frame
loop, a finite transition, a hover menu shown after a transition delay, a request in flight, a
timer of a child frame and a key made by Web Crypto; the settle's quiet window cut at the frame
only when none of twelve ways an effect can come just after it is under way, and after a page's
load unless the page's script made a request during it (the settle following the document that
replaced the one it waited on); the pointer's rest
before a point click's image cut only with nothing due and no animation. On a fresh page
(tests/language/sites/drafts/) whose "Saving draft…" and spinner nothing will take away, the transient wait ends at once with the mechanism and runs to its
3 s cap without it, while "Checking links…" (three timers in a row) is still waited out; of its
two "Share" buttons the first does nothing, and is condemned after two no-ops with no late look
and no backoff between them (three of each, 3.5 s, without the mechanism); a click that changes
nothing (the catalogue's `noop-follow`, a button hydrated on first click) is not looked at again
for a late effect."""

from __future__ import annotations

import asyncio
import contextlib
import time
import types
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path

import pandas as pd
import pytest
from conftest import run_experiment
from playwright.async_api import Page, Route, async_playwright

from agents import fingerprint
from agents.fingerprint import MUTATION_COUNTER_JS
from agents.schedule import SCHEDULE_JS, Schedule
from agents.settle import STILL_MARGIN_MS, STILL_MAX_MS, SettleConfig, Settler
from agents.validator import hover_and_capture
from harness.browser import BrowserSettings, launch

pytestmark = pytest.mark.browser

URL = "http://localhost:9/page.html"  # localhost: a secure context, Web Crypto is there
PAGE = """<!doctype html><html><head><style>
#menu { visibility: hidden; transition: visibility 0s 400ms; } #nav:hover #menu { visibility: visible; }
</style></head><body>
<button id="later">Later</button> <button id="cancel">Cancel</button> <button id="tick">Tick</button>
<button id="loop">Loop</button> <button id="fade">Fade</button> <button id="load">Load</button>
<button id="frame">Frame</button> <button id="slices">Slices</button> <button id="key">Key</button> <button id="img">Image</button> <div id="nav">Products <a id="menu" href="#">Kettles</a></div>
<p id="out">out</p>
<script>
const out = document.getElementById("out");
let t = 0;
document.getElementById("later").onclick = () => { t = setTimeout(() => { out.textContent = "later"; }, 2000); };
document.getElementById("cancel").onclick = () => clearTimeout(t);
document.getElementById("tick").onclick = () => setInterval(() => { out.title = String(Date.now()); }, 200);
document.getElementById("loop").onclick = () => { const f = () => requestAnimationFrame(f); f(); };
document.getElementById("fade").onclick = () => { out.style.transition = "opacity 2s"; out.style.opacity = "0"; };
document.getElementById("load").onclick = () => fetch("/slow").then((r) => r.text()).then((s) => { out.textContent = s; });
document.getElementById("frame").onclick = () => {
  const f = document.createElement("iframe"); f.src = "/child.html"; document.body.append(f);
};
document.getElementById("slices").onclick = () => {  // work in slices, a message per slice
  const ch = new MessageChannel(); let n = 0;
  ch.port1.onmessage = () => { const t = performance.now(); while (performance.now() - t < 4); if (++n < 1000) ch.port2.postMessage(0); else window.slicesDone = true; };
  ch.port2.postMessage(0);
};
document.getElementById("key").onclick = () => crypto.subtle.generateKey(  // a second or so, off the page's thread
  { name: "RSA-PSS", modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, false, ["sign"])
  .then(() => { window.keyDone = true; });
document.getElementById("img").onclick = () => {  // a request no script awaits: the browser's own
  const img = new Image(); img.onload = () => { out.textContent = "image"; }; img.src = "/slow.svg";
};
setTimeout(() => { out.dataset.session = "over"; }, 600000);  // due long after any wait
</script></body></html>"""
CHILD = "<!doctype html><p>child</p><script>setTimeout(() => {}, 8000);</script>"


def _html(body: str) -> Callable[[Route], Awaitable[None]]:
    return lambda route: route.fulfill(body=body, content_type="text/html")


@contextlib.asynccontextmanager
async def _page(routes: dict[str, Callable[[Route], Awaitable[None]]], schedule: bool = True) -> AsyncIterator[Page]:
    """A page of a fresh browser whose requests to `routes` are answered by them, with the
    schedule's wrappers (or without)."""
    async with async_playwright() as pw:
        browser = await launch(pw, BrowserSettings())
        try:
            context = await browser.new_context()
            if schedule:
                await context.add_init_script(script=SCHEDULE_JS)
            page = await context.new_page()
            for url, answer in routes.items():
                await page.route(url, answer)
            yield page
        finally:
            await browser.close()


async def _watched(page: Page) -> Schedule:
    """The mechanism watching `page`, with the requests in flight the agent's settle counts."""
    settler = Settler(SettleConfig())
    settler.watch(page)
    schedule = Schedule()
    await schedule.start(types.SimpleNamespace(page=page, in_flight=lambda: settler.in_flight))  # type: ignore[arg-type]
    return schedule


async def _answers(clicks: Sequence[str], within_ms: Sequence[float], hover: str = "",
                   wait_ms: int = 0, until: str = "") -> list[bool]:
    """`may_change(within)` for each of `within_ms`, after the clicks (and a hover), `wait_ms`
    later (after the page says `until`, if given)."""
    async def slow(route: Route) -> None:
        await asyncio.sleep(3.0)
        await route.fulfill(body="loaded")

    async def slow_image(route: Route) -> None:
        await asyncio.sleep(3.0)
        await route.fulfill(body='<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
                            content_type="image/svg+xml")

    async with _page({URL: _html(PAGE), "http://localhost:9/child.html": _html(CHILD),
                      "http://localhost:9/slow": slow,
                      "http://localhost:9/slow.svg": slow_image}) as page:
        schedule = await _watched(page)
        await page.goto(URL)
        for selector in clicks:
            await page.click(selector)
        if hover:
            await page.hover(hover)
        if until:
            await page.wait_for_function(until, timeout=20_000)
        await page.wait_for_timeout(100 + wait_ms)
        return [bool(await schedule.may_change(page, w)) for w in within_ms]


def test_a_page_with_nothing_due_within_the_wait_cannot_change() -> None:
    # the page's own ten-minute timer is due long after any wait
    assert asyncio.run(_answers([], [3000])) == [False]
    assert asyncio.run(_answers(["#later", "#cancel"], [3000])) == [False]


def test_a_timeout_counts_only_when_due_before_the_wait_ends() -> None:
    assert asyncio.run(_answers(["#later"], [3000, 500])) == [True, False]
    assert asyncio.run(_answers(["#later"], [3000], until="out.textContent === 'later'")) == [False]  # it ran


def test_loops_animations_requests_and_frames_may_change_the_page() -> None:
    assert asyncio.run(_answers(["#tick"], [3000])) == [True]
    assert asyncio.run(_answers(["#loop"], [3000])) == [True]
    assert asyncio.run(_answers(["#fade"], [3000])) == [True]
    assert asyncio.run(_answers(["#load"], [3000])) == [True]
    assert asyncio.run(_answers(["#load"], [3000], until="out.textContent === 'loaded'")) == [False]
    assert asyncio.run(_answers(["#img"], [3000])) == [True]  # seen only as the page's request
    assert asyncio.run(_answers(["#img"], [3000], until="out.textContent === 'image'")) == [False]
    assert asyncio.run(_answers(["#frame"], [10000])) == [True]  # the child's timer
    assert asyncio.run(_answers(["#slices"], [3000])) == [True]  # a message per slice, 4 s or more
    assert asyncio.run(_answers(["#slices"], [3000], until="window.slicesDone")) == [False]
    # the browser's work the page waits for (a key made off its thread)
    assert asyncio.run(_answers(["#key"], [3000], wait_ms=-100)) == [True]
    assert asyncio.run(_answers(["#key"], [3000], until="window.keyDone")) == [False]


def test_a_menu_shown_after_a_transition_delay_may_still_come() -> None:
    assert asyncio.run(_answers([], [3000], hover="#nav")) == [True]
    assert asyncio.run(_answers([], [3000], hover="#nav", until="!document.getAnimations().length")) == [False]


HERE = Path(__file__).parent / "language"


def _steps(tmp_path: Path, ids: str, seeds: str, *overrides: str, fresh: bool = True) -> pd.DataFrame:
    pages = [f"tasks.dirs=[{HERE / 'tasks'}]", f"sites.dirs=[{HERE / 'sites'}]"] if fresh else []
    result = run_experiment(tmp_path, [
        *pages, "suite=fixtures", "suite.tags=[]", f"suite.ids=[{ids}]", "perception=none",
        f"seeds=[{seeds}]", "trace.playwright=false", "trace.screenshots=none", *overrides])
    assert result.episodes.success.all(), result.episodes.failure_detail.tolist()
    return pd.read_parquet(result.run_dir / "steps.parquet")


def test_an_indicator_nothing_will_take_away_is_not_waited_on(tmp_path: Path) -> None:
    on = _steps(tmp_path / "on", "drafts-check-and-publish", "0,1")
    saved, checked = on[on.subgoal_index == 0], on[on.subgoal_index == 1]
    assert len(saved) == 2 and (saved.transient_ms < 1000).all() and (saved.waits_cut == 1).all()
    assert (checked.transient_ms >= 900).all() and (checked.waits_cut == 0).all()  # three timers
    off = _steps(tmp_path / "off", "drafts-check-and-publish", "0", "agent.schedule=false")
    assert (off[off.subgoal_index == 0].transient_ms >= 2900).all() and (off.waits_cut == 0).all()


def test_a_dead_control_is_condemned_without_waiting_when_nothing_can_wake_it(tmp_path: Path) -> None:
    on = _steps(tmp_path / "on", "drafts-share", "0")
    dead = on[on.error_type == "no_effect"]
    assert len(on) == 3 and len(dead) == 2  # two no-ops, then the other "Share"
    assert (dead.waits_cut == 2).all() and (on.backoff_ms == 0).all()  # the late look, the backoff
    assert (dead.quiet_cut == 1).all()  # a click that changed nothing: settled with the frame
    off = _steps(tmp_path / "off", "drafts-share", "0", "agent.schedule=false")
    looked = off[off.error_type == "no_effect"]
    # each no-op looked at for 500 ms and backed off after; a third when the first two came
    # within the guard's second (they do on an idle machine)
    assert len(looked) >= 2 and (looked.validate_ms >= 500).all() and (looked.backoff_ms > 0).all()
    assert (off.waits_cut == 0).all() and (off.quiet_cut == 0).all()


def test_a_dead_click_is_not_looked_at_again_when_nothing_can_answer(tmp_path: Path) -> None:
    # the catalogue's hydrated "Follow": the first click is swallowed, the second follows
    on = _steps(tmp_path / "on", "noop-follow", "0", fresh=False)
    dead = on[on.error_type == "no_effect"]
    assert len(dead) == 1 and (dead.waits_cut == 2).all()
    assert (on.backoff_ms == 0).all()  # the late look and the backoff after it, both cut
    off = _steps(tmp_path / "off", "noop-follow", "0", "agent.schedule=false", fresh=False)
    looked = off[off.error_type == "no_effect"]
    assert len(looked) == 1 and (looked.validate_ms >= 500).all() and (off.waits_cut == 0).all()
    assert (off.backoff_ms > 0).any()
    assert dead.validate_ms.iloc[0] < looked.validate_ms.iloc[0] - 300  # 500 ms of looking not made


# The settle's quiet window (agents/settle.py) with the page's schedule: each button's effect
# comes another way, most of them starting as the next frame is drawn (where the settle's own
# first look falls) and landing a few ms later, within the quiet window; after the click and one
# settle the effect must be on the page, and the window ended with the frame only where nothing
# could still come.
SETTLE_URL = "http://localhost:9/settle.html"
SETTLE_PAGE = """<!doctype html><html><body>
<button id="sync">Sync</button> <button id="soon">Soon</button> <button id="resize">Resize</button>
<button id="fetch">Fetch</button> <button id="xhr">Xhr</button> <button id="crypto">Crypto</button>
<button id="idb">Idb</button> <button id="task">Task</button> <button id="message">Message</button>
<button id="child">Child</button> <button id="tasks">Tasks</button> <button id="fast">Fast</button> <button id="fade">Fade</button>
<button id="keygen">Keygen</button>
<p id="out">out</p><div id="box" style="width: 10px; height: 10px"></div>
<iframe id="frame" srcdoc="<p id=c>child</p><script>parent.childSet = () => setInterval(() => { document.getElementById('c').textContent = 'done'; }, 10);</script>"></iframe>
<script>
const out = document.getElementById("out"), box = document.getElementById("box");
const put = (s) => { out.textContent = s; };
const framed = (f) => () => requestAnimationFrame(f);  // f runs as the next frame is drawn
document.getElementById("sync").onclick = () => put("sync");
document.getElementById("soon").onclick = () => setTimeout(() => put("soon"), 12);
new ResizeObserver(() => { if (box.offsetWidth > 10) setTimeout(() => put("resize"), 5); }).observe(box);
document.getElementById("resize").onclick = framed(() => { box.style.width = "40px"; });
document.getElementById("fetch").onclick = () => fetch("/data").then((r) => r.text()).then(put);
document.getElementById("fast").onclick = framed(() => fetch("/now").then((r) => r.text()).then(put));
document.getElementById("xhr").onclick = () => {
  const x = new XMLHttpRequest(); x.open("GET", "/data"); x.onload = () => put("xhr " + x.responseText); x.send();
};
// a hash of a megabyte, then another of the result: work the browser does off the page's thread
document.getElementById("crypto").onclick = framed(() => crypto.subtle.digest("SHA-256", new Uint8Array(1 << 20))
  .then((d) => crypto.subtle.digest("SHA-256", d)).then(() => put("crypto")));
document.getElementById("idb").onclick = framed(() => {
  const r = indexedDB.open("gb", 1);
  r.onupgradeneeded = () => r.result.createObjectStore("s");
  r.onsuccess = () => {
    const t = r.result.transaction("s", "readwrite"); t.objectStore("s").put(1, "k");
    t.oncomplete = () => put("idb");
  };
});
// a 4096-bit RSA key: the browser works on it far longer than any settle (a second or so)
document.getElementById("keygen").onclick = () => crypto.subtle.generateKey(
  { name: "RSA-PSS", modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, false, ["sign"])
  .then(() => put("keygen"));
document.getElementById("task").onclick = framed(() => scheduler.postTask(() => put("task"), { delay: 8 }));
document.getElementById("tasks").onclick = () => {  // a task every 8 ms, for about half a second
  let n = 0;
  const next = () => { put("tasks"); if (++n < 60) scheduler.postTask(next, { delay: 8 }); };
  scheduler.postTask(next, { delay: 8 });
};
window.onmessage = (e) => put(e.data);
document.getElementById("message").onclick = framed(() => window.postMessage("message", "*"));
document.getElementById("child").onclick = () => window.childSet();
document.getElementById("fade").onclick = () => {  // a colour fade, then a handler at its end
  out.style.transition = "color 10ms"; out.ontransitionend = () => put("fade"); out.style.color = "red";
};
</script></body></html>"""


async def _settled(clicks: Sequence[str], schedule: bool = True, idle: bool = True) -> list[tuple[str, str, bool]]:
    """For each click: the page's text after one settle, the child frame's, whether the settle's
    quiet window ended with the frame."""
    async def data(route: Route) -> None:
        await asyncio.sleep(0.03)
        await route.fulfill(body="data")

    async def now(route: Route) -> None:
        await route.fulfill(body="now")

    async with _page({SETTLE_URL: _html(SETTLE_PAGE), "http://localhost:9/data": data,
                      "http://localhost:9/now": now}, schedule) as page:
        settler = Settler(SettleConfig())
        settler.watch(page)
        await page.goto(SETTLE_URL)
        await settler.settle(page, idle=idle)
        got = []
        for selector in clicks:
            await page.evaluate("() => { document.getElementById('out').textContent = 'out'; }")
            await settler.settle(page, idle=idle)
            ends = settler.idle_ends
            await page.click(selector)
            await settler.settle(page, idle=idle)
            child = await page.frame_locator("#frame").locator("#c").text_content()
            got.append((await page.text_content("#out") or "", child or "", settler.idle_ends > ends))
        return got


def test_a_settle_ends_with_the_frame_only_when_nothing_can_still_come() -> None:
    names = ["sync", "soon", "resize", "fetch", "fast", "xhr", "crypto", "idb", "task", "message", "fade"]
    got = dict(zip(names, asyncio.run(_settled([f"#{name}" for name in names])), strict=True))
    assert got["sync"] == ("sync", "child", True)  # done as the click ran: no quiet window
    assert got["soon"][:2] == ("soon", "child")  # a timer due within it
    assert got["resize"][:2] == ("resize", "child")  # an observer of the frame's layout
    for name in ("fetch", "xhr"):  # a request, then what the page made of its answer
        assert got[name][0].endswith("data") and not got[name][2], (name, got[name])
    assert got["fast"][:2] == ("now", "child") and not got["fast"][2]
    for name in ("crypto", "idb", "task", "message", "fade"):  # the browser's work, a task, a message
        assert got[name][:2] == (name, "child"), (name, got[name])
    child = asyncio.run(_settled(["#child"]))[0]
    assert child[1] == "done" and not child[2]  # a frame's timer, due every 10 ms
    tasks = asyncio.run(_settled(["#tasks"]))[0]
    assert tasks[0] == "tasks" and not tasks[2]  # the scheduler's tasks, one due every 8 ms


def test_a_settle_holds_its_quiet_window_while_the_page_awaits_the_browsers_work() -> None:
    """The browser's answer (IndexedDB, Web Crypto, the Cache API) runs the page's code however
    long it takes; on a loaded machine longer than the 20 ms window. The window is held for it, up
    to the settle's cap, as for a request in flight."""
    async def settle_after_click() -> tuple[float, str]:
        async with _page({SETTLE_URL: _html(SETTLE_PAGE)}) as page:
            settler = Settler(SettleConfig())
            settler.watch(page)
            await page.goto(SETTLE_URL)
            await settler.settle(page)
            await page.click("#keygen")
            t0 = time.perf_counter()
            await settler.settle(page)
            return (time.perf_counter() - t0) * 1000, await page.text_content("#out") or ""

    took, text = asyncio.run(settle_after_click())
    assert text == "keygen" or took >= SettleConfig().settle_ms * 0.95, (took, text)


def test_a_settle_without_the_schedule_waits_its_quiet_window() -> None:
    for got in asyncio.run(_settled(["#sync", "#resize"], schedule=False)):
        assert not got[2], got  # no wrappers in the page: it may change
    for got in asyncio.run(_settled(["#sync", "#crypto"], idle=False)):
        assert not got[2], got


# The pointer's rest on a point before the 'before' image of a click there (agents/validator.py).
REST_PAGE = """<!doctype html><html><head><style>
#fade { width: 100px; height: 60px; background: #eee; transition: background-color 400ms; }
#fade:hover { background: #36c; }
</style></head><body><canvas id="plain" width="100" height="60"></canvas><div id="fade"></div>
<div id="soon" style="width: 100px; height: 60px"></div>
<script>
// the hover sets a timer due within the rest, again and again for two seconds: one is pending
// when the rest is decided however slowly the machine answers (a single 30 ms timer could fire
// before the check on a loaded machine, and then nothing is due and the cut is right)
document.getElementById("soon").onmouseenter = () => {
  const end = performance.now() + 2000;
  const tick = () => { if (performance.now() < end) setTimeout(tick, 30); };
  setTimeout(tick, 30);
};
</script>
</body></html>"""


async def _rests(targets: Sequence[str], schedule: bool = True) -> list[bool]:
    """For each element: whether the rest before the image of a click at its centre was cut."""
    async with _page({URL: _html(REST_PAGE)}) as page:
        watcher = await _watched(page)
        await page.goto(URL)
        cuts = []
        for selector in targets:
            await page.mouse.move(600, 600)
            await page.wait_for_timeout(600)  # the last hover's transition back is over
            box = await page.locator(selector).bounding_box()
            assert box is not None
            point = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            image, cut = await hover_and_capture(
                page, point, (lambda ms: watcher.may_change(page, ms)) if schedule else None)
            assert image
            cuts.append(cut)
        return cuts


def test_the_pointer_rests_before_the_image_only_while_something_may_change() -> None:
    # nothing drawn on hover: no rest; a hover colour fading in, a timer the hover set: the rest
    assert asyncio.run(_rests(["#plain", "#fade", "#soon"])) == [True, False, False]
    assert asyncio.run(_rests(["#plain"], schedule=False)) == [False]


# A document's load (agents/settle.py): what a page's load brought in (its document, stylesheets,
# scripts, images) has done its work by the load event, its images' handlers included; a request a
# script made (a fetch) may still have its answer's handler to run.
LOAD_URL = "http://localhost:9/load.html"
LOAD_PAGE = """<!doctype html><html><head><link rel="stylesheet" href="/load.css">
<script src="/load.js"></script></head><body><p id="out">out</p><a id="again" href="/load.html">Again</a>
<img src="/slow.svg" onload="document.getElementById('out').textContent += ' image'">
%s</body></html>"""
FETCH_AT_LOAD = """<script>fetch("/data").then((r) => r.text()).then((s) => {
  document.getElementById("out").textContent += " " + s; });</script>"""


async def _loaded(extra: str = "") -> list[tuple[str, bool]]:
    """Load the page, then follow its link to itself: after each, (the text the settle read as it
    ended, whether its quiet window ended with the frame)."""
    async def slow(route: Route) -> None:  # the image holds the load event back
        await asyncio.sleep(0.2)
        await route.fulfill(body='<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>',
                            content_type="image/svg+xml")

    routes = {LOAD_URL: _html(LOAD_PAGE % extra), "http://localhost:9/slow.svg": slow,
              "http://localhost:9/load.css": lambda route: route.fulfill(body="p { color: #333 }", content_type="text/css"),
              "http://localhost:9/load.js": lambda route: route.fulfill(body="window.loaded = 1;", content_type="text/javascript"),
              "http://localhost:9/data": lambda route: route.fulfill(body="data")}
    async with _page(routes) as page:
        settler = Settler(SettleConfig())
        settler.watch(page)
        got = []
        for go in (lambda: page.goto(LOAD_URL), lambda: page.click("#again")):
            ends = settler.idle_ends
            await go()
            # (after the click, the new document replaces the old under the settle's first wait)
            read = await settler.settle(page, [("() => document.getElementById('out').textContent", None)], idle=True)
            assert read is not None and read[0] is not None, "the settle did not read the page"
            assert read[0].value == await page.text_content("#out")
            got.append((read[0].value, settler.idle_ends > ends))
        return got


def test_a_settle_after_a_load_ends_with_the_frame_unless_a_script_made_a_request() -> None:
    # by the load event the stylesheet, the script and the image (its handler too) are in
    assert asyncio.run(_loaded()) == [("out image", True)] * 2
    # a fetch the page's script made during the load: its answer's handler may still be to run
    got = asyncio.run(_loaded(FETCH_AT_LOAD))
    assert all(text in ("out data image", "out image data") and not idle for text, idle in got), got


# How long the page stays as a settle left it (agents/settle.py `Settler.still`): a click whose
# effect comes from a timer due long after the quiet window, one due a little after it, one that
# starts a timer due every 12 ms, and one with nothing after it.
STILL_URL = "http://localhost:9/still.html"
STILL_PAGE = """<!doctype html><html><body>
<button id="later">Later</button> <button id="next">Next</button> <button id="ticks">Ticks</button>
<button id="sync">Sync</button> <p id="out">out</p>
<script>
const out = document.getElementById("out");
const after = (ms, text) => () => setTimeout(() => { out.textContent = text; }, ms);
document.getElementById("later").onclick = after(300, "later");
document.getElementById("next").onclick = after(70, "next");
document.getElementById("ticks").onclick = () => {
  let n = 0;
  const tick = setInterval(() => { out.textContent = "tick " + n; if (++n === 40) clearInterval(tick); }, 12);
};
document.getElementById("sync").onclick = () => { out.textContent = "sync"; };
</script></body></html>"""


async def _still(selector: str) -> tuple[float, bool, bool, bool]:
    """After a click and its settle: for how many ms the page was said to be still, whether every
    fingerprint taken while it was said so equals the settle's, whether it was still said so 150 ms
    later, and whether the page differed from the settle's reading 400 ms later."""
    async with _page({STILL_URL: _html(STILL_PAGE)}) as page:
        await page.context.add_init_script(script=MUTATION_COUNTER_JS)
        settler = Settler(SettleConfig())
        settler.watch(page)
        await page.goto(STILL_URL)
        await settler.settle(page, idle=True)
        await page.click(selector)
        got = await settler.settle(page, [fingerprint.read()], idle=True)
        assert got is not None and got[0] is not None
        still_ms, same = settler.still_ms(), True
        settled = await fingerprint.of_walk(page, got[0].value)
        for _ in range(100):  # (a round trip or more each)
            if not settler.still():
                break
            now = await fingerprint.take(page)
            same = same and now is not None and not settled.differs(now)
        await page.wait_for_timeout(150)
        later = settler.still()
        await page.wait_for_timeout(250)
        moved = bool(settled.differs(await fingerprint.take(page)))
        return still_ms, same, later, moved


def test_a_page_is_taken_as_the_settle_read_it_only_while_nothing_can_have_changed_it() -> None:
    # nothing due for 300 ms: still for STILL_MAX_MS less the margin and the settle's time in
    # transit (a few ms; tens on a loaded machine), the page as read meanwhile
    still_ms, same, later, moved = asyncio.run(_still("#later"))
    assert 0 < still_ms <= STILL_MAX_MS - STILL_MARGIN_MS
    assert same and not later and moved
    # a timer due 70 ms after the click: still only until it is due (on a loaded machine the
    # settle's frame may come so late that the timer is due within its window: then the settle
    # waits for it and reads the page after it; or the settle's answer spends so long in transit
    # that nothing of the window is left: either way nothing is taken as still)
    still_ms, same, later, moved = asyncio.run(_still("#next"))
    assert still_ms < 70 - STILL_MARGIN_MS and same and not later and (moved or still_ms == 0)
    # a timer due within every window: nothing is taken as still
    assert asyncio.run(_still("#ticks"))[0] == 0.0
    # nothing scheduled at all
    still_ms, same, later, moved = asyncio.run(_still("#sync"))
    assert 0 < still_ms <= STILL_MAX_MS - STILL_MARGIN_MS and same and not later and not moved


def test_a_step_begins_with_the_settles_reading_only_after_a_settle_that_ended_with_the_frame(tmp_path: Path) -> None:
    # a fresh pricing page: a tab, a switch, a typed seat count, a submit (three seeds: under the
    # full suite's load a settle's frame may come too late for its window on every step of two)
    on = _steps(tmp_path / "on", "planpick-yearly-team", "0,1,2")
    kept = on[on.fp_kept]
    assert len(kept) >= 1, on[["step", "action", "quiet_cut", "fp_kept"]]
    for episode, step in zip(kept.episode_id, kept.step, strict=True):
        before = on[(on.episode_id == episode) & (on.step == step - 1)]
        assert (before.quiet_cut >= 1).all() and (before.action != "").all()  # acted, settled idle
    off = _steps(tmp_path / "off", "planpick-yearly-team", "0", "agent.schedule=false")
    assert not off.fp_kept.any() and (off.quiet_cut == 0).all()
