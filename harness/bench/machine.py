"""What every benchmark records about the machine it ran on (cores, memory, load, versions), the
resident memory of a process together with every browser process it started, and a groundbench
run in a child process with that memory sampled as it goes."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import psutil

from harness.traces import PARTS


def facts() -> dict[str, Any]:
    """Cores, memory, platform and the load average now; recorded beside every figure."""
    return {"cpus": os.cpu_count(), "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "platform": platform.platform(), "python": platform.python_version(),
            "playwright": version("playwright"), "load_average": os.getloadavg()}


def tree_memory(pid: int | None = None) -> dict[str, int]:
    """Resident memory in bytes of a process (`python_rss`) and of it plus all its descendants:
    `tree_rss` counts pages shared between processes once per process, as `ps` does (an upper
    bound); `tree_pss` splits each shared page between the processes that share it (what the tree
    really holds). Processes that exit while being read are skipped."""
    root = psutil.Process(pid)
    own = root.memory_full_info()
    rss, pss = own.rss, own.pss
    for child in root.children(recursive=True):
        try:
            info = child.memory_full_info()
        except psutil.NoSuchProcess:
            continue
        rss, pss = rss + info.rss, pss + info.pss
    return {"python_rss": own.rss, "tree_rss": rss, "tree_pss": pss}


def selection(suite: str, tasks: Sequence[str] = ()) -> list[str]:
    """Overrides that select a suite, or these fixture task ids (globs) instead when given."""
    return ["suite=fixtures", f"suite.ids=[{','.join(tasks)}]"] if tasks else [f"suite={suite}"]


def run_sampled(overrides: Sequence[str], run_dir: Path, interval_s: float | None = 0.25) -> dict[str, Any]:
    """Run `groundbench OVERRIDES hydra.run.dir=RUN_DIR` as a child process (one worker, as a user
    runs it) and sample, every interval_s, its memory (`tree_memory`) and how many episodes it has
    finished (the per-episode trace parts written so far). interval_s=None samples nothing: the
    run alone is timed (a sample reads every process's memory map, about 25 ms of CPU each time,
    which a benchmark timing the run against a peer not sampled must not charge to it)."""
    parts = run_dir / PARTS
    samples: list[dict[str, Any]] = []
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = psutil.Popen([sys.executable, "-m", "harness", *overrides, f"hydra.run.dir={run_dir}"],
                            stdout=subprocess.DEVNULL, stderr=err)
        while interval_s is not None and proc.poll() is None:
            try:
                memory = tree_memory(proc.pid)
            except psutil.NoSuchProcess:
                break
            done = sum(1 for _ in parts.glob("episodes-*.parquet")) if parts.is_dir() else 0
            samples.append({"t": time.perf_counter() - t0, "episodes": done, **memory})
            time.sleep(interval_s)
        returncode = proc.wait()
        wall_s = time.perf_counter() - t0
        if returncode != 0:
            err.seek(0)
            raise RuntimeError(f"groundbench {' '.join(overrides)} failed:\n{err.read().decode()[-2000:]}")
    return {"wall_s": wall_s, "samples": samples}


def describe(meta: dict[str, Any]) -> str:
    """'2 cpus, 23.5 GiB, load average 3.1 -> 4.0' for a benchmark's headline."""
    load = meta["load_average"]
    return (f"{meta['cpus']} cpus, {meta['memory_gib']} GiB, load average {load['before'][0]:.1f} -> "
            f"{load['after'][0]:.1f}")
