"""groundbench against a peer, BrowserGym, on the same MiniWoB tasks, side by side in one run:
episodes per minute and observation cost per step.

    python -m harness.bench.peer_browsergym [--bgym-python /work/bgym-venv/bin/python]
        [--tasks click-button click-link enter-text] [--seeds 0 1 2] [--rounds 3]
        [--only browsergym] [--bgym-browser chromium|headless-shell] [--out FILE.json]

BrowserGym (`browsergym-miniwob` 0.14.3) lives in its own venv, never in groundbench's:
`make bgym-venv` builds it (`python3 -m venv /work/bgym-venv && /work/bgym-venv/bin/pip install
browsergym-miniwob==0.14.3 miniwob==1.1.0`). Its Playwright 1.44 looks for
`chromium-1117/chrome-linux/chrome` under PLAYWRIGHT_BROWSERS_PATH; this benchmark writes a
wrapper there (runs/bench/bgym-browsers) that execs Debian's Chromium with the usual flags (by
default the headless shell groundbench itself runs headless, so both sides drive the same binary;
`--bgym-browser chromium`: full Chromium, as the first comparison was set up), and serves the
`miniwob` package's html over http on loopback for MINIWOB_URL.

Each side is one child process, timed from start to exit (imports, browser start-up and
everything else included) on the same episodes, tasks x seeds, with nothing sampling beside it
(the memory sampler of the other benchmarks costs a run about 7% of its wall time here):
- browsergym: `harness/bench/peer_browsergym_side.py` run by the BrowserGym venv's python: its
  own environment with its defaults and a trivial one-step agent (see that file); observation cost
  is every `_get_obs` call (DOM snapshot, accessibility tree, screenshot, element properties);
- groundbench: `groundbench suite=miniwob 'suite.ids=[miniwob.TASK,...]' perception=synthetic
  perception.capture=true` at the default concurrency (one process: one browser, a context per
  episode) and the default trace settings; observation cost per step is `observe_ms +
  perceive_ms` (fingerprint and aria snapshot, then the screenshot and the synthetic model at zero
  latency) from steps.parquet. `capture=true` takes the screenshot a pixel-reading model needs
  (the synthetic model itself reads the page), so the observation holds what BrowserGym's does.
  `--only browsergym` measures the peer alone. groundbench runs once more one episode at a time
  (`groundbench-sequential`, `concurrency=1`): the observation cost is compared on that run, like
  with like (at the default concurrency on a 2-core machine an observation also waits for the
  other episodes' pages, which BrowserGym's single process never does; that figure is reported
  beside it).
Each round runs both sides, in an order alternating from round to round. A ratio is the median
over rounds of the same-round ratio, so load from other work mostly cancels.

Project targets: groundbench episodes per minute at least 5x BrowserGym's, and a lower observation
cost per step, both measured side by side in one run."""

from __future__ import annotations

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pandas as pd

from harness.bench import machine, output
from harness.browser import CHROMIUM_ARGS, SYSTEM_CHROMIUMS

SIDE_SCRIPT = Path(__file__).with_name("peer_browsergym_side.py")
BGYM_CHROMIUM = "chromium-1117/chrome-linux/chrome"  # where Playwright 1.44 looks for its browser
# What BrowserGym's wrapper execs: the headless shell that groundbench itself prefers for headless
# runs (the default: one binary on both sides) or full Chromium (`--bgym-browser chromium`).
BGYM_BROWSERS = {"chromium": "/usr/lib/chromium/chromium",
                 "headless-shell": "/usr/lib/chromium/chromium-headless-shell"}
# groundbench-sequential: groundbench one episode at a time, for the observation cost alone: on a
# machine with fewer cores than concurrent episodes an observation also waits for the other
# episodes' pages, which BrowserGym's single process never does.
SIDES = ("browsergym", "browsergym-per-core", "groundbench", "groundbench-sequential")
TARGET_RATE = 5.0  # groundbench episodes/min over BrowserGym's (one process), at least
TARGET_RATE_PER_CORE = 3.0  # ...over BrowserGym's with one process per core, at least
TARGET_OBS = 1.0  # groundbench observation ms per step over BrowserGym's, below


def chromium_wrapper(root: Path, which: str = "chromium") -> Path:
    """A PLAYWRIGHT_BROWSERS_PATH whose chromium-1117 is a script that execs the system Chromium
    (`which`: a key of BGYM_BROWSERS)."""
    wanted = BGYM_BROWSERS[which]
    fallbacks = SYSTEM_CHROMIUMS if which == "chromium" else ()
    binary = next((c for c in (wanted, *fallbacks) if Path(c).is_file()), None)
    if binary is None:
        raise FileNotFoundError(f"no {which} at {wanted}" + (f" or {fallbacks}" if fallbacks else ""))
    chrome = root / BGYM_CHROMIUM
    chrome.parent.mkdir(parents=True, exist_ok=True)
    flags = " ".join(("--no-sandbox", *CHROMIUM_ARGS))
    chrome.write_text(f'#!/bin/sh\nexec {binary} {flags} "$@"\n')
    chrome.chmod(0o755)
    return root


def miniwob_html(python: str) -> Path:
    """The `miniwob` package's html folder, as installed in the BrowserGym venv."""
    out = subprocess.run([python, "-c", "import miniwob, os; print(os.path.dirname(miniwob.__file__))"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip()) / "html"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """Serve a folder over http on loopback; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def split_seeds(seeds: Sequence[int], procs: int) -> list[list[int]]:
    """The seeds dealt round-robin to `procs` processes (none left empty)."""
    return [chunk for chunk in (list(seeds[i::procs]) for i in range(procs)) if chunk]


def browsergym_side(python: str, tasks: Sequence[str], seeds: Sequence[int], env: dict[str, str],
                    out: Path, procs: int = 1) -> dict[str, Any]:
    """BrowserGym's episodes in `procs` processes at once (the seeds dealt among them, every
    task in each: how AgentLab runs one process per core), timed from the first start to the
    last exit."""
    chunks = split_seeds(seeds, procs)
    outs = [out.with_name(f"{out.stem}-p{i}{out.suffix}") for i in range(len(chunks))]
    t0 = time.perf_counter()
    running = [subprocess.Popen([python, str(SIDE_SCRIPT), "--tasks", *tasks, "--seeds", *map(str, chunk),
                                 "--out", str(o)], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True) for chunk, o in zip(chunks, outs, strict=True)]
    errors = [p.communicate()[1] for p in running]
    process_s = time.perf_counter() - t0
    for p, err in zip(running, errors, strict=True):
        if p.returncode != 0:
            raise RuntimeError(f"BrowserGym side failed:\n{err[-3000:]}")
    raws = [json.loads(o.read_text()) for o in outs]
    raw = {**raws[0], "episodes": [e for r in raws for e in r["episodes"]]}
    eps = raw["episodes"]
    obs = [ms for e in eps for ms in e["observation_ms"]]
    side = "browsergym" if procs == 1 else "browsergym-per-core"
    return {"side": side, "processes": len(chunks), "episodes": len(eps), "successes": sum(e["reward"] > 0 for e in eps),
            "process_s": process_s, "episodes_per_minute": 60 * len(eps) / process_s,
            "observation_ms_per_step": statistics.median(obs), "observations": len(obs),
            "browser_version": raw["browser_version"], "versions": raw["versions"],
            "episode_s": [e["wall_s"] for e in eps],
            "actions": [{k: e[k] for k in ("task", "seed", "action", "reward", "action_error")} for e in eps]}


def groundbench_side(tasks: Sequence[str], seeds: Sequence[int], run_dir: Path,
                     sequential: bool = False) -> dict[str, Any]:
    overrides = ["suite=miniwob", f"suite.ids=[{','.join(f'miniwob.{t}' for t in tasks)}]",
                 "perception=synthetic", "perception.capture=true", f"seeds=[{','.join(map(str, seeds))}]",
                 *(["concurrency=1"] if sequential else [])]
    sampled = machine.run_sampled(overrides, run_dir, interval_s=None)  # timed as the peer is
    eps = pd.read_parquet(run_dir / "episodes.parquet")
    steps = pd.read_parquet(run_dir / "steps.parquet")
    obs = steps.observe_ms + steps.perceive_ms
    browser = json.loads((run_dir / "run.json").read_text()).get("browser_executable", "")
    return {"side": "groundbench-sequential" if sequential else "groundbench", "browser_executable": browser, "episodes": len(eps), "successes": int(eps.success.sum()),
            "process_s": sampled["wall_s"], "episodes_per_minute": 60 * len(eps) / sampled["wall_s"],
            "observation_ms_per_step": float(obs.median()), "observations": len(obs),
            "overrides": overrides, "episode_s": eps.wall_s.tolist()}


def run(python: str, tasks: Sequence[str], seeds: Sequence[int], rounds: int,
        sides: Sequence[str], bgym_browser: str = "headless-shell", cores: int = 1) -> list[dict[str, Any]]:
    results = []
    peer = any(side.startswith("browsergym") for side in sides)
    serving = static_server(miniwob_html(python)) if peer else nullcontext("")
    with tempfile.TemporaryDirectory() as tmp, serving as base:
        env = {**os.environ, "MINIWOB_URL": f"{base}miniwob/",
               "PLAYWRIGHT_BROWSERS_PATH": str(chromium_wrapper(Path("runs/bench/bgym-browsers").resolve(),
                                                             bgym_browser))}
        for rnd in range(rounds):
            order = list(sides) if rnd % 2 == 0 else list(reversed(sides))
            for side in order:
                where = Path(tmp) / f"{side}-{rnd}"
                if side.startswith("groundbench"):
                    out = groundbench_side(tasks, seeds, where, sequential=side == "groundbench-sequential")
                else:
                    out = browsergym_side(python, tasks, seeds, env, where.with_suffix(".json"),
                                          cores if side == "browsergym-per-core" else 1)
                out["load_average"] = machine.facts()["load_average"]
                print(f"round {rnd} {side}: {out['episodes_per_minute']:.1f} episodes/min, observation "
                      f"{out['observation_ms_per_step']:.0f} ms/step, load {out['load_average'][0]:.1f}",
                      file=sys.stderr)
                results.append({"round": rnd, **out})
    return results


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    sides = {}
    for side in SIDES:
        mine = [r for r in results if r["side"] == side]
        if mine:
            sides[side] = {"runs": len(mine), "episodes": sum(r["episodes"] for r in mine),
                           "successes": sum(r["successes"] for r in mine),
                           "episodes_per_minute": statistics.median(r["episodes_per_minute"] for r in mine),
                           "observation_ms_per_step": statistics.median(r["observation_ms_per_step"] for r in mine)}
    by = {(r["round"], r["side"]): r for r in results}
    rounds = sorted({r["round"] for r in results})

    def ratio(key: str, peer: str, mine: str = "groundbench") -> float | None:
        if mine not in sides or peer not in sides:
            return None
        return statistics.median(by[(n, mine)][key] / by[(n, peer)][key] for n in rounds)
    return {"sides": sides,
            "ratios_groundbench_to_browsergym": {
                "episodes_per_minute": ratio("episodes_per_minute", "browsergym"),
                # like with like: one episode at a time on both sides
                "observation_ms_per_step": ratio("observation_ms_per_step", "browsergym", "groundbench-sequential"),
                "observation_ms_per_step_concurrent": ratio("observation_ms_per_step", "browsergym")},
            "ratios_groundbench_to_browsergym_per_core": {
                "episodes_per_minute": ratio("episodes_per_minute", "browsergym-per-core")}}


def targets(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rate = summary["ratios_groundbench_to_browsergym"]["episodes_per_minute"]
    obs = summary["ratios_groundbench_to_browsergym"]["observation_ms_per_step"]
    per_core = summary.get("ratios_groundbench_to_browsergym_per_core", {}).get("episodes_per_minute")
    return [{"target": f"groundbench episodes per minute >= {TARGET_RATE:g}x BrowserGym's", "measured": rate,
             "holds": None if rate is None else rate >= TARGET_RATE},
            {"target": f"groundbench episodes per minute >= {TARGET_RATE_PER_CORE:g}x BrowserGym's with one "
                       "process per core", "measured": per_core,
             "holds": None if per_core is None else per_core >= TARGET_RATE_PER_CORE},
            {"target": "groundbench observation cost per step below BrowserGym's, one episode at a time on "
                       "both sides (ratio < 1)", "measured": obs,
             "holds": None if obs is None else obs < TARGET_OBS}]


def render(summary: dict[str, Any], checks: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    load = meta["load_average"]
    lines = [(f"groundbench against BrowserGym on MiniWoB {', '.join(meta['tasks'])} x seeds {meta['seeds']}, "
             f"{meta['rounds']} rounds, {meta['cpus']} cpus, {meta['memory_gib']} GiB, load average "
             f"{load['before'][0]:.1f} -> {load['after'][0]:.1f}; BrowserGym's browser: {meta['bgym_browser']}"),
             "medians over rounds", "",
             f"{'side':<24} {'ok':>9} {'episodes/min':>13} {'observation ms/step':>20}"]
    for side, s in summary["sides"].items():
        lines.append(f"{side:<24} {s['successes']:>4}/{s['episodes']:<4} {s['episodes_per_minute']:>13.1f} "
                     f"{s['observation_ms_per_step']:>20.0f}")
    lines += ["", "targets (groundbench / BrowserGym, median of same-round ratios):"]
    for c in checks:
        state = "not measured" if c["holds"] is None else "holds" if c["holds"] else "DOES NOT HOLD"
        value = "missing" if c["measured"] is None else f"{c['measured']:.2f}"
        lines.append(f"  {state:<13} {c['target']} (measured {value})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = output.parser("peer_browsergym", __doc__, plot=False)
    parser.add_argument("--bgym-python", default=os.environ.get("BGYM_PYTHON", "/work/bgym-venv/bin/python"))
    parser.add_argument("--tasks", nargs="+", default=["click-button", "click-link", "enter-text"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=SIDES, default=None, help="measure one side alone")
    parser.add_argument("--bgym-browser", choices=sorted(BGYM_BROWSERS), default="headless-shell",
                        help="the Chromium binary BrowserGym's wrapper execs (default: the headless "
                             "shell groundbench runs, so both sides drive one binary)")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1,
                        help="BrowserGym processes at once for the per-core side (default: this machine's cores)")
    args = parser.parse_args(argv)
    sides = [args.only] if args.only else list(SIDES)
    if not Path(args.bgym_python).is_file() and any(s.startswith("browsergym") for s in sides):
        parser.error(f"no BrowserGym python at {args.bgym_python}: run `make bgym-venv` or pass --bgym-python")
    load_before = machine.facts()["load_average"]
    results = run(args.bgym_python, args.tasks, args.seeds, args.rounds, sides, args.bgym_browser, args.cores)
    summary = summarise(results)
    checks = targets(summary)
    meta = {**machine.facts(), "tasks": args.tasks, "seeds": args.seeds, "rounds": args.rounds, "sides": sides,
            "bgym_browser": BGYM_BROWSERS[args.bgym_browser], "cores": args.cores}
    meta["load_average"] = {"before": load_before, "after": meta["load_average"]}
    print(render(summary, checks, meta))
    output.write(args, {"meta": meta, **summary, "targets": checks, "runs": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
