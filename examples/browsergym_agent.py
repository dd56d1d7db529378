"""An example BrowserGym-style agent: it knows nothing of groundbench. It reads BrowserGym's
observation keys and answers BrowserGym action strings; groundbench's adapter
(agents/browsergym.py) runs it on the fixture tasks.

Run it (from a checkout: PYTHONPATH=.):
    groundbench policy=custom policy._target_=examples.browsergym_agent.KeywordAgent suite=ci"""

from __future__ import annotations

import re
from typing import Any

LINE = re.compile(r"^\[(\d+)\] (\w+) '((?:[^'\\]|\\.)*)'")


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class KeywordAgent:
    """Acts on the element whose name shares the most words with the current plan step (or, with
    no plan, the goal); declares the task done when no step is left."""

    def get_action(self, obs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        step = obs.get("subgoal")
        if step is None:
            return 'send_msg_to_user("done")', {}
        if step.action in ("scroll", "wait", "back", "finish"):
            return {"scroll": "scroll(0, 400)", "wait": "noop(1000)", "back": "go_back()",
                    "finish": 'send_msg_to_user("done")'}[step.action], {}
        wanted = words(step.label or step.target or obs["goal"])
        best, best_score = None, 0
        for line in obs["axtree_txt"].splitlines():
            m = LINE.match(line)
            if m and "clickable" in line and len(wanted & words(m[3])) > best_score:
                best, best_score = m[1], len(wanted & words(m[3]))
        if best is None:
            return "scroll(0, 400)", {}
        if step.action == "type":
            return f"fill({best!r}, {step.text or ''!r})", {}
        if step.action == "select":
            return f"select_option({best!r}, {str(step.value)!r})", {}
        return f"click({best!r})", {}
