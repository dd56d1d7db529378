"""Changes made by timers set before an action are not the action's effect.

The ambient filter (agents/ambient.py) learns which elements change by themselves by seeing them
change while the agent is idle. It cannot know an element that has not changed yet: a live price
board of many rows, each on its own slow timer, keeps changing rows *for the first time* during
the first seconds on the page, so a dead click's window nearly always holds a price that was never
seen moving, and the click is credited with it. The page can say more than the changes: *who*
made a change.

This mechanism wraps the page's timers (`setTimeout`, `setInterval`, `requestAnimationFrame`,
an init script installed after the ambient filter's). A timer set while the agent acts belongs to
that action's window; one set while the agent is idle (the page's own start-up, a ticker) belongs
to none; a timer set inside a timer's callback belongs to that timer's window, so a chain of
`setTimeout`s and a `requestAnimationFrame` loop stay where they began. While a callback runs, the
changes it makes are filed under its window: a change made in an action's window by a timer of
another window is not that action's (the filter counts it as a change by itself: the element is a
suspect from then on, and ambient when it changes twice). When such changes are all that changed
in the window and the evidence is the page's text alone, the ambient filter vetoes the credited
effect as before, without a probe.

The same wrappers keep, for agents/pending_timers.py (when it is on: it sets the limit), the
timeouts an action's window set that have not fired yet (`window.__gbPendingTimers()`).

A timer's callback also runs as part of its chain (a `setInterval`, or a `setTimeout` or
animation-frame loop re-arming itself): a chain whose runs changed nothing is the page's render
loop, a drawer, and what it changes in an action's window, or first after its verdict, is the
action's (agents/ambient.py, "drawers"): a page that draws its state from its own loop is not
taken for a ticker.

Not seen (the window's, as without this mechanism): changes made in promise continuations,
network callbacks, message-channel tasks and event handlers, whatever started them. Taken for a
drawer until it changes the page while the agent is idle: a loop that checks often and changes
rarely (a clock polling the time). Needs `ambient`. Cost: a wrapper per timer callback (two
`takeRecords` calls around it)."""

from __future__ import annotations

from pydantic import BaseModel

from agents.pipeline import Mechanism

AMBIENT_TIMERS_JS = r"""
(() => {
  const A = window.__gbAmbient;
  if (!A || !A.origin) return;
  const wrap = (fn, origin, done) => {
    if (typeof fn !== "function") return fn;  // a string of code: left as it is
    const chain = A.chain();
    return function (...args) { if (done) done(); return A.run(origin, chain, fn, this, args); };
  };
  const timeout = window.setTimeout, interval = window.setInterval, frame = window.requestAnimationFrame;
  const clear = window.clearTimeout;
  // With agents/pending_timers.py (it sets __gbPendingLimit): the timeouts an action's window
  // set, at most that long, that have not fired yet.
  const pending = new Map();
  window.setTimeout = function (fn, delay, ...rest) {
    const origin = A.origin();
    const tracked = typeof fn === "function" && origin >= 0 && window.__gbPendingLimit !== undefined &&
      (Number(delay) || 0) <= window.__gbPendingLimit;
    let id = 0;
    id = timeout.call(window, wrap(fn, origin, tracked ? () => pending.delete(id) : null), delay, ...rest);
    if (tracked) pending.set(id, origin);
    return id;
  };
  window.clearTimeout = function (id) { pending.delete(id); return clear.call(window, id); };
  window.setInterval = function (fn, ...rest) { return interval.call(window, wrap(fn, A.origin()), ...rest); };
  if (frame) window.requestAnimationFrame = function (fn) { return frame.call(window, wrap(fn, A.origin())); };
  Object.defineProperty(window, "__gbPendingTimers", { value: () => {
    const now = A.origin();
    let n = 0;
    for (const origin of pending.values()) if (origin === now) n += 1;
    return n;
  } });
})();
"""


class AmbientTimersConfig(BaseModel):
    ambient_timers: bool = True


class AmbientTimers(Mechanism):
    name = "ambient_timers"

    def init_script(self) -> str | None:
        return AMBIENT_TIMERS_JS
