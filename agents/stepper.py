"""set_value on a control with no value to fill: a hand-made slider (a knob span with a tab stop),
an ARIA slider div, or a point vision found. Such controls take the keys a person would use, and
show their value somewhere: `aria-valuenow` on the focused element, or a number in text beside
the control. The stepper focuses the control, finds that readout by pressing one arrow key and
seeing which number moved, and presses the arrows the readout says are still needed, until it
shows the wanted number.

Page script only reads here (where the numbers are, what has focus), except one `focus()` on the
element a click at a point did not focus, as Playwright's own `Locator.focus` does."""

from __future__ import annotations

import math
from dataclasses import dataclass

from playwright.async_api import Locator, Page

from agents.interactive import FOCUSABLE

# A set_value never presses more keys than this (a slider of 0..400 in steps of 1, end to end).
MAX_PRESSES = 400
# Keys pressed before the readout is read again: pages update on each press, and one read per
# batch keeps the evaluates few while an overshoot (a step other than measured) stays small.
BATCH = 40
# The keys tried to find the readout, each with its pair (increase, decrease) as most sliders
# take it: a horizontal slider moves with Left/Right, a vertical one may only take Up/Down (jQuery
# UI and the ARIA practices move either with both pairs). A decreasing key is tried too: a
# control already at its top end does not move up.
PROBES = (("ArrowRight", ("ArrowRight", "ArrowLeft")), ("ArrowLeft", ("ArrowRight", "ArrowLeft")),
          ("ArrowUp", ("ArrowUp", "ArrowDown")), ("ArrowDown", ("ArrowUp", "ArrowDown")))

# The focusable part of a control: the element itself, its nearest focusable ancestor, or its
# first focusable descendant (a track holding a knob). Already focused (the page's own mousedown
# handler did it), it is left as is. Returns the focused element's centre, or null.
_FOCUS_JS = """
(el, sel) => {
  const centre = (n) => { const r = n.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
  const active = document.activeElement;
  if (active && active !== document.body && (active === el || active.contains(el) || el.contains(active)))
    return centre(active);
  const target = (el.matches(sel) ? el : null) || el.closest(sel) || el.querySelector(sel);
  if (!target) return null;
  target.focus();
  return document.activeElement === target ? centre(target) : null;
}
"""

# Whether `fill` can write the element's value: a text-like or range/number <input>, a
# <textarea>, an editable region.
_FILLABLE_JS = """
(el) => (el.tagName === "INPUT" && !["checkbox", "radio", "button", "submit", "reset", "file",
          "image", "hidden", "color"].includes(el.type))
        || el.tagName === "TEXTAREA" || el.isContentEditable
"""

# What may show the value: `aria-valuenow` (or an <input>'s value) of the focused element, and
# every short visible text holding one number, with where it is; texts are keyed by their order
# in the document, which a press that rewrites a number in place does not change.
_READ_JS = r"""
() => {
  const NUM = /[-\u2212]?\d[\d,]*(?:\.\d+)?/g;
  const parse = (s) => parseFloat(s.replace("\u2212", "-").replace(/,/g, ""));
  const a = document.activeElement;
  let own = null;
  if (a && a !== document.body) {
    const now = a.getAttribute("aria-valuenow");
    if (now !== null && now.trim() !== "" && !isNaN(parseFloat(now))) own = parseFloat(now);
    else if (a.tagName === "INPUT" && a.value.trim() !== "" && !isNaN(parseFloat(a.value))) own = parseFloat(a.value);
  }
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let i = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode(), i++) {
    const t = n.data.trim();
    if (!t || t.length > 32) continue;
    const found = t.match(NUM);
    if (!found || found.length !== 1) continue;
    const r = n.parentElement.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) continue;
    texts.push([i, parse(found[0]), r.left + r.width / 2, r.top + r.height / 2]);
  }
  return { own, texts };
}
"""


@dataclass(frozen=True)
class Reading:
    """One read of the page: the focused element's own value, and the numbers in short texts
    (key, value, x, y)."""

    own: float | None
    texts: tuple[tuple[int, float, float, float], ...]

    def text(self, key: int) -> float | None:
        return next((v for k, v, _, _ in self.texts if k == key), None)


@dataclass(frozen=True)
class Readout:
    """Where the value shows: the focused element's own value (key None) or a text's key."""

    key: int | None

    def value(self, reading: Reading) -> float | None:
        return reading.own if self.key is None else reading.text(self.key)


class SetValueError(ValueError):
    """The control took no value by keys: nothing to focus, no readout, or the value is out of
    its reach (beyond its ends, between its steps, or more presses away than allowed)."""


async def fillable(loc: Locator, timeout_ms: float) -> bool:
    return bool(await loc.evaluate(_FILLABLE_JS, timeout=timeout_ms))


async def focus_at(page: Page, point: tuple[float, float]) -> tuple[float, float]:
    """Click the point, as a person starts on a slider (a click on a track moves the knob there,
    which the stepping then corrects), and make sure the control there has the keyboard focus;
    where it is (the readout is looked for nearest to it)."""
    await page.mouse.click(*point)
    handle = await page.evaluate_handle("([x, y]) => document.elementFromPoint(x, y)", list(point))
    element = handle.as_element()
    centre = await element.evaluate(_FOCUS_JS, FOCUSABLE) if element is not None else None
    if centre is None:
        raise SetValueError("set_value: nothing at the point takes the keyboard focus")
    return centre[0], centre[1]


async def focus_element(loc: Locator, timeout_ms: float) -> tuple[float, float]:
    """Give the element (or the focusable part of it) the keyboard focus; where it is."""
    await loc.scroll_into_view_if_needed(timeout=timeout_ms)
    centre = await loc.evaluate(_FOCUS_JS, FOCUSABLE, timeout=timeout_ms)
    if centre is None:
        raise SetValueError("set_value: the element takes no keyboard focus and has no value to fill")
    return centre[0], centre[1]


async def read(page: Page) -> Reading:
    raw = await page.evaluate(_READ_JS)
    return Reading(raw["own"], tuple(tuple(t) for t in raw["texts"]))


def find_readout(before: Reading, after: Reading, near: tuple[float, float]) -> tuple[Readout, float] | None:
    """The readout a key press moved and by how much: the focused element's own value if it
    changed, else the changed number nearest to the control; None when no number moved."""
    if before.own is not None and after.own is not None and after.own != before.own:
        return Readout(None), after.own - before.own
    was = {k: v for k, v, _, _ in before.texts}
    moved = [(math.dist(near, (x, y)), k, v - was[k]) for k, v, x, y in after.texts
             if k in was and v != was[k]]
    if not moved:
        return None
    _, key, delta = min(moved)
    return Readout(key), delta


def presses_needed(now: float, want: float, step: float) -> int:
    """Signed presses of the increasing key from `now` to `want` with `step` per press; raises
    when `want` lies between two steps."""
    n = (want - now) / step
    if abs(n - round(n)) > 1e-6:
        raise SetValueError(f"set_value: {want:g} is not reachable in steps of {abs(step):g} "
                            f"from {now:g}")
    return round(n)


def same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


async def probe(page: Page, near: tuple[float, float]) -> tuple[Readout, float, tuple[str, str], Reading, int]:
    """Press the probe keys one at a time until a number moves: the readout, its step per press
    (positive), the keys (raise, lower), the last reading and the presses spent."""
    before = await read(page)
    for pressed, (key, pair) in enumerate(PROBES, 1):
        await page.keyboard.press(key)
        after = await read(page)
        found = find_readout(before, after, near)
        if found is not None:
            readout, delta = found
            raises = (delta > 0) == (key == pair[0])
            return readout, abs(delta), pair if raises else (pair[1], pair[0]), after, pressed
        before = after
    raise SetValueError("set_value: no number on the page moved with the arrow keys")


async def step_to(page: Page, want: float, near: tuple[float, float],
                  max_presses: int = MAX_PRESSES) -> str:
    """Press arrow keys on the focused control until its readout shows `want`; the readout's
    final value as text. One arrow press (up to four when the control takes only some arrows or
    sits at an end) finds the readout, one more toward the value measures the step; then
    batches of presses, each followed by one read, close in."""
    readout, step, keys, reading, pressed = await probe(page, near)
    now = readout.value(reading)
    first = True
    while now is not None and not same(now, want):
        # the first press toward the value measures the step again: the probe's press may have
        # been cut short at an end of the control
        n = (1 if want > now else -1) if first else presses_needed(now, want, step)
        if pressed + abs(n) > max_presses:
            raise SetValueError(f"set_value: {want:g} is {abs(n)} presses away from {now:g}, "
                                f"more than {max_presses}")
        batch = min(abs(n), BATCH)
        for _ in range(batch):
            await page.keyboard.press(keys[0] if n > 0 else keys[1])
        pressed += batch
        later = readout.value(await read(page))
        if later is None or same(later, now):
            raise SetValueError(f"set_value: the readout stays at {now:g}; {want:g} is out of "
                                "the control's reach")
        if first:
            step, first = abs(later - now), False
        now = later
    if now is None:
        raise SetValueError("set_value: the readout is gone from the page")
    return f"{now:g}"
