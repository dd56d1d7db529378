"""MiniWoB's side of one episode: the page is seeded and started the way miniwob's own environment
does it (Math.seedrandom, then core.startEpisodeReal) with its episode timer disabled, the plan is
built from the utterance the page shows, and the verdict is read from MiniWoB's reward globals."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass

from playwright.async_api import Page

from agents.brief import Brief
from tasks.miniwob.catalog import MiniwobTask
from tasks.miniwob.plans import build_plan
from tasks.schema import Subgoal

# setTimeout's largest delay (about 24.8 days): the episode timer is armed, as MiniWoB's reward
# logic needs, but never fires, so slow perception does not end an episode.
NO_TIMEOUT_MS = 2**31 - 1
# Steps an open plan (a worker that plans for itself) may take.
OPEN_PLAN_STEPS = 15

# The instruction as text, each picture in it (an icon drawn by an <img>, an <svg>, a canvas or a
# background image, with no text of its own) written "[picture N]", the pictures' boxes, and the
# addresses of the images they draw (a picture is cut from the screen only once those are loaded).
_QUERY_JS = """() => {
  const query = document.querySelector('#query');
  const all = [...query.querySelectorAll('*')];
  const boxes = [], marks = new Map(), urls = [];
  all.forEach((el, i) => {
    if (el.textContent.trim() || [...marks.keys()].some((k) => all[k].contains(el))) return;
    const r = el.getBoundingClientRect(), bg = getComputedStyle(el).backgroundImage;
    const drawn = /^(IMG|SVG|CANVAS|PICTURE)$/i.test(el.tagName) || (bg && bg !== 'none');
    if (!drawn || r.width < 4 || r.height < 4) return;
    boxes.push({x: r.x, y: r.y, width: r.width, height: r.height});
    marks.set(i, boxes.length);
    if (el.tagName === 'IMG' && el.currentSrc) urls.push(el.currentSrc);
    for (const m of (bg || '').matchAll(/url\\(["']?([^"')]+)["']?\\)/g)) urls.push(m[1]);
  });
  const copy = query.cloneNode(true), copies = [...copy.querySelectorAll('*')];
  for (const [i, n] of marks) copies[i].replaceWith(` [picture ${n}] `);
  return {text: boxes.length ? copy.textContent : query.innerText, boxes, urls};
}"""

# What miniwob's SeleniumInstance.begin_task does, with the episode timer disabled, then the
# instruction read, in one round trip: wait for the core and the task's generator, seed, start,
# wait for the task to be drawn. Polled by the page's own timers: Playwright's wait_for_function
# would install its injected script in the page's main world, a 330 KB script compiled once per
# document (about 13 ms of the renderer's time on this machine). The instruction's pictures are
# then waited for: the task writes its icon into the instruction as it starts, and an icon whose
# image (a sprite sheet) is still loading would be cut from the screen blank, matching nothing
# (seen once in about ten starts of click-menu-2). Resolves to {query} (what _QUERY_JS read), or
# {missing} when something was still missing after `timeoutMs`.
_START_JS = f"""async ([seed, timeoutMs]) => {{
  const t0 = performance.now();
  const until = async (ok) => {{
    while (!ok()) {{
      if (performance.now() - t0 > timeoutMs) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }}
    return true;
  }};
  if (!await until(() => typeof core !== 'undefined' && typeof genProblem === 'function'
                         && core.cover_div !== null && core.cover_div !== undefined))
    return {{missing: `no MiniWoB core on the page after ${{timeoutMs}} ms`}};
  Math.seedrandom(seed);
  core.EPISODE_MAX_TIME = {NO_TIMEOUT_MS};
  core.startEpisodeReal();
  core.clearTimer();
  if (!await until(() => WOB_TASK_READY === true))
    return {{missing: `the task was not ready after ${{timeoutMs}} ms`}};
  const query = (QUERY_JS)();
  const loaded = (url) => {{ const im = new Image(); im.src = url; return im.decode().catch(() => null); }};
  const left = Math.max(0, timeoutMs - (performance.now() - t0));
  await Promise.race([Promise.all(query.urls.map(loaded)),
                      new Promise((resolve) => setTimeout(resolve, left))]);
  // two frames: the loaded image painted where the instruction draws it (a page that draws no
  // frames, a tab in the background, waits 100 ms each instead); none for an instruction in words
  for (let i = 0; i < (query.boxes.length ? 2 : 0); i++)
    await new Promise((resolve) => {{ requestAnimationFrame(resolve); setTimeout(resolve, 100); }});
  return {{query}};
}}""".replace("QUERY_JS", _QUERY_JS)

_REWARD_JS = """() => ({done: WOB_DONE_GLOBAL === true, raw: Number(WOB_RAW_REWARD_GLOBAL),
  reason: WOB_REWARD_REASON === null || WOB_REWARD_REASON === undefined ? ''
    : String(WOB_REWARD_REASON)})"""


class MiniwobPageError(RuntimeError):
    """The MiniWoB page did not load its core or did not get ready in time."""


@dataclass(frozen=True)
class Verdict:
    success: bool
    done: bool
    raw_reward: float | None  # MiniWoB defines it only once the episode is done
    detail: str


def plan_steps(plan: list[Subgoal]) -> int:
    """A step budget for a plan: two tries per subgoal, more where targets must be revealed."""
    return 2 * len(plan) + 4 + sum(8 for s in plan if s.reveal)


class MiniwobEpisode:
    def __init__(self, task: MiniwobTask, seed: int, scripted: bool, timeout_ms: int = 10_000) -> None:
        self.task, self.seed, self.scripted, self.timeout_ms = task, seed, scripted, timeout_ms
        self.utterance = ""
        self.pictures: dict[str, str] = {}  # "[picture N]" in the utterance: the picture, a data: URL

    def brief(self, origin: str, allowed_origins: list[str]) -> Brief:
        """The brief before the page is open: where to start; the plan comes from the page."""
        return Brief(task_id=self.task.id, goal="", start_url=f"{origin}{self.task.start}", plan=[],
                     max_steps=1, allowed_origins=allowed_origins)

    async def start(self, page: Page) -> str:
        """Seed and start the episode on the loaded page; the utterance as the page shows it."""
        failed = f"{self.task.start} did not start a MiniWoB episode"
        try:
            # (bounded here too: a page whose timers never run would never answer)
            got = await asyncio.wait_for(page.evaluate(_START_JS, [self.seed, self.timeout_ms]),
                                         timeout=self.timeout_ms / 1000 + 1)
        except Exception as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise MiniwobPageError(f"{failed}: {why}") from exc
        if "missing" in got:
            raise MiniwobPageError(f"{failed}: {got['missing']}")
        query = got["query"]
        # Read as a user reads it: the visible text of the instruction above the task area, and
        # the pictures it shows, each cut from the screen as a data: URL (a subgoal's looks_like).
        self.pictures = {f"[picture {i}]": "data:image/png;base64," + base64.b64encode(
            await page.screenshot(clip=box)).decode() for i, box in enumerate(query["boxes"], 1)}
        return " ".join(query["text"].split())

    async def prepare(self, page: Page, brief: Brief) -> Brief:
        self.utterance = await self.start(page)
        if self.scripted:
            plan = [s.model_copy(update={"looks_like": self.pictures[s.looks_like]})
                    if s.looks_like in self.pictures else s
                    for s in build_plan(self.task.task_type, self.utterance)]
            steps = plan_steps(plan)
        else:
            # A worker that plans for itself gets one open subgoal per step: the next action
            # towards the instruction, until MiniWoB says the episode is over.
            plan = [Subgoal(action="click", target=f"the next step towards: {self.utterance}")
                    ] * OPEN_PLAN_STEPS
            steps = OPEN_PLAN_STEPS
        return brief.model_copy(update={"goal": self.utterance, "plan": plan, "max_steps": steps})

    async def done(self, page: Page) -> bool:
        return bool(await page.evaluate("() => WOB_DONE_GLOBAL === true"))

    async def verdict(self, page: Page) -> Verdict:
        got = await page.evaluate(_REWARD_JS)
        if not got["done"]:
            return Verdict(False, False, None, "the MiniWoB episode did not end (no reward given)")
        raw = float(got["raw"])
        success = raw >= self.task.threshold
        detail = "" if success else (f"MiniWoB raw reward {raw:g} < {self.task.threshold:g}"
                                     + (f" ({got['reason']})" if got["reason"] else ""))
        return Verdict(success, True, raw, detail)
