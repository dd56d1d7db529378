"""Proof that each fixture trap springs: runs the oracle and the naive text policy on tasks over
seeds and judges each episode from server state.

    python -m harness.proof [--tasks GLOB ...] [--seeds 0 1 2]
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from dataclasses import dataclass

from playwright.async_api import async_playwright

from agents.naive_text import run_naive
from harness.browser import BrowserSettings, launch, new_episode_context
from harness.oracle import run_oracle
from sites.server import FixtureServer
from tasks.loader import FIXTURE_TASKS, load_tasks, select
from tasks.schema import Task

SETTLE_MS = 400


@dataclass(frozen=True)
class ProofRow:
    task_id: str
    seed: int
    policy: str
    success: bool
    detail: str


async def _one(browser, settings, server: FixtureServer, task: Task, seed: int, policy: str) -> ProofRow:
    episode = uuid.uuid4().hex
    context = await new_episode_context(browser, settings, server.origins, episode, seed)
    detail = ""
    try:
        page = await context.new_page()
        page.set_default_timeout(5000)
        await page.goto(f"{server.origin()}{task.start}?seed={seed}")
        if policy == "oracle":
            await run_oracle(page, task, server.origin())
        else:
            await run_naive(page, task.plan)
        await page.wait_for_timeout(SETTLE_MS)
    except Exception as exc:  # noqa: BLE001 - recorded, the proof run goes on
        detail = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    finally:
        await context.close()
    ok, failed = task.check(server.store.state(episode))
    server.store.drop(episode)
    return ProofRow(task.id, seed, policy, ok, detail or "; ".join(failed))


async def prove(tasks: list[Task], seeds: list[int], policies: tuple[str, ...] = ("oracle", "naive"),
                concurrency: int = 4) -> list[ProofRow]:
    settings = BrowserSettings()
    with FixtureServer() as server:
        async with async_playwright() as pw:
            browser = await launch(pw, settings)
            gate = asyncio.Semaphore(concurrency)

            async def bounded(task: Task, seed: int, policy: str) -> ProofRow:
                async with gate:
                    return await _one(browser, settings, server, task, seed, policy)

            rows = await asyncio.gather(*(bounded(t, s, p) for t in tasks for s in seeds for p in policies))
            await browser.close()
    return list(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=[], help="task id globs (default: all fixtures)")
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    args = parser.parse_args()
    tasks = select(load_tasks([FIXTURE_TASKS]), ids=args.tasks)
    for row in asyncio.run(prove(tasks, args.seeds)):
        mark = "ok  " if row.success else "FAIL"
        print(f"{mark} {row.policy:6} seed={row.seed} {row.task_id:32} {row.detail}")


if __name__ == "__main__":
    main()
