"""Settle: after the start page and every action, wait until the page has taken in what was done to
it (no DOM change for a quiet window after a frame, no request of the page in flight, animations
waited out), at most a cap. Every action is followed by a settle, so its start is also when the
agent last acted."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request, Response
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel, Field

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MAX_FOLLOWED = 3  # documents one settle follows when each replaces the last under its wait
# What a document's load brings in and has done with by its load event: parsed, applied, run, and
# (an image) its handler run. A request a script made (fetch, XHR) is not among them: its answer's
# handler may run after the load event.
LOADED_BY_LOAD = frozenset({"document", "stylesheet", "script", "image", "font"})
# After a quiet window that ended at the frame, how long the page is taken to stay as the settle
# left it (`Settler.still`): until the next thing it scheduled is due, at most STILL_MAX_MS, less
# the time the settle's answer spent between the page and the agent (the page looked at its
# schedule before its answer came back, and a read of the page after arrives there later than it
# is sent) and a margin.
STILL_MAX_MS = 100
STILL_MARGIN_MS = 5


class SettleConfig(BaseModel):
    # Wait until the page is quiet (no DOM change for settle_quiet_ms after a frame, and no request
    # of the page in flight), at most settle_ms. settle_quiet_ms >= settle_ms: always wait settle_ms.
    settle_ms: int = Field(150, ge=0)
    settle_quiet_ms: int = Field(20, ge=0)
    # An animation under way (finite CSS/Web animation, or a script rewriting a style attribute
    # frame after frame) is waited out up to this long, settle_ms or not.
    settle_animation_ms: int = Field(1000, ge=0)
    action_timeout_ms: int = Field(3000, ge=100)
    # A hover's effect may come only after the page's hover-intent delay (a menu that opens once
    # the pointer has rested 300-600 ms): a hover that changed nothing by its settle is looked at
    # again, every 100 ms, up to this long, before it counts as a no-op.
    hover_intent_ms: int = Field(800, ge=0)
    # Any other action's effect may come after a delay of the page's own, with no request in flight
    # for the settle to wait for (results drawn after a debounce or a timer): an action that changed
    # nothing by its settle is looked at again, every 100 ms, up to this long, before it counts as
    # a no-op (and is tried again, or its target found dead). 0: off.
    late_effect_ms: int = Field(500, ge=0)


# Resolves true once a frame has been drawn and the document then changed nothing (nodes, text,
# attributes) for `quiet` ms, and no animation is under way; false when `cap` ms pass first. An
# animation under way (a finite CSS transition/animation or Web Animation, or a style attribute
# rewritten frame after frame by a script, as jQuery's animate does) is waited out up to `animCap`
# ms: a frame can take longer than `quiet`, so a script-driven animation looks quiet between two
# of its frames, and a screenshot taken mid-slide puts every box where it no longer is. An
# animation of colours only, or of a pseudo-element, moves no box and is not waited for.
# With `idle` (the page keeps its schedule, agents/schedule.py), the window ends as the frame's
# rendering is over, resolving "idle", when nothing changed since the frame and no document of the
# page (same-origin frames included) has anything due within the window: no timer, frame, idle
# callback, animation, medium or message under way that could change it meanwhile. With the
# schedule's wrappers, the window is also held while a document waits for the browser's work
# (IndexedDB, Web Crypto, the Cache API), whose answer runs the page's code: at most `cap`.
QUIET_JS = """([quiet, cap, animCap, idle]) => new Promise((resolve) => {
  const FRAMES = 50;  // a style rewrite this recent may be one frame of an animation
  const start = performance.now();
  let last = start, timer = null, capTimer = null, lastStyle = -1e9;
  const observer = new MutationObserver((records) => {
    last = performance.now();
    if (records.some((r) => r.attributeName === "style")) lastStyle = last;
  });
  // What an animation changes: a box (its place, its size, what it shows) or only colours. A
  // colour fading (a switch's track, a hovered button) or a pseudo-element's decoration sliding
  // (a switch's knob, a ripple) moves no element's box: not waited for.
  const PAINT = /^(?:color|background(?:-color)?|(?:border(?:-[a-z]+)?|outline|text-decoration|caret|accent)-color|box-shadow|fill|stroke)$/;
  const kebab = (p) => p.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
  const moves = (a) => {
    const effect = a.effect;
    if (!effect || effect.pseudoElement) return false;
    if (typeof a.transitionProperty === "string") return !PAINT.test(a.transitionProperty);
    try {
      const props = effect.getKeyframes().flatMap((k) => Object.keys(k)).filter(
        (p) => !["offset", "computedOffset", "easing", "composite"].includes(p));
      return !props.length || props.some((p) => !PAINT.test(kebab(p)));
    } catch (e) { return true; }
  };
  const animating = (now) => now - lastStyle < FRAMES ||
    document.getAnimations().some((a) => a.playState === "running" &&
                                         Number.isFinite(a.effect?.getComputedTiming().endTime) && moves(a));
  // In how many ms a document (or one of its frames) has something due: at once for one it cannot
  // read or without the schedule's wrappers, never (Infinity) for nothing at all.
  const nextDue = (w) => {
    try {
      if (typeof w.__gbNextDue !== "function") return 0;
      const own = w.__gbNextDue();
      let next = own < 0 ? Infinity : own;
      for (let i = 0; i < w.frames.length && next > 0; i++) next = Math.min(next, nextDue(w.frames[i]));
      return next;
    } catch (e) { return 0; }
  };
  // Whether a document (or one of its frames) waits for work of the browser (IndexedDB, Web
  // Crypto, the Cache API, a fetch's body): the window is held until its answer is back (on a
  // loaded machine it can take longer than the window), at most `cap`.
  const awaiting = (w) => {
    try {
      if (typeof w.__gbAwaiting === "function" && w.__gbAwaiting()) return true;
      for (let i = 0; i < w.frames.length; i++) if (awaiting(w.frames[i])) return true;
    } catch (e) {}
    return false;
  };
  let horizon = 0;  // with "idle": when (performance.now()) something is next due (-1: nothing)
  let framed = -1;  // when the frame was drawn, until the first check after it
  const done = (result) => {
    observer.disconnect(); clearTimeout(timer); clearTimeout(capTimer); resolve([result, horizon]);
  };
  const check = () => {
    const now = performance.now(), moving = animating(now);
    if (framed >= 0) {
      const at = framed;
      framed = -1;
      const next = last <= at && !moving ? nextDue(window) : 0;
      if (next > quiet) {
        horizon = Number.isFinite(next) ? now + next : -1;  // (on the page's clock)
        return done("idle");
      }
    }
    const held = now - last >= quiet && !moving && awaiting(window);
    if (now - last >= quiet && !moving && !held) return done(true);
    if (now - start >= animCap || (now - start >= cap && !moving)) return done(false);
    const wait = moving ? 17 : held ? 4 : quiet - (now - last);
    timer = setTimeout(check, Math.max(1, Math.min(wait, (moving ? animCap : cap) - (now - start)) + 1));
  };
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  // The quiet window starts after a frame: a window that started with the action could close
  // before a script-driven animation's first tick (jQuery's timer, later still on a loaded
  // machine) and miss the slide (tests/test_miniwob_browser.py, click-collapsible-2 under CI).
  // With `idle`, the first check comes as the frame's rendering is over (after its resize and
  // intersection observers, which may change the page in the same frame).
  requestAnimationFrame(() => {
    last = Math.max(last, performance.now());
    if (!idle) return check();
    framed = last;
    timer = setTimeout(check, 0);
  });
  capTimer = setTimeout(() => done(false), animCap);
})"""


@dataclass(frozen=True)
class Read:
    """What one read run as a settle ended gave (`value`: the JS function's result)."""

    value: Any


def _reads(sources: tuple[str, ...]) -> str:
    """JS of an array literal: each read's {ok, value} or {error}, the read i taking readArgs[i]."""
    return "[\n    " + ",\n    ".join(
        f"(() => {{ try {{ return {{ok: true, value: ({src})(readArgs[{i}])}}; }} "
        f"catch (e) {{ return {{error: String(e)}}; }} }})()" for i, src in enumerate(sources)) + "\n  ]"


@functools.cache
def quiet_then(sources: tuple[str, ...]) -> str:
    """QUIET_JS, then reads of the page (JS functions of one argument) in the same round trip:
    `([quietArgs, readArgs])` resolves to [went quiet, [{ok, value} or {error} per read], in how many
    ms from the answer something is due (with "idle"; -1: nothing), the ms the whole ran in the
    page]. The reads are written into the script (no eval in the page, which its own policy may
    forbid); the same few combinations recur, so the script's text is built once each."""
    return (f"async ([args, readArgs]) => {{\n  const begun = performance.now();\n"
            f"  const [quiet, horizon] = await ({QUIET_JS})(args);\n"
            f"  const reads = {_reads(sources)};\n"
            f"  const end = performance.now();\n"
            f"  return [quiet, reads, horizon < 0 ? -1 : Math.max(0, horizon - end), end - begun];\n}}")


@functools.cache
def _reads_only(sources: tuple[str, ...]) -> str:
    return f"(readArgs) => {_reads(sources)}"


def _values(got: list[Any]) -> list[Read | None]:
    return [Read(v.get("value")) if isinstance(v, dict) and v.get("ok") else None for v in got]


async def read_all(page: Page, reads: Sequence[tuple[str, Any]]) -> list[Read | None] | None:
    """Reads of the page (a JS function's source, its argument) in one round trip, in order: what
    each gave (None for one that threw), or None when the page could not be read (navigating)."""
    if not reads:
        return []
    try:
        got = await page.evaluate(_reads_only(tuple(src for src, _ in reads)), [arg for _, arg in reads])
    except PlaywrightError:
        return None
    return _values(got)


class Settler:
    """Waits for one page to settle; `acted_at` is time.monotonic() of the last settle's start."""

    def __init__(self, config: SettleConfig) -> None:
        self.config = config
        self.acted_at = time.monotonic()
        self._in_flight: set[Request] = set()  # the page's requests not yet answered
        # Request events seen (sent, answered, finished, failed), and how many when the page last
        # settled: a quiet window ends at the frame only if none came since.
        self._traffic = 0
        self._traffic_settled = 0
        # Between the start of a document's load in the main frame and its load event: request
        # events of what the load brings in (LOADED_BY_LOAD) are counted apart, in `_load_traffic`,
        # and do not hold a settle after the load event to its quiet window.
        self._loading = False
        self._load_traffic = 0
        self.idle_ends = 0  # settles whose quiet window ended at the frame (see `settle`'s idle)
        # Until when the page stays as the last settle left it (`still`), and the request events
        # seen then.
        self._still_until = 0.0
        self._traffic_still = -1

    def watch(self, page: Page) -> None:
        page.on("request", self._sent)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)
        page.on("response", self._answered)
        page.on("load", self._load_event)

    def _count(self, request: Request) -> None:
        self._traffic += 1
        if self._loading and request.resource_type in LOADED_BY_LOAD:
            self._load_traffic += 1

    def _sent(self, request: Request) -> None:
        if request.is_navigation_request() and request.resource_type == "document" \
                and request.frame.parent_frame is None:
            self._loading = True  # (a navigation that never commits leaves it so: no cut)
        self._count(request)
        self._in_flight.add(request)

    def _done(self, request: Request) -> None:
        self._count(request)
        self._in_flight.discard(request)

    def _load_event(self, _page: Page) -> None:
        self._loading = False

    @property
    def longest_s(self) -> float:
        """The longest one settle waits for the page to answer (its cap, an animation's, and the
        margin of the bound on a page that does not answer)."""
        return max(self.config.settle_ms, self.config.settle_animation_ms) / 1000 + 0.25

    def still(self) -> bool:
        """Whether the page is certainly as the last settle left it: that settle's quiet window
        ended at the frame (`settle`'s idle: nothing due in any document within the window, no
        request in flight and none since the page settled before), the next thing the page
        scheduled is not due yet (STILL_MAX_MS at most, less the round trip's time outside the
        page and STILL_MARGIN_MS) and no request event came since. Nothing of the page's own
        could have changed it (the schedule's argument for cutting a wait, agents/schedule.py);
        whatever the agent does to the page starts with a settle or an action of its own, after
        which this says nothing."""
        return self.still_ms() > 0

    def still_ms(self) -> float:
        """How much longer `still` holds, in ms (0: it does not)."""
        if self._traffic != self._traffic_still:
            return 0.0
        return max(0.0, (self._still_until - time.perf_counter()) * 1000)

    @property
    def in_flight(self) -> int:
        """How many of the page's requests the settle still waits for."""
        return len(self._in_flight)

    def _answered(self, response: Response) -> None:
        # A write the page sent (a state save, a beacon) is taken in once answered; Chromium never
        # reports a keepalive one finished, which held every later settle of the page to its cap.
        # A read stays in flight until its body is in: the page renders from it.
        self._count(response.request)
        if response.request.method in WRITES:
            self._in_flight.discard(response.request)

    async def settle(self, page: Page, reads: Sequence[tuple[str, Any]] = (),
                     idle: bool = False) -> list[Read | None] | None:
        """Wait until the page is quiet. `reads`: (a JS function's source, its argument) to run in
        the page as the settle ends, in the round trip of its last wait; returns what each gave,
        in order (None for one that threw), or None when the settle ended without them (the page
        navigated, or the settle only waits out its cap): the caller then reads the page itself.

        `idle`: the page keeps its schedule (agents/schedule.py) and nothing else watched could
        change it (no socket, no worker): the quiet window ends at the frame when nothing is due
        within it in any document (`idle_ends` counts these settles), unless a request of the
        page was sent or answered since the page last settled: the page may still be rendering
        what came back (its answer's handler runs after the request is reported finished), so
        that settle waits its quiet window as without a schedule."""
        try:
            return await self._settle(page, reads, idle)
        finally:
            self._traffic_settled = self._traffic
            self._load_traffic = 0

    async def _loaded(self, page: Page) -> bool:
        """Wait for the document's load event (at most the action timeout); whether it came."""
        try:
            await page.wait_for_load_state("load", timeout=self.config.action_timeout_ms)
        except PlaywrightTimeoutError:
            return False
        return True

    async def _settle(self, page: Page, reads: Sequence[tuple[str, Any]], idle: bool) -> list[Read | None] | None:
        self.acted_at = time.monotonic()
        self._still_until = 0.0
        # The window starts after the load event: a page whose load outlasted the window used to
        # be taken as its load left it, without a quiet window (and without the reads).
        await self._loaded(page)
        cap, quiet = self.config.settle_ms, self.config.settle_quiet_ms
        if quiet >= cap:
            await page.wait_for_timeout(cap)
            return None

        def window() -> tuple[float, float]:
            """(the window's end, an animation's) from now."""
            t0 = time.perf_counter()
            return t0 + cap / 1000, t0 + max(cap, self.config.settle_animation_ms) / 1000

        deadline, anim_deadline = window()
        script = quiet_then(tuple(src for src, _ in reads))
        values: list[Read | None] | None = None
        followed = 0  # documents that replaced the one being settled (a click that navigated)
        while (left_ms := (deadline - time.perf_counter()) * 1000) > 1:
            anim_ms = max(left_ms, (anim_deadline - time.perf_counter()) * 1000)
            traffic = self._traffic
            # (what a document's load brought in counts only while the load is under way)
            may_idle = idle and traffic - (0 if self._loading else self._load_traffic) == self._traffic_settled
            try:
                # Bounded here too: a document whose timers stop (frozen, or moving into the
                # back-forward cache) would never answer.
                sent = time.perf_counter()
                went_quiet, got, horizon, in_page_ms = await asyncio.wait_for(
                    page.evaluate(script, [[quiet, left_ms, anim_ms, may_idle], [arg for _, arg in reads]]),
                    timeout=anim_ms / 1000 + 0.25)
            except PlaywrightError:
                # Another document replaced this one under the wait (the action's navigation
                # committed after the wait for the load began): that document is the one to
                # settle, from its load event on, with a window of its own; a few in a row (a
                # redirect by script), then the rest of the window is waited out.
                if page.is_closed() or followed >= MAX_FOLLOWED or not await self._loaded(page):
                    await page.wait_for_timeout(max(0.0, (deadline - time.perf_counter()) * 1000))
                    return None
                followed += 1
                deadline, anim_deadline = window()
                continue
            except TimeoutError:  # frozen: wait out the window
                await page.wait_for_timeout(max(0.0, (deadline - time.perf_counter()) * 1000))
                return None
            # (read after every wait: only the last wait's reads are returned, and a read that
            # marks the page, as the ambient filter's does, counts from the last)
            values = _values(got)
            if went_quiet == "idle" and self._traffic != traffic:
                continue  # a request came as the frame was drawn: wait as without a schedule
            if not went_quiet or not self._in_flight:
                if went_quiet == "idle":
                    self.idle_ends += 1
                    # the page's horizon counts from its answer; this answer took `transit` ms to
                    # come and go besides its time in the page, and the next read takes about as
                    # long to reach the page (a loaded machine: tens of ms)
                    now = time.perf_counter()
                    transit = max(0.0, (now - sent) * 1000 - in_page_ms)
                    still_ms = STILL_MAX_MS if horizon < 0 else min(horizon, STILL_MAX_MS)
                    self._still_until = now + max(0.0, still_ms - transit - STILL_MARGIN_MS) / 1000
                    self._traffic_still = self._traffic
                return values
        return values
