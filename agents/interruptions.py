"""Interruptions: a popup the plan does not mention, brought up by the agent's own action, that
leaves the subgoal's target disabled or covered ("Your session is about to expire. Leave this
page?" with Leave / Stay, shown when a field takes the focus), is answered with its dismissing
choice before the subgoal goes on. Without this, the action waits out its timeout on a disabled
field, and the next look finds no target at all (the popup hides it).

How the agent knows the popup is an interruption, judged after every action of the agent:
- it appeared with the action: buttons a person could not see before it and can now, in one
  layer (a dialog, or a box positioned out of the flow: absolute, fixed); a dialog the page kept
  unseen until then (hidden, visibility hidden, opacity 0) appears as much as one it inserts;
- it is not what the plan goes on to: no word of its buttons is a word of the targets and labels
  the plan has left (a confirmation the plan expects, "Delete" for a "Delete button", is not one);
- it stands in the plan's way: controls of the page were disabled with it, or it is drawn over
  the target just acted on;
- it can be turned down: one of its buttons says Cancel, Close, No, Not now, Stay, × (the accepting
  one, OK / Yes / Leave / Exit, is never pressed).
The next step then presses that button instead of following the plan, and the plan's subgoal is
tried again. Recorded per step in `interruption`: `appeared` on the action's step, `dismissed:
<button>` on the step that answered it (`stayed: <button>` when the popup did not go away).
Cost: one page evaluate per action of the agent (buttons by their text content and place), a
second when the fingerprint's control set changed; one click and a settle per interruption."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import BaseModel

from agents.actions import AnyAction
from agents.fingerprint import Fingerprint
from agents.interactive import inject
from agents.pipeline import Mechanism, Step
from agents.settle import Read
from tasks.text_match import turning_down

# What counts as a button of the page, and how one is known across the action: its words and its
# place (a popup's "OK" is not the form's "OK"). Only buttons a person can see count: a popup kept in
# the page unseen (visibility hidden, faded to opacity 0, as modal libraries keep their dialogs)
# brings its buttons when it is shown, not before.
_BUTTONS_JS = inject(r"""
() => {
  const sel = __BUTTONS__, drawn = __DRAWN__, nameOf = __BUTTON_NAME__;
  const buttons = [];
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || !drawn(el)) continue;
    const text = nameOf(el);
    buttons.push(text + '@' + Math.round(r.x / 4) + ',' + Math.round(r.y / 4));
  }
  const disabled = document.querySelectorAll(
    'input:disabled, button:disabled, select:disabled, textarea:disabled, [aria-disabled=true]').length;
  return { buttons, disabled };
}
""")

# The layer the new buttons appeared in (the nearest dialog or positioned box around the first
# of them) and the buttons it holds, or null.
_LAYER_JS = inject(r"""
(before) => {
  const known = new Set(before);
  const sel = __BUTTONS__, drawn = __DRAWN__, nameOf = __BUTTON_NAME__;
  const seen = [];
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || !drawn(el)) continue;
    const text = nameOf(el);
    const key = text + '@' + Math.round(r.x / 4) + ',' + Math.round(r.y / 4);
    seen.push({ el, text, key, x: r.x + r.width / 2, y: r.y + r.height / 2 });
  }
  const fresh = seen.filter((b) => !known.has(b.key));
  if (!fresh.length) return null;
  let layer = null;
  for (let n = fresh[0].el.parentElement; n && n !== document.body && !layer; n = n.parentElement) {
    if (n.tagName === 'DIALOG' || ['dialog', 'alertdialog'].includes(n.getAttribute('role'))
        || ['absolute', 'fixed'].includes(getComputedStyle(n).position)) layer = n;
  }
  if (!layer) return null;
  const r = layer.getBoundingClientRect();
  const disabled = document.querySelectorAll(
    'input:disabled, button:disabled, select:disabled, textarea:disabled, [aria-disabled=true]').length;
  return {
    box: [r.x, r.y, r.width, r.height], disabled,
    buttons: seen.filter((b) => layer.contains(b.el)).map((b) => ({ text: b.text, x: b.x, y: b.y, fresh: !known.has(b.key) })),
  };
}
""")

# Where a button of that name is now (the popup may have moved), or null when it is gone.
_FIND_JS = inject(r"""
(name) => {
  const sel = __BUTTONS__, drawn = __DRAWN__, nameOf = __BUTTON_NAME__;
  for (const el of document.querySelectorAll(sel)) {
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || !drawn(el)) continue;
    const text = nameOf(el);
    if (text === name) return [r.x + r.width / 2, r.y + r.height / 2];
  }
  return null;
}
""")


class InterruptionsConfig(BaseModel):
    interruptions: bool = True


@dataclass(frozen=True)
class Interruption:
    """A popup judged an interruption, and the button that turns it down."""

    dismiss: str


class Interruptions(Mechanism):
    name = "interruptions"

    def __init__(self) -> None:
        self._before: dict | None = None
        self._pending: Interruption | None = None

    def before_action_read(self) -> tuple[str, Any] | None:
        return _BUTTONS_JS, None

    async def before_action(self, page: Page, read: Read | None = None) -> None:
        if read is not None:
            self._before = read.value
            return
        try:
            self._before = await page.evaluate(_BUTTONS_JS)
        except PlaywrightError:
            self._before = None

    def acted(self, step: Step, action: AnyAction, settled: asyncio.Future[Fingerprint | None]) -> None:
        """(the judgement waits for the settled page: `validated`)"""

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        if self._before is None or self._pending is not None:
            return
        if before is not None and after is not None and "dom" not in before.differs(after) \
                and before.values == after.values:
            return  # no control appeared, went or changed state: no new buttons, none disabled
        try:
            layer = await step.page.evaluate(_LAYER_JS, self._before["buttons"])
        except PlaywrightError:
            return
        found = interruption(layer, self._before["disabled"], _target_box(step), step.plan_words())
        if found is not None:
            self._pending, step.rec.interruption = found, "appeared"

    async def run_step(self, step: Step) -> bool:
        pending, self._pending = self._pending, None
        if pending is None:
            return False
        page, rec, episode = step.page, step.rec, step.episode
        try:
            at = await page.evaluate(_FIND_JS, pending.dismiss)
        except PlaywrightError:
            return False
        if at is None:
            return False  # it went away by itself
        step.advance = 0
        rec.action, rec.target_role, rec.target_name = "click", "button", pending.dismiss
        await episode.before_action()
        self._before = None  # this click is no action of the plan's: nothing to judge after it
        await page.mouse.click(*at)
        await episode.settle()
        for m in episode.mechanisms:
            await m.after_action(page)
        gone = await page.evaluate(_FIND_JS, pending.dismiss) is None
        rec.effective, rec.effect = gone, "dismissed" if gone else ""
        rec.interruption = f"{'dismissed' if gone else 'stayed'}: {pending.dismiss}"
        if not gone:
            rec.error_type, rec.error = "no_effect", "the interruption did not go away"
        episode.fresh_required = True  # what was perceived had the popup over it
        episode.history.append(f"dismiss {pending.dismiss} -> {'closed the popup' if gone else 'no effect'}")
        return True


def interruption(layer: dict | None, disabled_before: int, target: tuple[float, ...] | None,
                 plan: set[str]) -> Interruption | None:
    """Whether a layer that appeared with an action is an interruption (see the module's
    docstring), and the button that turns it down."""
    if not layer or not any(b["fresh"] for b in layer["buttons"]):
        return None
    in_the_way = layer["disabled"] > disabled_before or (target is not None and _overlap(layer["box"], target))
    if not in_the_way:
        return None
    no = turning_down([b["text"] for b in layer["buttons"]], plan)
    return Interruption(no) if no else None


def _overlap(a: list[float], b: tuple[float, ...]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _target_box(step: Step) -> tuple[float, ...] | None:
    mark = step.choice.mark if step.choice is not None else None
    return None if mark is None else (mark.box.x, mark.box.y, mark.box.width, mark.box.height)
