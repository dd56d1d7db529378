"""The vision budget of a `groundbench -m experiment=gating_tradeoff` sweep, in the figures the
project targets (seed: "Cache only while the page still agrees"):

    python -m harness.bench.gating_tradeoff SWEEP_DIR [--json FILE]

Reads every run folder under SWEEP_DIR (episodes.parquet, steps.parquet and the run metadata)
and prints, per perception/worker pair found there:

- long-shopping (the ~20-step shopping task): median vision calls per episode for `full` against
  `naive`, their success rates (Wilson intervals, and whether full's rate falls below naive's
  interval), and whether naive makes one vision call per action; full's calls by their cause
  (the fingerprint part that drifted, or a new page) beside the pages the episode acted on. An
  *action* here is a step whose action is a targeted one (click, type, select, set_value, expand,
  read): the steps that go through perception. Scroll, wait, navigate, back and finish never call
  vision, and a step that found no target acted on nothing. The seed reports about one call per
  action for naive and five to seven calls for gating on such a task, without a measurable loss
  of success.
- churn and moving (pages that change under the agent): wrong-target actions with gating on.
  A *wrong-target action* is a step on the procedural path (the gate let it reuse the last vision
  epoch: `path == "procedural"`) that acted (non-empty `action`) and either was not effective
  (`effective` false: the validator saw no intended mutation, or the action failed or hit a stale
  ref) or belongs to an episode that failed with `wrong_target` (the plan ran to its end but the
  server state is wrong). The second half is an upper bound: it counts every procedural action of
  such an episode, not only the one that went astray. Declarative steps are counted apart for
  context. "Gating on" is read from each run's resolved config (`agent.gating`).
- prefetch, on long-shopping and on long-flow: median episode wall time of `full` with prefetch
  on against `full[prefetch=false]`, their ratio (< 1: prefetch saves time), and the median number
  of the worker's decisions per episode on each side (`decisions`: prefetch's decisions made ahead
  and not used cost a model call each).

Config names are the harness's derived names: `naive/<tail>`, `full/<tail>`,
`full[gating=false]/<tail>`, `full[prefetch=false]/<tail>`; a figure whose configs are not in the
sweep is reported as missing, never guessed."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.metrics import (
    RunFolderError,
    compare_proportions,
    find_run_dirs,
    load_episodes,
    load_steps,
    wilson_interval,
)
from harness.traces import read_metadata

TARGETED = frozenset({"click", "type", "select", "set_value", "expand", "read"})
LONG = "long-shopping"
FLOW = "long-flow"  # the four-page flow (results refined in place): region scope's case
CHANGING = ("churn", "moving")
SEED_FULL_CALLS = (5, 7)  # the seed's "about five to seven calls" on the twenty-step task


def _agent_and_tail(config_name: str) -> tuple[str, str]:
    agent, _, tail = config_name.partition("/")
    return agent, tail


def load(sweep_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, dict[str, Any]]]:
    """Episodes, steps (with the episode's tags and failure joined on) and each config's resolved
    agent section, from every run folder under sweep_dir."""
    runs = find_run_dirs([sweep_dir])
    episodes = load_episodes(runs)
    steps = load_steps(runs)
    agents: dict[str, dict[str, Any]] = {}
    for run in runs:
        meta = read_metadata(run / "episodes.parquet")
        agents.setdefault(meta.get("config_name", ""), meta.get("config", {}).get("agent", {}))
    if not steps.empty:
        steps = steps.merge(episodes[["episode_id", "tags", "failure", "success"]],
                            on="episode_id", how="inner")
    return episodes, steps, agents


def _tagged(frame: pd.DataFrame, tag: str) -> pd.DataFrame:
    if frame.empty:
        return frame
    return frame[frame["tags"].map(lambda tags: tag in tags)]


def _median(values: pd.Series) -> float | None:
    return float(values.median()) if len(values) else None


def _rate(group: pd.DataFrame) -> dict[str, Any]:
    n, k = len(group), int(group["success"].sum())
    low, high = wilson_interval(k, n)
    return {"episodes": n, "successes": k, "rate": k / n if n else None, "low": low, "high": high}


def per_config(episodes: pd.DataFrame, tags: Sequence[str]) -> list[dict[str, Any]]:
    """Success, median vision calls and wall time per config, over all tasks and per tag."""
    rows = []
    for scope in ("all", *tags):
        part = episodes if scope == "all" else _tagged(episodes, scope)
        for name, group in part.groupby("config_name", sort=True):
            rows.append({"tag": scope, "config": name, **_rate(group),
                         "median_vision_calls": _median(group["vision_calls"]),
                         "median_wall_s": _median(group["wall_s"])})
    return rows


def naive_calls_per_action(episodes: pd.DataFrame, steps: pd.DataFrame, naive: str) -> dict[str, Any]:
    """Per naive long-shopping episode: vision calls against targeted actions."""
    eps = _tagged(episodes[episodes.config_name == naive], LONG)
    if eps.empty:
        return {"episodes": 0}
    acted = steps[(steps.config_name == naive) & steps.action.isin(TARGETED)]
    actions = acted.groupby("episode_id").size()
    per = [{"task_id": row.task_id, "seed": int(row.seed), "vision_calls": int(row.vision_calls),
            "actions": int(actions.get(row.episode_id, 0))} for row in eps.sort_values(["task_id", "seed"]).itertuples()]
    equal = sum(p["vision_calls"] == p["actions"] for p in per)
    calls, acts = sum(p["vision_calls"] for p in per), sum(p["actions"] for p in per)
    return {"episodes": len(per), "one_call_per_action": equal, "vision_calls": calls,
            "actions": acts, "calls_per_action": calls / acts if acts else None, "per_episode": per}


def calls_by_cause(episodes: pd.DataFrame, steps: pd.DataFrame, name: str) -> dict[str, Any]:
    """Where a config's long-shopping vision calls come from: per episode, its calls by the
    fingerprint part whose drift forced them (`miss_reason`; `no_epoch`: the start page or a page
    reached by navigation, which always ends the epoch), and the pages it acted on (a new page
    whenever a targeted action's URL differs from the previous one's). Under "navigation always
    ends the epoch" one call per page acted on is the least any gating policy can make."""
    eps = _tagged(episodes[episodes.config_name == name], LONG)
    if eps.empty:
        return {"episodes": 0}
    own = steps[steps.episode_id.isin(eps.episode_id)]
    perceived = own[own.vision_calls > 0]
    by_cause = perceived.groupby(["episode_id", "miss_reason"]).vision_calls.sum() \
        .unstack(fill_value=0).reindex(eps.episode_id, fill_value=0)
    acted = own[own.action.isin(TARGETED)].sort_values(["episode_id", "step"])
    pages = acted.groupby("episode_id").url.agg(lambda urls: int((urls != urls.shift()).sum())) \
        .reindex(eps.episode_id, fill_value=0)
    return {"episodes": len(eps),
            "median_calls_by_cause": {cause or "none": float(by_cause[cause].median())
                                      for cause in sorted(by_cause.columns)},
            "median_pages_acted_on": float(pages.median())}


def long_shopping(episodes: pd.DataFrame, steps: pd.DataFrame, tail: str) -> dict[str, Any]:
    full, naive = f"full/{tail}", f"naive/{tail}"
    eps = _tagged(episodes, LONG)
    out: dict[str, Any] = {"full": full, "naive": naive}
    for role, name in (("full", full), ("naive", naive)):
        group = eps[eps.config_name == name]
        out[f"{role}_median_vision_calls"] = _median(group["vision_calls"])
        out[f"{role}_success"] = _rate(group) if len(group) else None
    f_rate, n_rate = out["full_success"], out["naive_success"]
    if f_rate and n_rate:
        change = compare_proportions(n_rate["successes"], n_rate["episodes"],
                                     f_rate["successes"], f_rate["episodes"])
        out["success_change"] = {"delta": change.delta, "low": change.delta_low,
                                 "high": change.delta_high, "full_below_naive_interval": change.dropped}
    calls = out["full_median_vision_calls"]
    out["full_calls_in_seed_range"] = None if calls is None else \
        SEED_FULL_CALLS[0] <= calls <= SEED_FULL_CALLS[1]
    out["naive_calls_per_action"] = naive_calls_per_action(episodes, steps, naive)
    out["full_calls_by_cause"] = calls_by_cause(episodes, steps, full)
    return out


def wrong_targets(steps: pd.DataFrame, agents: dict[str, dict[str, Any]], tail: str) -> list[dict[str, Any]]:
    """Wrong-target actions (see the module docstring) per gating-on config and changing tag."""
    rows = []
    for name in sorted(n for n in agents if _agent_and_tail(n)[1] == tail):
        if not agents[name].get("gating", False):
            continue
        for tag in CHANGING:
            part = _tagged(steps[steps.config_name == name], tag)
            if part.empty:
                continue  # no episode of this tag ran under this config: nothing to count
            acted = part[part.action != ""]
            proc = acted[acted.path == "procedural"]
            ineffective = ~proc.effective.astype(bool)
            in_failed = proc.failure == "wrong_target"
            decl = acted[acted.path == "declarative"]
            rows.append({
                "config": name, "tag": tag, "episodes": int(part.episode_id.nunique()),
                "procedural_actions": len(proc),
                "wrong_target_actions": int((ineffective | in_failed).sum()),
                "not_effective": int(ineffective.sum()), "in_wrong_target_episode": int(in_failed.sum()),
                "declarative_actions": len(decl),
                "declarative_not_effective": int((~decl.effective.astype(bool)).sum()),
            })
    return rows


def prefetch_wall(episodes: pd.DataFrame, steps: pd.DataFrame, tail: str, tag: str) -> dict[str, Any]:
    on, off = f"full/{tail}", f"full[prefetch=false]/{tail}"
    eps = _tagged(episodes, tag)
    wall_on = _median(eps[eps.config_name == on]["wall_s"])
    wall_off = _median(eps[eps.config_name == off]["wall_s"])

    def decisions(config: str) -> float | None:
        ids = set(eps[eps.config_name == config].episode_id)
        if not ids or "decisions" not in steps.columns:
            return None
        per = steps[steps.episode_id.isin(ids)].groupby("episode_id")["decisions"].sum()
        return _median(per.reindex(list(ids), fill_value=0))
    return {"on": on, "off": off, "median_wall_s_on": wall_on, "median_wall_s_off": wall_off,
            "ratio_on_off": wall_on / wall_off if wall_on is not None and wall_off else None,
            "median_decisions_on": decisions(on), "median_decisions_off": decisions(off)}


def analyse(sweep_dir: Path) -> dict[str, Any]:
    episodes, steps, agents = load(sweep_dir)
    tails = sorted({_agent_and_tail(n)[1] for n in episodes.config_name.unique()})
    return {
        "sweep_dir": str(sweep_dir),
        "configs": per_config(episodes, (LONG, FLOW, *CHANGING)),
        "by_tail": {tail: {"long_shopping": long_shopping(episodes, steps, tail),
                           "wrong_targets": wrong_targets(steps, agents, tail),
                           "prefetch": {tag: prefetch_wall(episodes, steps, tail, tag)
                                        for tag in (LONG, FLOW)}} for tail in tails},
    }


# ---- rendering ---------------------------------------------------------------------------

def _fmt(value: Any, spec: str = "{:.2f}") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "missing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return spec.format(value) if isinstance(value, float) else str(value)


def _table(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    cells = [[_fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c)
              for i, c in enumerate(columns)]

    def line(vals: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(vals, widths, strict=True)).rstrip()

    return "\n".join([line(list(columns)), line(["-" * w for w in widths]), *map(line, cells)])


def _pct(rate: dict[str, Any] | None) -> str:
    if not rate:
        return "missing"
    return f"{rate['successes']}/{rate['episodes']} = {rate['rate']:.0%} [{rate['low']:.0%}, {rate['high']:.0%}]"


def render(figures: dict[str, Any]) -> str:
    out = [f"gating trade-off: {figures['sweep_dir']}", "",
           "per config (success with 95% Wilson interval; medians per episode)"]
    rows = [{**r, "success": _pct(r)} for r in figures["configs"]]
    out.append(_table(rows, ["tag", "config", "success", "median_vision_calls", "median_wall_s"]))
    for tail, fig in figures["by_tail"].items():
        ls, pf = fig["long_shopping"], fig["prefetch"]
        npa = ls["naive_calls_per_action"]
        calls = (f"  median vision calls  full {_fmt(ls['full_median_vision_calls'], '{:.1f}')}"
                 f"  naive {_fmt(ls['naive_median_vision_calls'], '{:.1f}')}"
                 f"   (seed: full {SEED_FULL_CALLS[0]}-{SEED_FULL_CALLS[1]}, in range: "
                 f"{_fmt(ls['full_calls_in_seed_range'])})")
        out += ["", f"== {tail} ==", f"{LONG}:", calls,
                f"  success              full {_pct(ls['full_success'])}  naive {_pct(ls['naive_success'])}"]
        if "success_change" in ls:
            ch = ls["success_change"]
            out.append(f"  full - naive         {ch['delta']:+.0%} [{ch['low']:+.0%}, {ch['high']:+.0%}]"
                       f"  full below naive's interval: {_fmt(ch['full_below_naive_interval'])}")
        if npa["episodes"]:
            out.append(f"  naive one call per action: {npa['one_call_per_action']}/{npa['episodes']} episodes"
                       f" ({npa['vision_calls']} calls / {npa['actions']} targeted actions"
                       f" = {_fmt(npa['calls_per_action'])})")
        else:
            out.append("  naive one call per action: missing (no naive long-shopping episodes)")
        cause = ls["full_calls_by_cause"]
        if cause["episodes"]:
            parts = ", ".join(f"{k} {v:g}" for k, v in cause["median_calls_by_cause"].items())
            out.append(f"  full's calls by cause (median per episode): {parts}; pages acted on "
                       f"{cause['median_pages_acted_on']:g} (navigation ends the epoch: one call "
                       "per page is the least any gating policy makes)")
        out += ["", "wrong-target actions with gating on (procedural path; see --help for the definition):"]
        columns = ["config", "tag", "episodes", "procedural_actions", "wrong_target_actions",
                   "not_effective", "in_wrong_target_episode", "declarative_actions",
                   "declarative_not_effective"]
        out.append(_table(fig["wrong_targets"], columns) if fig["wrong_targets"]
                   else "  missing (no churn or moving episode ran with gating on)")
        out.append("")
        for tag, wall in pf.items():
            out.append(f"{tag} median wall time: prefetch on {_fmt(wall['median_wall_s_on'])} s, off "
                       f"{_fmt(wall['median_wall_s_off'])} s, on/off = {_fmt(wall['ratio_on_off'])}; "
                       f"worker decisions per episode on {_fmt(wall['median_decisions_on'], '{:.1f}')}, "
                       f"off {_fmt(wall['median_decisions_off'], '{:.1f}')}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.bench.gating_tradeoff",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", type=Path, help="a gating_tradeoff sweep folder (or one run folder)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    try:
        figures = analyse(args.sweep_dir)
    except RunFolderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(render(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
