"""`groundbench-calibrate`: measure a real vision backend's error rates on the fixture start pages
and write them as a profile of the synthetic model (conf/perception/synthetic_<name>.yaml), then,
with `--predict`, check how well that profile predicts the real backend's success per task.

    groundbench-calibrate perception=ocr --name ocr [--predict] [suite=ci] ['seeds=[0,1,2]']
    groundbench-calibrate --compare REAL_RUN PREDICTED_RUN [PREDICTED_RUN ...]

Pages and ground truth. The start page of every task of the suite (deduplicated by path), once
per seed, each in a fresh browser context, read 400 ms after the load event. Ground truth is what
the synthetic backend itself starts from: `read_regions` (agents/perception/visible_geometry.py)
with occlusion on (a real backend reads pixels, so a control under a sticky header is not in its
picture). The regions are read before and after the screenshot; a page whose regions moved in
between is read again (up to three times), else left out and counted. The real backend gets the
screenshot, an empty subgoal, no hints and a cap of 200 at each tier, so neither ranking nor the
cap hides what it sees; the profile takes the caps from the backend's own configuration.

How a page's candidates are matched to its regions and the error rates estimated from the
counts: harness/error_rates.py.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from hydra.errors import HydraException
from omegaconf.errors import OmegaConfBaseException
from playwright.async_api import async_playwright
from pydantic import ValidationError

from agents.perception.base import PerceptionResult
from agents.perception.registry import build_backend
from agents.perception.synthetic import SyntheticConfig
from agents.perception.visible_geometry import Region, read_regions
from harness.browser import launch, new_episode_context
from harness.config import CONF, RunConfig, compose_run_config
from harness.error_rates import (
    TIERS,
    Estimate,
    TierCounts,
    backend_caps,
    count_call,
    estimate,
    profile_config,
)
from harness.metrics import RunFolderError, load_episodes
from reports.markdown import md_table
from sites.server import FixtureServer
from tasks.loader import TaskFileError, UnknownTaskError
from tasks.schema import Task

EXIT_BAD_INPUT = 2
CALIBRATION_CAP = 200
SETTLE_MS = 400
DEFAULT_SEEDS = [0, 1, 2]
PREDICT_SEEDS = list(range(10))



# --------------------------------------------------------------------------- pages


@dataclass
class PageReport:
    path: str
    seed: int
    regions: int = 0
    error: str = ""


async def _stable_regions(page: Any) -> tuple[list[Region], bytes] | None:
    for _ in range(3):
        before = await read_regions(page, occlusion=True)
        shot = await page.screenshot()
        after = await read_regions(page, occlusion=True)
        if before == after:
            return after, shot
        await page.wait_for_timeout(SETTLE_MS)
    return None


_LOG = functools.partial(print, flush=True)


async def collect(cfg: RunConfig, tasks: Sequence[Task], seeds: Sequence[int],
                  log: Any = _LOG) -> tuple[dict[str, TierCounts], list[PageReport]]:
    """Run the configured backend over each start page and seed; both tiers' counts."""
    counts = {tier: TierCounts() for tier in TIERS}
    pages = sorted({t.start for t in tasks})
    reports: list[PageReport] = []
    settings = cfg.browser
    viewport = (float(settings.width), float(settings.height))
    with FixtureServer(cfg.sites.dirs) as server:
        async with async_playwright() as pw:
            browser = await launch(pw, settings)
            try:
                for seed in seeds:
                    for path in pages:
                        report = PageReport(path=path, seed=seed)
                        reports.append(report)
                        context = await new_episode_context(
                            browser, settings, server.origins, f"calib-{uuid.uuid4().hex[:12]}",
                            seed)
                        try:
                            page = await context.new_page()
                            sep = "&" if "?" in path else "?"
                            await page.goto(f"{server.origin()}{path}{sep}seed={seed}",
                                            wait_until="load")
                            await page.wait_for_timeout(SETTLE_MS)
                            read = await _stable_regions(page)
                            if read is None:
                                report.error = "regions kept moving"
                                continue
                            regions, shot = read
                            report.regions = len(regions)
                            backend = build_backend(cfg.perception, seed, page)
                            if backend is None:
                                raise ValueError("perception=none has nothing to calibrate")
                            for tier in TIERS:
                                result: PerceptionResult = await backend.perceive(
                                    shot, "", [], tier, CALIBRATION_CAP)
                                if result.error_type:
                                    counts[tier].errors += 1
                                    continue
                                counts[tier].latency_ms.append(result.cost.latency_ms)
                                count_call(regions, result.candidates, viewport, counts[tier])
                        except ValueError:
                            raise
                        except Exception as exc:  # noqa: BLE001 - one broken page is reported
                            report.error = f"{type(exc).__name__}: {exc}"[:300]
                        finally:
                            await context.close()
                        log(f"  {path} seed {seed}: {report.regions} regions"
                            + (f", {report.error}" if report.error else ""))
            finally:
                await browser.close()
    return counts, reports


# --------------------------------------------------------------------------- profile files


def summarise_counts(c: TierCounts) -> dict[str, Any]:
    """A tier's counts for the json: ambiguous rows tallied by (members, missed members), edge
    offsets and latencies by their number and median."""
    out = {k: v for k, v in asdict(c).items()
           if k not in ("offsets", "latency_ms", "ambiguous_rows")}
    tally: dict[str, int] = {}
    for j, k in c.ambiguous_rows:
        key = f"{j} members, {k} unseen"
        tally[key] = tally.get(key, 0) + 1
    out["ambiguous_rows"] = dict(sorted(tally.items()))
    out["edge_offsets"] = len(c.offsets)
    out["edge_offset_median"] = statistics.median(c.offsets) if c.offsets else None
    out["latency_ms_median"] = statistics.median(c.latency_ms) if c.latency_ms else None
    return out


def write_profile(name: str, config: SyntheticConfig, estimates: dict[str, Estimate],
                  counts: dict[str, TierCounts], reports: Sequence[PageReport], meta: dict,
                  out_dir: Path) -> Path:
    """conf/perception/synthetic_<name>.yaml (a config `perception=synthetic_<name>` selects)
    and, beside it, synthetic_<name>.json with every count the estimates came from."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"synthetic_{name}.yaml"
    values = config.model_dump()
    lines = [
        f"# The synthetic model calibrated on a real backend ({meta['backend']}) by",
        f"#   {meta['command']}",
        (f"# over {meta['pages']} start pages x seeds {meta['seeds']} "
         f"({meta['observations']} page reads); counts in synthetic_{name}.json."),
        f"# Estimators: harness/error_rates.py. Select with perception=synthetic_{name}.",
    ]
    for key, value in values.items():
        note = ""
        if key in estimates:
            e = estimates[key]
            note = f"  # {'' if e.measured else 'NOT MEASURED, '}{e.basis}"
        elif key == "cap":
            note = f"  # the caps of {meta['backend']}'s configuration"
        elif key == "latency_ms":
            note = "  # median measured latency per tier"
        dumped = yaml.safe_dump({key: value}, default_flow_style=True, width=200).strip()
        lines.append(dumped.removeprefix("{").removesuffix("}") + note)
    path.write_text("\n".join(lines) + "\n")
    detail = {
        **meta,
        "estimates": {k: asdict(e) for k, e in estimates.items()},
        "counts": {tier: summarise_counts(c) for tier, c in counts.items()},
        "pages": [asdict(r) for r in reports],
    }
    path.with_suffix(".json").write_text(json.dumps(detail, indent=1))
    return path


# --------------------------------------------------------------------------- prediction


def prediction_table(real: pd.DataFrame, predicted: dict[str, pd.DataFrame]
                     ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per task: the real backend's success rate and each profile's, with its error |predicted -
    measured|; overall: success (the mean of the per-task rates), its difference from the
    measured one, the mean absolute error over tasks and the largest. Episodes are compared over
    the (task, seed) pairs every run holds."""
    keys = set(zip(real["task_id"], real["seed"], strict=True))
    for frame in predicted.values():
        keys &= set(zip(frame["task_id"], frame["seed"], strict=True))
    if not keys:
        raise RunFolderError("the runs share no (task, seed) episode")

    def rates(frame: pd.DataFrame) -> pd.Series:
        inside = [(t, s) in keys for t, s in zip(frame["task_id"], frame["seed"], strict=True)]
        return frame[inside].groupby("task_id")["success"].mean()

    measured = rates(real)
    n = real[[(t, s) in keys for t, s in zip(real["task_id"], real["seed"], strict=True)]] \
        .groupby("task_id").size()
    table = pd.DataFrame({"task": measured.index, "seeds": n.reindex(measured.index).values,
                          "measured": measured.values})
    overall = [{"profile": "(measured)", "success": float(measured.mean()), "difference": 0.0,
                "mean absolute error": 0.0, "largest error": 0.0}]
    for name, frame in predicted.items():
        pred = rates(frame).reindex(measured.index)
        err = (pred - measured).abs()
        table[name] = pred.values
        table[f"{name} error"] = err.values
        overall.append({"profile": name, "success": float(pred.mean()),
                        "difference": float(pred.mean() - measured.mean()),
                        "mean absolute error": float(err.mean()),
                        "largest error": float(err.max())})
    return table, pd.DataFrame(overall)


def _config_name(frame: pd.DataFrame, fallback: str) -> str:
    names = sorted(set(frame["config_name"]))
    if len(names) != 1:
        raise RunFolderError(f"{fallback} holds {len(names)} configurations: one per folder")
    return str(names[0])


def _short(name: str) -> str:
    """agent/perception/worker -> perception (the part a calibration changes)."""
    parts = name.split("/")
    return parts[1] if len(parts) == 3 else name


def print_prediction(real_dir: Path, predicted_dirs: Sequence[Path]) -> str:
    real = load_episodes([real_dir])
    predicted = {}
    for d in predicted_dirs:
        frame = load_episodes([d])
        predicted[_short(_config_name(frame, str(d)))] = frame
    table, overall = prediction_table(real, predicted)
    fmt = table.copy()
    for col in fmt.columns[2:]:
        fmt[col] = fmt[col].map(lambda v: f"{v:.2f}")
    ovr = overall.copy()
    for col in ovr.columns[1:]:
        spec = "+.3f" if col == "difference" else ".3f"
        ovr[col] = ovr[col].map(lambda v, spec=spec: format(v, spec))
    text = (f"measured: {_config_name(real, str(real_dir))} ({real_dir})\n\n"
            + md_table(fmt) + "\n\n" + md_table(ovr))
    print(text)
    return text


def run_groundbench(overrides: list[str], run_dir: Path) -> int:
    """One `groundbench` run into run_dir (same interpreter); its exit code."""
    cmd = [sys.executable, "-m", "harness", *overrides, f"hydra.run.dir={run_dir}"]
    print("$ groundbench " + " ".join(cmd[3:]), flush=True)
    return subprocess.run(cmd, check=False).returncode


# --------------------------------------------------------------------------- command line


def _split(overrides: list[str]) -> tuple[list[str], list[str], list[int] | None]:
    """(perception overrides, the others but seeds, the seeds given)."""
    seeds = None
    perception, rest = [], []
    for o in overrides:
        key = o.lstrip("+~").split("=", 1)[0]
        if key == "seeds":
            seeds = [int(s) for s in o.split("=", 1)[1].strip("[] ").split(",") if s.strip()]
        elif key == "perception" or key.startswith("perception."):
            perception.append(o)
        else:
            rest.append(o)
    return perception, rest, seeds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="groundbench-calibrate", description=__doc__.split("\n\n")[0],
        epilog="OVERRIDES are groundbench's: perception=ocr (or perception=openai "
               "perception.client.base_url=...), suite=ci (default), 'suite.ids=[...]', "
               f"'seeds=[...]' (calibration seeds, default {DEFAULT_SEEDS}).")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides (see below)")
    parser.add_argument("--name", help="profile name: writes synthetic_<name>.yaml")
    parser.add_argument("--out-dir", type=Path, default=Path(CONF) / "perception",
                        help="where the profile goes (default: the package's conf/perception)")
    parser.add_argument("--predict", action="store_true",
                        help="then run the suite with the real backend, the new profile and the "
                             "default synthetic profile, and print predicted against measured "
                             "success per task")
    parser.add_argument("--predict-seeds", type=int, nargs="+", default=PREDICT_SEEDS)
    parser.add_argument("--runs-dir", type=Path, default=None,
                        help="a new folder for the runs of --predict (default "
                             "runs/calibrate/<name>/<date>_<time>)")
    parser.add_argument("--compare", type=Path, nargs="+", metavar="RUN_DIR",
                        help="only print the table: the real backend's run folder first, then "
                             "the runs of the profiles that predict it")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.compare) < 2:
            parser.error("--compare needs the real run and at least one predicting run")
        try:
            print_prediction(args.compare[0], args.compare[1:])
        except RunFolderError as exc:
            print(f"groundbench-calibrate: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        return 0
    if not args.name or not args.name.replace("_", "").isalnum():
        parser.error("--name NAME (letters, digits, _) is required")
    perception_ov, rest, seeds = _split(list(args.overrides))
    if not any(o.split("=", 1)[0] == "suite" for o in rest):
        rest = ["suite=ci", *rest]
    seeds = seeds if seeds is not None else DEFAULT_SEEDS
    try:
        cfg, _ = compose_run_config([*perception_ov, *rest])
    except ValidationError as exc:
        err = exc.errors()[0]
        print(f"groundbench-calibrate: config key '{'.'.join(map(str, err['loc']))}': "
              f"{err['msg']}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (HydraException, OmegaConfBaseException) as exc:
        print(f"groundbench-calibrate: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if cfg.perception.name == "none":
        print("groundbench-calibrate: perception=none has nothing to calibrate; choose a backend, "
              "e.g. perception=ocr", file=sys.stderr)
        return EXIT_BAD_INPUT
    from harness.runner import SuiteConfigError, suite_tasks

    try:
        tasks = [t for t in suite_tasks(cfg) if isinstance(t, Task)]
    except (SuiteConfigError, TaskFileError, UnknownTaskError) as exc:
        print(f"groundbench-calibrate: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not tasks:
        print("groundbench-calibrate: the suite has no fixture task", file=sys.stderr)
        return EXIT_BAD_INPUT
    backend = cfg.perception.name
    print(f"calibrating perception={backend} on {len({t.start for t in tasks})} start pages "
          f"x seeds {seeds}", flush=True)
    started = time.time()
    counts, reports = asyncio.run(collect(cfg, tasks, seeds))
    estimates = estimate(counts["small"], counts["large"])
    latency = {tier: round(statistics.median(c.latency_ms), 1) if c.latency_ms else 0.0
               for tier, c in counts.items()}
    config = profile_config(args.name, estimates, backend_caps(cfg.perception), latency)
    command = "groundbench-calibrate " + " ".join([*args.overrides, f"--name {args.name}"])
    meta = {"backend": backend, "command": command, "seeds": list(seeds),
            "pages": len({t.start for t in tasks}), "observations": len(reports),
            "page_errors": sum(bool(r.error) for r in reports),
            "wall_s": round(time.time() - started, 1), "machine_cpus": os.cpu_count(),
            "loadavg_after": os.getloadavg()}
    path = write_profile(args.name, config, estimates, counts, reports, meta, args.out_dir)
    print(path.read_text())
    print(f"wrote {path} and {path.with_suffix('.json')} in {meta['wall_s']} s")
    if not args.predict:
        return 0
    runs = args.runs_dir or Path("runs/calibrate") / args.name / time.strftime("%Y-%m-%d_%H-%M-%S")
    seeds_ov = f"seeds=[{','.join(map(str, args.predict_seeds))}]"
    common = [*rest, seeds_ov, "trace.playwright=false", "trace.screenshots=none"]
    # A profile written elsewhere is found through Hydra's search path (DIR/perception/...).
    extra = [] if args.out_dir.resolve() == (Path(CONF) / "perception").resolve() \
        else [f"hydra.searchpath=[file://{args.out_dir.resolve().parent}]"]
    real_dir, profile_dir, default_dir = (runs / f"measured_{backend}",
                                          runs / f"synthetic_{args.name}", runs / "synthetic")
    for overrides, run_dir in (([*extra, *perception_ov, *common], real_dir),
                               ([*extra, f"perception=synthetic_{args.name}", *common], profile_dir),
                               ([*extra, "perception=synthetic", *common], default_dir)):
        if run_groundbench(overrides, run_dir) != 0:
            print(f"groundbench-calibrate: the run into {run_dir} failed (above)", file=sys.stderr)
            return 1
    print()
    print_prediction(real_dir, [profile_dir, default_dir])
    return 0


if __name__ == "__main__":
    sys.exit(main())
