"""The pipeline's vocabulary: the state of one step as its stages fill it in (`Step`), what an
episode's steps share (`Episode`), and the interface of a grounding mechanism (`Mechanism`).

A mechanism is one object with hooks at fixed points of the step; every hook is a no-op by
default, so a mechanism overrides only the points it works at. The agent holds the mechanisms that
are on, in pipeline order (agents/factory.py); a mechanism that is off is not in that list, so none
of its code runs. Hooks that answer a question ("which scopes?", "reuse these candidates?") are
asked in list order and the first answer that is not None counts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from playwright.async_api import Page

from agents.actions import AnyAction
from agents.fingerprint import Fingerprint
from agents.frames import TOP_ONLY, Geometry
from agents.marks import Mark, Placed, Seen, TargetIdentity
from agents.observation import Observation, RefBook
from agents.perception.base import PerceptionResult, Tier, VisionBackend
from agents.settle import Read, read_all
from agents.worker.base import Choice, Worker
from tasks.schema import Subgoal
from tasks.text_match import PLAN_STOP, words

if TYPE_CHECKING:
    from agents.brief import Brief
    from agents.snapping import Owner
    from tasks.trace import StepRecord


@dataclass(frozen=True)
class Unseen:
    """An element the DOM bridge knows fits the subgoal clearly better than anything perceived:
    evidence that perception missed it. In view, perception must look again; out of view, the
    agent scrolls to it."""

    mark: Mark
    in_view: bool


class Settle(Protocol):
    """Wait for the page to take in what was just done to it. `also`: reads of the settled page
    (a JS function's source, its argument) that travel with the settle's last wait; returns what
    each gave, or None when they are not of the page as the settle left it (the settle ended
    without them, or a mechanism waited on the page afterwards): read the page again."""

    def __call__(self, also: Sequence[tuple[str, Any]] = ()) -> Awaitable[list[Read | None] | None]: ...


@dataclass
class Episode:
    """What the steps of one episode share. `settle` waits for the page to take in what was just
    done to it; `vision_text` is what a vision pass is told about a subgoal."""

    page: Page
    brief: Brief
    worker: Worker
    backend: VisionBackend | None
    mechanisms: list[Mechanism]
    settle: Settle
    action_timeout_ms: int = 3000
    hover_intent_ms: int = 0  # a hover that changed nothing is looked at again up to this long
    late_effect_ms: int = 0  # ...any other action on a target, up to this long
    backoff_max_ms: int = 0  # the longest wait after a step that changed nothing
    # how many of the page's requests are in flight (the settle's count: agents/settle.py)
    in_flight: Callable[[], int] = lambda: 0
    # whether the page is certainly as the last settle left it (agents/settle.py `Settler.still`)
    still: Callable[[], bool] = lambda: False
    # the fingerprint read as the last settle ended, if one was (cleared by every settle and action)
    settled_fp: Fingerprint | None = None
    refs: RefBook = field(default_factory=RefBook)
    history: list[str] = field(default_factory=list)
    # openers (tabs, sections) already opened for the current subgoal
    revealed: set[str] = field(default_factory=set)
    # a no-op or a miss questioned the last perception: the next one must be fresh
    fresh_required: bool = False
    # expand goals prefer a part with toggle semantics (agents/compound_split.py)
    prefer_toggle: bool = False

    def vision_text(self, subgoal: Subgoal) -> str:
        return next((t for m in self.mechanisms if (t := m.vision_text(subgoal)) is not None), "")

    def excluded(self) -> frozenset[TargetIdentity]:
        """Targets no worker may choose now (found dead)."""
        return frozenset().union(*(m.excluded() for m in self.mechanisms))

    def tier(self, url: str) -> Tier:
        return next((t for m in self.mechanisms if (t := m.tier(url)) is not None), "small")

    async def quiesce(self) -> None:
        """The page is about to be left or the episode ends: work in the background stops."""
        for m in self.mechanisms:
            await m.quiesce()

    def page_replaced(self) -> None:
        """The agent itself loaded another document (what was perceived describes the old one)."""
        for m in self.mechanisms:
            m.page_replaced()

    async def may_change(self, within_ms: float) -> bool:
        """Whether the page may change by itself within `within_ms` (a wait for it to change is
        worth going on with): the first mechanism's answer, True when none knows."""
        for m in self.mechanisms:
            if (answer := await m.may_change(self.page, within_ms)) is not None:
                return answer
        return True

    async def before_action(self, also: Sequence[tuple[str, Any]] = ()) -> list[Read | None]:
        """An action of the agent starts now: the mechanisms' reads of the page before it and the
        caller's (`also`), in one round trip, then each mechanism's hook with what its read gave;
        returns what the caller's reads gave (None for each when the page could not be read)."""
        self.settled_fp = None
        asked = [m.before_action_read() for m in self.mechanisms]
        wanted = [r for r in asked if r is not None]
        got = await read_all(self.page, [*wanted, *also]) or [None] * (len(wanted) + len(also))
        mine = iter(got[:len(wanted)])
        for m, read in zip(self.mechanisms, asked, strict=True):
            await m.before_action(self.page, None if read is None else next(mine, None))
        return list(got[len(wanted):])


@dataclass
class Step:
    """One step's state; the stages fill it in order and `advance` ends it (0: the subgoal stays,
    1: it is done; a direct navigation may jump further)."""

    episode: Episode
    subgoal: Subgoal
    index: int
    number: int
    rec: StepRecord
    fp_before: Fingerprint | None = None
    obs: Observation | None = None
    geometry: Geometry = TOP_ONLY
    placed: list[Placed] = field(default_factory=list)
    tier: Tier = "small"  # the vision tier this step's page is perceived with
    seen: list[Seen] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    choice: Choice | None = None
    unseen: Unseen | None = None
    undrawn: set[str] = field(default_factory=set)  # refs the page does not draw (agents/undrawn.py)
    png: bytes | None = None  # the step's screenshot, if one was taken (Set-of-Mark image)
    # the action changed nothing, and when that was judged the page had nothing scheduled that
    # could change it during the look for a late effect and the backoff after it
    # (agents/schedule.py): waiting for it to respond is pointless
    still: bool = False
    advance: int | None = None

    @property
    def page(self) -> Page:
        return self.episode.page

    def plan_words(self) -> set[str]:
        """The words of the targets and labels the plan has left, from this subgoal on."""
        return {w for s in self.episode.brief.plan[self.index:]
                for w in words(f"{s.target or ''} {s.label or ''} {s.to or ''}")} - PLAN_STOP


class Mechanism:
    """One grounding mechanism. `name` is its switch in `conf/agent/` and its module's name."""

    name: str = ""
    # Owners at a point (frames, shadow roots, canvas): marks without an element and the worker's
    # coordinates can be acted on only when some mechanism can name what is there.
    resolves_points: bool = False
    # Vision mostly outlives a change on the same page (the next step reuses what was seen):
    # looking ahead after such an action is wasted work (agents/prefetch.py).
    keeps_vision_on_change: bool = False
    # How the agent opens what `opener` returns: a hover (a submenu) or a click (a section).
    opens_by: str = "hover"

    # ---- episode -----------------------------------------------------------------------------
    def init_script(self) -> str | None:
        """JS every document of the episode runs before its own scripts (an IIFE or a
        statement). The agent adds all the mechanisms' scripts to the context in one call, in
        the mechanisms' order, each on its own: one that throws does not stop the others."""
        return None

    async def start(self, episode: Episode) -> None:
        """Before the start page loads: install into the page or its context."""

    async def run_step(self, step: Step) -> bool:
        """Take this step over entirely (True: done, `step.advance` set)."""
        return False

    def settle_read(self) -> tuple[str, Any] | None:
        """A read of the page wanted as the next settle ends: (the source of a JS function of one
        argument, its argument), run in the round trip of the settle's last wait; what it gave
        comes to `settled` as `read`."""
        return None

    async def settled(self, page: Page, read: Read | None = None) -> bool | None:
        """After every settle (start page, each action). `read`: what `settle_read`'s function
        gave, or None (none asked for, the settle ended without running it, or a mechanism before
        this one waited on the page since: read the page). True: this hook waited for the page
        (what the settle read for the mechanisms after it is out of date)."""
        return None

    async def quiesce(self) -> None:
        """Stop background work (the page is being left, or the episode ends)."""

    async def may_change(self, page: Page, within_ms: float) -> bool | None:
        """Whether the page may change by itself within `within_ms` (None: no opinion)."""
        return None

    def idle_settle(self, page: Page) -> bool:
        """Whether a settle's quiet window may end with the frame when no document of the page
        has anything due within it (agents/settle.py): this mechanism keeps what the page
        schedules, and nothing else it watches (a socket, a worker) could change the page."""
        return False

    def page_replaced(self) -> None:
        """The agent loaded another document itself."""

    def subgoal_done(self) -> None:
        """The plan moved on to the next subgoal."""

    # ---- observe / perceive ------------------------------------------------------------------
    def scopes(self, step: Step) -> tuple[tuple[str, ...] | None, str] | None:
        """(the containers to read, None for the whole document; why)."""
        return None

    async def geometry(self, step: Step) -> Geometry | None:
        """Where each frame of the observation sits in the viewport."""
        return None

    def vision_text(self, subgoal: Subgoal) -> str | None:
        """What a vision pass is told about the subgoal."""
        return None

    def tier(self, url: str) -> Tier | None:
        return None

    def changes_since(self, step: Step) -> int | None:
        """The `take` of an earlier fingerprint of this document: the step's fingerprint then
        says where the page changed since (`Fingerprint.regions`)."""
        return None

    def reuse(self, step: Step, tier: Tier) -> list[Seen] | None:
        """Candidates still valid without a vision call."""
        return None

    def perceiving(self, step: Step) -> None:
        """A vision pass for this step is about to be waited for (its candidates are not
        reused): work that can overlap it starts now."""

    async def prefetched(self, step: Step, tier: Tier) -> PerceptionResult | None:
        """A vision pass already made for this page state."""
        return None

    def perceived(self, step: Step, result: PerceptionResult, seen: list[Seen]) -> list[Seen]:
        """After a fresh vision pass: learn from it; returns the candidates to use."""
        return seen

    # ---- enrich / rank / choose --------------------------------------------------------------
    def before_bridge(self, step: Step, seen: list[Seen]) -> list[Seen]:
        return seen

    def bridge(self, step: Step, seen: list[Seen]) -> list[Mark] | None:
        """Vision candidates to marks that know their element (the DOM bridge)."""
        return None

    def after_bridge(self, step: Step, marks: list[Mark]) -> list[Mark]:
        return marks

    async def bind(self, step: Step, seen: list[Seen], marks: list[Mark]) -> list[Mark]:
        """After the bridge, on the live page: what the candidates `seen` show that matched no
        element of the accessibility tree, bound to what would receive a click there."""
        return marks

    async def drawn(self, step: Step, marks: list[Mark]) -> list[Mark]:
        """The marks a person could see on the page (before ranking; with or without vision)."""
        return marks

    def rank(self, step: Step, marks: list[Mark]) -> list[Mark]:
        return marks

    async def decided(self, step: Step) -> Choice | None:
        """A decision made ahead that holds for the step's listing (`step.marks`): the worker
        is not asked again."""
        return None

    def excluded(self) -> frozenset[TargetIdentity]:
        """Targets the worker must not choose."""
        return frozenset()

    def missed(self, step: Step) -> Unseen | None:
        """An element that fits clearly better than every mark (see `Unseen`)."""
        return None

    async def recover(self, step: Step, pipeline: Recovery) -> None:
        """After the worker chose: a second look when the choice is doubtful."""

    async def unlisted(self, step: Step) -> list[Mark]:
        """Nothing fits the subgoal: marks of the observation the listing left out (a plain
        control the snapshot folded into its wrapper), numbered after the listing's; the worker
        is asked again with them."""
        return []

    async def opener(self, step: Step) -> Mark | None:
        """Nothing fits the subgoal: a mark of the listing whose opening (`opens_by`: hovering a
        closed submenu's item, clicking a closed section's header) may show the target; None when
        this mechanism knows none."""
        return None

    async def clipped(self, step: Step, mark: Mark) -> bool:
        """A DOM element within the viewport's height that a scrolling container clips, or that
        lies left or right of the viewport: it must be scrolled into view to be seen."""
        return False

    async def until_target(self, step: Step, until: Subgoal, found: Choice) -> Mark | None:
        """The element a scroll's `until` describes, as the DOM knows it (`found`: what the
        worker chose for it among the step's marks)."""
        return None

    # ---- resolve / act / validate ------------------------------------------------------------
    async def owner_at(self, page: Page, x: float, y: float) -> Owner | None:
        """What would receive an event at a viewport point (only if `resolves_points`)."""
        return None

    async def actionable(self, step: Step, mark: Mark) -> bool | None:
        """Whether the mark's element can take an event now (None: no opinion)."""
        return None

    async def uncover(self, step: Step, mark: Mark, action: AnyAction) -> None:
        """Before an action on the mark's element: if something else is drawn over it, take that
        away if this mechanism can."""

    async def press_point(self, step: Step, action: AnyAction) -> tuple[float, float] | None:
        """As a pressing action on a ref starts: the viewport point where the mouse may press on
        its element at once, without Playwright's actionability waits (None: no opinion; the
        action then runs through its locator)."""
        return None

    async def hidden(self, step: Step, mark: Mark) -> bool:
        """A DOM element in view by its box that something else covers or clips."""
        return False

    def allows(self, url: str) -> bool:
        """Whether the agent may navigate to `url`."""
        return True

    def before_action_read(self) -> tuple[str, Any] | None:
        """A read of the page wanted as an action starts: (the source of a JS function of one
        argument, its argument), run with the other mechanisms' in one round trip; what it gave
        comes to `before_action` as `read`."""
        return None

    async def before_action(self, page: Page, read: Read | None = None) -> None:
        """An action of the agent starts now. `read`: what `before_action_read`'s function gave,
        or None (none asked for, or the page could not be read: read it, or give up)."""

    def acted(self, step: Step, action: AnyAction,
              settled: asyncio.Future[Fingerprint | None]) -> None:
        """The action ran; `settled` resolves to the page's fingerprint once it has settled."""

    async def after_action(self, page: Page) -> None:
        """The action's settle has ended."""

    async def vetoes(self, step: Step, evidence: str) -> bool:
        """Whether an effect credited on `evidence` is not the action's."""
        return False

    async def validated(self, step: Step, before: Fingerprint | None, after: Fingerprint | None) -> None:
        """The action's effect is judged."""

    def effective(self) -> None:
        """An action had the effect it was meant to."""

    def no_effect(self, step: Step, mark: Mark) -> None:
        """An action on `mark` changed nothing."""


class Recovery(Protocol):
    """What a `recover` hook may run again: a vision pass with hints, then the enrich, rank and
    choose stages on everything seen in this step."""

    async def look_again(self, step: Step, hints: list[str], cap: int) -> None: ...
