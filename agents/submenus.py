"""Submenus: a menu item the plan names may sit in a submenu that is closed ("Export ›" holds PDF,
Markdown, HTML), and the instruction names the item, not the path to it. When nothing fits a
subgoal that describes a menu item, the agent rests the pointer, one at a time, on the listed menu
items that say they open a menu (`aria-haspopup`, or `aria-expanded="false"`) and were not opened
yet for this subgoal, and looks again, as a person moves the pointer through a menu. Hovering is
how menus open submenus (the ARIA menu pattern, jQuery UI, Bootstrap) and, unlike a click, never
chooses the item. Recorded as `effect` `revealed: submenus ...`. Cost: one evaluate per listed menu
item on a step where nothing fits; nothing on other steps."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.marks import Mark
from agents.pipeline import Mechanism, Step
from agents.worker.places import described_roles

MENU_ITEMS = frozenset({"menuitem", "menuitemcheckbox", "menuitemradio"})
# What an item says when it opens a menu of its own.
_OPENS_MENU_JS = """el => {
  const popup = (el.getAttribute('aria-haspopup') || '').toLowerCase();
  return (popup !== '' && popup !== 'false') || el.getAttribute('aria-expanded') === 'false';
}"""


class SubmenusConfig(BaseModel):
    submenus: bool = True


def _key(mark: Mark) -> str:
    return f"{mark.role}|{mark.label}"


class Submenus(Mechanism):
    name = "submenus"

    def __init__(self) -> None:
        self.opened: set[str] = set()

    def subgoal_done(self) -> None:
        self.opened.clear()

    async def opener(self, step: Step) -> Mark | None:
        if not described_roles(step.subgoal) & MENU_ITEMS:
            return None
        for mark in step.marks:
            if mark.role not in MENU_ITEMS or mark.ref is None or _key(mark) in self.opened:
                continue
            try:
                opens = await step.episode.refs.evaluate(step.page, mark.ref, mark.observation_id,
                                                         _OPENS_MENU_JS)
            except (PlaywrightError, LookupError, ValueError):
                continue  # gone or stale: not one to open now
            if opens:
                self.opened.add(_key(mark))
                return mark
        return None
