"""Experiment runner: one browser per worker process, a fresh context per episode, episodes run
concurrently, traces written as each finishes, a crashed browser relaunched for the rest."""

from __future__ import annotations

import asyncio
import ctypes
import functools
import importlib
import json
import os
import platform
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import Browser, Playwright, async_playwright
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from agents.openai_client import (
    MODEL_CALLS,
    CallBreaker,
    ModelCallError,
    OpenAIClient,
    OpenAIClientConfig,
)
from agents.perception.openai_vision import OpenAIVisionConfig
from agents.worker.openai_worker import OpenAIWorkerConfig
from harness.browser import find_chromium, launch
from harness.config import RunConfig
from harness.episode import run_episode
from harness.policies import needs_ground_truth
from harness.traces import PARTS, TraceWriter, remove_unfinished
from sites.server import SITES_ROOT, FixtureServer
from tasks.loader import FIXTURE_TASKS, load_tasks, select
from tasks.miniwob.catalog import MOUNT, MiniwobTask, html_root, load_miniwob_tasks
from tasks.schema import Task
from tasks.trace import EpisodeRecord

if TYPE_CHECKING:
    import pandas as pd

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("groundbench", "playwright", "pandas", "pyarrow", "pydantic", "hydra-core", "xxhash")


# Every this many finished episodes the worker hands the free pages of its C heap back to the
# system. Without it the worker's Python process grew ~0.1 MiB per episode (176 -> 209 MiB RSS over
# 300 episodes) while its live Python objects stayed flat (~143k): glibc keeps the pages that
# Playwright's protocol messages and the parsed snapshots freed, and malloc_trim returns them
# (RSS back to ~175 MiB at every call, 1-11 ms each; README "Performance", memory).
TRIM_EVERY = 25


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim  # glibc only
    except (OSError, AttributeError):
        return None


def release_free_heap() -> bool:
    """Return the C heap's free pages to the system (glibc's malloc_trim); False where the C
    library has no such call (musl, macOS), which leaves memory as it is."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@dataclass
class RunResult:
    run_dir: Path

    @functools.cached_property
    def episodes(self) -> pd.DataFrame:
        """The run folder's episodes (pandas is imported here, on first use: it is a third of the
        command's start-up time, and the command itself does not need it)."""
        import pandas as pd

        return pd.read_parquet(self.run_dir / "episodes.parquet")

    def tally(self) -> tuple[int, int, float]:
        """(episodes succeeded, episodes, mean vision calls per episode) of the whole folder."""
        import pyarrow.parquet as pq

        table = pq.read_table(self.run_dir / "episodes.parquet", columns=["success", "vision_calls"])
        calls = table.column("vision_calls").to_pylist()
        return sum(table.column("success").to_pylist()), table.num_rows, sum(calls) / max(len(calls), 1)


class SuiteConfigError(ValueError):
    """A suite that cannot run with this configuration (found before any browser starts)."""


def site_folders(cfg: RunConfig) -> dict[str, Path]:
    """The site folders the fixture server will serve, by name (found before it starts)."""
    try:
        return FixtureServer.collect_sites([SITES_ROOT, *map(Path, cfg.sites.dirs)])
    except FileNotFoundError as exc:
        raise SuiteConfigError(f"sites.dirs: {exc}") from None


def suite_tasks(cfg: RunConfig) -> list[Task | MiniwobTask]:
    if cfg.suite.source == "fixtures":
        registry = load_tasks([FIXTURE_TASKS, *cfg.tasks.dirs])
        tasks = list(select(registry, cfg.suite.ids, cfg.suite.tags, cfg.suite.exclude_tags))
        sites = site_folders(cfg)
        unknown = sorted((t.id, t.site) for t in tasks if t.site not in sites)
        if unknown:
            task, site = unknown[0]
            more = f" ({len(unknown) - 1} more tasks name unknown sites)" if len(unknown) > 1 else ""
            raise SuiteConfigError(
                f"task {task!r} names site {site!r}, which is no site folder (known: "
                f"{', '.join(sorted(sites))}); add the folder that holds {site}/ to sites.dirs{more}")
        return tasks
    tasks = select(load_miniwob_tasks(), cfg.suite.ids, cfg.suite.tags, cfg.suite.exclude_tags)
    if needs_ground_truth(cfg.policy):
        raise SuiteConfigError(f"policy={cfg.policy.name} needs ground truth that MiniWoB tasks "
                               "do not carry; run MiniWoB suites with an agent")
    unplanned = [t.task_type for t in tasks if not t.planned]
    if unplanned and cfg.worker.name == "scripted":
        raise SuiteConfigError(
            f"suite {cfg.suite.name}: no plan builder for {', '.join(unplanned)}; the scripted "
            "worker follows plans, so run these with worker=openai or leave them out")
    return list(tasks)


def suite_mounts(cfg: RunConfig) -> dict[str, Path]:
    """Folders the fixture server serves besides the sites: MiniWoB's html for its suite."""
    return {MOUNT: html_root()} if cfg.suite.source == "miniwob" else {}


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                             timeout=5, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, timeout=5, check=False).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def run_metadata(cfg: RunConfig, browser_version: str, resolved: dict[str, Any],
                 browser_executable: str) -> dict[str, Any]:
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = importlib_metadata.version(pkg)
        except importlib_metadata.PackageNotFoundError:
            versions[pkg] = "not installed"
    return {
        "config": resolved,
        "config_name": cfg.config_name,
        "config_hash": cfg.config_hash,
        "git_commit": git_commit(),
        "packages": versions,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "browser_version": browser_version,
        # the binary (the headless shell or full Chromium); "playwright": Playwright's own build
        "browser_executable": browser_executable,
        # 1, 5 and 15-minute load averages as the run started (the report compares timings of
        # configs run under different loads only with a warning)
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "viewport": {"width": cfg.browser.width, "height": cfg.browser.height},
        "device_scale_factor": cfg.browser.device_scale_factor,
    }


class _BrowserPool:
    """The process's one browser; relaunched once when it dies so the sweep goes on."""

    def __init__(self, pw: Playwright, cfg: RunConfig) -> None:
        self.pw, self.cfg = pw, cfg
        self.browser: Browser | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> Browser:
        async with self._lock:
            if self.browser is None or not self.browser.is_connected():
                self.browser = await launch(self.pw, self.cfg.browser)
            return self.browser

    async def close(self) -> None:
        if self.browser is not None and self.browser.is_connected():
            await self.browser.close()


class EndpointPreflightError(RuntimeError):
    """A model endpoint that did not answer usably the one request sent before the run (found
    before any browser starts)."""


class RunStoppedError(RuntimeError):
    """The run stopped early because its model calls kept failing; the finished episodes are
    written."""


def model_endpoints(cfg: RunConfig) -> list[tuple[str, OpenAIClientConfig, str, int]]:
    """(config section, client, model, max_tokens) of each model the run will call whose section
    asks for a preflight, each (URL, model, key variable) once."""
    wanted: list[tuple[str, OpenAIClientConfig, str, int]] = []
    if isinstance(cfg.perception, OpenAIVisionConfig) and cfg.perception.preflight:
        client = cfg.perception.client
        for tier in (cfg.perception.small, cfg.perception.large):
            wanted.append(("perception", client, tier.model or client.model,
                           tier.max_tokens or client.max_tokens))
    if isinstance(cfg.worker, OpenAIWorkerConfig) and cfg.worker.preflight:
        client = cfg.worker.client
        wanted.append(("worker", client, client.model, client.max_tokens))
    seen, out = set(), []
    for section, client, model, max_tokens in wanted:
        key = (client.base_url.rstrip("/"), model, client.api_key_env)
        if key not in seen:
            seen.add(key)
            out.append((section, client, model, max_tokens))
    return out


async def preflight(cfg: RunConfig) -> None:
    """One small request to each model endpoint of the run (`OpenAIClient.preflight`): one that
    is down or answers garbage raises EndpointPreflightError naming its URL, model and cause."""
    for section, client_cfg, model, max_tokens in model_endpoints(cfg):
        client = OpenAIClient(client_cfg)
        try:
            await client.preflight(model, max_tokens)
        except ModelCallError as exc:
            raise EndpointPreflightError(
                f"the {section} model endpoint {client.url} (model {model}) did not answer the "
                f"request sent before the run: {exc}. Start the server or fix "
                f"{section}.client.base_url and {section}.client.model; {section}.preflight=false "
                "skips this check") from None


class RunDirInUseError(RuntimeError):
    """The run folder already holds episodes and resume was not asked for."""


def needs_rerun(cfg: RunConfig, episode: EpisodeRecord) -> bool:
    """A failed episode whose artifacts `trace.capture=rerun` records by running it again. Not a
    timeout or a browser crash: rerunning a hang costs `heartbeat_s` again, and a crashed browser
    takes its trace with it (`trace.capture=live` records those as they happen)."""
    wanted = cfg.trace.playwright or cfg.trace.screenshots != "none"
    return (not cfg.trace.live and wanted and not episode.success
            and episode.failure not in ("timeout", "browser_crash"))


def _import_all(modules: Sequence[str]) -> None:
    for module in modules:
        importlib.import_module(module)


def finished_episodes(run_dir: Path) -> set[tuple[str, str, int, int]]:
    """(config_hash, task_id, task_version, seed) of every episode already written in a folder."""
    done = set()
    for part in (run_dir / PARTS).glob("episodes-*.parquet"):
        import pyarrow.parquet as pq  # (only for a folder with episodes in it: see run_async)

        for row in pq.read_table(part, columns=["config_hash", "task_id", "task_version", "seed"]
                                 ).to_pylist():
            done.add((row["config_hash"], row["task_id"], row["task_version"], row["seed"]))
    return done


async def run_async(cfg: RunConfig, run_dir: Path, resolved: dict[str, Any],
                    show_progress: bool = True, faults: Mapping[str, str] | None = None) -> RunResult:
    """`faults`: the fixture server's test-only fault hook (see FixtureServer)."""
    tasks = suite_tasks(cfg)
    jobs = [(task, seed) for seed in cfg.seeds for task in tasks]
    run_dir.mkdir(parents=True, exist_ok=True)
    done = finished_episodes(run_dir)
    if done and not cfg.resume:
        raise RunDirInUseError(f"{run_dir} already holds {len(done)} episodes; pass resume=true to "
                               "finish that run, or choose another hydra.run.dir")
    jobs = [(t, s) for t, s in jobs if (cfg.config_hash, t.id, t.version, s) not in done]
    if cfg.resume:
        remove_unfinished(run_dir)
    if jobs:
        await preflight(cfg)
    # The trace writer's pyarrow, and the pandas pyarrow imports the first time it converts rows
    # (at the first trace write, on the event loop every episode shares): imported on a thread
    # while the browser starts (0.3-0.4 s in all).
    threading.Thread(target=_import_all, args=(("pyarrow.parquet", "pandas"),), daemon=True).start()
    with FixtureServer(cfg.sites.dirs, faults=faults, mounts=suite_mounts(cfg)) as server:
        async with async_playwright() as pw:
            pool = _BrowserPool(pw, cfg)
            browser = await pool.get()
            executable = find_chromium(pw, cfg.browser.executable, cfg.browser.headless) or "playwright"
            meta = run_metadata(cfg, browser.version, resolved, executable)
            (run_dir / "run.json").write_text(json.dumps(meta, indent=2, default=str))
            writer = TraceWriter(run_dir, meta)
            # Traces are written on a thread of their own, one episode after the other: on the
            # event loop a write (rows to Arrow, two parquet files, now and then the combined
            # files) held every running episode up for tens of ms.
            writing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="traces")
            gate = asyncio.Semaphore(cfg.concurrency)
            progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TextColumn("ok {task.fields[ok]}"),
                                TimeRemainingColumn(), disable=not show_progress)
            bar = progress.add_task(cfg.config_name, total=len(jobs), ok=0)
            if done:
                progress.console.print(f"resume: {len(done)} episodes already in {run_dir}, "
                                       f"{len(jobs)} to run")
            successes = 0
            episodes: list[asyncio.Task[None]] = []
            # Model calls failing in a row stop the run: every episode not finished is cancelled
            # (not written, so resume=true runs it), the finished ones are written.
            breaker = CallBreaker(cfg.max_consecutive_model_failures,
                                  on_open=lambda: [t.cancel() for t in episodes])
            MODEL_CALLS.set(breaker)  # inherited by each episode's task (and its model calls)

            async def one(task: Task | MiniwobTask, seed: int) -> None:
                nonlocal successes
                async with gate:
                    result = await run_episode(await pool.get(), server, task, seed, cfg, run_dir)
                    if needs_rerun(cfg, result.episode) and not breaker.is_open:
                        again = await run_episode(await pool.get(), server, task, seed, cfg, run_dir,
                                                  diagnose=result.episode.episode_id)
                        result.episode.trace_rerun = "passed" if again.episode.success else "failed"
                written = asyncio.get_running_loop().run_in_executor(
                    writing, writer.add_episode, result.episode.model_dump(), result.steps)
                await asyncio.shield(written)  # (a cancelled run still writes a finished episode)
                if writer.episodes_written % TRIM_EVERY == 0:
                    release_free_heap()
                successes += result.episode.success
                progress.update(bar, advance=1, ok=successes)

            with progress:
                episodes.extend(asyncio.ensure_future(one(t, s)) for t, s in jobs)
                try:
                    if episodes:
                        await asyncio.wait(episodes)
                finally:
                    for job in episodes:  # the run itself cancelled: its episodes with it
                        job.cancel()
                    writing.shutdown(wait=True)  # every finished episode written
            writer.combine()
            await pool.close()
            for job in episodes:
                if not job.cancelled() and job.exception() is not None:
                    raise job.exception()  # type: ignore[misc]
    if breaker.is_open:
        left = len(jobs) - writer.episodes_written
        raise RunStoppedError(
            f"stopped the run: {breaker.cause}. {writer.episodes_written} of {len(jobs)} episodes "
            f"finished and are written to {run_dir / 'episodes.parquet'}; the other {left} were "
            "stopped or never started. Fix the model endpoint and run again into the same folder "
            "with resume=true to run only those; max_consecutive_model_failures sets how many "
            "failures in a row stop a run (0: never)")
    return RunResult(run_dir=run_dir)


def run(cfg: RunConfig, run_dir: Path, resolved: dict[str, Any] | None = None,
        show_progress: bool = True, faults: Mapping[str, str] | None = None) -> RunResult:
    resolved = resolved if resolved is not None else cfg.model_dump()
    return asyncio.run(run_async(cfg, run_dir, resolved, show_progress, faults))
