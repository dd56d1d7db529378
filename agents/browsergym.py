"""BrowserGym-style agents on groundbench's tasks: an adapter from BrowserGym's observation keys and
action strings to the step-policy interface (agents/policy.py).

The agent keeps its own shape: `get_action(obs) -> (action, info)`, where `obs` carries `goal`,
`goal_object`, `url`, `screenshot` (an RGB array), `axtree_txt` (one line per element, `[bid] role
'name'`), `last_action`, `last_action_error`, `chat_messages`, and `action` is one of BrowserGym's
high-level action strings: click("12"), fill("12", "text"), select_option("12", "option"),
press("12", "Enter"), scroll(0, 200), goto("url"), go_back(), noop(), send_msg_to_user("text"),
report_infeasible("reason"). Element ids (bids) are numbers given per step and mapped to the
snapshot's refs. The string is parsed as one call with literal arguments, never run: anything
else is a recorded `action_error`. groundbench's plan step, which BrowserGym has no key for, is
given as `obs["subgoal"]` (None without a plan) for agents that want it."""

from __future__ import annotations

import ast
import io
from typing import Any, Protocol

from PIL import Image

from agents.actions import (
    AnyAction,
    Back,
    Click,
    Drag,
    Finish,
    Hover,
    Navigate,
    Scroll,
    Select,
    Type,
    Wait,
)
from agents.observation import INTERACTIVE_ROLES, Element, parse_snapshot
from agents.policy import OutsideVocabulary, PageView, PolicyStep


class BrowserGymAgent(Protocol):
    def get_action(self, obs: dict[str, Any]) -> tuple[str, dict[str, Any]]: ...


def axtree(view: PageView) -> tuple[str, dict[str, str]]:
    """The snapshot's elements as BrowserGym-style lines, and the bid → ref map."""
    lines, bids = [], {}
    elements: list[Element] = list(parse_snapshot(view.snapshot).values())
    for bid, el in enumerate(elements, 1):
        bids[str(bid)] = el.ref
        states = "".join(f", {k}={v!r}" for k, v in el.states.items())
        clickable = ", clickable" if el.role in INTERACTIVE_ROLES else ""
        lines.append(f"[{bid}] {el.role} {el.label!r}{states}{clickable}")
    return "\n".join(lines), bids


KEYS_THEN = {"Enter": "enter", "Escape": "escape", "Tab": "click_away"}


def to_action(text: str, bids: dict[str, str]) -> AnyAction:
    """One BrowserGym action string as an action of the closed vocabulary."""
    try:
        call = ast.parse(text.strip(), mode="eval").body
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            raise OutsideVocabulary(f"{text!r} is not one BrowserGym action (not a single call)")
        args = [ast.literal_eval(a) for a in call.args]
    except (SyntaxError, ValueError) as exc:
        raise OutsideVocabulary(f"{text!r} is not one BrowserGym action ({exc})") from None
    name = call.func.id

    def ref(bid: object) -> str:
        if str(bid) not in bids:
            raise OutsideVocabulary(f"{text!r}: no element with bid {bid!r} in this observation")
        return bids[str(bid)]

    match name, args:
        case "click", [bid, *_]:
            return Click(ref=ref(bid))
        case "fill", [bid, value]:
            return Type(ref=ref(bid), text=str(value), clear=True)
        case "select_option", [bid, option]:
            return Select(ref=ref(bid), value=str(option[0] if isinstance(option, list) else option))
        case "press", [bid, key] if key in KEYS_THEN:
            return Type(ref=ref(bid), text="", clear=False, then=KEYS_THEN[key])  # type: ignore[arg-type]
        case "scroll", [dx, dy]:
            if abs(float(dx)) > abs(float(dy)):
                return Scroll(direction="right" if float(dx) > 0 else "left", pixels=int(abs(float(dx))))
            return Scroll(direction="down" if float(dy) >= 0 else "up", pixels=int(abs(float(dy))) or 600)
        case "hover", [bid]:
            return Hover(ref=ref(bid))
        case "drag_and_drop", [from_bid, to_bid]:
            return Drag(ref=ref(from_bid), to_ref=ref(to_bid))
        case "goto", [url]:
            return Navigate(url=str(url))
        case "go_back", []:
            return Back()
        case "noop", [*wait]:
            return Wait(seconds=min(float(wait[0]) / 1000, 30) if wait else 1.0)
        case ("send_msg_to_user" | "report_infeasible"), [message]:
            return Finish(answer=str(message))
    raise OutsideVocabulary(f"{text!r}: {name}() with these arguments has no groundbench action")


class BrowserGymPolicy:
    """A step policy around a BrowserGym-style agent (see the module docstring)."""

    def __init__(self, agent: BrowserGymAgent) -> None:
        self.agent = agent
        self.last_action, self.last_error = "", ""
        self.chat: list[dict[str, str]] = []

    async def act(self, view: PageView) -> PolicyStep:
        import numpy as np  # BrowserGym's observation holds the screenshot as an array

        tree, bids = axtree(view)
        if not self.chat:
            self.chat = [{"role": "user", "message": view.goal}]
        obs = {
            "goal": view.goal, "goal_object": [{"type": "text", "text": view.goal}],
            "url": view.url, "open_pages_urls": [view.url],
            "screenshot": np.asarray(Image.open(io.BytesIO(view.screenshot)).convert("RGB")),
            "axtree_txt": tree, "last_action": self.last_action,
            "last_action_error": self.last_error, "chat_messages": self.chat,
            "subgoal": view.subgoal,
        }
        text, info = self.agent.get_action(obs)
        self.last_action, self.last_error = text, ""
        try:
            action = to_action(text, bids)
        except OutsideVocabulary as exc:
            self.last_error = str(exc)
            raise
        cost = info.get("cost") if isinstance(info, dict) else None
        return PolicyStep(action=action, vision_calls=int((info or {}).get("vision_calls", 0)),
                          **({"cost": cost} if cost is not None else {}))
