"""An action's short timers are part of its settle: the page's answer after a debounce is waited
for before the agent looks again.

A search box that suggests after a 260 ms debounce, a form that checks a field 300 ms after the
last key, a page that fakes its round trip with a timer: the settle (a frame, a quiet window, no
request in flight, at most `settle_ms`) ends while the page's answer is still a pending timer, so
the next observation sees the page before it answered. With vision the answer can land between
the observation and the vision pass, and vision's boxes then bind to nothing the observation
knows (a suggestion clicked at a point, by its subtitle).

With agents/ambient_timers.py the page's timers know the action window they were set in. This
mechanism has the page keep the timeouts an action's window set with a delay of at most
`pending_timers_ms` (600) until they fire or are cleared (a chain stays the action's: a timer set
inside such a timer's callback is tracked too). When the action's settle ends with some still
pending, the agent waits until none is (at most `pending_timers_max_ms`, 1500), then for the page
to settle again (quiet, requests answered). The step's `timers_ms` is that wait.

Not waited for: intervals and animation frames (a ticker, a loop), timeouts longer than the limit
(a toast that hides after 3 s), and what the page does after a promise or a network answer
without a timer. Needs `ambient_timers` (the wrappers) and so `ambient`."""

from __future__ import annotations

import time
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import BaseModel, Field

from agents.fingerprint import Fingerprint
from agents.pipeline import Episode, Mechanism, Step
from agents.settle import Read

PENDING_JS = "() => window.__gbPendingTimers ? window.__gbPendingTimers() : 0"
NONE_PENDING_JS = "() => !window.__gbPendingTimers || window.__gbPendingTimers() === 0"


class PendingTimersConfig(BaseModel):
    pending_timers: bool = True
    pending_timers_ms: int = Field(600, ge=0)  # the longest timeout an action set that is waited for
    pending_timers_max_ms: int = Field(1500, ge=0)  # the whole wait after a settle, at most


class PendingTimers(Mechanism):
    name = "pending_timers"

    def __init__(self, limit_ms: int, max_ms: int) -> None:
        self.limit_ms, self.max_ms = limit_ms, max_ms
        self.episode: Episode | None = None
        self.waiting = False  # the settle after the wait is under way (its hooks run again)
        self.waited_ms = 0.0

    def init_script(self) -> str | None:
        return f"Object.defineProperty(window, '__gbPendingLimit', {{ value: {self.limit_ms} }});"

    async def start(self, episode: Episode) -> None:
        self.episode = episode

    def settle_read(self) -> tuple[str, Any] | None:
        return None if self.waiting else (PENDING_JS, None)

    async def settled(self, page: Page, read: Read | None = None) -> bool:
        if self.waiting or self.episode is None:
            return False
        try:
            pending = read.value if read is not None else await page.evaluate(PENDING_JS)
        except PlaywrightError:
            return False
        if not pending:
            return False
        t0 = time.perf_counter()
        try:
            await page.wait_for_function(NONE_PENDING_JS, timeout=self.max_ms, polling=20)
        except PlaywrightError:  # (a timeout is one)
            pass  # still pending at the cap, or the page navigated: settle on what is there
        self.waiting = True
        try:
            await self.episode.settle()  # what the timers started: drawn, quiet, requests answered
        finally:
            self.waiting = False
        self.waited_ms += (time.perf_counter() - t0) * 1000
        return True

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        step.rec.timers_ms = round(self.waited_ms, 1)
        self.waited_ms = 0.0
