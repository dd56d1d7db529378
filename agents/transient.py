"""Transient states: a page that is still loading is not yet the action's effect.

A click on "Next week" turns the button into "Loading…" within a few milliseconds; the settle
ends on that (the page is quiet between the button's change and the content's arrival, which
takes hundreds of milliseconds), the validator credits the new text as the effect, and the next
step acts on what was on the page before: the old week's slots, a result position the re-sort is
about to move. A page opening on placeholder cards under a spinner is the same at the start.

After every settle (the start page, each action, the agent's own scrolls) this module looks for
evidence that the page is in a transient state:
- an element marked `aria-busy="true"`;
- a progress indicator that is not finished (`<progress>` or `role=progressbar` without a value,
  or below its maximum);
- a short text saying the page is working ("Loading…", "Saving…", "Searching…", "Please wait":
  a word ending in -ing followed by an ellipsis, or loading / please wait);
- an endless CSS or Web animation on a rendered element (a spinner, an indeterminate bar, a
  skeleton's shimmer);
- a request of the page for content (a GET: fetch, XHR, document) still in flight.
Each is looked for in the document and in its same-origin frames (a card form in an iframe that
says "Processing…" after "Pay"). Only rendered elements count. With none of these the step goes
on at once (one evaluation per settle); with any, the agent waits until none is left, up to `transient_max_ms`, then for the page
to be quiet again, so the validator judges, and the next step perceives, what the page settled
on. With agents/schedule.py the wait also gives up as soon as the page has nothing scheduled that
could take the indicators away before the cap (two looks in a row; `rec.waits_cut`): a toast
saying "Exporting…" that no timer, request or animation will ever change is not waited on for
3 s. An indicator still there when the wait gives up (a decorative endless animation, a permanent
"Coming soon…", a long poll) is taken for part of the page and never waited on again in the
episode, so a page that always shows one costs the wait once. The step's `transient_ms` is the
time waited (its action's settle, and its own scrolls')."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Request
from pydantic import BaseModel, Field

from agents.fingerprint import Fingerprint
from agents.pipeline import Episode, Mechanism, Step
from agents.settle import QUIET_JS, Read

# The keys of the transient indicators rendered now, minus those in `known` (taken for part of
# the page). A key names the indicator by what it is, not by id or class (pages re-render them).
INDICATORS_JS = r"""
(known) => {
  const skip = new Set(known), out = new Set();
  const shown = (el) => {
    if (!el || !el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const add = (key) => { if (!skip.has(key)) out.add(key); };
  // The document and the documents of its same-origin frames (a payment form's "Processing…").
  const docs = [document];
  for (let i = 0; i < docs.length && docs.length < 20; i++) {
    for (const f of docs[i].querySelectorAll("iframe, frame")) {
      let d = null;
      try { d = f.contentDocument; } catch (e) { d = null; }
      if (d && shown(f)) docs.push(d);
    }
  }
  for (const document of docs) {
    for (const el of document.querySelectorAll('[aria-busy="true"]')) {
      if (shown(el)) add(`busy:${el.tagName}:${el.getAttribute("role") || ""}`);
    }
    for (const el of document.querySelectorAll('progress, [role="progressbar"]')) {
      if (!shown(el)) continue;
      let now, max;
      if (el.tagName === "PROGRESS") { now = el.hasAttribute("value") ? el.value : null; max = el.max; }
      else { const v = el.getAttribute("aria-valuenow"); now = v === null ? null : parseFloat(v);
             max = parseFloat(el.getAttribute("aria-valuemax") || "100"); }
      if (now === null || Number.isNaN(now) || now < max) add(`progress:${el.tagName}`);
    }
    const WORKING = /^(?:[\p{L}][\p{L}' ]{0,24}?ing\b[^\n]{0,30}?(?:…|\.\.\.)|(?:loading|please wait)\b[^\n]{0,30})$/iu;
    const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(), seen = 0; n && seen < 20000; n = walker.nextNode(), seen++) {
      const text = n.nodeValue;
      if (text.length > 60 || !(text.includes("…") || text.includes("...") || /loading|please wait/i.test(text))) continue;
      const t = text.trim();
      if (t && WORKING.test(t) && shown(n.parentElement)) add(`text:${t.toLowerCase()}`);
    }
    for (const a of document.getAnimations()) {
      if (a.playState !== "running") continue;
      const timing = a.effect && a.effect.getComputedTiming();
      if (!timing || Number.isFinite(timing.endTime)) continue;
      const el = a.effect.target;
      if (shown(el)) add(`animation:${a.animationName || a.id || "script"}:${el.tagName}`);
    }
  }
  return [...out];
}
"""

POLL_MS = 40
# A request in flight counts while it is one the page waits on for content (a GET of these types).
WAITED_ON = frozenset({"fetch", "xhr", "document"})


class TransientConfig(BaseModel):
    transient: bool = True
    # The longest wait for a transient state (spinner, "Loading…", aria-busy, a request in flight)
    # to pass after a settle; what is still there then is taken for part of the page.
    transient_max_ms: int = Field(3000, ge=0)
    # The quiet window waited for after the transient state passed (the content's own render).
    transient_quiet_ms: int = Field(60, ge=0)


class Transient(Mechanism):
    name = "transient"

    def __init__(self, max_ms: int, quiet_ms: int) -> None:
        self.max_ms = max_ms
        self.quiet_ms = quiet_ms
        self.known: set[str] = set()  # indicators that outlived a wait: part of the page
        self.in_flight: dict[Request, float] = {}
        self.waited_ms = 0.0  # since the last step's verdict
        self.cut = 0  # waits ended because nothing was scheduled to end the state (agents/schedule.py)
        self.episode: Episode | None = None

    async def start(self, episode: Episode) -> None:
        self.episode = episode
        page = episode.page
        page.on("request", self._sent)
        page.on("requestfinished", self._done)
        page.on("requestfailed", self._done)

    def _sent(self, request: Request) -> None:
        # a GET the page waits on for content; a POST is the page sending (a state write, a
        # beacon that may never report finished): what it waits on is shown by the other signs
        if request.resource_type in WAITED_ON and request.method == "GET":
            self.in_flight[request] = time.monotonic()

    def _done(self, request: Request) -> None:
        self.in_flight.pop(request, None)

    def _requests(self) -> set[str]:
        return {f"request:{r.url.split('?')[0]}" for r in self.in_flight} - self.known

    async def _indicators(self, page: Page) -> set[str] | None:
        try:
            return set(await page.evaluate(INDICATORS_JS, sorted(self.known))) | self._requests()
        except PlaywrightError:
            return None  # navigated mid-read: the next settle looks again

    def settle_read(self) -> tuple[str, Any] | None:
        return INDICATORS_JS, sorted(self.known)

    async def settled(self, page: Page, read: Read | None = None) -> bool:
        if read is not None and isinstance(read.value, list):  # read as the settle ended
            found: set[str] | None = set(read.value) | self._requests()
        else:
            found = await self._indicators(page)
        if not found:
            return False
        t0 = time.perf_counter()
        deadline = t0 + self.max_ms / 1000
        still = 0  # looks in a row that found nothing scheduled to take the indicators away
        while found and time.perf_counter() < deadline:
            left_ms = (deadline - time.perf_counter()) * 1000
            still = still + 1 if self.episode is not None and not await self.episode.may_change(left_ms) else 0
            if still >= 2:  # (twice, a poll apart: an answer just in runs its code first)
                self.cut += 1
                break
            await asyncio.sleep(POLL_MS / 1000)
            found = await self._indicators(page)
            if found is None:
                break
        if found:
            self.known |= found  # outlived the wait: a permanent part of this page
        else:
            try:  # what the transient state gave way to is drawn and quiet
                await asyncio.wait_for(page.evaluate(QUIET_JS, [self.quiet_ms, 500, 1000]), timeout=1.5)
            except (PlaywrightError, TimeoutError):
                pass
        self.waited_ms += (time.perf_counter() - t0) * 1000
        return True

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        step.rec.transient_ms = round(self.waited_ms, 1)
        step.rec.waits_cut += self.cut
        self.waited_ms, self.cut = 0.0, 0
