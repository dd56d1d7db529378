"""What the page has scheduled: a wait for the page to change ends once nothing can change it.

The agent waits for the page in four places where it cannot know how long: a transient state
("Saving…", a spinner) is waited out up to `transient_max_ms` (agents/transient.py); an action
that changed nothing is looked at again for a late effect up to `late_effect_ms` (or
`hover_intent_ms` after a hover), and after it the agent backs off before it tries again (the
dead-action guard wants its no-ops spread over time); the ambient filter probes a suspect for a
change of its own up to `ambient_probe_ms` (agents/ambient.py). On a page whose "Exporting…" toast never goes away, each of these waits
runs to its cap: 3 s for an indicator that nothing will take away, half a second for a click that
nothing will answer.

A page changes by itself only through what it has scheduled: a timeout, an interval, an animation
frame or idle callback it asked for, a request in flight (its answer runs the page's code), an
open WebSocket, a worker, a playing video, a finite CSS or Web animation (its end runs handlers),
a message posted to itself.
This mechanism has every document keep its timers (an init script wraps `setTimeout`,
`setInterval`, `requestAnimationFrame`, `requestIdleCallback` and their cancels: when each is
due) and watches the page's requests, sockets and workers. Asked whether the page may change
within the rest of a wait (`Episode.may_change`), it answers no only when nothing is in flight,
nothing is open, and no document of the page (every frame) has anything due before the wait would
end: then the wait would see the page as it is now, and it ends at once (`rec.waits_cut` counts
them). A timer due after the wait's end does not count (a toast that hides in 5 s, a session
that expires in an hour); an interval or an animation-frame loop does (a ticker keeps every wait
as long as before).

A message posted to a channel or a window in the last 50 ms counts as work under way (a scheduler
that renders in slices, as React's does, posts one per slice). A frame whose document cannot be
read or lacks the wrappers answers "may change". Promise chains are not sources of their own
(each starts from one of the above). Cost: a wrapper per timer, and one
evaluation per frame when a wait asks."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request, Response, WebSocket
from pydantic import BaseModel

from agents.pipeline import Episode, Mechanism
from agents.settle import WRITES

# Installed after the ambient filter's and its timers' wrappers (the agent's own waits, which the
# ambient filter keeps from before any wrapper, are not the page's): each timer the page asks for
# is kept with when it is due until it runs or is cancelled.
SCHEDULE_JS = r"""
(() => {
  if (window.__gbNextDue) return;
  const now = () => performance.now();
  const timeouts = new Map(), intervals = new Map(), frames = new Set(), idles = new Set();
  const st = window.setTimeout, ct = window.clearTimeout, si = window.setInterval, ci = window.clearInterval;
  const raf = window.requestAnimationFrame, caf = window.cancelAnimationFrame;
  const ric = window.requestIdleCallback, cic = window.cancelIdleCallback;
  const clear = (id) => { timeouts.delete(id); intervals.delete(id); };
  window.setTimeout = function (fn, delay, ...rest) {
    let id = 0;
    const run = typeof fn === "function" ? function (...a) { timeouts.delete(id); return fn.apply(this, a); } : fn;
    id = st.call(window, run, delay, ...rest);
    timeouts.set(id, now() + Math.max(0, Number(delay) || 0));
    return id;
  };
  window.clearTimeout = function (id) { clear(id); return ct.call(window, id); };
  window.setInterval = function (fn, delay, ...rest) {
    const period = Math.max(0, Number(delay) || 0);
    let id = 0;
    const run = typeof fn === "function" ? function (...a) {
      const entry = intervals.get(id);
      if (entry) entry.next = now() + period;
      return fn.apply(this, a);
    } : fn;
    id = si.call(window, run, delay, ...rest);
    intervals.set(id, { period, next: now() + period });
    return id;
  };
  window.clearInterval = function (id) { clear(id); return ci.call(window, id); };
  if (raf) {
    window.requestAnimationFrame = function (fn) {
      let id = 0;
      id = raf.call(window, function (...a) { frames.delete(id); return fn.apply(this, a); });
      frames.add(id);
      return id;
    };
    window.cancelAnimationFrame = function (id) { frames.delete(id); return caf.call(window, id); };
  }
  if (ric) {
    window.requestIdleCallback = function (fn, ...rest) {
      let id = 0;
      id = ric.call(window, function (...a) { idles.delete(id); return fn.apply(this, a); }, ...rest);
      idles.add(id);
      return id;
    };
    window.cancelIdleCallback = function (id) { idles.delete(id); return cic.call(window, id); };
  }
  // A message posted to a channel or a window is a task the page queued (a scheduler that works in
  // slices, as React's does, posts one per slice): one posted within the last 50 ms is work under way.
  let posted = -1e9;
  const wrapPost = (proto) => {
    const post = proto && proto.postMessage;
    if (typeof post !== "function") return;
    proto.postMessage = function (...a) { posted = now(); return post.apply(this, a); };
  };
  wrapPost(window.MessagePort && MessagePort.prototype);
  const wpost = window.postMessage;
  window.postMessage = function (...a) { posted = now(); return wpost.apply(this, a); };
  // In how many ms the next thing this document scheduled is due: 0 for a frame, an idle callback,
  // a finite animation under way or a playing medium; -1 for nothing at all.
  Object.defineProperty(window, "__gbNextDue", { value: () => {
    const t = now();
    if (frames.size || idles.size || t - posted < 50) return 0;
    let next = Infinity;
    for (const [id, due] of timeouts) {
      if (due < t - 1000) { timeouts.delete(id); continue; }  // a string of code, run long since
      next = Math.min(next, due - t);
    }
    for (const entry of intervals.values()) {
      while (entry.next < t - entry.period - 1000 && entry.period > 0) entry.next += entry.period;  // code strings
      next = Math.min(next, entry.next - t);
    }
    if (next <= 0) return 0;
    for (const a of document.getAnimations()) {
      if (a.playState !== "running") continue;
      const timing = a.effect && a.effect.getComputedTiming();
      if (timing && Number.isFinite(timing.endTime)) return 0;
    }
    for (const m of document.querySelectorAll("video, audio")) if (!m.paused && !m.ended) return 0;
    return Number.isFinite(next) ? Math.max(0, next) : -1;
  } });
})();
"""

NEXT_DUE_JS = "() => window.__gbNextDue ? window.__gbNextDue() : null"
MAX_FRAMES = 20  # a page with more frames than this may change (not read)


class ScheduleConfig(BaseModel):
    schedule: bool = True


class Schedule(Mechanism):
    name = "schedule"

    def __init__(self) -> None:
        self.in_flight: set[Request] = set()
        self.sockets: set[WebSocket] = set()

    def init_script(self) -> str | None:
        return SCHEDULE_JS

    async def start(self, episode: Episode) -> None:
        page = episode.page
        page.on("request", self._sent)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)
        page.on("response", self._answered)
        page.on("websocket", self._opened)

    def _sent(self, request: Request) -> None:
        self.in_flight.add(request)

    def _done(self, request: Request) -> None:
        self.in_flight.discard(request)

    def _answered(self, response: Response) -> None:
        # a write is taken in once answered (Chromium never reports a keepalive one finished);
        # a read stays in flight until its body is in: the page renders from it
        if response.request.method in WRITES:
            self.in_flight.discard(response.request)

    def _opened(self, socket: WebSocket) -> None:
        self.sockets.add(socket)
        socket.on("close", self._closed)

    def _closed(self, socket: WebSocket) -> None:
        self.sockets.discard(socket)

    async def may_change(self, page: Page, within_ms: float) -> bool | None:
        if self.in_flight or self.sockets or page.workers:
            return True
        frames = page.frames
        if len(frames) > MAX_FRAMES:
            return True
        for frame in frames:
            try:
                due: Any = await frame.evaluate(NEXT_DUE_JS)
            except PlaywrightError:
                return True  # navigating, detached, or not readable: anything may happen
            if not isinstance(due, (int, float)) or 0 <= due <= within_ms:
                return True
        return False
