"""Ambient changes: what a page changes on its own is not an action's effect.

A closing clock that counts tenths, a ticker or a live counter changes the page's text whether or
not the agent did anything, so a click that did nothing still "changed the page": the validator
credited it and the plan moved on past a dead button. This module tells the validator which of
the changes after an action the page makes by itself.

In the page (an init script, so every document and same-origin frame has it from its first
node), a MutationObserver (nodes, text and attributes) files each change under the element it
happened to. The agent marks the page right before each action, scrolls included; from the mark
to the verdict after the action's settle is the action's window. Outside windows the agent is
idle. A document's start-up is neither: the page files nothing until the agent's first settle on
it has ended, so a list rendered twice while loading is not taken for a ticker.

An element is
- ambient once it changed twice within one idle stretch (between a verdict and the next mark),
  or changed again by itself when probed (below);
- restless (a suspect) once it changed while the agent was idle, or in an earlier action's window.

A credited effect is vetoed (evidence `ambient`, so not effective) only when the evidence is the
page's text alone (`text` or `changes`: a new URL, a changed control set, frame content or a
field's value is an effect as before), the scroll position did not move, and either
- every element changed in the window is ambient, or
- nothing was seen to change in the window, the page changed by itself between the last verdict
  and the mark, and the body's text is the same at the verdict as at the mark: the text evidence
  is older than the action (the text is read at the mark only on a page that changed by itself).
When the window holds suspects and nothing new, they are probed: the agent waits up to
`ambient_probe_ms` for each to change again with nobody acting. A clock or a counter does and the
effect is vetoed; a quantity that two clicks in a row rewrote does not, and the effect stands (the
wait, the whole `ambient_probe_ms` then, is the step's `ambient_probe_ms`). With
agents/schedule.py a page that has nothing scheduled within the probe (no timer due, nothing in
flight) cannot change a suspect by itself: the probe is not made, the effect stands. Shadow roots are
observed as they are attached (the script wraps `attachShadow`), so a change inside a widget's
shadow root is seen as the widget's.

With agents/ambient_timers.py the page also says who made a change: a change made in the window
by a timer set before it (the page's own, or an earlier action's) is not the window's but a
change by itself (`foreign`); a window in which only such changes happened is a candidate as
well. A timer chain whose runs changed nothing is the page's render loop, a *drawer*: what it
changes in the window, or first within `DRAW_MS` of the verdict, is the action's; one not yet seen
quiet is watched for its next run before its change is vetoed (`drawn`). When the action changed
nothing in the window and the agent looks again later for a late effect, what changed since the
verdict is judged: only other timers (not drawers) or elements known to change by themselves is
no late effect (`late`); a window that itself changed is judged as the first time (without
ambient_timers, every second look is).

Not seen: an effect that lands only on an ambient element (a live region that also ticks); an
ambient element slower than the probe and the agent's pauses (a carousel turning every 5 s is
credited like before until it has turned twice while the agent waited); and, the other way, an
effect made by style alone (a `:focus-within` menu, no DOM change) while an ambient element
ticked in the same window is vetoed. Switched off (`agent.ambient=false`) nothing is installed in
the page."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import BaseModel, Field

from agents.pipeline import Episode, Mechanism, Step
from agents.settle import Read

# Installed before any page script. `acting`: the action's window (mark to verdict); `stretch`:
# changes per element since the last verdict or settle (the agent idle); `restless`: changed while
# the agent was idle, or in an earlier action's window; `ambient`: changed twice within one idle
# stretch, or again by itself when probed.
AMBIENT_JS = r"""
(() => {
  const state = { acting: false, counting: false, stretch: new Map(), ambient: new WeakSet(),
                  restless: new WeakSet(), touched: new Set(), suspects: [], scroll: [0, 0],
                  idleBefore: 0, markText: null, win: 0, foreign: new Set(), late: new Set(),
                  lateForeign: new Set(), timed: false, chains: new Set(), verdictAt: -1e9 };
  // With agents/ambient_timers.py: the window (its number; -1 the agent idle) in which the timer
  // whose callback is running now was set. null: no such callback is running (an event handler,
  // a promise, a network response: the window's, as without that mechanism).
  let cause = null;
  // ...and the chain that callback belongs to: a timer set inside a timer's callback continues
  // its chain, a setInterval is one chain. A chain whose runs have changed nothing (`quiet`) is
  // a drawer, a loop that draws the page's state when it changed (the page's render loop),
  // until it changes the page by itself (`noisy`: a second change after one mark while the agent
  // is idle, or one long after the verdict): what a drawer changes in an action's window, or in
  // its first changing run within DRAW_MS of the verdict, is the action's.
  let loop = null;
  const DRAW_MS = 500;
  const later = window.setTimeout.bind(window);  // the agent's own waits: not the page's timers
  // The element a change happened to (a shadow root's changes: its host's, at its top level).
  const elementOf = (node) => !node ? null : node.nodeType === 1 ? node : node.nodeType === 11 ? node.host
    : node.parentElement || (node.parentNode && node.parentNode.host) || null;
  const file = (records) => {
    const seen = new Set();
    for (const r of records) {
      const el = elementOf(r.target);
      if (!el || seen.has(el)) continue;
      seen.add(el);  // one delivery is one change of an element, however many records it made
      // A timer set before the action's window (by the page itself, or by an earlier action)
      // made this change: not the action's, a change by itself as when the agent is idle.
      const foreign = state.acting && cause !== null && cause !== state.win;
      if (state.acting && !foreign) { state.touched.add(el); continue; }
      if (!state.counting) continue;  // the document is still starting up
      if (foreign) { state.foreign.add(el); if (loop) state.chains.add(loop); }
      const n = (state.stretch.get(el) || 0) + 1;
      state.stretch.set(el, n);
      state.restless.add(el);
      if (n >= 2) state.ambient.add(el);
      // After the verdict, while the agent waits for a late effect of the action: changes of
      // the action's own timers or of unknown origin, apart from other timers' and from
      // elements known to change by themselves.
      if (!state.acting) {
        const own = (cause === null || cause === state.win) && !state.ambient.has(el);
        (own ? state.late : state.lateForeign).add(el);
        if (!own && loop && cause !== state.win) state.chains.add(loop);
      }
    }
  };
  const observer = new MutationObserver(file);
  const options = { subtree: true, childList: true, characterData: true, attributes: true };
  observer.observe(document, options);
  // A document-wide observer does not see into shadow roots: observe each one as it is attached
  // (open or closed; this script runs before the page's own).
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    observer.observe(root, options);
    return root;
  };
  Object.defineProperty(window, "__gbAmbient", { value: {
    mark() {
      file(observer.takeRecords());  // what happened before the mark was not the action's
      state.idleBefore = state.stretch.size;
      // The page changed by itself since the last verdict: keep its text, so a window in which
      // nothing was seen to change can tell whether the text moved anyway (a change the
      // observer cannot see, or style alone) or only before the mark.
      state.markText = state.idleBefore > 0 && document.body ? document.body.innerText : null;
      state.acting = true;
      state.win += 1;
      state.touched = new Set();
      state.foreign = new Set();
      state.late = new Set();
      state.lateForeign = new Set();
      state.chains = new Set();
      state.scroll = [scrollX, scrollY];
    },
    settled() {
      // The agent's settle ended. Outside an action's window that is the end of start-up (or of
      // a navigation's settle): counting starts afresh from here.
      if (state.acting) return;
      file(observer.takeRecords());
      state.counting = true;
      state.stretch = new Map();
    },
    verdict() {
      file(observer.takeRecords());  // queued changes belong to the window too
      const acting = state.acting;
      const touched = [...state.touched];
      const suspects = touched.filter((el) => state.restless.has(el) && !state.ambient.has(el));
      const other = touched.filter((el) => !state.restless.has(el)).length;
      const foreign = [...state.foreign].filter((el) => !state.touched.has(el)).length;
      const scrolled = state.scroll[0] !== scrollX || state.scroll[1] !== scrollY;
      // (only asked of a window in which nothing was seen to change)
      const textMoved = touched.length > 0 || state.markText === null || !document.body ||
        document.body.innerText !== state.markText;
      state.markText = null;
      state.acting = false;
      state.counting = true;
      state.touched = new Set();
      state.foreign = new Set();
      state.late = new Set();
      state.lateForeign = new Set();
      state.stretch = new Map();
      state.verdictAt = performance.now();
      state.suspects = suspects;
      for (const el of touched) state.restless.add(el);  // a suspect if it changes in a later window
      return { acting, changed: touched.length, other, restless: suspects.length, scrolled,
               idle_before: state.idleBefore, text_moved: textMoved, foreign };
    },
    // Since the verdict: elements changed by the action's own timers or by what is of unknown
    // origin; by other timers, or known to change by themselves; whether the view moved since
    // the mark.
    late() {
      file(observer.takeRecords());
      return { own: state.late.size, foreign: state.lateForeign.size, timed: state.timed,
               scrolled: state.scroll[0] !== scrollX || state.scroll[1] !== scrollY };
    },
    // For agents/ambient_timers.py: the window a timer set now belongs to, and a timer's
    // callback run as that window's (what it changed is filed under it, queued changes before).
    origin() { state.timed = true; return cause !== null ? cause : state.acting ? state.win : -1; },
    // ...the chain a timer set now continues, or a new one.
    chain() { return loop || { quiet: 0, noisy: false, drew: 0 }; },
    run(origin, chain, fn, self, args) {
      const outer = cause, outerLoop = loop;
      file(observer.takeRecords());
      cause = origin;
      loop = chain;
      try { return fn.apply(self, args); }
      finally {
        const records = observer.takeRecords();
        if (!records.length) chain.quiet += 1;
        else {
          const first = chain.drew !== state.win;  // its first changing run since the mark
          chain.drew = state.win;
          const soon = state.acting || performance.now() - state.verdictAt <= DRAW_MS;
          if (chain.quiet > 0 && !chain.noisy && (state.acting || (first && soon && state.win > 0))) {
            cause = state.win;
          } else if (state.counting && !state.acting && (!first || !soon)) chain.noisy = true;
        }
        file(records);
        cause = outer;
        loop = outerLoop;
      }
    },
    // Whether the timer chains that changed the page as not the action's since the mark are all
    // drawers (below), waiting up to `ms` for one not yet known to run again: a drawer's next
    // run changes nothing, a ticker's changes the page again.
    drawn(ms) {
      const chains = [...state.chains];
      const t0 = performance.now();
      const drawer = (c) => c.quiet > 0 && !c.noisy;
      if (!chains.length) return Promise.resolve(false);
      return new Promise((resolve) => {
        const look = () => {
          file(observer.takeRecords());
          if (chains.some((c) => c.noisy)) resolve(false);
          else if (chains.every(drawer)) resolve(true);
          else if (performance.now() - t0 >= ms) resolve(false);
          else later(look, 20);
        };
        look();
      });
    },
    // For the gating key (agents/ambient_key.py): what is known to change by itself, after
    // filing what is queued.
    sync() { file(observer.takeRecords()); },
    isAmbient(el) { return state.ambient.has(el); },
    probe(ms) {
      // Do the last window's restless elements change again by themselves (the agent idle)?
      const t0 = performance.now();
      return new Promise((resolve) => {
        const look = () => {
          file(observer.takeRecords());
          if (state.suspects.every((el) => state.stretch.get(el) >= 1)) {
            for (const el of state.suspects) state.ambient.add(el);
            resolve(true);
          }
          else if (performance.now() - t0 >= ms) resolve(false);
          else later(look, 20);
        };
        look();
      });
    },
  } });
})();
"""

MARK_JS = "() => window.__gbAmbient && window.__gbAmbient.mark()"
SETTLED_JS = "() => window.__gbAmbient && window.__gbAmbient.settled()"
PROBE_JS = "(ms) => window.__gbAmbient ? window.__gbAmbient.probe(ms) : false"
VERDICT_JS = "() => window.__gbAmbient ? window.__gbAmbient.verdict() : null"
LATE_JS = "() => window.__gbAmbient ? window.__gbAmbient.late() : null"
DRAWN_JS = "(ms) => window.__gbAmbient && window.__gbAmbient.drawn ? window.__gbAmbient.drawn(ms) : false"

# The only evidence a page's own changes can produce on their own (see agents/validator.py).
TEXT_ONLY = frozenset({"text", "changes"})


@dataclass(frozen=True)
class Window:
    """What changed in the top document between the mark and the verdict, by element."""

    changed: int  # elements changed
    other: int  # ...never seen changing before (by itself or in an earlier action's window)
    restless: int  # ...seen changing before, but not yet shown to change by itself
    scrolled: bool
    idle_before: int = 0  # elements the page changed between the last verdict and the mark
    text_moved: bool = True  # the body's text differs between the mark and the verdict
    foreign: int = 0  # elements changed in the window only by timers set before it (ambient_timers)

    @property
    def candidate(self) -> bool:
        """The view did not move, and what changed is either nothing of the action's own —
        only timers set before the window changed the page, or the page changed by itself
        before the mark and its text is the same at the verdict as at the mark, so the text
        evidence is older than the action — or only elements seen changing before."""
        if self.scrolled:
            return False
        if self.changed == 0:
            return self.foreign > 0 or (self.idle_before > 0 and not self.text_moved)
        return self.other == 0


class Watch:
    """The agent's side of one episode: marks actions, reads each window, judges credited
    effects. `probe_ms` is what the last judgement spent probing."""

    def __init__(self, probe_limit_ms: int) -> None:
        self.probe_limit_ms = probe_limit_ms
        self.window: Window | None = None
        self.probe_ms = 0.0
        # (agents/schedule.py) whether the page may change by itself within so many ms; a probe
        # of the suspects is cut when it cannot (`probe_cut`)
        self.may_change: Callable[[float], Awaitable[bool]] | None = None
        self.probe_cut = False
        self.acting = False  # between mark and verdict
        self.judged = False  # the window's effect was judged once (a second look waits for a late one)

    async def mark(self, page: Page, read: Read | None = None) -> None:
        """The action starts now: what changes from here until `verdict` is its window. `read`:
        MARK_JS already ran (with the other mechanisms' reads before an action)."""
        self.window = None
        self.acting = True
        if read is not None:
            return
        try:
            await page.evaluate(MARK_JS)
        except PlaywrightError:
            pass  # a page mid-navigation: its next document starts with no window (no veto)

    def settle_read(self) -> tuple[str, Any] | None:
        """SETTLED_JS as the next settle ends (outside an action only)."""
        return None if self.acting else (SETTLED_JS, None)

    async def settled(self, page: Page, read: Read | None = None) -> None:
        """The agent's settle has ended: outside an action, the page's changes count from here
        (inside one, a settle changes nothing: the verdict starts the next idle stretch). `read`:
        SETTLED_JS already ran as the settle ended."""
        if self.acting or read is not None:
            return
        try:
            await page.evaluate(SETTLED_JS)
        except PlaywrightError:
            pass

    async def verdict(self, page: Page) -> Window | None:
        """The action's window, and the end of it (the agent is idle again). None when the
        document was not marked (a new page since the mark)."""
        self.acting = False
        self.judged = False
        try:
            got = await page.evaluate(VERDICT_JS)
        except PlaywrightError:
            got = None
        self.window = None if not got or not got.get("acting") else Window(
            changed=int(got["changed"]), other=int(got["other"]), restless=int(got["restless"]),
            scrolled=bool(got["scrolled"]), idle_before=int(got["idle_before"]),
            text_moved=bool(got["text_moved"]), foreign=int(got.get("foreign", 0)))
        return self.window

    async def vetoes(self, page: Page, evidence: str) -> bool:
        """True when an effect credited on `evidence` (comma-separated parts) in the last window
        is the page's own change and not the action's (see the module's rules). Asked again
        for the same window (the agent waits for a late effect), the changes since the verdict
        are judged with it (`_late_vetoes`)."""
        self.probe_ms, self.probe_cut = 0.0, False
        window, again = self.window, self.judged
        self.judged = True
        if window is None or not evidence or not set(evidence.split(",")) <= TEXT_ONLY:
            return False
        if again:
            late = await self._late_vetoes(page, window)
            if late is not None:
                return late
            # (the page's timers unknown: the window is judged again as the first time)
        if not window.candidate:
            return False
        if window.changed == 0 and window.foreign > 0 and await self._drawn(page):
            return False  # what the page's render loop drew for the action
        if window.restless == 0:
            return True
        if self.may_change is not None and not await self.may_change(self.probe_limit_ms):
            self.probe_cut = True  # nothing the page scheduled can change a suspect again
            return False
        return await self._probe(page, PROBE_JS)

    async def _late_vetoes(self, page: Page, window: Window) -> bool | None:
        """With ambient_timers: nothing of the action's own changed since the window's verdict
        (only timers set before the action, or elements known to change by themselves), nothing
        changed in the window, and other timers changed the page since: what the agent sees late
        is the page's own, unless those timers are the page's render loops (`_drawn`). None when
        the window itself changed (what the agent sees late is that change, made after the
        settle's read: the window is judged as the first time, its suspects probed), or when the
        page's timers are not known (no timer was set through the wrappers, or ambient_timers is
        off)."""
        if window.scrolled or not (window.candidate or window.changed == 0):
            return False
        try:
            got = await page.evaluate(LATE_JS)
        except PlaywrightError:
            return False
        if not got or not got["timed"]:
            return None
        if got["scrolled"] or got["own"]:
            return False
        if (got["foreign"] > 0 or window.foreign > 0) and await self._drawn(page):
            return False
        if window.changed > 0:
            return None  # what is seen late is the window's own change, drawn after the settle's read
        return window.candidate or got["foreign"] > 0

    async def _drawn(self, page: Page) -> bool:
        """Whether the timers that changed the page since the mark, as not the action's, are all
        the page's render loops, which draw its state when something changed it: a loop whose
        runs changed nothing before, or whose next run (waited for up to `probe_limit_ms`, the
        wait added to `probe_ms`) changes nothing (a ticker's changes the page again)."""
        return await self._probe(page, DRAWN_JS)

    async def _probe(self, page: Page, js: str) -> bool:
        """A wait in the page of at most `probe_limit_ms` (`js` takes it), added to `probe_ms`."""
        t0 = time.perf_counter()
        try:
            return bool(await page.evaluate(js, self.probe_limit_ms))
        except PlaywrightError:
            return False
        finally:
            self.probe_ms += round((time.perf_counter() - t0) * 1000, 1)


class AmbientConfig(BaseModel):
    ambient: bool = True
    ambient_probe_ms: int = Field(500, ge=0)  # how long to watch a suspect for a change of its own


class Ambient(Mechanism):
    name = "ambient"

    def __init__(self, probe_ms: int) -> None:
        self.watch = Watch(probe_ms)

    def init_script(self) -> str | None:
        return AMBIENT_JS

    async def start(self, episode: Episode) -> None:
        self.watch.may_change = episode.may_change

    def settle_read(self) -> tuple[str, Any] | None:
        return self.watch.settle_read()

    async def settled(self, page: Page, read: Read | None = None) -> None:
        await self.watch.settled(page, read)  # (a read taken before another hook waited: None)

    def before_action_read(self) -> tuple[str, Any] | None:
        return MARK_JS, None

    async def before_action(self, page: Page, read: Read | None = None) -> None:
        await self.watch.mark(page, read)

    async def after_action(self, page: Page) -> None:
        await self.watch.verdict(page)

    async def vetoes(self, step: Step, evidence: str) -> bool:
        vetoed = await self.watch.vetoes(step.page, evidence)
        step.rec.ambient_probe_ms = self.watch.probe_ms
        step.rec.waits_cut += self.watch.probe_cut
        return vetoed
