"""Recall benchmark of the `ocr` vision backend on the fixture pages: which of the text-labelled
interactive controls in view come back as a candidate, at both tiers, and what each call costs.

    python -m harness.bench.ocr_recall [--seeds 0 1] [--out FILE.json] [--tasks 'shop-*']

Pages: the start page of every fixture task (deduplicated by path), once per seed, each in a
fresh browser context of one shared Chromium, 1280x720 at device scale factor 1, screenshotted
400 ms after the load event. Controls are read just before and just after the screenshot; one
whose box changed in between (a late banner pushing content down) is left out and counted. The backend gets
the viewport screenshot, an empty subgoal and no hints, so candidates come in reading order and
the tier's cap is what truncates dense pages.

Ground truth: the text-labelled controls in view, read from the DOM (harness/bench/ocr_truth.py;
the backend never sees it).

Matching rule: a control is recalled when some candidate matches one of its sources in both
  - text: after case folding and dropping everything but letters and digits (OCR often drops
    spaces), the candidate's label equals the source text, or contains it (source >= 2 chars), or
    is contained in it while covering at least half of it (a fragment of a long label), or the two
    are similar (difflib ratio >= 0.8, which absorbs a misread character or two);
  - place: the centre of the candidate's box lies inside the source's box, or the centre of the
    source's box inside the candidate's (OCR boxes carry some padding; a line that runs on into
    a neighbour still counts when it covers the control's text).
Text-less controls are "hit" by any non-text candidate (checkbox, slider, field, icon) under the
same place rule against the control's own box. Latency is the backend's measured wall time per
call (`PerceptionResult.cost.latency_ms`), after the engine was loaded once; the process CPU time of
the call is recorded beside it (ONNX Runtime uses every core, so on an idle machine CPU time is
up to cores x wall time; on a loaded machine wall time grows and CPU time does not).
"""

from __future__ import annotations

import argparse
import asyncio
import fnmatch
import json
import os
import platform
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, async_playwright

from agents.perception.base import Candidate, PerceptionResult
from agents.perception.ocr import OcrBackend, OcrConfig
from harness.bench.ocr_truth import Box, Control, collect_controls, compact, control_key
from harness.browser import BrowserSettings, launch, new_episode_context
from sites.server import FixtureServer
from tasks.loader import FIXTURE_TASKS, load_tasks

TIERS = ("small", "large")


# --------------------------------------------------------------------------- matching


def text_matches(label: str, truth: str) -> bool:
    """The matching rule's text half (see the module docstring)."""
    a, b = compact(label), compact(truth)
    if not a or not b:
        return False
    if a == b or (len(b) >= 2 and b in a) or (a in b and len(a) >= max(2, len(b) / 2)):
        return True
    return SequenceMatcher(None, a, b).ratio() >= 0.8


def candidate_box(c: Candidate, width: float, height: float) -> Box:
    return (c.box.x0 * width, c.box.y0 * height, c.box.x1 * width, c.box.y1 * height)


def _inside(point: tuple[float, float], box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def same_place(a: Box, b: Box) -> bool:
    """The matching rule's place half: the centre of either box lies inside the other."""
    ca = ((a[0] + a[2]) / 2, (a[1] + a[3]) / 2)
    cb = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
    return _inside(ca, b) or _inside(cb, a)


def recalled(control: Control, candidates: Sequence[Candidate], width: float, height: float) -> bool:
    for cand in candidates:
        box = candidate_box(cand, width, height)
        for src in control.sources:
            if same_place(box, src.box) and text_matches(cand.label, src.text):
                return True
    return False


def shape_hit(control: Control, candidates: Sequence[Candidate], width: float, height: float) -> bool:
    return any(c.kind != "text" and same_place(candidate_box(c, width, height), control.box)
               for c in candidates)


# --------------------------------------------------------------------------- benchmark


@dataclass
class TierResult:
    found: int = 0
    candidates: int = 0
    latency_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    textless_hits: int = 0
    error: str = ""
    missed: list[str] = field(default_factory=list)


@dataclass
class PageResult:
    path: str
    seed: int
    tasks: list[str]
    controls: int = 0
    textless: int = 0
    moved: int = 0
    labels: list[str] = field(default_factory=list)
    tiers: dict[str, TierResult] = field(default_factory=dict)
    error: str = ""


async def bench_page(browser: Browser, settings: BrowserSettings, server: FixtureServer,
                     backend: OcrBackend, path: str, seed: int, tasks: list[str], repeat: int,
                     settle_ms: int) -> PageResult:
    result = PageResult(path=path, seed=seed, tasks=tasks)
    context = await new_episode_context(browser, settings, server.origins,
                                        f"ocrbench-{uuid.uuid4().hex[:12]}", seed)
    try:
        page = await context.new_page()
        sep = "&" if "?" in path else "?"
        await page.goto(f"{server.origin()}{path}{sep}seed={seed}", wait_until="load")
        await page.wait_for_timeout(settle_ms)
        before = await collect_controls(page)
        shot = await page.screenshot(type="png")
        controls = await collect_controls(page)
    except Exception as exc:  # noqa: BLE001 - one broken page must not end the benchmark
        result.error = f"{type(exc).__name__}: {exc}"[:300]
        return result
    finally:
        await context.close()
    # a control that moved while the screenshot was taken (late banners, lazy content) is in
    # neither place for sure: left out, and counted
    stable = {control_key(c) for c in before}
    result.moved = sum(control_key(c) not in stable for c in controls)
    controls = [c for c in controls if control_key(c) in stable]
    width, height = settings.width, settings.height
    labelled = [c for c in controls if c.sources]
    textless = [c for c in controls if not c.sources]
    result.controls, result.textless = len(labelled), len(textless)
    result.labels = [c.label for c in labelled]
    for tier in TIERS:
        tr = TierResult()
        last: PerceptionResult | None = None
        for _ in range(repeat):
            cpu0 = time.process_time()
            last = await backend.perceive(shot, "", [], tier)  # type: ignore[arg-type]
            tr.cpu_ms.append(round((time.process_time() - cpu0) * 1000, 1))
            tr.latency_ms.append(round(last.cost.latency_ms, 1))
        assert last is not None
        tr.error = f"{last.error_type}: {last.error}" if last.error_type else ""
        tr.candidates = len(last.candidates)
        hits = [recalled(c, last.candidates, width, height) for c in labelled]
        tr.found = sum(hits)
        tr.missed = [c.label for c, ok in zip(labelled, hits, strict=True) if not ok]
        tr.textless_hits = sum(shape_hit(c, last.candidates, width, height) for c in textless)
        result.tiers[tier] = tr
    return result


def _pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarise(pages: list[PageResult], config: OcrConfig) -> dict[str, Any]:
    ok = [p for p in pages if not p.error]
    out: dict[str, Any] = {"pages": len(ok), "page_errors": len(pages) - len(ok),
                           "controls": sum(p.controls for p in ok),
                           "textless_controls": sum(p.textless for p in ok),
                           "moved_controls_left_out": sum(p.moved for p in ok)}
    for tier in TIERS:
        rows = [p.tiers[tier] for p in ok if tier in p.tiers]
        lat = [v for r in rows for v in r.latency_ms]
        cpu = [v for r in rows for v in r.cpu_ms]
        found = sum(r.found for r in rows)
        cap = getattr(config, tier).cap
        out[tier] = {
            "recall": found / out["controls"] if out["controls"] else float("nan"),
            "recall_macro": statistics.fmean(p.tiers[tier].found / p.controls for p in ok
                                             if p.controls and tier in p.tiers) if ok else None,
            "found": found,
            "candidates_mean": statistics.fmean(r.candidates for r in rows) if rows else 0,
            "pages_at_cap": sum(r.candidates >= cap for r in rows),
            "latency_ms_median": _pct(lat, 0.5),
            "latency_ms_p90": _pct(lat, 0.9),
            "cpu_ms_median": _pct(cpu, 0.5),
            "cpu_ms_p90": _pct(cpu, 0.9),
            "calls": len(lat),
            "textless_hits": sum(r.textless_hits for r in rows),
            "errors": sum(bool(r.error) for r in rows),
        }
    return out


def print_report(pages: list[PageResult], summary: dict[str, Any]) -> None:
    head = (f"{'page':<34} {'seed':>4} {'ctl':>4} {'t-less':>6} | {'small rec':>9} {'cand':>4} "
            f"{'ms':>6} | {'large rec':>9} {'cand':>4} {'ms':>6} {'shape':>5}")
    print(head)
    print("-" * len(head))
    for p in pages:
        if p.error:
            print(f"{p.path[:34]:<34} {p.seed:>4}  ERROR {p.error[:80]}")
            continue
        cells = []
        for tier in TIERS:
            t = p.tiers[tier]
            rec = f"{t.found}/{p.controls}"
            cells.append(f"{rec:>9} {t.candidates:>4} {statistics.median(t.latency_ms):>6.0f}")
        shapes = f"{p.tiers['large'].textless_hits}/{p.textless}"
        print(f"{p.path[:34]:<34} {p.seed:>4} {p.controls:>4} {p.textless:>6} | {cells[0]} | "
              f"{cells[1]} {shapes:>5}")
    print("-" * len(head))
    for tier in TIERS:
        s = summary[tier]
        print(f"{tier:>5}: recall {s['recall']:.3f} ({s['found']}/{summary['controls']} controls, "
              f"macro {s['recall_macro']:.3f}), candidates mean {s['candidates_mean']:.1f} "
              f"({s['pages_at_cap']} pages at cap), latency median {s['latency_ms_median']:.0f} ms "
              f"p90 {s['latency_ms_p90']:.0f} ms over {s['calls']} calls (CPU time median "
              f"{s['cpu_ms_median']:.0f} ms p90 {s['cpu_ms_p90']:.0f} ms)"
              + (f", text-less hits {s['textless_hits']}/{summary['textless_controls']}"
                 if tier == "large" else "")
              + (f", {s['errors']} errors" if s["errors"] else ""))


def select_pages(patterns: Sequence[str]) -> dict[str, list[str]]:
    """Start path -> ids of the tasks starting there, over every fixture task (or those matching)."""
    pages: dict[str, list[str]] = {}
    for task in load_tasks([FIXTURE_TASKS]).values():
        if patterns and not any(fnmatch.fnmatchcase(task.id, p) for p in patterns):
            continue
        pages.setdefault(task.start, []).append(task.id)
    return dict(sorted(pages.items()))


async def run(seeds: Sequence[int], patterns: Sequence[str], repeat: int, settle_ms: int,
              config: OcrConfig) -> tuple[list[PageResult], dict[str, Any]]:
    pages = select_pages(patterns)
    backend = OcrBackend(config)
    t0 = time.perf_counter()
    await asyncio.to_thread(backend.warm_up)
    load_s = time.perf_counter() - t0
    settings = BrowserSettings()
    results: list[PageResult] = []
    with FixtureServer() as server:
        async with async_playwright() as pw:
            browser = await launch(pw, settings)
            try:
                for seed in seeds:
                    for path, tasks in pages.items():
                        results.append(await bench_page(browser, settings, server, backend, path,
                                                        seed, tasks, repeat, settle_ms))
                browser_version = browser.version
            finally:
                await browser.close()
    summary = summarise(results, config)
    summary["engine_load_s"] = round(load_s, 3)
    summary["browser_version"] = browser_version
    return results, summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.bench.ocr_recall",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out", type=Path, default=Path("runs/bench/ocr_recall.json"))
    parser.add_argument("--tasks", nargs="*", default=[], help="task id globs (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="calls per page and tier")
    parser.add_argument("--settle-ms", type=int, default=400, help="wait after load")
    parser.add_argument("--small-scale", type=float, default=None, help="override small.scale")
    args = parser.parse_args(argv)
    config = OcrConfig()
    if args.small_scale:
        config = config.model_copy(update={"small": config.small.model_copy(
            update={"scale": args.small_scale})})
    load_before = os.getloadavg()
    started = time.time()
    pages, summary = asyncio.run(run(args.seeds, args.tasks, max(1, args.repeat), args.settle_ms,
                                     config))
    if not pages:
        print("no fixture tasks found", file=sys.stderr)
        return 1
    print_report(pages, summary)
    doc = {
        "benchmark": "ocr_recall",
        "matching_rule": "text: compact (casefold, letters+digits) equal / contains (>=2 chars) /"
                         " contained covering >= half / difflib ratio >= 0.8; place: centre of"
                         " either box inside the other (candidate vs the text's source box)",
        "config": config.model_dump(),
        "seeds": list(args.seeds),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(),
                    "loadavg_before": load_before, "loadavg_after": os.getloadavg()},
        "wall_s": round(time.time() - started, 1),
        "summary": summary,
        "pages": [asdict(p) for p in pages],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1, default=float))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
