"""An example step policy: reads the accessibility snapshot and acts on the element whose name
best matches the plan step's words. No vision, no groundbench agent code beyond the public types.

Run it (from a checkout: PYTHONPATH=.):
    groundbench policy=custom policy._target_=examples.policies.text_match.TextMatch suite=ci"""

from __future__ import annotations

import re

from agents.actions import Back, Click, Finish, Navigate, Scroll, Select, SetValue, Type, Wait
from agents.observation import parse_snapshot
from agents.policy import PageView, PolicyStep

CONTROLS = {"button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "switch",
            "slider", "spinbutton", "option", "menuitem", "tab", "listbox"}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class TextMatch:
    def __init__(self, min_overlap: int = 1) -> None:
        self.min_overlap = min_overlap

    async def act(self, view: PageView) -> PolicyStep:
        step = view.subgoal
        if step is None:
            return PolicyStep(action=Finish(answer="no plan to follow"))
        match step.action:
            case "scroll":
                return PolicyStep(action=Scroll(direction=step.direction))
            case "wait":
                return PolicyStep(action=Wait(seconds=step.seconds))
            case "back":
                return PolicyStep(action=Back())
            case "navigate":
                return PolicyStep(action=Navigate(url=step.url or view.url))
            case "finish":
                return PolicyStep(action=Finish(answer=step.text or ""))
        wanted = words(step.label or step.target or "")
        best, best_score = None, self.min_overlap - 1
        for el in parse_snapshot(view.snapshot).values():
            score = len(wanted & words(el.label)) + (el.label.lower() == (step.label or "").lower())
            if el.role in CONTROLS and score > best_score:
                best, best_score = el, score
        if best is None:
            return PolicyStep(action=Scroll(direction="down"))  # look further down the page
        if step.action == "type":
            return PolicyStep(action=Type(ref=best.ref, text=step.text or "", then=step.then))
        if step.action == "select":
            return PolicyStep(action=Select(ref=best.ref, value=str(step.value)))
        if step.action == "set_value":
            return PolicyStep(action=SetValue(ref=best.ref, value=step.value or 0))
        return PolicyStep(action=Click(ref=best.ref))
