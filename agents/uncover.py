"""Uncover: a target something else is drawn over is uncovered before the action, not pressed
through. The covering thing is usually a light-dismiss popup the agent's own typing opened (a
suggestion list over the form's button, a menu, a popover): Escape closes it (the WAI-ARIA
combobox, menu and dialog patterns), and a press on an empty corner of the page closes the ones
that only close on a click outside. A modal layer that closes neither way (an offer over the whole
page, backdrop and all) is turned down with its own button. Without this, the action waits out its
whole timeout on a target that cannot receive it.

Before an action that needs the pointer or the focus on an element of the page, the element on top
at the target's centre is asked for. The target is covered when that element is neither the
target, nor inside it or around it, nor its label, and belongs to a layer positioned out of the
flow (absolute, fixed) that is not the target's own drawing (a tick box painted over a hidden
input covers about the input's box and says nothing but the input's words; a popup is larger,
elsewhere, or says words of its own: a one-item suggestion list about the size of the button). Then, in turn: Escape (not while the
focus is in a search field, where Escape clears the field), a press on the page's corner if nothing
there takes a click, and a press on the layer's button that turns it down (Cancel, Close, No
thanks, ×: tasks/text_match.py `turning_down`; never an accepting one, and none when a button of the
layer holds a word of the targets the plan has left: the plan goes on inside it); after each, the
page settles and the target is asked for again. What the action then changes is counted from the
page as uncovering left it (the step's fingerprint before the action is taken again). Recorded per
step in `uncovered`: `escape`, `click_away` or `dismiss: <button>` when that uncovered the target,
`still` when none did (the action is then tried as before). Cost: one page evaluate per targeted
action; a settle, a fingerprint and an evaluate per attempt when covered."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents import fingerprint
from agents.actions import CLICK_AWAY_POINT, AnyAction, Click, Expand, Hover, Select, SetValue, Type
from agents.interactive import CENTRE_HIT_JS, inject
from agents.marks import Mark
from agents.observation import StaleRefError
from agents.pipeline import Mechanism, Step
from tasks.text_match import turning_down

# Actions that reach the target with the pointer or the keyboard focus.
NEEDS_TARGET = (Click, Expand, Hover, Type, Select, SetValue)

# Whether a layer of the page is drawn over the element's centre: the element on top there is not
# the element, inside it or around it, nor its label, and lies in a box positioned out of the flow
# (absolute, fixed) that is not the element's own drawing (a tick box painted over a hidden input
# covers about the input's box and says nothing but the input's words; a popup is larger,
# elsewhere, or says words of its own).
_COVERED_JS = inject("""
(el) => {
  const hit = (CENTRE_HIT)(el), r = el.getBoundingClientRect();
  if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
  if (el.labels && Array.from(el.labels).some((l) => l.contains(hit))) return null;
  let layer = null;
  for (let n = hit; n && !n.contains(el); n = n.parentElement) {
    if (["absolute", "fixed"].includes(getComputedStyle(n).position)) { layer = n; }
  }
  if (!layer) return null;
  const b = layer.getBoundingClientRect();
  const ix = Math.max(0, Math.min(r.right, b.right) - Math.max(r.left, b.left));
  const iy = Math.max(0, Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top));
  const inter = ix * iy, union = r.width * r.height + b.width * b.height - inter;
  // About the element's box: its own drawing, unless it says words of its own (a one-item
  // suggestion list the size of the button under it)
  const says = (layer.innerText || "").trim().toLowerCase();
  const own = [el.innerText, el.value, el.getAttribute("aria-label"),
               ...Array.from(el.labels || [], (l) => l.innerText)]
    .some((t) => typeof t === "string" && t.trim() && t.toLowerCase().includes(says));
  if (!(union > 0 && inter / union < 0.5) && (!says || own)) return null;
  // The layer's own buttons, drawn and on top at their centres: what a person could press on it.
  const buttons = [];
  for (const btn of layer.querySelectorAll(__BUTTONS__)) {
    const c = btn.getBoundingClientRect();
    if (c.width <= 0 || c.height <= 0 || !(__DRAWN__)(btn)) continue;
    const x = c.left + c.width / 2, y = c.top + c.height / 2, top = document.elementFromPoint(x, y);
    if (!top || !(top === btn || btn.contains(top))) continue;
    buttons.push({ text: (__BUTTON_NAME__)(btn), x, y });
  }
  return { buttons };
}
""".replace("CENTRE_HIT", CENTRE_HIT_JS))

# The focus is in a search field (Escape would clear it), and whether a press at the corner
# would land on something that takes a click.
_STATE_JS = """
([x, y]) => {
  const a = document.activeElement;
  const at = document.elementFromPoint(x, y);
  const takes = !!at && (!!at.closest('a,button,input,select,textarea,summary,label,[onclick],[role],[tabindex]')
                         || getComputedStyle(at).cursor === 'pointer');
  return { search: !!a && a.type === 'search', cornerTakesClick: takes };
}
"""


class UncoverConfig(BaseModel):
    uncover: bool = True


class Uncover(Mechanism):
    name = "uncover"

    async def uncover(self, step: Step, mark: Mark, action: AnyAction) -> None:
        if mark.ref is None or "disabled" in mark.states or not isinstance(action, NEEDS_TARGET):
            return
        layer = await self._covering(step, mark)
        if layer is None:
            return
        rec, page = step.rec, step.page
        try:
            state = await page.evaluate(_STATE_JS, list(CLICK_AWAY_POINT))
        except PlaywrightError:
            return
        ways = ([] if state["search"] else ["escape"]) + ([] if state["cornerTakesClick"] else ["click_away"])
        for how in [*ways, "dismiss"]:
            if how == "escape":
                await page.keyboard.press("Escape")
            elif how == "click_away":
                await page.mouse.click(*CLICK_AWAY_POINT)
            else:
                # a layer that closes neither way (a modal offer over the page): its own button
                # that turns it down, never one that accepts, nor one the plan goes on to
                buttons = {b["text"]: b for b in layer["buttons"]}
                name = turning_down(list(buttons), step.plan_words())
                if name is None:
                    break
                await page.mouse.click(buttons[name]["x"], buttons[name]["y"])
                how = f"dismiss: {name}"
            await step.episode.settle()
            # what the action changes is counted from here, not from what the closing changed
            step.fp_before = await fingerprint.take(page)
            now = await self._covering(step, mark)
            if now is None:
                rec.uncovered, rec.actionable = how, True
                return
            layer = now
        rec.uncovered = "still"

    @staticmethod
    async def _covering(step: Step, mark: Mark) -> dict | None:
        """The layer drawn over the mark's element ({buttons: [{text, x, y}]}), or None."""
        assert mark.ref is not None
        try:
            return await step.episode.refs.evaluate(step.page, mark.ref, mark.observation_id, _COVERED_JS)
        except (PlaywrightError, StaleRefError):
            return None
