"""Click at rest: a click on an element that is where the step's observation saw it, on top there
and enabled, lands at once at its centre, without Playwright's wait for it to be stable.

Playwright's `click` first waits until the element's box has stayed the same over two animation
frames (about 33 ms at 60 frames a second, most of what a click costs), then hit-tests the point
and presses. The agent knows more than a bare click does: it read the page after a settle (a frame
and a quiet window with no change), and the element's box, read again as the action starts, is
still the one that reading recorded: the same box at both ends of the whole step (its perception,
its choice), where Playwright compares two frames. One page evaluation checks that, and that the element
is enabled and is what a press at its centre reaches (itself or something inside it: not covered,
not clipped, in view; in a frame, each frame up to the top document on top at that point too); the
mouse then presses at that centre, as Playwright's click would. Anything else (the box moved,
something else is on top, a label draws the control, an element of a frame of another origin, a
disabled one, a page that changed since it was read) takes Playwright's click with its waits, as
before.

Recorded per step in `at_rest`: the click (or the click that focused a field to type into) went at
once. Cost: one page evaluation per click on a ref; it saves two animation frames per click."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents import input_formats
from agents.actions import AnyAction, Click, Expand, Type
from agents.interactive import CENTRE_HIT_JS
from agents.observation import StaleRefError
from agents.pipeline import Mechanism, Step

# Actions that press on their target with the mouse.
PRESSING = (Click, Expand, Type)

# The viewport point to press at ([x, y], in the top document's viewport) when the element has the
# box the observation recorded (`box`: [x, y, width, height] in its own frame's viewport,
# Playwright's rounding, give or take a pixel), is not disabled, and is itself, or holds, what is on
# top at its centre (through shadow roots); in a frame, when each frame element up to the top
# document is on top at that point too (a frame of another origin cannot be seen through: null);
# else null. Never for an iframe itself (its document's body is the field: agents/editing_hosts.py),
# nor for an input of one of the `filled` types (a date field takes its value without a click).
_AT_REST_JS = """
(el, [box, filled]) => {
  if (el.localName === "iframe") return null;
  if (el.localName === "input" && filled.includes(el.type)) return null;
  if (el.matches(":disabled") || el.closest('[aria-disabled="true"], [inert]')) return null;
  const r = el.getBoundingClientRect();
  if (![r.x, r.y, r.width, r.height].every((v, i) => Math.abs(Math.round(v) - box[i]) <= 1)) return null;
  const within = (n, outer) => { for (; n; n = n.parentNode || n.host) if (n === outer) return true; return false; };
  if (!within((CENTRE_HIT)(el), el)) return null;
  let x = r.left + r.width / 2, y = r.top + r.height / 2;
  for (let w = window; w !== w.top; w = w.parent) {
    const f = w.frameElement;  // null across origins
    if (!f) return null;
    const fr = f.getBoundingClientRect(), cs = getComputedStyle(f);
    if (Math.abs(fr.width - f.offsetWidth) > 1 || Math.abs(fr.height - f.offsetHeight) > 1) return null;  // scaled
    if (x < 0 || y < 0 || x >= f.clientWidth || y >= f.clientHeight) return null;
    x += fr.left + f.clientLeft + parseFloat(cs.paddingLeft);
    y += fr.top + f.clientTop + parseFloat(cs.paddingTop);
    const root = f.getRootNode();
    if ((root.elementFromPoint ? root : f.ownerDocument).elementFromPoint(x, y) !== f) return null;
  }
  return [x, y];
}
""".replace("CENTRE_HIT", CENTRE_HIT_JS)


class ClickAtRestConfig(BaseModel):
    click_at_rest: bool = True


class ClickAtRest(Mechanism):
    name = "click_at_rest"

    async def press_point(self, step: Step, action: AnyAction) -> tuple[float, float] | None:
        ref = getattr(action, "ref", None)
        if not isinstance(action, PRESSING) or ref is None:
            return None
        refs = step.episode.refs
        try:
            element = refs.resolve(ref, action.observation_id)
            if element.box is None:
                return None
            box = element.box
            filled = sorted(input_formats.TYPED) if isinstance(action, Type) else []
            got = await refs.evaluate(step.page, ref, action.observation_id, _AT_REST_JS,
                                      [[box.x, box.y, box.width, box.height], filled])
        except (PlaywrightError, StaleRefError):
            return None  # Playwright's click says what is wrong
        if not (isinstance(got, list) and len(got) == 2):
            return None
        step.rec.at_rest = True
        return float(got[0]), float(got[1])
