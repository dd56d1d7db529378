"""The report's failure gallery: failed episodes picked round-robin over configs, each with the
step that first went wrong, its Set-of-Mark image and the command that opens its Playwright trace."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from PIL import Image

from tasks.wrong_step import first_wrong

THUMB_WIDTH = 960


def playwright_command() -> str:
    """The `playwright` of this environment (a venv's is not on PATH unless it is activated)."""
    here = Path(sys.executable).with_name("playwright")
    return str(here) if here.is_file() else "playwright"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "x"



def failure_selection(episodes: pd.DataFrame, order: Sequence[str], cap: int) -> pd.DataFrame:
    """Failed episodes, at most `cap`, taken round-robin over configs so each one is shown."""
    failed = episodes[~episodes["success"]].sort_values(["task_id", "seed"])
    queues = [failed[failed["config_name"] == c] for c in order]
    picked: list[pd.Series] = []
    depth = 0
    while len(picked) < cap and any(depth < len(q) for q in queues):
        picked += [q.iloc[depth] for q in queues if depth < len(q)][: cap - len(picked)]
        depth += 1
    if not picked:
        return failed.iloc[0:0]
    chosen = pd.DataFrame(picked)
    rank = {c: i for i, c in enumerate(order)}
    return chosen.sort_values(["config_name", "task_id", "seed"],
                              key=lambda s: s.map(rank) if s.name == "config_name" else s)


def screenshots(run_dir: Path, episode_id: str) -> dict[int, Path]:
    """The episode's Set-of-Mark images by step number."""
    return {int(p.stem.split("-")[1]): p
            for p in sorted((run_dir / "screenshots" / episode_id).glob("step-*.png"))}


def shown_step(steps: pd.DataFrame) -> tuple[dict, str]:
    """The step of a failed episode the gallery shows: the first that went wrong (its action
    failed, had no effect, or chose a target the plan does not describe: tasks/wrong_step.py),
    with why; else the last step, with ""."""
    rows = steps.sort_values("step").to_dict("records")
    found = first_wrong(rows)
    if found is not None:
        return dict(found[0]), found[1]
    return rows[-1], ""


def describe_step(s: dict) -> str:
    """The step's subgoal, what it chose and where (the nearest piece of the target's context
    that is not its own name: "in “Graphics memory”"), and its error."""
    what = f"{s['subgoal_action']} “{s['subgoal_target']}”"
    places = [p for p in str(s.get("target_context") or "").split(" | ")
              if p and p != s["target_name"]]
    where = f" in “{places[0]}”" if places else ""
    role = f"{s['target_role']} " if s["target_role"] else ""
    chose = f"; chose {role}“{s['target_name']}”{where}" if s["target_name"] else ""
    err = f"; error {s['error_type']}: {s['error']}" if s["error_type"] else ""
    return f"{what}{chose}{err}"


def thumbnail(source: Path, target: Path) -> bool:
    try:
        with Image.open(source) as image:
            image.thumbnail((THUMB_WIDTH, THUMB_WIDTH))
            target.parent.mkdir(parents=True, exist_ok=True)
            image.save(target)
        return True
    except OSError:
        return False


def gallery(episodes: pd.DataFrame, steps: pd.DataFrame, order: Sequence[str],
            labels: dict[str, str], out: Path, cap: int) -> tuple[list[str], pd.DataFrame]:
    failed = episodes[~episodes["success"]]
    table = failed[["config_name", "task_id", "seed", "failure", "failure_detail", "episode_id",
                    "run_dir"]].sort_values(["config_name", "task_id", "seed"])
    if failed.empty:
        return ["No failed episodes."], table
    chosen = failure_selection(episodes, order, cap)
    for stale in (out / "failures").glob("*.png"):  # from an earlier report into the same folder
        stale.unlink()
    lines = []
    if len(failed) > len(chosen):
        lines += [(f"Showing {len(chosen)} of {len(failed)} failed episodes "
                  f"({len(failed) - len(chosen)} left out; all are listed in `failures.csv`)."), ""]
    by_episode = dict(tuple(steps.groupby("episode_id"))) if not steps.empty else {}
    for ep in chosen.itertuples():
        run_dir = Path(ep.run_dir)
        lines.append(f"### {ep.task_id} · seed {ep.seed} · {labels[ep.config_name]}")
        lines.append(f"- config: `{ep.config_name}`; episode `{ep.episode_id}`; "
                     f"{ep.steps} steps, {ep.vision_calls} vision calls")
        lines.append(f"- failure: **{ep.failure or 'unclassified'}**"
                     + (f" — {ep.failure_detail}" if ep.failure_detail else ""))
        shots = screenshots(run_dir, ep.episode_id)
        shown: int | None = None
        if ep.episode_id in by_episode:
            episode_steps = by_episode[ep.episode_id]
            step, why = shown_step(episode_steps)
            shown = int(step["step"])
            last = int(episode_steps["step"].max())
            if why:
                said = describe_step(step)
                lines.append(f"- first wrong step {shown}: {said}"
                             + ("" if why in said else f" — {why}"))
            if not why or shown != last:
                final = episode_steps.sort_values("step").iloc[-1].to_dict()
                lines.append(f"- last step {last}: {describe_step(final)}")
        if shots and shown not in shots:
            # That step has no image (no mark was chosen on it: a wait, a scroll, a step a
            # mechanism took over): the first wrong step that has one, else the last image.
            imaged = [r for r in by_episode[ep.episode_id].sort_values("step").to_dict("records")
                      if r["step"] in shots] if shown is not None else []
            found = first_wrong(imaged)
            shown = int(found[0]["step"]) if found is not None else max(shots)
        rel = Path("failures") / f"{slug(ep.episode_id)}.png"
        if shown is not None and shown in shots and thumbnail(shots[shown], out / rel):
            lines.append(f"- Set-of-Mark image of step {shown} (the chosen mark in a yellow "
                         f"halo): `{shots[shown].resolve()}`")
            lines.append(f"\n![{ep.task_id} seed {ep.seed}]({rel.as_posix()})\n")
        else:
            lines.append("- no Set-of-Mark image recorded for this episode")
        trace = run_dir / "playwright" / f"{ep.episode_id}.zip"
        if trace.is_file():
            lines.append(f"- Playwright trace: `{playwright_command()} show-trace {trace.resolve()}`")
        else:
            lines.append("- no Playwright trace recorded for this episode")
        lines.append("")
    return lines, table
