"""One episode: a fresh browser context with the episode's cookies, the policy under test on the
task's start page, a heartbeat watchdog, and a verdict read from server state only."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Browser, BrowserContext, Page, Request
from playwright.async_api import Error as PlaywrightError

from agents.brief import Brief
from agents.perception.registry import build_backend
from agents.policy import PolicySetup
from agents.settle import WRITES
from agents.worker.registry import build_worker
from harness.browser import new_episode_context
from harness.config import RunConfig
from harness.miniwob_episode import MiniwobEpisode, MiniwobPageError, Verdict
from harness.policies import build_policy, needs_ground_truth
from sites.server import FixtureServer, server_errors
from tasks import expect
from tasks.miniwob.catalog import MiniwobTask
from tasks.miniwob.plans import UtteranceError
from tasks.schema import Expect, Task
from tasks.trace import EpisodeRecord, StepRecord


class HeartbeatTimeout(Exception):
    pass


@dataclass
class EpisodeResult:
    episode: EpisodeRecord
    steps: list[dict[str, Any]] = field(default_factory=list)


def allowed_origins(task: Task | MiniwobTask, server: FixtureServer) -> list[str]:
    """Task's allowed_domains with fixture origin names (main, alt, offsite) made concrete."""
    origins = server.origins
    return [origins.get(d, d) for d in task.allowed_domains]


def brief_for(task: Task, server: FixtureServer, seed: int) -> Brief:
    start = f"{server.origin()}{task.start}"
    sep = "&" if urlsplit(start).query else "?"
    return Brief(task_id=task.id, goal=task.goal, start_url=f"{start}{sep}seed={seed}",
                 plan=task.plan, max_steps=task.max_steps,
                 allowed_origins=allowed_origins(task, server), url_grammar=task.url_grammar)


def classify(success: bool, timed_out: bool, crashed: bool, plan_done: bool, last_error: str,
             out_of_scope: bool = False, ended_failed: bool = False,
             start_failed: bool = False, perception_failed: bool = False) -> str:
    """The failure class; `ended_failed`: the page itself ended the episode with a failing
    verdict (MiniWoB's reward below full success); `start_failed`: the start page answered 4xx."""
    if success:
        return ""
    if crashed:
        return "browser_crash"
    if start_failed:
        return "start_page_error"
    if perception_failed:
        return "perception_error"  # the model never answered usably: no grounding was measured
    if timed_out:
        return "timeout"
    if out_of_scope:
        return "left_scope"
    if last_error in ("plan_error", "page_error"):
        return last_error
    if ended_failed:
        return "wrong_target"
    if not plan_done:
        return last_error if last_error in ("stale_ref", "no_target") else "max_steps"
    return "wrong_target"


# The longest the verdict waits, after final_settle_ms, for the page's writes still on their way.
WRITES_MAX_S = 5.0


class PendingWrites:
    """The page's requests that write (POST, PUT, PATCH, DELETE) and have not finished: the server
    state the verdict reads is the one they leave, so the verdict waits for them (up to
    `WRITES_MAX_S`), however slow a loaded machine makes them. Reads in flight (a long poll, an
    image) do not hold it. A write is done once its response has come: the server has taken it
    in (its body may never be read: a frame that navigated away never reports it finished)."""

    def __init__(self, context: BrowserContext) -> None:
        self.pending: set[Request] = set()
        self.idle = asyncio.Event()
        self.idle.set()
        context.on("request", self._started)
        context.on("response", lambda response: self._ended(response.request))
        context.on("requestfinished", self._ended)
        context.on("requestfailed", self._ended)

    def _started(self, request: Request) -> None:
        if request.method in WRITES:
            self.pending.add(request)
            self.idle.clear()

    def _ended(self, request: Request) -> None:
        self.pending.discard(request)
        if not self.pending:
            self.idle.set()

    async def drained(self, timeout_s: float = WRITES_MAX_S) -> bool:
        """True once no write is in flight; False when some still is after `timeout_s`."""
        try:
            await asyncio.wait_for(self.idle.wait(), timeout_s)
        except TimeoutError:
            return False
        return True


async def judge_expect(rec: StepRecord, page: Page, want: Expect) -> None:
    """The step's `expect:` check on the page as the step left it (any policy's step)."""
    try:
        rec.expect_held = await expect.check(page, want)
    except PlaywrightError:
        rec.expect_held = None  # the page closed under the check: nothing to judge


async def _close(context: BrowserContext, tracing: bool, trace_path: Path | None) -> None:
    """Close the episode's context, keeping its Playwright trace (if `tracing`) at trace_path
    (None: discard)."""
    try:
        if tracing:
            if trace_path is not None:
                trace_path.parent.mkdir(parents=True, exist_ok=True)
            await context.tracing.stop(path=trace_path)
        await context.close()
    except PlaywrightError:
        pass


async def run_episode(browser: Browser, server: FixtureServer, task: Task | MiniwobTask, seed: int,
                      cfg: RunConfig, run_dir: Path, diagnose: str | None = None) -> EpisodeResult:
    """One episode. With `trace.capture=live` it records the Playwright trace and the Set-of-Mark
    screenshots as it runs; with `rerun` it records nothing, and the runner calls it again for a
    failed episode with `diagnose=<that episode's id>`: a recorded rerun of the same task and seed
    whose artifacts are kept under the failed episode's id whatever the rerun's outcome."""
    episode_id = diagnose or uuid.uuid4().hex[:16]
    record = diagnose is not None or cfg.trace.live
    miniwob = MiniwobEpisode(task, seed, scripted=cfg.worker.name == "scripted") \
        if isinstance(task, MiniwobTask) else None
    if miniwob is not None:
        brief = miniwob.brief(server.origin(), allowed_origins(task, server))
    else:
        assert isinstance(task, Task)
        brief = brief_for(task, server, seed)
    verdict: Verdict | None = None
    steps: list[StepRecord] = []
    screenshots: dict[int, bytes] = {}
    last_beat = time.monotonic()
    started, t0 = time.time(), time.perf_counter()
    timed_out = crashed = plan_done = False
    last_error, detail = "", ""

    plan = task.plan if isinstance(task, Task) else []
    page: Page | None = None
    wrong_before: set[str] = set()

    def beat(rec: StepRecord) -> Awaitable[None] | None:
        nonlocal last_beat, wrong_before
        last_beat = time.monotonic()
        steps.append(rec)
        if isinstance(task, Task):
            wrong = set(task.broken(server.store.state(episode_id)))
            rec.state_wrong = "; ".join(sorted(wrong - wrong_before))[:300]
            wrong_before = wrong
        subgoal = plan[rec.subgoal_index] if 0 <= rec.subgoal_index < len(plan) else None
        if subgoal is None or subgoal.expect is None or not rec.action or page is None:
            return None
        return judge_expect(rec, page, subgoal.expect)

    async def policy(page: Page) -> tuple[bool, str, float]:
        """(plan done, last error type, time.monotonic() of the policy's last action)"""
        # Ground truth goes only to a baseline that proves fixtures (the runner refuses such a
        # policy on suites without it), never to an agent under test.
        setup = PolicySetup(
            agent=cfg.agent, backend_for=lambda page: build_backend(cfg.perception, seed, page),
            worker=lambda: build_worker(cfg.worker), seed=seed, screenshots=shot_mode,
            ground_truth=task if needs_ground_truth(cfg.policy) else None,
            base_url=server.origin())
        hooks = {"prepare": miniwob.prepare, "episode_over": miniwob.done} if miniwob else {}
        try:
            outcome = await build_policy(cfg.policy, setup).run(page, brief, beat, **hooks)
        except (UtteranceError, MiniwobPageError) as exc:
            nonlocal detail
            detail = str(exc)[:300]
            return False, "plan_error" if isinstance(exc, UtteranceError) else "page_error", \
                time.monotonic()
        screenshots.update(outcome.screenshots)
        return outcome.plan_done, outcome.last_error_type, outcome.acted_at

    shot_mode = {"none": "none", "failed": "last", "all": "all"}[cfg.trace.screenshots] \
        if record else "none"
    context = None
    try:
        context = await new_episode_context(browser, cfg.browser, server.origins,
                                            episode_id, seed)
        writes = PendingWrites(context)
        if cfg.trace.playwright and record:
            await context.tracing.start(screenshots=True, snapshots=True, title=f"{task.id} seed {seed}")
        page = await context.new_page()
        work = asyncio.ensure_future(policy(page))
        try:
            while not work.done():
                await asyncio.wait({work}, timeout=min(1.0, cfg.heartbeat_s))
                if not work.done() and time.monotonic() - last_beat > cfg.heartbeat_s:
                    work.cancel()
                    timed_out = True
                    detail = f"no step finished for {cfg.heartbeat_s:g} s"
                    break
        except asyncio.CancelledError:
            work.cancel()  # the run stopped this episode: its policy stops with it
            raise
        if not timed_out:
            plan_done, last_error, acted_at = work.result()
            # Time for the page's last requests to reach the server, whose state is the verdict:
            # final_settle_ms after the policy's last action (an agent that validated its last
            # action has waited part of it already); a MiniWoB page that has ended its episode
            # holds its verdict already.
            final_settle = max(0.0, cfg.final_settle_ms / 1000 - (time.monotonic() - acted_at))
            if miniwob is None:
                await asyncio.sleep(final_settle)
                await writes.drained()
            else:
                verdict = await miniwob.verdict(page)
                if not verdict.done:
                    await asyncio.sleep(final_settle)
                    verdict = await miniwob.verdict(page)
    except PlaywrightError as exc:
        crashed = not browser.is_connected()
        detail = str(exc).splitlines()[0][:300]
        last_error = last_error or "action_error"
    if miniwob is not None:
        success = verdict is not None and verdict.success
        failed = [verdict.detail] if verdict is not None and verdict.detail else []
    else:
        assert isinstance(task, Task)
        success, failed = task.check(server.store.state(episode_id))
    # Judged from the server's own request log, not from the agent's account of itself.
    allowed = set(allowed_origins(task, server))
    requests = server.store.requests(episode_id)
    out_of_scope = [r for r in requests if server.origins[r["origin"]] not in allowed]
    if out_of_scope:
        failed.append(f"{len(out_of_scope)} requests left the allowed domains "
                      f"(first: {out_of_scope[0]['origin']} {out_of_scope[0]['path']})")
    errors = server_errors(requests)
    perception_errors = [s.perception_error for s in steps if s.perception_error]
    # The start page answered with an error (a missing file, a broken site): nothing the agent did
    # afterwards measures grounding.
    start_path = urlsplit(brief.start_url).path
    start_failed = [r for r in requests if r["path"].split("?")[0] == start_path
                    and r["status"] is not None and 400 <= r["status"] < 500]
    errors = start_failed[:1] + errors
    success = success and not timed_out and not crashed and not out_of_scope and not start_failed
    server.store.drop(episode_id)
    if context is not None and browser.is_connected():
        keep_trace = diagnose is not None or not (success and cfg.trace.failed_only)
        await _close(context, cfg.trace.playwright and record,
                     run_dir / "playwright" / f"{episode_id}.zip" if keep_trace else None)
    keep_shots = cfg.trace.screenshots == "all" or (cfg.trace.screenshots == "failed" and (
        not success or diagnose is not None))
    if keep_shots and screenshots:
        folder = run_dir / "screenshots" / episode_id
        folder.mkdir(parents=True, exist_ok=True)
        for step, png in screenshots.items():
            (folder / f"step-{step:03d}.png").write_bytes(png)
    failure = classify(success, timed_out, crashed, plan_done, last_error, bool(out_of_scope),
                       ended_failed=verdict is not None and verdict.done,
                       start_failed=bool(start_failed),
                       perception_failed=bool(perception_errors) and not any(
                           s.vision_call for s in steps))
    shown = [detail] if detail else failed if failure else []
    if failure == "perception_error":
        shown = [f"{len(perception_errors)} failed model calls (first: {perception_errors[0]})"]
    if failure and errors:
        first = errors[0]
        shown.append(f"server errors: {len(errors)} (first: {first['status'] or 'stalled'} "
                     f"{first['origin']} {first['path']})")
    episode = EpisodeRecord(
        episode_id=episode_id, task_id=task.id, seed=seed,
        config_name=cfg.config_name, config_hash=cfg.config_hash,
        task_version=task.version, tags=list(task.tags), success=success,
        steps=len(steps), vision_calls=sum(s.vision_calls for s in steps),
        wall_s=round(time.perf_counter() - t0, 3), failure=failure,
        out_of_scope_requests=len(out_of_scope), server_errors=len(errors),
        raw_reward=verdict.raw_reward if verdict is not None else None,
        trace_rerun="",
        failure_detail="; ".join(shown), started_at=started,
    )
    return EpisodeResult(episode=episode, steps=[s.model_dump() for s in steps])
