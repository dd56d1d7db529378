"""What one step's reading of the page costs as the page grows, against a viewport screenshot
measured in the same run (DESIGN.md, "What a step costs"):

    python -m harness.bench.observation_cost [--sizes 1000 10000 40000] [--repeats N]
                                             [--out FILE.json] [--plot FILE.png]

Pages: generated, seeded, N elements in the top document (counted after load, reported beside
the nominal size): a header with navigation, a small same-origin promo iframe in view, then
product cards in normal flow, each nested divs with a heading, a paragraph of text, a list of
links, a quantity input and two buttons (one icon-only). At 1280x720 all but the first few cards
lie below the fold. Loaded with `page.set_content` into one shared Chromium, one context per size.

Measurements, per size and per round:
- screenshot: one viewport `page.screenshot()` (the baseline: what a vision call starts from);
- fingerprint: `agents.fingerprint.take(page)`;
- aria: one full `page.aria_snapshot(mode="ai", boxes=True)` (what every step read before the
  viewport scope; the full-snapshot curve);
- observation: what `GroundingAgent._step` reads from the page before acting on a step that
  calls vision, in its order: fingerprint, the viewport-scope decision, `RefBook.observe` (scoped
  aria snapshots of the containers in view), `snapping.frame_geometry`, placing the elements in
  the viewport, the screenshot. The step's target is the header's Search button (in view);
- observation_offscreen: the same for a step whose target is the last card's "Save for later"
  button, below the fold: the decision escalates to the whole document;
- synthetic_read: the synthetic backend's reader `visible_geometry.read_regions`, which stands in
  for the vision model's look at the screenshot (perception, like a model call; not counted in
  observation). Each part of observation is also timed on its own (`observation_parts`).
Each round runs every size and every measurement once, interleaved, in an order rotated from
round to round, after one untimed warm-up round. The ratio of a measurement to the screenshot
is the median over rounds of (measurement / screenshot of the same page in the same round), so
load from other work on the machine mostly cancels; medians of the absolute times are reported
too, but only the ratios are comparable between machines.

Project targets checked: fingerprint / screenshot < 1 at 10,000 elements, and
observation / screenshot <= 2 at every size measured (the step whose target is in view)."""

from __future__ import annotations

import asyncio
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page, async_playwright

from agents import fingerprint, snapping, viewport_scope
from agents.observation import RefBook
from agents.perception.visible_geometry import read_regions
from harness.bench import output
from harness.browser import BrowserSettings, launch
from tasks.schema import Subgoal

KINDS = ("screenshot", "fingerprint", "aria", "observation", "observation_offscreen", "synthetic_read")
PARTS = ("fingerprint", "observe", "frame_geometry", "place", "screenshot")
TARGET_FP = (10_000, 1.0)  # fingerprint / screenshot below this at this size
TARGET_OBS = 2.0  # observation / screenshot at most this at every size

_WORDS = ("lamp", "walnut", "brass", "linen", "oak", "kettle", "blue", "warm", "bright", "shade",
          "desk", "floor", "table", "woven", "cotton", "steel", "copper", "matte", "glass", "amber",
          "soft", "classic", "modern", "compact", "large", "small")
_HEADER = """<header style="display:flex;gap:12px;padding:8px;border-bottom:1px solid #ccc">
<a href="#home">Home</a><nav><ul style="display:flex;gap:12px;list-style:none;margin:0">
<li><a href="#lamps">Lamps</a></li><li><a href="#tables">Tables</a></li><li><a href="#sale">Sale</a></li>
</ul></nav><input type="search" placeholder="Search products"><button>Search</button>
<a href="#cart">Cart (0)</a></header>
<iframe title="Promotion" width="600" height="90" style="border:0;display:block"
 srcdoc="<p style='margin:4px'>Spring sale: 20% off lamps</p><button>Show offers</button>"></iframe>"""
_CARD_ELEMENTS = 18  # elements per card below (section ... buttons)


def _card(i: int, rng: random.Random) -> str:
    def words(n: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(n))

    links = "".join(f'<li><a href="#p{i}-{k}">{words(2)}</a></li>' for k in range(3))
    return (f'<section class="card c{i}" style="border:1px solid #ddd;margin:8px;padding:8px">'
            f'<h2 style="font-size:18px;margin:0">{words(3).title()} {i}</h2>'
            f'<div class="row" style="display:flex;gap:16px"><div class="col">'
            f'<p>{words(12)} <span class="price">{rng.randint(5, 300)} EUR</span></p>'
            f'<ul>{links}</ul></div><div class="col">'
            f'<label>Qty <input type="number" value="1" min="1" style="width:48px"></label> '
            f'<button type="button">Add to cart</button> '
            f'<button type="button" aria-label="Save {i} for later">&#9734;</button></div></div></section>')


def page_html(elements: int, seed: int = 0) -> str:
    """A page of about `elements` elements in the top document (html, head and body included)."""
    rng = random.Random(seed)
    cards = max(1, round((elements - 30) / _CARD_ELEMENTS))
    body = "".join(_card(i, rng) for i in range(cards))
    return (f"<!doctype html><html><head><title>Catalogue</title></head>"
            f"<body style='margin:0;font:14px sans-serif'>{_HEADER}<main>{body}</main></body></html>")


IN_VIEW = Subgoal(action="click", target="Search button in the header", label="Search")


def offscreen_subgoal(cards: int) -> Subgoal:
    return Subgoal(action="click", target=f"Save {cards - 1} for later button",
                   label=f"Save {cards - 1} for later")


async def observation(page: Page, subgoal: Subgoal, parts: dict[str, float]) -> str:
    """The agent's page reads on a vision step (observe, place); returns the scope it read."""
    async def timed(name: str, work: Callable[[], Awaitable[Any]]) -> Any:
        t0 = time.perf_counter()
        out = await work()
        parts[name] = (time.perf_counter() - t0) * 1000
        return out

    fp = await timed("fingerprint", lambda: fingerprint.take(page))
    t0 = time.perf_counter()
    scopes, _ = viewport_scope.choose(subgoal, fp)
    obs = await RefBook().observe(page, scopes, fp.framed if fp else frozenset())
    parts["observe"] = (time.perf_counter() - t0) * 1000
    geometry = await timed("frame_geometry", lambda: snapping.frame_geometry(page, obs))
    t0 = time.perf_counter()
    placed = [geometry.place(el) for el in obs.elements.values()
              if el.box is not None and el.box.area > 0]
    parts["place"] = (time.perf_counter() - t0) * 1000
    assert placed
    await timed("screenshot", lambda: page.screenshot())
    return obs.scope


async def measure(page: Page, kind: str, cards: int, parts: dict[str, float],
                  scopes: dict[str, str]) -> float:
    t0 = time.perf_counter()
    if kind == "screenshot":
        await page.screenshot()
    elif kind == "fingerprint":
        assert await fingerprint.take(page) is not None
    elif kind == "aria":
        await page.aria_snapshot(mode="ai", boxes=True)
    elif kind == "synthetic_read":
        await read_regions(page)
    else:
        subgoal = IN_VIEW if kind == "observation" else offscreen_subgoal(cards)
        scopes[kind] = await observation(page, subgoal, parts if kind == "observation" else {})
    return (time.perf_counter() - t0) * 1000


async def _open(context: BrowserContext, size: int) -> tuple[Page, dict[str, int]]:
    page = await context.new_page()
    page.set_default_timeout(0)  # a full snapshot of 40,000 elements on a loaded machine takes long
    await page.set_content(page_html(size), wait_until="load")
    counts = await page.evaluate("""() => ({
        elements: document.querySelectorAll('*').length,
        interactive: document.querySelectorAll('a[href],button,input,select,textarea').length,
        cards: document.querySelectorAll('section.card').length,
        below_fold: [...document.querySelectorAll('a[href],button,input')].filter(
            (e) => e.getBoundingClientRect().top >= innerHeight).length })""")
    return page, counts


async def run(sizes: Sequence[int], repeats: int) -> dict[str, Any]:
    settings = BrowserSettings()
    async with async_playwright() as pw:
        browser = await launch(pw, settings)
        try:
            pages: dict[int, Page] = {}
            counts: dict[int, dict[str, int]] = {}
            for size in sizes:
                context = await browser.new_context(
                    viewport={"width": settings.width, "height": settings.height},
                    device_scale_factor=settings.device_scale_factor)
                pages[size], counts[size] = await _open(context, size)
            samples = {s: {k: [] for k in KINDS} for s in sizes}
            parts = {s: {p: [] for p in PARTS} for s in sizes}
            scopes: dict[int, dict[str, str]] = {s: {} for s in sizes}
            load_before = os.getloadavg()
            for rnd in range(repeats + 1):  # round 0 warms up and is not recorded
                order = list(sizes[rnd % len(sizes):]) + list(sizes[:rnd % len(sizes)])
                for size in order:
                    page = pages[size]
                    await page.bring_to_front()
                    kinds = KINDS[rnd % len(KINDS):] + KINDS[:rnd % len(KINDS)]
                    for kind in kinds:
                        got: dict[str, float] = {}
                        ms = await measure(page, kind, counts[size]["cards"], got, scopes[size])
                        if rnd:
                            samples[size][kind].append(ms)
                            for name, value in got.items():
                                parts[size][name].append(value)
            load_after = os.getloadavg()
            browser_version = browser.version
        finally:
            await browser.close()
    return {"sizes": list(sizes), "repeats": repeats, "counts": counts, "samples": samples,
            "parts": parts, "scopes": scopes, "browser_version": browser_version,
            "load_average": {"before": load_before, "after": load_after}}


def summarise(raw: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for size in raw["sizes"]:
        s = raw["samples"][size]
        shots = s["screenshot"]
        row: dict[str, Any] = {"size": size, **raw["counts"][size]}
        for kind in KINDS:
            row[f"{kind}_ms"] = statistics.median(s[kind])
            if kind != "screenshot":
                row[f"{kind}_ratio"] = statistics.median(v / b for v, b in zip(s[kind], shots, strict=True))
        row["parts_ms"] = {p: statistics.median(v) for p, v in raw["parts"][size].items() if v}
        row["scope"] = raw["scopes"][size]
        rows.append(row)
    return rows


def targets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    by_size = {r["size"]: r for r in rows}
    size, limit = TARGET_FP
    if size in by_size:
        ratio = by_size[size]["fingerprint_ratio"]
        out.append({"target": f"fingerprint / screenshot < {limit:g} at {size:,} elements",
                    "measured": ratio, "holds": ratio < limit})
    for r in rows:
        out.append({"target": f"observation / screenshot <= {TARGET_OBS:g} at {r['size']:,} elements",
                    "measured": r["observation_ratio"], "holds": r["observation_ratio"] <= TARGET_OBS})
    return out


def render(rows: list[dict[str, Any]], checks: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    head = ("size", "elements", "interactive", "below fold", "screenshot", "fingerprint", "aria",
            "observation", "obs offscreen", "synthetic read", "fp/shot", "aria/shot", "obs/shot",
            "offscreen/shot", "read/shot")
    title = (f"observation cost, Chromium {meta['browser_version']}, {meta['viewport']}, "
             f"{meta['repeats']} rounds, {meta['cpus']} cpus, load average "
             f"{meta['load_average']['before'][0]:.1f} -> {meta['load_average']['after'][0]:.1f}")
    lines = [title, "medians in ms; ratios are medians of per-round ratios to the screenshot", ""]
    table = [[f"{r['size']:,}", f"{r['elements']:,}", f"{r['interactive']:,}", f"{r['below_fold']:,}",
              *(f"{r[f'{k}_ms']:.1f}" for k in KINDS),
              *(f"{r[f'{k}_ratio']:.2f}" for k in KINDS[1:])] for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(head)]
    lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
    lines += ["  ".join(c.rjust(w) for c, w in zip(t, widths, strict=True)) for t in table]
    lines += ["", "scope read: " + "; ".join(f"{r['size']:,}: {r['scope']}" for r in rows)]
    lines += ["", "observation, part by part (median ms): " + ", ".join(PARTS)]
    lines += [f"  {r['size']:>6,}: " + "  ".join(f"{p} {r['parts_ms'][p]:.1f}" for p in PARTS) for r in rows]
    lines += ["", "targets:"]
    lines += [f"  {'holds' if c['holds'] else 'DOES NOT HOLD':<13} {c['target']} (measured {c['measured']:.2f})"
              for c in checks]
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (cost, ratio) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    xs = [r["elements"] for r in rows]
    for i, (kind, marker) in enumerate(zip(KINDS, "osD^vx", strict=True)):
        cost.plot(xs, [r[f"{kind}_ms"] for r in rows], marker=marker, color=f"C{i}", label=kind)
        if kind != "screenshot":
            ratio.plot(xs, [r[f"{kind}_ratio"] for r in rows], marker=marker, color=f"C{i}",
                       label=f"{kind} / screenshot")
    for ax in (cost, ratio):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(xs, [f"{x:,}" for x in xs])
        ax.minorticks_off()
        ax.set_xlabel("elements in the page")
        ax.grid(True, which="both", alpha=0.3)
    cost.set_ylabel("median time per call (ms)")
    cost.set_title("cost per call")
    ratio.axhline(TARGET_OBS, color="grey", linestyle="--", linewidth=1)
    ratio.annotate(f"observation target {TARGET_OBS:g}x", (xs[0], TARGET_OBS), textcoords="offset points",
                   xytext=(2, 4), fontsize=8, color="grey")
    ratio.axhline(TARGET_FP[1], color="grey", linestyle=":", linewidth=1)
    ratio.annotate(f"fingerprint target {TARGET_FP[1]:g}x", (xs[0], TARGET_FP[1]), textcoords="offset points",
                   xytext=(2, -11), fontsize=8, color="grey")
    ratio.set_ylabel("median ratio to the screenshot (same round)")
    ratio.set_title("relative to one viewport screenshot")
    output.save_figure(fig, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = output.parser("observation_cost", __doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 40_000])
    parser.add_argument("--repeats", type=int, default=7, help="timed rounds (after one warm-up)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or any(s < 100 for s in args.sizes):
        parser.error("--repeats must be >= 1 and every size >= 100")
    raw = asyncio.run(run(sorted(set(args.sizes)), args.repeats))
    rows = summarise(raw)
    checks = targets(rows)
    settings = BrowserSettings()
    meta = {"browser_version": raw["browser_version"], "playwright": version("playwright"),
            "viewport": f"{settings.width}x{settings.height}@{settings.device_scale_factor:g}",
            "repeats": args.repeats, "cpus": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), "load_average": raw["load_average"]}
    print(render(rows, checks, meta))
    output.write(args, {"meta": meta, "rows": rows, "targets": checks, "samples": raw["samples"],
                        "parts": raw["parts"]}, lambda path: plot(rows, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
