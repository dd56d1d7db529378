"""Uncover: a target something else is drawn over is uncovered before the action, not pressed
through. The covering thing is usually a light-dismiss popup the agent's own typing opened (a
suggestion list over the form's button, a menu, a popover): Escape closes it (the WAI-ARIA
combobox, menu and dialog patterns), and a press on an empty corner of the page closes the ones
that only close on a click outside. Without this, the action waits out its whole timeout on a
target that cannot receive it.

Before an action that needs the pointer or the focus on an element of the page, the element on top
at the target's centre is asked for. The target is covered when that element is neither the
target, nor inside it or around it, nor its label, and belongs to a layer positioned out of the
flow (absolute, fixed) that is not the target's own drawing (a tick box painted over a hidden
input covers about the input's box; a popup is larger or elsewhere). Then, in turn: Escape (not while the
focus is in a search field, where Escape clears the field), a press on the page's corner if nothing
there takes a click; after each, the page settles and the target is asked for again. Recorded per
step in `uncovered`: `escape` or `click_away` when that uncovered the target, `still` when neither
did (the action is then tried as before). Cost: one page evaluate per targeted action; two more
and a settle per attempt when covered."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.actions import CLICK_AWAY_POINT, AnyAction, Click, Expand, Hover, Select, SetValue, Type
from agents.interactive import CENTRE_HIT_JS
from agents.marks import Mark
from agents.observation import StaleRefError
from agents.pipeline import Mechanism, Step

# Actions that reach the target with the pointer or the keyboard focus.
NEEDS_TARGET = (Click, Expand, Hover, Type, Select, SetValue)

# Whether a layer of the page is drawn over the element's centre: the element on top there is not
# the element, inside it or around it, nor its label, and lies in a box positioned out of the flow
# (absolute, fixed) that is not the element's own drawing (a tick box painted over a hidden input
# covers about the input's box; a popup is larger or elsewhere).
_COVERED_JS = """
(el) => {
  const hit = (CENTRE_HIT)(el), r = el.getBoundingClientRect();
  if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return false;
  if (el.labels && Array.from(el.labels).some((l) => l.contains(hit))) return false;
  let layer = null;
  for (let n = hit; n && !n.contains(el); n = n.parentElement) {
    if (["absolute", "fixed"].includes(getComputedStyle(n).position)) { layer = n; }
  }
  if (!layer) return false;
  const b = layer.getBoundingClientRect();
  const ix = Math.max(0, Math.min(r.right, b.right) - Math.max(r.left, b.left));
  const iy = Math.max(0, Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top));
  const inter = ix * iy, union = r.width * r.height + b.width * b.height - inter;
  return union > 0 && inter / union < 0.5;
}
""".replace("CENTRE_HIT", CENTRE_HIT_JS)

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
        if not await self._covered(step, mark):
            return
        rec, page = step.rec, step.page
        try:
            state = await page.evaluate(_STATE_JS, list(CLICK_AWAY_POINT))
        except PlaywrightError:
            return
        ways = ([] if state["search"] else ["escape"]) + ([] if state["cornerTakesClick"] else ["click_away"])
        for how in ways:
            if how == "escape":
                await page.keyboard.press("Escape")
            else:
                await page.mouse.click(*CLICK_AWAY_POINT)
            await step.episode.settle()
            if not await self._covered(step, mark):
                rec.uncovered, rec.actionable = how, True
                return
        rec.uncovered = "still"

    @staticmethod
    async def _covered(step: Step, mark: Mark) -> bool:
        assert mark.ref is not None
        try:
            return bool(await step.episode.refs.evaluate(step.page, mark.ref, mark.observation_id,
                                                         _COVERED_JS))
        except (PlaywrightError, StaleRefError):
            return False
