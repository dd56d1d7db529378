"""The dotted paths ("cart.items") by which fixture pages write server-side state and task
assertions read it: one definition for the fixture server (sites/) and the task format (tasks/).
Imports nothing of the project, so sites/ may use it without depending on the task schema."""

from __future__ import annotations

from typing import Any


def set_path(state: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    node = state
    for key in keys[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[keys[-1]] = value


def get_path(state: dict[str, Any], dotted: str, default: Any = None) -> Any:
    """The value at an assertion's dotted path ("cart.items") in a server state, else `default`
    (the fixture server writes state by the same paths)."""
    node: Any = state
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node
