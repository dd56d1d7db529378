"""Validate stage: effectiveness, the third condition. Did the event produce the intended
mutation? Values must read back from the widget (a field's text, a native select's chosen
option, a slider set by keys: from its readout);
anything else must change the page (structure, text, frames, URL or field values), or, for a
target the DOM cannot see (canvas, closed shadow root), the pixels around the point where the
event landed. A change of the page's text made only by elements that change on their own (a
ticking clock: agents/ambient.py) is not an effect."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from agents.actions import (
    SELECTED_JS,
    AnyAction,
    Click,
    Finish,
    Read,
    Select,
    SetValue,
    Type,
    Wait,
    closest_option,
)
from agents.fingerprint import Fingerprint
from agents.input_formats import same_value

CLIP = (160.0, 80.0)
FAILED = frozenset({"stale_ref", "action_timeout", "action_error"})
HOVER_MS = 50  # how long the pointer rests on a point before its 'before' image
# The text an editing host holds (contenteditable: Playwright's `input_value` reads <input>,
# <textarea> and <select> only), or a frame's edited whole; null for an element that is neither.
EDITED_TEXT_JS = ("(e) => { const f = e.tagName === 'IFRAME' ? e.contentDocument?.body : e;"
                  " return f && f.isContentEditable ? f.innerText : null; }")
# An animation running anywhere in the document (a hover's colour fading in, a spinner) changes
# the pixels however soon it ends.
ANIMATING_JS = "() => document.getAnimations().some((a) => a.playState === 'running')"


async def hover_and_capture(page: Page, point: tuple[float, float],
                            may_change: Callable[[float], Awaitable[bool]] | None = None) -> tuple[bytes | None, bool]:
    """The pixels around a point with the pointer already over it, so a hover style is part of
    the 'before' image and cannot pass for an effect of the click. The pointer rests `HOVER_MS`
    first (a hover transition under way), unless `may_change(HOVER_MS)` says nothing could change
    the page meanwhile and no animation is running (the image is of a frame drawn after the move
    either way). Returns (the image, whether the rest was cut)."""
    try:
        await page.mouse.move(*point)
        cut = may_change is not None and not await may_change(HOVER_MS) \
            and not await page.evaluate(ANIMATING_JS)
        if not cut:
            await page.wait_for_timeout(HOVER_MS)
    except PlaywrightError:
        return None, False
    return await pixels_around(page, point), cut


async def pixels_around(page: Page, point: tuple[float, float]) -> bytes | None:
    """A small screenshot centred on a viewport point (clamped to the viewport)."""
    size = page.viewport_size or {"width": 1280, "height": 720}
    w, h = CLIP
    x = min(max(point[0] - w / 2, 0), size["width"] - w)
    y = min(max(point[1] - h / 2, 0), size["height"] - h)
    try:
        return await page.screenshot(clip={"x": x, "y": y, "width": w, "height": h})
    except PlaywrightError:
        return None


def _same_number(a: str, b: str) -> bool:
    try:
        return abs(float(a) - float(b)) < 1e-6
    except ValueError:
        return False


async def effect(page: Page, action: AnyAction, error_type: str, before: Fingerprint | None,
                 after: Fingerprint | None, pixels_before: bytes | None,
                 veto: Callable[[str], Awaitable[bool]] | None = None,
                 readout: str = "") -> tuple[bool, str]:
    """(effective, evidence): evidence names what changed — value, readout, the fingerprint
    parts, values, pixels — or why nothing counts. `veto` may refuse evidence that is not the
    action's (the ambient filter: text changed only by elements that change by themselves): it is
    then `ambient`, and only the pixels at the point can still show an effect. `readout`: what a
    set_value by keys left the control's readout showing (agents/stepper.py); the value is read
    back from there, since the control has none of its own (and may end where it started)."""
    if error_type in FAILED:
        # A click that timed out waiting for the navigation it started (a slow page load) still
        # landed: the URL moved. Anything short of that is a failed action.
        if error_type == "action_timeout" and isinstance(action, Click) and before is not None \
                and after is not None and before.url != after.url:
            return True, "url_after_timeout"
        return False, "action_failed"
    if isinstance(action, (Wait, Finish, Read)):
        return True, "no_mutation_expected"
    if isinstance(action, SetValue) and readout:
        ok = _same_number(readout, str(action.value))
        return ok, "readout" if ok else "readout_mismatch"
    if isinstance(action, (Type, SetValue)) and action.ref is not None:
        field = page.locator(f"aria-ref={action.ref}")
        try:
            now = await field.input_value(timeout=500)
        except PlaywrightError:
            try:  # not a form field: an editing host holds its text (a rich-text editor)
                now = await field.evaluate(EDITED_TEXT_JS, timeout=500)
            except PlaywrightError:
                now = None
        if now is not None:
            want = action.text if isinstance(action, Type) else str(action.value)
            ok = same_value(now, want) or (isinstance(action, SetValue) and _same_number(now, want))
            if ok or not (isinstance(action, Type) and action.then is not None):
                return ok, "value" if ok else "value_mismatch"
            # the key after the typing may take the text away (a tag made a chip, a message
            # sent, a search run from a box that empties): the page's change is the evidence
    if isinstance(action, Select) and action.ref is not None:
        # the option the value names is the one the select holds, whether or not choosing it
        # changed anything (a select the page preset to it: choosing it again is done, as typing
        # what a field already holds is)
        try:
            held = await page.locator(f"aria-ref={action.ref}").evaluate(SELECTED_JS, timeout=500)
        except PlaywrightError:
            held = None
        if held is not None:
            options, selected = held
            ok = closest_option(action.value, options) in [o.strip() for o in selected]
            return ok, "value" if ok else "value_mismatch"
    if before is None or after is None:
        return True, "navigated"  # the page was replaced mid-read: a navigation is an effect
    parts = before.differs(after)
    if parts:
        evidence = ",".join(parts)
    elif before.values != after.values:
        evidence = "values"
    elif before.changed_out_of_view(after):
        evidence = "changes"  # a long page changed where its text part does not look
    else:
        evidence = ""
    vetoed = veto is not None and before.values == after.values and await veto(evidence)
    if evidence and not vetoed:
        return True, evidence
    if pixels_before is not None and getattr(action, "point", None) is not None:
        now_pixels = await pixels_around(page, action.point)
        if now_pixels is not None and now_pixels != pixels_before:
            return True, "pixels"
    return False, "ambient" if vetoed else "none"
