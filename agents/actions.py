"""Act stage: the closed action vocabulary as pydantic models, executed through `aria-ref=`
locators of the observation that produced the ref. There is no action that runs page JavaScript."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal
from urllib.parse import urlsplit

from playwright.async_api import Locator, Page
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agents.observation import RefBook


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


class Scroll(_Action):
    """Scroll the page by `pixels`, or (with a ref) until that element is in view."""

    kind: Literal["scroll"] = "scroll"
    direction: Literal["up", "down"] = "down"
    pixels: int = 600
    ref: str | None = None
    observation_id: int = 0


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


AnyAction = Click | Type | Select | SetValue | Expand | Read | Scroll | Navigate | Back | Wait | Finish
Action = Annotated[AnyAction, Field(discriminator="kind")]
MUTATING = frozenset({"click", "type", "select", "set_value", "expand", "navigate", "back", "scroll"})

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


async def locator_for(page: Page, refs: RefBook, ref: str, observation_id: int) -> Locator:
    """The live element behind a ref; raises StaleRefError for a ref of another observation."""
    return await refs.live(page, ref, observation_id)


async def execute(page: Page, refs: RefBook, action: AnyAction, timeout_ms: float = 3000) -> str:
    """Run one action; returns text for `read` (else ""). The observation is spent afterwards,
    unless the action was refused before touching the page (a stale ref)."""
    if isinstance(action, (_Targeted, Scroll)) and action.ref is not None:
        refs.resolve(action.ref, action.observation_id)
    try:
        return await _execute(page, refs, action, timeout_ms)
    finally:
        if action.kind in MUTATING:
            refs.spend()


async def _execute(page: Page, refs: RefBook, action: AnyAction, timeout_ms: float) -> str:
    if isinstance(action, _Targeted) and action.point is not None:
        return await _execute_at_point(page, action, action.point)
    ref = action.ref if isinstance(action, (_Targeted, Scroll)) else None
    loc = await locator_for(page, refs, ref, action.observation_id) if ref is not None else None
    match action:
        case Click() | Expand():
            await loc.click(timeout=timeout_ms)
        case Type():
            await loc.click(timeout=timeout_ms)
            if action.clear:
                await loc.fill("", timeout=timeout_ms)
            await loc.press_sequentially(action.text, timeout=timeout_ms)
            if action.then == "enter":
                await loc.press("Enter", timeout=timeout_ms)
            elif action.then == "escape":
                await loc.press("Escape", timeout=timeout_ms)
            elif action.then == "click_away":
                await page.mouse.click(*CLICK_AWAY_POINT)
        case Select():
            options = await loc.locator("option").all_inner_texts()
            await loc.select_option(label=closest_option(action.value, options), timeout=timeout_ms)
        case SetValue():
            await loc.fill(str(action.value), timeout=timeout_ms)
        case Read():
            return await loc.inner_text(timeout=timeout_ms)
        case Scroll() if loc is not None:
            await loc.scroll_into_view_if_needed(timeout=timeout_ms)
        case Scroll():
            await page.mouse.wheel(0, action.pixels if action.direction == "down" else -action.pixels)
        case Navigate():
            await page.goto(action.url)
        case Back():
            await page.go_back()
        case Wait():
            await asyncio.sleep(action.seconds)
        case Finish():
            pass
    return ""


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
        case SetValue() | Read():
            raise PointActionError(f"{action.kind} needs a DOM target; a point cannot carry it")
    return ""


async def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """Press at `start`, move to `end` in small steps (drag libraries listen to the moves in
    between), release: real mouse events, as a person drags."""
    await page.mouse.move(*start)
    await page.mouse.down()
    await page.mouse.move(start[0] + 2, start[1] + 2, steps=2)
    await page.mouse.move(*end, steps=12)
    await page.mouse.up()


class PointActionError(ValueError):
    pass
