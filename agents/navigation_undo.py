"""Navigation undo: an action that was not meant to leave the page and did is a failed effect. When
the subgoal names a control that does not navigate (a checkbox, a radio button, a switch, a field,
an option, a tab, a slider) and the action landed on another document (another path or origin;
a changed query or fragment on the same path is the page's own state), the agent goes back, records
it (`error_type` `unintended_navigation`), and leaves that target out for the rest of the subgoal,
so the next step chooses again on the page the task is on. The typical case is a link inside a
control's label ("I agree to the [Terms]"): a click on the words follows the link."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.fingerprint import Fingerprint
from agents.marks import TargetIdentity
from agents.pipeline import Mechanism, Step
from agents.worker.places import described_roles

# Controls whose own action changes a value on the page, never the page itself.
STAYING_ROLES = frozenset({"checkbox", "radio", "switch", "textbox", "searchbox", "combobox",
                           "spinbutton", "slider", "option", "tab", "menuitemcheckbox",
                           "menuitemradio"})
STAYING_ACTIONS = frozenset({"type", "select", "set_value", "drag"})


class NavigationUndoConfig(BaseModel):
    navigation_undo: bool = True


def document(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc, parts.path


def meant_to_stay(step: Step) -> bool:
    """Whether the subgoal's action keeps the page: a value-setting action, or one on a control
    the description names as a kind that does not navigate."""
    subgoal = step.subgoal
    if subgoal.action in STAYING_ACTIONS:
        return True
    if subgoal.action not in ("click", "expand", "hover"):
        return False
    roles = described_roles(subgoal)
    return bool(roles) and roles <= STAYING_ROLES


class NavigationUndo(Mechanism):
    name = "navigation_undo"

    def __init__(self) -> None:
        self.left: set[TargetIdentity] = set()

    def excluded(self) -> frozenset[TargetIdentity]:
        return frozenset(self.left)

    def subgoal_done(self) -> None:
        self.left.clear()

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        rec = step.rec
        if before is None or after is None or not rec.effective or not meant_to_stay(step):
            return
        if document(before.url) == document(after.url):
            return
        mark = step.choice.mark if step.choice is not None else None
        if mark is not None:
            self.left.add(mark.identity)
        rec.effective = False
        rec.error_type = "unintended_navigation"
        rec.error = f"{rec.action} on {rec.target_name or 'the target'!r} left {before.url} for {after.url}"
        try:
            await step.page.go_back()
            rec.effect = "went_back"
        except PlaywrightError as exc:
            rec.effect = "could_not_go_back"
            rec.error += f"; going back failed: {str(exc).splitlines()[0][:120]}"
        step.episode.page_replaced()
        step.episode.fresh_required = True
        await step.episode.settle()
