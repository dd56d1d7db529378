"""Where a benchmark's figures go: the command line every benchmark starts from (its docstring as
help, --out for the JSON, --plot for an optional figure) and the files it writes."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def parser(name: str, doc: str | None, plot: bool = True) -> argparse.ArgumentParser:
    """`python -m harness.bench.NAME` with --out runs/bench/NAME.json (and --plot FILE.png)."""
    out = argparse.ArgumentParser(prog=f"python -m harness.bench.{name}", description=doc,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    out.add_argument("--out", type=Path, default=Path(f"runs/bench/{name}.json"), help="the figures as JSON")
    if plot:
        out.add_argument("--plot", type=Path, default=None, help="also draw the figures into this file")
    return out


def write(args: argparse.Namespace, figures: dict[str, Any],
          draw: Callable[[Path], None] | None = None) -> None:
    """The JSON to args.out and, when asked for with --plot, the figure drawn by `draw`."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1))
    if draw is not None and getattr(args, "plot", None):
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        draw(args.plot)


def save_figure(fig: Any, path: Path) -> None:
    """Write a matplotlib figure at the benchmarks' resolution, with a legend on every axes that
    has labelled lines, and free it."""
    import matplotlib.pyplot as plt

    for ax in fig.axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)
