"""The BrowserGym side of `python -m harness.bench.peer_browsergym`: MiniWoB episodes through
BrowserGym's own environment with a trivial one-step agent, timed. Run by the python of a separate
venv that has `browsergym-miniwob` (never a dependency of groundbench); stdlib and browsergym only:

    BGYM_PYTHON harness/bench/peer_browsergym_side.py --tasks click-button click-link enter-text \
        --seeds 0 1 2 --out FILE.json

Needs MINIWOB_URL (the MiniWoB html served over http, ending in /miniwob/) and, for Debian's
Chromium, PLAYWRIGHT_BROWSERS_PATH with a chromium-1117 wrapper; the benchmark sets both.

Per task: one `gym.make("browsergym/miniwob.TASK")` with BrowserGym's defaults, then per seed
`env.reset(seed)` and one `env.step(action)`, then `env.close()`. The agent reads the goal and the
accessibility tree of the first observation and takes one step: it clicks the button or link named by the goal's
quoted text (click-button); else, with a textbox on the page, it fills the text in and clicks the
first button (enter-text; BrowserGym's default action set takes several calls in one step); else
it clicks the nearest element with a BrowserGym id around that text (click-link). Every observation BrowserGym extracts (`_get_obs`: DOM snapshot,
accessibility tree, screenshot, element properties) is timed."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from importlib.metadata import version
from typing import Any

import browsergym.miniwob  # noqa: F401  (registers the browsergym/miniwob.* environments)
import gymnasium as gym


def timed_observations(env: Any, into: list[float]) -> None:
    """Record the milliseconds of every observation the environment extracts."""
    inner = env.unwrapped
    extract = inner._get_obs

    def get_obs() -> Any:
        t0 = time.perf_counter()
        try:
            return extract()
        finally:
            into.append((time.perf_counter() - t0) * 1000)

    inner._get_obs = get_obs


def one_step_action(obs: dict[str, Any]) -> str:
    quoted = re.search(r'"([^"]*)"', obs.get("goal", ""))
    text = quoted.group(1) if quoted else ""
    nodes = obs["axtree_object"]["nodes"]
    by_id = {node["nodeId"]: node for node in nodes}

    def role(node: dict[str, Any]) -> str:
        return node.get("role", {}).get("value", "")

    def bid(node: dict[str, Any] | None) -> str | None:
        """The node's BrowserGym id, or its nearest marked ancestor's (text has none)."""
        while node is not None and not node.get("browsergym_id"):
            node = by_id.get(node.get("parentId", ""))
        return None if node is None else node["browsergym_id"]

    button = next((n for n in nodes if role(n) in ("button", "link") and n.get("browsergym_id")
                   and text and n.get("name", {}).get("value") == text), None)
    if button is not None:
        return f"click({button['browsergym_id']!r})"
    box = next((n for n in nodes if role(n) == "textbox" and n.get("browsergym_id")), None)
    if box is not None:
        submit = next((n for n in nodes if role(n) == "button" and n.get("browsergym_id")), None)
        then = f"\nclick({submit['browsergym_id']!r})" if submit is not None else ""
        return f"fill({box['browsergym_id']!r}, {text!r}){then}"
    named = next((n for n in nodes if text and n.get("name", {}).get("value") == text
                  and role(n) != "RootWebArea" and bid(n) is not None), None)
    return f"click({bid(named)!r})" if named is not None else "noop()"


def run(tasks: list[str], seeds: list[int]) -> dict[str, Any]:
    episodes = []
    browser_version = ""
    t_start = time.perf_counter()
    for task in tasks:
        env = gym.make(f"browsergym/miniwob.{task}")
        obs_ms: list[float] = []
        timed_observations(env, obs_ms)
        try:
            for seed in seeds:
                t0 = time.perf_counter()
                first = len(obs_ms)
                obs, _ = env.reset(seed=seed)
                action = one_step_action(obs)
                _, reward, terminated, _, info = env.step(action)
                episodes.append({"task": task, "seed": seed, "wall_s": time.perf_counter() - t0,
                                 "action": action, "reward": float(reward), "terminated": bool(terminated),
                                 "action_error": info.get("last_action_error", "") if isinstance(info, dict) else "",
                                 "observation_ms": obs_ms[first:]})
                browser_version = browser_version or env.unwrapped.browser.version
        finally:
            env.close()
    return {"episodes": episodes, "loop_s": time.perf_counter() - t_start,
            "browser_version": browser_version,
            "versions": {p: version(p) for p in ("browsergym-core", "browsergym-miniwob", "playwright")},
            "python": sys.version.split()[0], "load_average": os.getloadavg()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["click-button", "click-link", "enter-text"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if not os.environ.get("MINIWOB_URL"):
        parser.error("MINIWOB_URL must point at the MiniWoB html served over http (ending in /miniwob/)")
    result = run(args.tasks, args.seeds)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
