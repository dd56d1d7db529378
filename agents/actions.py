"""Act stage: the closed action vocabulary as pydantic models, executed through `aria-ref=`
locators of the observation that produced the ref. There is no action that runs page JavaScript
(a set_value by keys reads the page to find its readout: agents/stepper.py)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Annotated, Literal
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agents import input_formats, stepper
from agents.observation import RefBook, StaleRefError


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Targeted(_Action):
    """A target is a ref of one observation, or (degraded route) a viewport point in CSS px."""

    ref: str | None = None
    observation_id: int = 0
    point: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _one_target(self) -> _Targeted:
        if (self.ref is None) == (self.point is None):
            raise ValueError("a targeted action needs exactly one of ref or point")
        return self


class Click(_Targeted):
    kind: Literal["click"] = "click"


class Type(_Targeted):
    kind: Literal["type"] = "type"
    text: str
    clear: bool = True
    then: Literal["enter", "escape", "click_away"] | None = None


class Select(_Targeted):
    kind: Literal["select"] = "select"
    value: str


class SetValue(_Targeted):
    kind: Literal["set_value"] = "set_value"
    value: float | str


class Expand(_Targeted):
    kind: Literal["expand"] = "expand"


class Read(_Targeted):
    kind: Literal["read"] = "read"


class Hover(_Targeted):
    """Rest the pointer on the target (a menu that opens on hover)."""

    kind: Literal["hover"] = "hover"


class Drag(_Targeted):
    """Press on the target, move onto another (`to_ref` of the same observation, or `to_point`)
    or by `offset` (dx, dy) CSS px, release: real mouse events all the way."""

    kind: Literal["drag"] = "drag"
    to_ref: str | None = None
    to_point: tuple[float, float] | None = None
    offset: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _one_destination(self) -> Drag:
        if sum(x is not None for x in (self.to_ref, self.to_point, self.offset)) != 1:
            raise ValueError("a drag needs exactly one of to_ref, to_point or offset")
        return self


class Scroll(_Action):
    """Scroll the page by `pixels` in `direction`; with `within` (a ref) or `point`, the wheel
    turns over that element or point, so the scroller under it moves (a list, a strip); with `ref`,
    scroll until that element is in view."""

    kind: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"] = "down"
    pixels: int = 600
    ref: str | None = None
    within: str | None = None
    point: tuple[float, float] | None = None
    observation_id: int = 0

    @property
    def delta(self) -> tuple[float, float]:
        return {"down": (0.0, self.pixels), "up": (0.0, -self.pixels),
                "right": (self.pixels, 0.0), "left": (-self.pixels, 0.0)}[self.direction]


def web_url(url: str | None) -> bool:
    """An http(s) URL: `javascript:` would run page script, `data:`/`file:` leave the sites."""
    return bool(url) and urlsplit(url).scheme.lower() in ("http", "https")


class Navigate(_Action):
    kind: Literal["navigate"] = "navigate"
    url: str

    @field_validator("url")
    @classmethod
    def _web_only(cls, url: str) -> str:
        if not web_url(url):
            raise ValueError(f"navigate needs an http(s) URL, not {url[:40]!r}")
        return url


class Back(_Action):
    kind: Literal["back"] = "back"


class Wait(_Action):
    kind: Literal["wait"] = "wait"
    seconds: float = Field(0.5, ge=0, le=30)


class Finish(_Action):
    kind: Literal["finish"] = "finish"
    answer: str = ""


AnyAction = (Click | Type | Select | SetValue | Expand | Read | Hover | Drag | Scroll | Navigate | Back
             | Wait | Finish)
Action = Annotated[AnyAction, Field(discriminator="kind")]
MUTATING = frozenset({"click", "type", "select", "set_value", "expand", "navigate", "back", "scroll",
                      "hover", "drag"})

# Where "click away" lands: the page's top-left margin, outside any control in normal layouts.
CLICK_AWAY_POINT = (2, 2)


def closest_option(wanted: str, options: list[str]) -> str:
    """The option whose visible text is the wanted value, ignoring case and surrounding words."""
    norm = wanted.strip().lower()
    exact = [o for o in options if o.strip().lower() == norm]
    if exact:
        return exact[0].strip()
    containing = sorted((o for o in options if norm in o.lower()), key=len)
    return containing[0].strip() if containing else wanted


# A native <select>'s options as they read (null for any other element: a select the page draws).
_OPTIONS_JS = "(el) => el.localName === 'select' ? [...el.options].map((o) => o.label || o.text) : null"
# ...and the ones it holds now: [options, selected] (null for any other element).
SELECTED_JS = ("(el) => el.localName === 'select' ? [[...el.options].map((o) => o.label || o.text),"
               " [...el.selectedOptions].map((o) => o.label || o.text)] : null")


class NoSuchOptionError(ValueError):
    """A select drawn by the page opened a list, and none of its options is the value asked for."""


async def choose_from_popup(page: Page, loc: Locator, value: str, timeout_ms: float) -> None:
    """A select the page draws itself (a button or a combobox opening a list box of its own, as
    design systems build them: no <select>, no <option> to pick by value): opened by a click, and
    the option showing the value clicked in the list it opened. A list that does not show the
    value is closed again (Escape), and the value is reported missing."""
    await loc.click(timeout=timeout_ms)
    shown = page.get_by_role("option").filter(visible=True)
    await shown.first.wait_for(state="visible", timeout=timeout_ms)
    names = [n.strip() for n in await shown.all_inner_texts()]
    chosen = closest_option(value, names)
    if chosen not in names:
        await page.keyboard.press("Escape")
        raise NoSuchOptionError(f"no option {value!r} in the list it opened ({', '.join(names[:8])})")
    await shown.nth(names.index(chosen)).click(timeout=timeout_ms)


async def locator_for(page: Page, refs: RefBook, ref: str, observation_id: int) -> Locator:
    """The live element behind a ref; raises StaleRefError for a ref of another observation."""
    return await refs.live(page, ref, observation_id)


async def execute(page: Page, refs: RefBook, action: AnyAction, timeout_ms: float = 3000,
                  at: tuple[float, float] | None = None) -> str:
    """Run one action; returns text for `read`, the readout a set_value by keys reached (else
    ""). `at`: a viewport point where a click on the action's element (or the click that focuses
    a field to type into) presses at once, checked by the caller (agents/click_at_rest.py);
    without it the locator's click waits for the element to be actionable. The observation is
    spent afterwards, unless the action was refused before touching the page (a stale ref)."""
    for ref in _refs_of(action):
        refs.resolve(ref, action.observation_id)  # type: ignore[union-attr]
    try:
        return await _execute(page, refs, action, timeout_ms, at)
    finally:
        if action.kind in MUTATING:
            refs.spend()


def _refs_of(action: AnyAction) -> list[str]:
    refs = [getattr(action, name, None) for name in ("ref", "within", "to_ref")]
    return [r for r in refs if r is not None]


async def _centre(loc: Locator, timeout_ms: float) -> tuple[float, float]:
    """The element's centre in the viewport, after scrolling it into view."""
    await loc.scroll_into_view_if_needed(timeout=timeout_ms)
    box = await loc.bounding_box(timeout=timeout_ms)
    if box is None:
        raise PointActionError("the element has no box on the page")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


# The element's nearest ancestor (or itself) that scrolls along the axis: a list, a strip, a table
# body; the document's scrolling element when none does.
_SCROLLER_JS = """
(el, horizontal) => {
  const scrolls = (n) => {
    const cs = getComputedStyle(n), ov = horizontal ? cs.overflowX : cs.overflowY;
    return /(auto|scroll|overlay)/.test(ov)
      && (horizontal ? n.scrollWidth > n.clientWidth : n.scrollHeight > n.clientHeight);
  };
  for (let n = el; n; n = n.parentElement || n.getRootNode().host || null) {
    if (n === document.body || n === document.documentElement) break;
    if (scrolls(n)) return n;
  }
  return document.scrollingElement || document.documentElement;
}
"""


async def _scroller_point(page: Page, loc: Locator, direction: str, timeout_ms: float) -> tuple[float, float]:
    """Where the wheel turns to scroll the container an element sits in: the middle of what is
    visible of that container (the element itself may be clipped out of view, and scrolling it
    into view first would undo the scroll)."""
    handle = await loc.evaluate_handle(_SCROLLER_JS, direction in ("left", "right"), timeout=timeout_ms)
    element = handle.as_element()
    box = await element.bounding_box() if element is not None else None
    size = page.viewport_size or {"width": 1280, "height": 720}
    if box is None:
        return size["width"] / 2, size["height"] / 2
    x0, x1 = max(box["x"], 0), min(box["x"] + box["width"], size["width"])
    y0, y1 = max(box["y"], 0), min(box["y"] + box["height"], size["height"])
    if x1 <= x0 or y1 <= y0:  # the container itself is out of view: bring it in first
        return await _centre(loc, timeout_ms)
    return (x0 + x1) / 2, (y0 + y1) / 2


async def _drag(page: Page, refs: RefBook, action: Drag, timeout_ms: float) -> None:
    if action.point is not None:
        start = action.point
    else:
        assert action.ref is not None
        start = await _centre(await locator_for(page, refs, action.ref, action.observation_id), timeout_ms)
    if action.to_ref is not None:
        dest = await locator_for(page, refs, action.to_ref, action.observation_id)
        end = await _centre(dest, timeout_ms)
        box = await dest.bounding_box(timeout=timeout_ms)
        if box is not None:
            # a sortable list puts the dragged item in the target's place only once it passes the
            # target's middle in the direction of travel: aim a little past it, inside its box
            dx, dy = end[0] - start[0], end[1] - start[1]
            if abs(dy) >= abs(dx):
                end = (end[0], end[1] + math.copysign(DROP_PAST * box["height"], dy))
            else:
                end = (end[0] + math.copysign(DROP_PAST * box["width"], dx), end[1])
    elif action.to_point is not None:
        end = action.to_point
    else:
        assert action.offset is not None
        end = (start[0] + action.offset[0], start[1] + action.offset[1])
    await drag(page, start, end)


async def _execute(page: Page, refs: RefBook, action: AnyAction, timeout_ms: float,
                   at: tuple[float, float] | None = None) -> str:
    if isinstance(action, Drag):
        await _drag(page, refs, action, timeout_ms)
        return ""
    if isinstance(action, _Targeted) and action.point is not None:
        return await _execute_at_point(page, action, action.point)
    if isinstance(action, Scroll) and (action.within is not None or action.point is not None):
        point = action.point
        if action.within is not None:
            loc = await locator_for(page, refs, action.within, action.observation_id)
            point = await _scroller_point(page, loc, action.direction, timeout_ms)
        assert point is not None
        await page.mouse.move(*point)
        await page.mouse.wheel(*action.delta)
        return ""
    ref = action.ref if isinstance(action, (_Targeted, Scroll)) else None
    loc = await locator_for(page, refs, ref, action.observation_id) if ref is not None else None
    match action:
        case Click() | Expand() if at is not None:
            await page.mouse.click(*at)
        case Click() | Expand():
            await loc.click(timeout=timeout_ms)
        case Type():
            # (a press point is given for no frame and no field filled by its wire format: the
            # input's type is not needed then)
            kind = "" if at is not None else await refs.evaluate(page, ref, action.observation_id, INPUT_TYPE_JS)
            if kind == "iframe":  # a frame edited whole (an editor's <body>): its body is the field
                loc = loc.content_frame.locator("body")
            await type_into(loc, kind, action.text, timeout_ms,
                            lambda: _field(page, refs, ref, action.observation_id), clear=action.clear, at=at)
            if action.then == "enter":
                await loc.press("Enter", timeout=timeout_ms)
            elif action.then == "escape":
                await loc.press("Escape", timeout=timeout_ms)
            elif action.then == "click_away":
                await page.mouse.click(*CLICK_AWAY_POINT)
        case Select():
            options = await loc.evaluate(_OPTIONS_JS, timeout=timeout_ms)
            if options is not None:
                await loc.select_option(label=closest_option(action.value, options), timeout=timeout_ms)
            else:
                await choose_from_popup(page, loc, action.value, timeout_ms)
        case SetValue() if await stepper.fillable(loc, timeout_ms):
            await loc.fill(str(action.value), timeout=timeout_ms)
        case SetValue():
            # a slider with no value to fill (an ARIA slider div, a knob): by keys
            near = await stepper.focus_element(loc, timeout_ms)
            return await stepper.step_to(page, _number(action.value), near)
        case Read():
            return await loc.inner_text(timeout=timeout_ms)
        case Hover():
            await loc.hover(timeout=timeout_ms)
        case Scroll() if loc is not None:
            await loc.scroll_into_view_if_needed(timeout=timeout_ms)
        case Scroll():
            await page.mouse.wheel(*action.delta)
        case Navigate():
            await page.goto(action.url)
        case Back():
            await page.go_back()
        case Wait():
            await asyncio.sleep(action.seconds)
        case Finish():
            pass
    return ""


async def type_into(loc: Locator, kind: str, text: str, timeout_ms: float,
                    field: Callable[[], Awaitable[tuple[bool, bool]]], clear: bool = True,
                    at: tuple[float, float] | None = None) -> None:
    """Type as a person does: a date or time field (`kind`, an input's type) takes its wire
    format, not the keys of a display format; any other field is clicked (at `at` when given,
    see `execute`), cleared when `clear` and `field` ((empty, focused), read after the click) says
    it holds something, and typed into key by key: where the keyboard's focus is when the click
    left it on the field, else through the locator, which focuses the field first."""
    value = input_formats.wire(kind, text) if kind in input_formats.TYPED else None
    if value is not None:
        await loc.fill(value, timeout=timeout_ms)
        return
    if at is not None:
        await loc.page.mouse.click(*at)
    else:
        await loc.click(timeout=timeout_ms)
    empty, focused = await field()
    if clear and not empty:
        await loc.fill("", timeout=timeout_ms)  # (leaves the focus on the field)
    if focused:
        await loc.page.keyboard.type(text)
    else:
        await loc.press_sequentially(text, timeout=timeout_ms)


# An input's type; "iframe" for a frame (a textbox only when its document is edited whole,
# agents/editing_hosts.py).
INPUT_TYPE_JS = "(e) => e.tagName === 'INPUT' ? e.type : e.tagName === 'IFRAME' ? 'iframe' : ''"
# [empty, focused] of a field, read after the click that focused it (a page may fill a field as it
# gains focus, or move the focus elsewhere). Empty: nothing in it (for a frame edited whole, in its
# body); false for any other element, which `fill` may retarget to a field it labels. Focused: it
# holds the keyboard's focus (through shadow roots) in a document that has it; never for a frame,
# whose body is typed into through its own document.
FIELD_JS = """(e) => {
  const f = e.tagName === 'IFRAME' ? e.contentDocument?.body : e;
  const empty = !!f && ((f instanceof HTMLInputElement || f instanceof HTMLTextAreaElement) ? f.value
    : f.isContentEditable ? f.textContent : null) === '';
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return [empty, e.tagName !== 'IFRAME' && a === e && document.hasFocus()];
}"""


async def _field(page: Page, refs: RefBook, ref: str, observation_id: int) -> tuple[bool, bool]:
    """(empty, focused) of the field behind the ref (FIELD_JS)."""
    try:
        empty, focused = await refs.evaluate(page, ref, observation_id, FIELD_JS)
        return bool(empty), bool(focused)
    except (PlaywrightError, StaleRefError):
        return False, False  # gone or replaced: clearing it and its locator say what happened


async def _execute_at_point(page: Page, action: _Targeted, point: tuple[float, float]) -> str:
    """The degraded route: real mouse and keyboard events at a viewport point."""
    x, y = point
    match action:
        case Click() | Expand() | Select():
            await page.mouse.click(x, y)
        case Type():
            await page.mouse.click(x, y)
            if action.clear:
                await page.keyboard.press("ControlOrMeta+A")
                await page.keyboard.press("Backspace")
            await page.keyboard.type(action.text)
            if action.then == "enter":
                await page.keyboard.press("Enter")
            elif action.then == "escape":
                await page.keyboard.press("Escape")
            elif action.then == "click_away":
                await page.mouse.click(*CLICK_AWAY_POINT)
        case Hover():
            await page.mouse.move(x, y)
        case SetValue():
            # no element to fill: the control at the point, by keys, until its readout shows it
            want = _number(action.value)
            return await stepper.step_to(page, want, await stepper.focus_at(page, point))
        case Read():
            raise PointActionError(f"{action.kind} needs a DOM target; a point cannot carry it")
    return ""


def _number(value: float | str) -> float:
    """The number a set_value by keys steps to; only a number can be counted out in steps."""
    try:
        return float(str(value).replace(",", "").strip())
    except ValueError:
        raise stepper.SetValueError(f"set_value by keys needs a number, not {value!r}") from None


# How long a drag rests over its drop point before the release (see `drag`), and how far past
# the middle of a drop element it aims, as a share of that element's size (see `_drag`).
DROP_REST_MS = 60
DROP_PAST = 0.3


async def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press at `start`, move to `end` in small steps (drag libraries listen to the moves in
    between), release: real mouse events, as a person drags."""
    await page.mouse.move(*start)
    await page.mouse.down()
    await page.mouse.move(start[0] + 2, start[1] + 2, steps=2)
    await page.mouse.move(*end, steps=12)
    # Sortable lists reorder on the move after the one that crossed an item's middle, and a
    # library may animate that: rest at the end and move once more there before letting go.
    await page.wait_for_timeout(DROP_REST_MS)
    await page.mouse.move(end[0] + 1, end[1] + 1)
    await page.mouse.move(*end)
    await page.wait_for_timeout(DROP_REST_MS)
    await page.mouse.up()


class PointActionError(ValueError):
    pass
