"""Choose stage, scripted: follow the task's plan and pick, among the observed elements, the one
whose accessible name, role and surrounding context best match the subgoal's description.

With a fixed plan every failure is a grounding failure, which is what the harness measures."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.actions import (
    AnyAction,
    Back,
    Click,
    Expand,
    Finish,
    Navigate,
    Read,
    Scroll,
    Select,
    SetValue,
    Type,
    Wait,
)
from agents.observation import Element, Observation
from tasks.schema import Subgoal

_STOP = frozenset(["a", "an", "the", "in", "of", "on", "to", "for", "and", "or", "with", "into", "from", "this", "that", "its", "field", "button", "form", "box", "list", "link", "option", "item", "control"])
ROLE_WORDS = {
    "button": {"button"}, "link": {"link"}, "field": {"textbox", "searchbox", "combobox", "spinbutton"},
    "box": {"textbox", "searchbox", "combobox", "checkbox"}, "input": {"textbox", "searchbox"},
    "checkbox": {"checkbox"}, "toggle": {"switch", "checkbox", "button"}, "switch": {"switch"},
    "slider": {"slider"}, "option": {"option", "button", "menuitem", "radio"}, "tab": {"tab"},
    "radio": {"radio"}, "dropdown": {"combobox", "listbox", "button"}, "menu": {"menuitem", "button"},
}
ACTION_ROLES = {
    "type": {"textbox", "searchbox", "combobox", "spinbutton"},
    "set_value": {"slider", "spinbutton", "textbox"},
    "select": {"combobox", "listbox"},
}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@dataclass(frozen=True)
class Choice:
    element: Element
    score: float


def score(subgoal: Subgoal, el: Element) -> float:
    """Higher is a better match; <= 0 means this element is not a plausible target."""
    allowed = ACTION_ROLES.get(subgoal.action)
    if allowed is not None and el.role not in allowed:
        return 0.0
    desc = [w for w in words(subgoal.target or "") if w not in _STOP]
    name_words = set(words(el.label))
    context_words = {w for c in el.context for w in words(c)}
    s = 0.0
    if subgoal.label:
        label = " ".join(words(subgoal.label))
        name = " ".join(words(el.label))
        if name == label:
            s += 3.0
        elif label and label in name:
            s += 1.5
    s += sum(1.0 for w in desc if w in name_words)
    s += sum(0.5 for w in desc if w in context_words and w not in name_words)
    role_hints = set().union(*(ROLE_WORDS.get(w, set()) for w in words(subgoal.target or "")))
    if el.role in role_hints:
        s += 0.75
    return s


def rank(subgoal: Subgoal, elements: list[Element]) -> list[Choice]:
    """Interactive elements ranked by match score; ties keep document order."""
    scored = [Choice(el, score(subgoal, el)) for el in elements if el.interactive]
    return sorted((c for c in scored if c.score > 0), key=lambda c: -c.score)


class ScriptedWorker:
    name = "scripted"

    def decide(self, subgoal: Subgoal, obs: Observation) -> tuple[AnyAction | None, Choice | None]:
        """The action for this subgoal on this observation, or (None, None) if nothing matches."""
        untargeted = _untargeted(subgoal)
        if untargeted is not None:
            return untargeted, None
        ranked = rank(subgoal, obs.interactive())
        if not ranked:
            return None, None
        best = ranked[0]
        return targeted_action(subgoal, best.element.ref, obs.id), best


def _untargeted(subgoal: Subgoal) -> AnyAction | None:
    match subgoal.action:
        case "scroll":
            return Scroll(direction=subgoal.direction)
        case "navigate":
            return Navigate(url=subgoal.url or "")
        case "back":
            return Back()
        case "wait":
            return Wait(seconds=subgoal.seconds)
        case "finish":
            return Finish(answer=subgoal.text or "")
    return None


def targeted_action(subgoal: Subgoal, ref: str, observation_id: int) -> AnyAction:
    common = {"ref": ref, "observation_id": observation_id}
    match subgoal.action:
        case "type":
            return Type(**common, text=subgoal.text or "", clear=subgoal.clear, then=subgoal.then)
        case "select":
            return Select(**common, value=str(subgoal.value))
        case "set_value":
            return SetValue(**common, value=subgoal.value if subgoal.value is not None else "")
        case "expand":
            return Expand(**common)
        case "read":
            return Read(**common)
    return Click(**common)
