"""What the page has scheduled: a wait for the page to change ends once nothing can change it.

The agent waits for the page in four places where it cannot know how long: a transient state
("Saving…", a spinner) is waited out up to `transient_max_ms` (agents/transient.py); an action
that changed nothing is looked at again for a late effect up to `late_effect_ms` (or
`hover_intent_ms` after a hover), and after it the agent backs off before it tries again (the
dead-action guard wants its no-ops spread over time); the ambient filter probes a suspect for a
change of its own up to `ambient_probe_ms` (agents/ambient.py). On a page whose "Exporting…" toast never goes away, each of these waits
runs to its cap: 3 s for an indicator that nothing will take away, half a second for a click that
nothing will answer. A fifth, short one follows every action: the settle's quiet window (20 ms
without a DOM change after a frame, agents/settle.py), for what the page may still do just after.

A page changes by itself only through what it has scheduled: a timeout, an interval, an animation
frame, idle callback or scheduler task it asked for, a request in flight (its answer runs the
page's code), work of the browser it awaits (IndexedDB, the Cache API, Web Crypto), an open
WebSocket, a worker, a playing video, a finite CSS or Web animation (its end runs handlers), a
message posted to itself.
This mechanism has every document keep its timers (an init script wraps `setTimeout`,
`setInterval`, `requestAnimationFrame`, `requestIdleCallback`, `scheduler.postTask` and their
cancels: when each is due) and the promises and requests it awaits from the browser (until each is
back), and watches the page's sockets and workers and, through the settle, its requests. Asked whether the page may change
within the rest of a wait (`Episode.may_change`), it answers no only when nothing is in flight,
nothing is open, and no document of the page (every frame) has anything due before the wait would
end: then the wait would see the page as it is now, and it ends at once (`rec.waits_cut` counts
them). A timer due after the wait's end does not count (a toast that hides in 5 s, a session
that expires in an hour); an interval or an animation-frame loop does (a ticker keeps every wait
as long as before). The settle asks the same of the page's documents in its own script, as the
frame's rendering is over, and ends its quiet window there (`rec.quiet_cut`) unless a request was
sent or answered since the page last settled (`idle_settle`: not with a socket or worker open);
and it holds the window while a document waits for the browser's work (its answer runs the
page's code), as for a request in flight, up to the settle's cap.

A message posted to a channel or a window in the last 50 ms counts as work under way (a scheduler
that renders in slices, as React's does, posts one per slice). A frame whose document cannot be
read or lacks the wrappers answers "may change". Promise chains are not sources of their own
(each starts from one of the above). Cost: a wrapper per timer, and one
evaluation per frame when a wait asks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, WebSocket
from pydantic import BaseModel

from agents.pipeline import Episode, Mechanism

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
  // What the page waits for from the browser, in flight until it is back: a fetch and the reading
  // of its body, an XMLHttpRequest until its loadend, an IndexedDB open or transaction, the Cache
  // API, Web Crypto, an image bitmap, a font load. The page's own continuation of a promise runs
  // in the same microtask checkpoint as its count goes down, so a look between tasks sees either
  // the call pending or what the page did with its result.
  let pending = 0;
  const settled = (v) => { pending -= 1; return v; };
  const failed = (e) => { pending -= 1; throw e; };
  const track = (owner, names) => {
    for (const name of names) {
      const f = owner && owner[name];
      if (typeof f !== "function") continue;
      owner[name] = function (...a) {
        const p = f.apply(this, a);
        if (!p || typeof p.then !== "function") return p;
        pending += 1;
        return p.then(settled, failed);
      };
    }
  };
  track(window, ["fetch", "createImageBitmap"]);
  track(window.Response && Response.prototype, ["json", "text", "arrayBuffer", "blob", "formData"]);
  track(window.Cache && Cache.prototype, ["match", "matchAll", "add", "addAll", "put", "delete", "keys"]);
  track(window.CacheStorage && CacheStorage.prototype, ["match", "has", "open", "delete", "keys"]);
  track(window.SubtleCrypto && SubtleCrypto.prototype,
        ["encrypt", "decrypt", "sign", "verify", "digest", "generateKey", "deriveKey", "deriveBits",
         "importKey", "exportKey", "wrapKey", "unwrapKey"]);
  track(window.FontFaceSet && FontFaceSet.prototype, ["load"]);
  const until = (target, events) => {  // in flight until the first of `events`
    pending += 1;
    let open = true;
    const end = () => { if (open) { open = false; pending -= 1; } };
    for (const e of events) target.addEventListener(e, end, { once: true });
  };
  if (window.XMLHttpRequest) {
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...a) { until(this, ["loadend"]); return send.apply(this, a); };
  }
  if (window.IDBFactory) {
    const open = IDBFactory.prototype.open;
    IDBFactory.prototype.open = function (...a) { const r = open.apply(this, a); until(r, ["success", "error", "blocked"]); return r; };
    const transaction = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (...a) { const t = transaction.apply(this, a); until(t, ["complete", "abort", "error"]); return t; };
  }
  // A task posted through the page's scheduler runs after its delay.
  const sched = window.scheduler;
  if (sched && typeof sched.postTask === "function") {
    const postTask = sched.postTask.bind(sched);
    sched.postTask = function (fn, options, ...rest) {
      const key = {};
      timeouts.set(key, now() + Math.max(0, Number(options && options.delay) || 0));
      const run = typeof fn === "function" ? function (...a) { timeouts.delete(key); return fn.apply(this, a); } : fn;
      const p = postTask(run, options, ...rest);
      p.catch(() => timeouts.delete(key));  // aborted
      return p;
    };
  }
  // In how many ms the next thing this document scheduled is due: 0 for a frame, an idle callback,
  // what it waits for from the browser or a playing medium, the end of a finite animation under way (its end runs the page's
  // handlers); -1 for nothing at all.
  Object.defineProperty(window, "__gbNextDue", { value: () => {
    const t = now();
    if (frames.size || idles.size || pending > 0 || t - posted < 50) return 0;
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
      if (!timing || !Number.isFinite(timing.endTime)) continue;
      const rate = a.playbackRate || 1, at = Number(timing.localTime);  // played backwards: ends at 0
      const left = rate > 0 ? timing.endTime - at : at;
      next = Math.min(next, Number.isFinite(left) ? Math.max(0, left) / Math.abs(rate) : 0);
    }
    if (next <= 0) return 0;
    for (const m of document.querySelectorAll("video, audio")) if (!m.paused && !m.ended) return 0;
    return Number.isFinite(next) ? Math.max(0, next) : -1;
  } });
  // Whether the document waits for the browser's work (above): its answer runs the page's code.
  Object.defineProperty(window, "__gbAwaiting", { value: () => pending > 0 });
})();
"""

NEXT_DUE_JS = "() => window.__gbNextDue ? window.__gbNextDue() : null"
MAX_FRAMES = 20  # a page with more frames than this may change (not read)


class ScheduleConfig(BaseModel):
    schedule: bool = True


class Schedule(Mechanism):
    name = "schedule"

    def __init__(self) -> None:
        self.sockets: set[WebSocket] = set()
        self.in_flight: Callable[[], int] = lambda: 0  # the page's requests in flight (the settle's)

    def init_script(self) -> str | None:
        return SCHEDULE_JS

    async def start(self, episode: Episode) -> None:
        self.in_flight = episode.in_flight
        episode.page.on("websocket", self._opened)

    def _opened(self, socket: WebSocket) -> None:
        self.sockets.add(socket)
        socket.on("close", self._closed)

    def _closed(self, socket: WebSocket) -> None:
        self.sockets.discard(socket)

    def idle_settle(self, page: Page) -> bool:
        return not self.sockets and not page.workers

    async def may_change(self, page: Page, within_ms: float) -> bool | None:
        if self.in_flight() or self.sockets or page.workers:
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
