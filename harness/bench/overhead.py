"""What the harness costs per step against the floor: the same fixture task replayed by plain
Playwright with the task's known selectors, measured in the same run:

    python -m harness.bench.overhead [--suite ci | --tasks ID_OR_GLOB ...] [--rounds N] [--seed S] [--warmup 1]
                                     [--arm NAME=OVERRIDE,...] [--out FILE.json] [--plot FILE.png]

Arms, each one episode of the same task and seed through `harness.episode.run_episode` on one
shared Chromium and fixture server, one episode at a time:
- floor: `policy=oracle` with `trace.playwright=false` — `harness/oracle.py` replays the task's
  `oracle:` selectors with plain Playwright (goto, click, fill...); no agent, no tracing. The
  episode wrapper around it (a fresh context with the episode cookies, the `final_settle_ms` wait
  and the verdict read from server state) is what any runner needs to judge a task, and is the
  same code in every arm;
- floor_keys: the same oracle with `policy.keys=true`: its fills typed as the agent types (a click,
  a clear when the field holds something, a key per character), so the agent's time over it is
  what grounding costs beyond typing like a person; a second column, not the target's floor;
- none: the grounding agent with `perception=none` (the accessibility tree alone);
- synthetic: the grounding agent with `perception=synthetic` at its default zero latency (the
  simulated model reads the page, so no screenshot is taken for it);
- synthetic_capture: the same with `perception.capture=true`: a screenshot per vision call, as a
  backend that reads pixels (ocr, openai) needs.
The agent arms run with the default config (`agent=full`, `worker=scripted`, the default trace
settings: a Playwright trace recorded and kept for failed episodes only). `--arm NAME=OVERRIDES`
adds an agent arm with other overrides, to see what a setting costs (e.g. `--arm
lean=perception=none,trace.playwright=false,trace.screenshots=none`).

A *step* is one subgoal of the task's plan: every arm does the same task, so time per step is the
episode's wall time over the plan's length and the per-step ratio of an arm to the floor equals
its per-episode ratio on that task. The steps each arm actually took (oracle steps, agent steps)
are recorded beside it. Each round runs every task once in every arm, arms in an order rotated
from task to task and round to round, after untimed warm-up episodes (--warmup, one per arm). A ratio is the
median over (task, round) of (arm time / floor time of the same task in the same round), over the
pairs where both episodes succeeded, so load from other work mostly cancels; the same against
floor_keys in its own column. For the agent arms
the JSON also splits the episode into the agent's stage timings (steps.parquet's `*_ms` columns)
and what lies outside the steps (context, start page and settle, final settle, verdict, trace).
`cpu ms/episode` is the CPU time of this process (harness, agent, Playwright's client, the
fixture server's threads) per episode, median: what the agent computes itself, beside what it
waits for; the browser's processes are not in it.

Project target: harness time per step at most 1.5x the floor, for every agent arm."""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from harness.bench import machine, output
from harness.browser import launch
from harness.config import RunConfig, compose_run_config
from harness.episode import run_episode
from harness.runner import suite_tasks
from sites.server import FixtureServer
from tasks.schema import Task

ARMS = {
    "floor": ["policy=oracle", "trace.playwright=false"],
    "floor_keys": ["policy=oracle", "trace.playwright=false", "policy.keys=true"],
    "none": ["perception=none"],
    "synthetic": ["perception=synthetic"],
    # what a backend that reads pixels adds: a screenshot per vision call
    "synthetic_capture": ["perception=synthetic", "perception.capture=true"],
}
FLOORS = ("floor", "floor_keys")  # the baselines; every other arm is an agent's
TARGET = 1.5  # harness time per step / floor time per step, at most
STAGES = ("observe_ms", "perceive_ms", "vision_wait_ms", "enrich_ms", "rank_ms", "choose_ms",
          "resolve_ms", "act_ms", "validate_ms")


def arm_configs(suite: str, tasks: Sequence[str], arms: dict[str, list[str]]) -> dict[str, RunConfig]:
    chosen = machine.selection(suite, tasks)
    return {arm: compose_run_config([*chosen, *overrides])[0] for arm, overrides in arms.items()}


async def run(suite: str, tasks: Sequence[str], rounds: int, seed: int, warmup: int = 1,
              extra: dict[str, list[str]] | None = None) -> dict[str, Any]:
    configs = arm_configs(suite, tasks, {**ARMS, **(extra or {})})
    selected = [t for t in suite_tasks(configs["floor"]) if t.oracle]
    if not selected:
        raise SystemExit(f"no task with oracle steps in suite {suite} / tasks {list(tasks)}")
    arms = list(configs)
    samples: list[dict[str, Any]] = []
    with FixtureServer() as server, tempfile.TemporaryDirectory() as tmp:
        async with async_playwright() as pw:
            browser = await launch(pw, configs["floor"].browser)

            async def episode(arm: str, task: Task) -> dict[str, Any]:
                t0, cpu0 = time.perf_counter(), time.process_time()
                result = await run_episode(browser, server, task, seed, configs[arm], Path(tmp) / arm)
                wall_ms = (time.perf_counter() - t0) * 1000
                cpu_ms = (time.process_time() - cpu0) * 1000
                stages = {s: sum(step[s] for step in result.steps) for s in STAGES}
                return {"arm": arm, "task_id": task.id, "plan_steps": len(task.plan),
                        "oracle_steps": len(task.oracle), "agent_steps": len(result.steps),
                        "success": result.episode.success, "failure": result.episode.failure,
                        "wall_ms": wall_ms, "cpu_ms": cpu_ms, "stages_ms": stages,
                        "outside_steps_ms": wall_ms - sum(stages.values())}

            try:
                for arm in arms * warmup:  # warm-up: first page loads, JIT, caches; not recorded
                    await episode(arm, selected[0])
                load_before = machine.facts()["load_average"]
                for rnd in range(rounds):
                    for i, task in enumerate(selected):
                        shift = (rnd + i) % len(arms)
                        for arm in arms[shift:] + arms[:shift]:
                            samples.append({"round": rnd, **await episode(arm, task)})
                load_after = machine.facts()["load_average"]
                browser_version = browser.version
            finally:
                await browser.close()
    return {"tasks": [t.id for t in selected], "arms": arms, "rounds": rounds, "seed": seed, "samples": samples,
            "browser_version": browser_version,
            "load_average": {"before": load_before, "after": load_after}}


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    """Per-arm medians and ratios to the floors, overall and per task, from the raw samples."""
    by_key = {(s["arm"], s["task_id"], s["round"]): s for s in raw["samples"]}

    def pairs(ok: list[dict[str, Any]], floor: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(agent episode, the floor's episode of the same task and round), both successful."""
        return [(s, f) for s in ok if (f := by_key.get((floor, s["task_id"], s["round"]))) and f["success"]]

    arms: dict[str, Any] = {}
    for arm in raw["arms"]:
        mine = [s for s in raw["samples"] if s["arm"] == arm]
        ok = [s for s in mine if s["success"]]
        per_step = [s["wall_ms"] / s["plan_steps"] for s in ok]
        entry: dict[str, Any] = {"episodes": len(mine), "successes": len(ok),
                                 "ms_per_step": statistics.median(per_step) if per_step else None,
                                 "ms_per_episode": statistics.median(s["wall_ms"] for s in ok) if ok else None,
                                 "cpu_ms_per_episode": statistics.median(s["cpu_ms"] for s in ok) if ok else None}
        if arm not in FLOORS:
            matched = pairs(ok, "floor")
            ratios = [s["wall_ms"] / f["wall_ms"] for s, f in matched]
            entry["ratio_to_floor"] = statistics.median(ratios) if ratios else None
            entry["pairs"] = len(ratios)
            entry["per_task_ratio"] = {
                task: statistics.median(s["wall_ms"] / f["wall_ms"] for s, f in matched if s["task_id"] == task)
                for task in raw["tasks"] if any(s["task_id"] == task for s, _ in matched)}
            if "floor_keys" in raw["arms"]:
                keyed = [s["wall_ms"] / f["wall_ms"] for s, f in pairs(ok, "floor_keys")]
                entry["ratio_to_floor_keys"] = statistics.median(keyed) if keyed else None
            if ok:
                entry["breakdown_ms_per_episode"] = {
                    **{s: statistics.mean(e["stages_ms"][s] for e in ok) for s in STAGES},
                    "outside_steps": statistics.mean(e["outside_steps_ms"] for e in ok)}
                entry["agent_steps_per_episode"] = statistics.mean(e["agent_steps"] for e in ok)
        else:
            entry["oracle_steps_per_episode"] = statistics.mean(s["oracle_steps"] for s in mine)
        arms[arm] = entry
    return arms


def targets(arms: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"target": f"{arm}: harness time per step <= {TARGET:g}x the floor",
             "measured": arms[arm]["ratio_to_floor"],
             "holds": arms[arm]["ratio_to_floor"] is not None and arms[arm]["ratio_to_floor"] <= TARGET}
            for arm in arms if arm not in FLOORS]


def render(arms: dict[str, Any], checks: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    lines = [(f"harness overhead against the floor, Chromium {meta['browser_version']}, "
             f"{len(meta['tasks'])} tasks x {meta['rounds']} rounds, seed {meta['seed']}, "
             f"{machine.describe(meta)}"),
             "medians over successful episodes; ratios are medians of same-round ratios to the floor", ""]
    lines.append(f"{'arm':<17} {'ok':>7} {'ms/step':>9} {'ms/episode':>11} {'x floor':>8} {'x floor_keys':>12}"
                 f" {'cpu ms/episode':>15}")
    for arm, a in arms.items():
        ratio, keyed = a.get("ratio_to_floor"), a.get("ratio_to_floor_keys")
        lines.append(f"{arm:<17} {a['successes']:>3}/{a['episodes']:<3} {a['ms_per_step'] or 0:>9.0f} "
                     f"{a['ms_per_episode'] or 0:>11.0f} {'' if ratio is None else f'{ratio:.2f}':>8} "
                     f"{'' if keyed is None else f'{keyed:.2f}':>12} {a.get('cpu_ms_per_episode') or 0:>15.0f}")
    for arm in [arm for arm in arms if arm not in FLOORS]:
        parts = arms[arm].get("breakdown_ms_per_episode")
        if parts:
            top = sorted(parts.items(), key=lambda kv: -kv[1])
            lines.append(f"  {arm}, mean ms per episode: " + ", ".join(f"{k} {v:.0f}" for k, v in top if v >= 1))
    lines += ["", "targets:"]
    lines += [f"  {'holds' if c['holds'] else 'DOES NOT HOLD':<13} {c['target']} (measured "
              f"{'missing' if c['measured'] is None else format(c['measured'], '.2f')})" for c in checks]
    return "\n".join(lines)


def plot(arms: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    agent_arms = [arm for arm in arms if arm not in FLOORS]
    tasks = sorted({t for arm in agent_arms for t in arms[arm].get("per_task_ratio", {})})
    width = 0.8 / len(agent_arms)
    for i, arm in enumerate(agent_arms):
        ratios = arms[arm].get("per_task_ratio", {})
        ax.bar([k + (i - (len(agent_arms) - 1) / 2) * width for k in range(len(tasks))], [ratios.get(t, 0) for t in tasks],
               width, label=f"{arm} (median {arms[arm]['ratio_to_floor'] or 0:.2f})", color=f"C{i}")
    ax.axhline(TARGET, color="grey", linestyle="--", linewidth=1)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xticks(range(len(tasks)), tasks, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("time per step / floor (same round)")
    ax.set_title(f"harness against plain Playwright (target {TARGET:g}x)")
    output.save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = output.parser("overhead", __doc__)
    parser.add_argument("--suite", default="ci", help="a suite under conf/suite (default: ci, one task per case)")
    parser.add_argument("--tasks", nargs="+", default=[],
                        help="fixture task ids or globs instead of a suite (tasks with oracle steps)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (after the warm-up)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--warmup", type=int, default=1, help="untimed episodes per arm before the rounds")
    parser.add_argument("--arm", action="append", default=[], metavar="NAME=OVERRIDE[,OVERRIDE...]",
                        help="one more agent arm, e.g. lean=perception=none,trace.playwright=false")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.warmup < 0:
        parser.error("--rounds must be >= 1 and --warmup >= 0")
    extra = {name: overrides.split(",") for name, _, overrides in (a.partition("=") for a in args.arm)}
    if any(name in ARMS or not name for name in extra):
        parser.error(f"--arm needs NAME=OVERRIDES with a NAME other than {', '.join(ARMS)}")
    raw = asyncio.run(run(args.suite, args.tasks, args.rounds, args.seed, args.warmup, extra))
    arms = summarise(raw)
    checks = targets(arms)
    meta = {**machine.facts(), "browser_version": raw["browser_version"], "tasks": raw["tasks"],
            "rounds": args.rounds, "seed": args.seed, "load_average": raw["load_average"]}
    print(render(arms, checks, meta))
    output.write(args, {"meta": meta, "arms": arms, "targets": checks, "samples": raw["samples"]},
                 lambda path: plot(arms, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
