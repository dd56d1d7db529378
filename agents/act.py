"""Resolve, act and validate stages: the chosen mark (or point) becomes an action of the closed
vocabulary on something the browser can reach now, the action runs, the page settles, and the
validator judges whether it had an effect. The three conditions are recorded apart: perceptual
confidence (the mark), actionability (the resolved owner), effectiveness (the effect)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from agents import fingerprint, validator
from agents.actions import (
    AnyAction,
    Back,
    Click,
    Drag,
    Expand,
    Finish,
    Hover,
    Navigate,
    NoSuchOptionError,
    PointActionError,
    Read,
    Scroll,
    Select,
    SetValue,
    Type,
    Wait,
    execute,
)
from agents.interactive import CENTRE_HIT_JS
from agents.marks import DEGRADED_CONFIDENCE, Mark
from agents.observation import StaleRefError
from agents.pipeline import Episode, Step
from agents.stepper import SetValueError
from agents.worker.base import WorkerReply
from tasks import expect

if TYPE_CHECKING:
    from agents.snapping import Owner


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


def _first_error_line(exc: Exception) -> str:
    return str(exc).splitlines()[0][:300]


async def _owner_at(step: Step, x: float, y: float) -> tuple[bool, Owner | None]:
    """(whether some mechanism can name what is at a point, the owner it names there)."""
    for m in step.episode.mechanisms:
        if m.resolves_points:
            return True, await m.owner_at(step.page, x, y)
    return False, None


async def resolve(step: Step, reply: WorkerReply, mark: Mark | None,
                  to: Mark | None = None) -> AnyAction | None:
    """The reply's action on a ref of this step's observation, or on the owner at a point; None
    (with the reason recorded) when nothing can take it. `to`: a drag's drop mark."""
    rec = step.rec
    match reply.action:
        case "scroll" if mark is not None:
            # the wheel over the container the mark belongs to
            rec.ref = mark.ref or ""
            if mark.ref is not None:
                return Scroll(direction=reply.direction, pixels=_pixels(step), within=mark.ref,
                              observation_id=mark.observation_id)
            return Scroll(direction=reply.direction, pixels=_pixels(step), point=mark.box.center)
        case "scroll":
            return Scroll(direction=reply.direction, pixels=_pixels(step))
        case "navigate":
            return Navigate(url=reply.url or "")
        case "back":
            return Back()
        case "wait":
            return Wait(seconds=float(reply.value or 0.5))
        case "finish":
            return Finish(answer=reply.answer or "")
    if mark is not None and mark.ref is not None:
        rec.ref = mark.ref
        element = step.episode.refs.resolve(mark.ref, mark.observation_id)  # StaleRefError if carried over
        rec.route = step.geometry.route_of(element)
        rec.actionable = await _actionable(step, mark)
        moved = await _through_label(step, mark, element.frame == "") \
            if reply.action in ("click", "expand") and element.role in TICKED else None
        if moved is not None:
            # drawn by its label (a radio card, a styled tick box): clicked where it is drawn
            placed = step.geometry.place(element)
            if placed is not None:
                rec.route = "point"
                x, y = placed.center
                return _targeted(reply, {"point": (x - moved[0], y - moved[1])}, to)
        return _targeted(reply, {"ref": mark.ref, "observation_id": mark.observation_id}, to)
    if mark is not None:
        x, y = mark.box.center
        missing = "nothing under the mark's centre"
    else:
        assert reply.point is not None  # the worker's degraded coordinate fallback
        size = step.page.viewport_size or {"width": 1280, "height": 720}
        x, y = reply.point[0] * size["width"], reply.point[1] * size["height"]
        missing = "nothing under the point"
    can, owner = await _owner_at(step, x, y)
    if not can:
        rec.error_type = "unresolvable"
        rec.error = "no DOM element matches this mark" if mark is not None else "coordinates need the snapper"
        rec.actionable = False if mark is not None else rec.actionable
        return None
    if owner is None:
        rec.error_type, rec.error = "unresolvable", missing
        rec.actionable = False if mark is not None else rec.actionable
        return None
    rec.route, rec.actionable = owner.route, owner.interactive or owner.degraded
    if mark is not None:
        rec.degraded = owner.degraded
        if owner.degraded:
            rec.perceptual_confidence = min(rec.perceptual_confidence, DEGRADED_CONFIDENCE)
    else:
        rec.degraded, rec.perceptual_confidence = True, DEGRADED_CONFIDENCE
    return _targeted(reply, {"point": owner.point}, to)


def _pixels(step: Step) -> int:
    """How far one scroll goes: the plan's `pixels` for a scroll subgoal, else the default."""
    return step.subgoal.pixels if step.subgoal.action == "scroll" else Scroll().pixels


async def _actionable(step: Step, mark: Mark) -> bool:
    """Enabled, and (if a mechanism can tell) visible and not covered."""
    if "disabled" in mark.states:
        return False
    for m in step.episode.mechanisms:
        if (answer := await m.actionable(step, mark)) is not None:
            return answer
    return True


def changes_since(step: Step) -> int | None:
    """The `since` of the step's fingerprints (the first mechanism's `changes_since`)."""
    return next((s for m in step.episode.mechanisms if (s := m.changes_since(step)) is not None), None)


async def settled_fingerprint(episode: Episode, since: int | None = None) -> fingerprint.Fingerprint | None:
    """Let the page settle; its fingerprint as the settle left it (with `since`, as
    `fingerprint.take`), read in the settle's last round trip when that still holds. That one is
    kept as `episode.settled_fp`: the next step's reading, while the page is certainly unchanged."""
    got = await episode.settle(also=[fingerprint.read(since)])
    if got and got[0] is not None and isinstance(got[0].value, str):
        episode.settled_fp = await fingerprint.of_walk(episode.page, got[0].value, since)
        return episode.settled_fp
    return await fingerprint.take(episode.page)


async def _press_point(step: Step, action: AnyAction) -> tuple[float, float] | None:
    """Where the mouse may press on the action's element at once (the first mechanism's answer;
    None: through its locator, with Playwright's waits)."""
    for m in step.episode.mechanisms:
        if (point := await m.press_point(step, action)) is not None:
            return point
    return None


# The actions on a target whose effect may come late (hover has its own patience).
LATE = (Click, Expand, Select, Type, SetValue, Drag)


async def act(step: Step, action: AnyAction) -> fingerprint.Fingerprint | None:
    """Run the action, let the page settle, and return its fingerprint after."""
    episode, page, rec = step.episode, step.page, step.rec
    point = getattr(action, "point", None)
    pixels_before = None
    if isinstance(action, Hover) and point is not None:
        # a hover's effect is the pointer arriving: the 'before' image is taken without it
        pixels_before = await validator.pixels_around(page, point)
    elif point is not None:
        pixels_before, cut = await validator.hover_and_capture(page, point, episode.may_change)
        rec.waits_cut += cut
    t0 = time.perf_counter()
    before = step.fp_before
    moved = await episode.before_action(also=[fingerprint.changed_since(before)] if before else [])
    changed = bool(moved) and moved[0] is not None and moved[0].value is True
    if changed:
        # The page changed after it was read for this step (an offer slid in, a list grew while
        # vision looked): the action's effect is what differs from the page as it is acted on,
        # not from the page as it was read (closing what came in the meantime would otherwise
        # give the page read back, and look like nothing).
        now = await fingerprint.take(page)
        if now is not None:
            before, rec.before_retaken = now, True
    # (a page that changed since it was read is left to Playwright's waits)
    at = None if changed else await _press_point(step, action)
    readout = ""  # what a set_value by keys left its readout showing
    try:
        readout = await execute(page, episode.refs, action, episode.action_timeout_ms, at=at)
    except StaleRefError as exc:
        rec.error_type, rec.error = "stale_ref", str(exc)
    except PlaywrightTimeoutError as exc:
        rec.error_type, rec.error = "action_timeout", _first_error_line(exc)
        rec.actionable = False
    except (PlaywrightError, PointActionError, SetValueError, NoSuchOptionError) as exc:
        if page.is_closed():
            raise
        rec.error_type, rec.error = "action_error", _first_error_line(exc)
    rec.act_ms = _ms(t0)
    settled: asyncio.Future[fingerprint.Fingerprint | None] = asyncio.get_running_loop().create_future()
    for m in episode.mechanisms:
        m.acted(step, action, settled)
    t0 = time.perf_counter()
    fp_after = None
    try:
        fp_after = await settled_fingerprint(episode, changes_since(step))
    finally:
        settled.set_result(fp_after)  # background work waiting for the settled page starts here
    for m in episode.mechanisms:
        await m.after_action(page)
    effective, rec.effect = await validator.effect(page, action, rec.error_type, before,
                                                   fp_after, pixels_before, lambda e: vetoed(step, e),
                                                   readout)
    # An effect that comes late: a hover's after the page's hover-intent delay, another action's
    # after a delay of the page's own (a debounce, a timer before it draws its answer).
    patience = episode.hover_intent_ms if isinstance(action, Hover) else \
        episode.late_effect_ms if isinstance(action, LATE) else 0
    if not effective and not rec.error_type and patience:
        waited = 0
        # Nothing the page scheduled can change it during this look and the backoff after it: the
        # page stays as it is (`step.still`), and neither wait is made.
        step.still = not await episode.may_change(patience + episode.backoff_max_ms)
        if step.still:
            rec.waits_cut += 1
        # (Else the look is made in full: its time is also the page's to wake up before the
        # next try, as the backoff's is.)
        while not effective and waited < patience and not step.still:
            await page.wait_for_timeout(100)
            waited += 100
            later = await fingerprint.take(page)
            effective, effect = await validator.effect(page, action, "", before, later,
                                                       None, lambda e: vetoed(step, e))
            if effective:
                fp_after, rec.effect = later, effect
    rec.effective = effective
    if episode.settled_fp is not fp_after:
        episode.settled_fp = None  # the page moved on after the settle (a late effect)
    if before is not None and fp_after is not None:
        rec.mutation_delta = round(before.delta(fp_after), 4)
    for m in episode.mechanisms:
        await m.validated(step, step.fp_before, fp_after)
    rec.validate_ms = _ms(t0)
    return fp_after


# Whether an element is in view and on top at its centre (not clipped by a scrolling container,
# not outside the viewport, not under another element).
_IN_VIEW_JS = """
(el) => {
  const hit = (CENTRE_HIT)(el);
  return !!hit && (hit === el || el.contains(hit) || hit.contains(el));
}
""".replace("CENTRE_HIT", CENTRE_HIT_JS)


# Controls a page often draws by their label: the input hidden (clipped to a pixel, faded out
# under the label's content) inside a radio card, a styled tick box or a switch.
TICKED = frozenset({"checkbox", "radio", "switch"})

# Whether what is on top at an element's centre lies in one of its own labels. A click there is
# the label's, which the browser forwards to the control; Playwright's click on the control itself
# waits for the control to be on top, which it never is. Out of view nothing is on top of it: a
# labelled element of the top document (`scroll`) is scrolled into view first, and the answer is
# how far the page moved ([dx, dy]; null when the label does not draw it).
_THROUGH_LABEL_JS = """
(el, scroll) => {
  const r = el.getBoundingClientRect(), x0 = window.scrollX, y0 = window.scrollY;
  const away = r.bottom < 0 || r.top > window.innerHeight || r.right < 0 || r.left > window.innerWidth;
  if (away && scroll && (el.labels || []).length) el.scrollIntoView({block: "center", inline: "nearest"});
  const hit = (CENTRE_HIT)(el);
  const drawn = !!hit && hit !== el && !el.contains(hit) && [...(el.labels || [])].some((l) => l.contains(hit));
  return drawn ? [window.scrollX - x0, window.scrollY - y0] : null;
}
""".replace("CENTRE_HIT", CENTRE_HIT_JS)


async def _through_label(step: Step, mark: Mark, scroll: bool) -> tuple[float, float] | None:
    """How far the page scrolled to bring the mark's element into view (`scroll`: it may, an
    element of the top document) when it is drawn by its label (`_THROUGH_LABEL_JS`); else None."""
    try:
        got = await step.episode.refs.evaluate(step.page, mark.ref, mark.observation_id, _THROUGH_LABEL_JS, scroll)
    except (PlaywrightError, StaleRefError):
        return None
    return (float(got[0]), float(got[1])) if isinstance(got, list) and len(got) == 2 else None


async def in_view(step: Step, mark: Mark) -> bool:
    """Whether a mark's element can be seen now; a mark without an element: its box's centre is
    inside the viewport."""
    if mark.ref is None:
        size = step.page.viewport_size or {"width": 1280, "height": 720}
        x, y = mark.box.center
        return 0 <= x < size["width"] and 0 <= y < size["height"]
    try:
        return bool(await step.episode.refs.evaluate(step.page, mark.ref, mark.observation_id, _IN_VIEW_JS))
    except (PlaywrightError, StaleRefError):
        return False


async def vetoed(step: Step, evidence: str) -> bool:
    """Whether some mechanism says an effect credited on `evidence` is not the action's."""
    for m in step.episode.mechanisms:
        if await m.vetoes(step, evidence):
            return True
    return False


async def act_and_validate(step: Step, choice_mark: Mark | None, reply: WorkerReply,
                           to: Mark | None = None) -> int:
    """Resolve, act, validate; how far the plan advanced (0 or 1)."""
    episode, rec, subgoal = step.episode, step.rec, step.subgoal
    t0 = time.perf_counter()
    try:
        action = await resolve(step, reply, choice_mark, to)
    except StaleRefError as exc:
        rec.error_type, rec.error = "stale_ref", str(exc)
        return 0
    finally:
        rec.resolve_ms += _ms(t0)
    if action is None:
        return 0
    rec.action = action.kind
    if isinstance(action, Navigate) and not all(m.allows(action.url) for m in episode.mechanisms):
        rec.error_type, rec.error = "blocked_navigation", f"{action.url} is outside the allowed domains"
        rec.blocked_navigation = 1
        return 1 if subgoal.action == "navigate" else 0
    if choice_mark is not None and choice_mark.ref is not None:
        for m in episode.mechanisms:
            await m.uncover(step, choice_mark, action)
    await act(step, action)
    if rec.effective and subgoal.expect is not None and subgoal.expect.checkable:
        # the plan says what must be true afterwards: a change that is not it is not the effect
        rec.expect_held = await expect.check(step.page, subgoal.expect)
        if not rec.expect_held:
            rec.effective = False
            rec.error_type, rec.error = "expect_unmet", f"expected: {subgoal.expect.says}"[:300]
    effective = rec.effective
    episode.history.append(f"{action.kind} {rec.target_name or getattr(action, 'url', '')!s}"
                           f" -> {'changed the page' if effective else rec.error_type or 'no effect'}")
    if rec.error_type == "stale_ref":
        return 0
    if effective:
        for m in episode.mechanisms:
            m.effective()
        return 1
    if subgoal.once and not rec.error_type:
        rec.effect = "unseen"  # done once, as asked: a retry would act twice
        return 1
    # A no-op questions the reference frame (agents/dead_action_guard.py); without a mechanism
    # that acts on it, the same target is simply tried again.
    if not rec.error_type:
        rec.error_type, rec.error = "no_effect", "the action changed nothing on the page"
    if choice_mark is not None:
        for m in episode.mechanisms:
            m.no_effect(step, choice_mark)
    return 0


async def scroll(step: Step, action: Scroll) -> list[str]:
    """A scroll of the agent's own (to a target, or to look further); the fingerprint parts that
    moved."""
    episode, page, rec = step.episode, step.page, step.rec
    t0 = time.perf_counter()
    await episode.before_action()
    try:
        await execute(page, episode.refs, action, episode.action_timeout_ms)
    except (PlaywrightError, StaleRefError) as exc:
        if action.ref is None:
            raise
        rec.error_type, rec.error = "action_error", _first_error_line(exc)
    rec.act_ms = _ms(t0)
    fp_after = await settled_fingerprint(episode, changes_since(step))
    for m in episode.mechanisms:
        await m.after_action(page)
    fp_before = step.fp_before
    if fp_before is None or fp_after is None:
        return ["navigated"]
    return fp_before.differs(fp_after)


async def scroll_to(step: Step, mark: Mark) -> None:
    """Bring a target the DOM knows but vision did not see (out of view) into view."""
    rec = step.rec
    rec.action, rec.ref, rec.target_role, rec.target_name = "scroll", mark.ref or "", mark.role, mark.label
    rec.target_context = mark.context_text
    moved = await scroll(step, Scroll(ref=mark.ref, observation_id=step.obs.id if step.obs else 0))
    rec.effective = bool(moved)
    rec.effect = "scrolled_into_view"


async def explore(step: Step) -> bool:
    """Nothing on the page fits yet: look further down (lists load as they scroll into view).
    True when the page moved; False at the bottom, where the step is a plain miss."""
    rec = step.rec
    parts = await scroll(step, Scroll(direction="down"))
    moved = bool(parts)
    if moved and parts != ["navigated"]:
        # only what the page changes by itself moved: the bottom is reached
        moved = not await vetoed(step, ",".join(parts))
    if moved:
        rec.action, rec.effective, rec.effect = "scroll", True, "explored_down"
        rec.error_type, rec.error = "no_target", "no mark fits yet; scrolled down to look further"
    return moved


def _targeted(reply: WorkerReply, target: dict, to: Mark | None = None) -> AnyAction:
    """The reply's action aimed at a ref or a point (a drag: onto `to`, or by the reply's offset)."""
    match reply.action:
        case "hover":
            return Hover(**target)
        case "drag" if to is not None and to.ref is not None and "ref" in target:
            return Drag(**target, to_ref=to.ref)
        case "drag" if to is not None:
            return Drag(**target, to_point=to.box.center)
        case "drag":
            return Drag(**target, offset=reply.offset or (0.0, 0.0))
        case "type":
            return Type(**target, text=reply.text or "", clear=reply.clear, then=reply.then)
        case "select":
            return Select(**target, value=str(reply.value))
        case "set_value":
            return SetValue(**target, value=reply.value if reply.value is not None else "")
        case "expand":
            return Expand(**target)
        case "read":
            return Read(**target)
    return Click(**target)
