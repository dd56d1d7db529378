"""Choose stage: the worker picks one action from the step's listing. Around it, the second looks
a doubtful choice gets (a mechanism's `recover`: a coverage pass), and what a plan follower does
when nothing fits (open a section that hides the target, look further down the page)."""

from __future__ import annotations

import time

from agents import perceive, som
from agents.marks import PLACE_ROLES, Mark, element_mark
from agents.pipeline import Step, Unseen
from agents.worker.base import Choice, ChoiceRequest, PlanFollower
from agents.worker.places import names_place
from tasks.schema import Subgoal


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


async def ask(step: Step, subgoal: Subgoal, marks: list[Mark], record_error: bool = True) -> Choice:
    """One decision of the worker on this listing; its cost goes to the step's record (and a
    failed decision's error, unless `record_error` is False: a decision made ahead, which the
    step does not depend on)."""
    episode, rec = step.episode, step.rec
    image = None
    size = step.page.viewport_size or {"width": 1280, "height": 720}
    viewport = (size["width"], size["height"])
    png = await step.page.screenshot() if episode.worker.sees_image or (subgoal.looks_like and marks) else b""
    if subgoal.looks_like and marks:
        # the picture the target shows, compared with what each mark shows on the screen now
        # (numpy is imported only for a subgoal that gives a picture: ~0.1 s of every start-up)
        from agents import pictures
        try:
            marks = pictures.resemble(png, marks, subgoal.looks_like, viewport)
        except pictures.PictureError as exc:
            rec.error_type, rec.error = "picture_error", str(exc)[:300]
    if episode.worker.sees_image:
        image = som.draw(png, marks, viewport)
    choice = await episode.worker.decide(ChoiceRequest(
        goal=episode.brief.goal, subgoal=subgoal, marks=marks, history=episode.history,
        excluded=episode.excluded(), prefer_toggle=episode.prefer_toggle, image=image,
        places=places(step, marks) if (subgoal.action == "drag" and subgoal.to) or names_place(subgoal) else []))
    cost = choice.cost
    rec.charge(cost)
    rec.invalid_replies += cost.invalid_replies
    rec.worker_ms += cost.latency_ms
    rec.decisions += 1
    if choice.reply is None and cost.error_type and record_error:
        rec.error_type, rec.error = "worker_error", f"{cost.error_type}: {cost.error}"[:300]
    return choice


def places(step: Step, marks: list[Mark]) -> list[Mark]:
    """Where a dragged thing may be dropped besides the controls: the list items, rows, cards
    and cells of the observation, each a mark of its own, numbered after the listing's; the first
    piece of each one's context is the name of what holds it (the list, the table)."""
    start = max((m.number for m in marks), default=0) + 1
    obs = step.obs
    elements = obs.elements if obs is not None else {}

    def home(ref: str | None) -> str:
        # the name of the nearest named ancestor: the list, table or board the place is part of
        for _ in range(8):
            el = elements.get(ref) if ref else None
            if el is None:
                return ""
            if el.name:
                return el.name
            ref = el.parent_ref
        return ""
    kids: dict[str, list[str]] = {}
    for ref, el in elements.items():
        if el.parent_ref:
            kids.setdefault(el.parent_ref, []).append(ref)

    def shows(ref: str, depth: int = 0) -> str:
        # what a place shows: its own name or text, else what its parts show (an item holding a
        # handle icon and a <div> with the name)
        el = elements[ref]
        if el.label or depth >= 3:
            return el.label
        return " ".join(t for k in kids.get(ref, ()) if (t := shows(k, depth + 1)))[:120]
    # a table's header row holds no item: nothing is dropped on it
    headers = {p.element.parent_ref for p in step.placed if p.element.role == "columnheader"}
    chosen = [p for p in step.placed if p.element.role in PLACE_ROLES and p.element.ref not in headers]
    return [element_mark(start + i, p, 1.0, "dom", obs.id if obs else 0).model_copy(
                update={"context": (home(p.element.parent_ref), *p.element.context),
                        "label": p.element.label or shows(p.element.ref)})
            for i, p in enumerate(chosen)]


class SecondLook:
    """The `Recovery` a mechanism's `recover` hook runs: one more vision pass with hints and a
    cap, added to what this step saw, then enrich, rank and choose again."""

    async def look_again(self, step: Step, hints: list[str], cap: int) -> None:
        episode = step.episode
        result = await perceive.vision_call(step, episode.vision_text(step.subgoal), hints, "large", cap)
        marks = await perceive.enrich(step, step.seen + perceive.to_viewport(step, result))
        step.marks = perceive.rank(step, await perceive.drawn(step, marks))
        step.choice = await ask(step, step.subgoal, step.marks)
        step.unseen = missed(step)


def missed(step: Step) -> Unseen | None:
    return next((u for m in step.episode.mechanisms if (u := m.missed(step)) is not None), None)


async def choose(step: Step) -> None:
    """The worker's choice, a second look if a mechanism doubts it, and the unseen target (one
    the DOM knows fits better than anything perceived)."""
    t0 = time.perf_counter()
    ahead = None
    for m in step.episode.mechanisms:
        if (ahead := await m.decided(step)) is not None:
            break
    step.choice = ahead or await ask(step, step.subgoal, step.marks)
    step.rec.choose_ms = _ms(t0)
    step.unseen = missed(step)
    for m in step.episode.mechanisms:
        await m.recover(step, SecondLook())
    choice, unseen = step.choice, step.unseen
    if unseen is not None and unseen.in_view and not choice.satisfied:
        # within the viewport's height, but a container may clip it (a strip, a short list)
        for m in step.episode.mechanisms:
            if await m.clipped(step, unseen.mark):
                step.unseen = unseen = Unseen(unseen.mark, False)
                break
    if unseen is not None and unseen.in_view and choice.reply is None and not choice.satisfied:
        for m in step.episode.mechanisms:
            if await m.hidden(step, unseen.mark):
                step.unseen = Unseen(unseen.mark, False)
                break


async def reveal(step: Step) -> Choice | None:
    """The target may sit behind a tab, a collapsed section or a folder (the subgoal's `reveal`):
    the first such control not opened yet, chosen by a plan follower (None: none left)."""
    worker, episode = step.episode.worker, step.episode
    if not step.subgoal.reveal or not isinstance(worker, PlanFollower):
        return None
    closed = [m for m in step.marks if opener_key(m) not in episode.revealed
              and m.states.get("expanded") != "true" and m.states.get("selected") != "true"]
    opener = worker.match(Subgoal(action="click", target=step.subgoal.reveal, nth=1), closed,
                          episode.excluded(), episode.prefer_toggle)
    if opener.reply is None or opener.mark is None:
        return None
    episode.revealed.add(opener_key(opener.mark))
    return opener


def opener_key(mark: Mark) -> str:
    """A tab or section header by what it says, not where it is: opening one moves the others."""
    return f"{mark.role}|{mark.label}"
