"""Choose stage, scripted: follow the task's plan and pick, among the marks of the current listing,
the one whose label, role and context best match the subgoal's description (how a mark fits one:
agents/worker/fit.py; a description of a place rather than a control: agents/worker/places.py).

With a fixed plan every failure is a grounding failure, which is what the harness measures. The
worker uses whatever the listing carries: with enrichment off it has labels and boxes only."""

from __future__ import annotations

import asyncio
import dataclasses
import time

from agents.marks import Mark, TargetIdentity, among, iou
from agents.observation import Box
from agents.worker.base import Choice, ChoiceRequest, WorkerCost, WorkerReply
from agents.worker.fit import (
    ACTION_ROLES,
    FORM_BUTTON_SCORE,
    KIND_NAMES,
    STOP_WORDS,
    context_fit,
    least_score,
    names_symbol_exactly,
    said,
    score,
    shows_label,
    state_holds,
)
from agents.worker.places import (
    FROM_END,
    alike_in_row,
    described_kind,
    described_roles,
    from_end,
    names_place,
    nth_place,
    place_at,
    place_beside,
)
from tasks.schema import Subgoal
from tasks.text_match import (
    SUBMITTING,
    affixes,
    dismissing,
    has_affixes,
    ordinal,
    words,
)


class ScriptedWorker:
    """Answers from the plan (a `PlanFollower`): at once, or after `latency_ms` per decision, the
    time a model worker would take (charged to the step as the decision's cost)."""

    name = "scripted"
    sees_image = False
    latency_ms = 0.0  # (a subclass that defines its own __init__ answers at once)

    def __init__(self, latency_ms: float = 0.0) -> None:
        self.latency_ms = latency_ms

    async def decide(self, request: ChoiceRequest) -> Choice:
        assert request.subgoal is not None, "the scripted worker follows a plan"
        choice = self.match(request.subgoal, request.marks, request.excluded, request.prefer_toggle,
                            request.places, request.history)
        if not self.latency_ms:
            return choice
        t0 = time.perf_counter()
        await asyncio.sleep(self.latency_ms / 1000)
        waited = round((time.perf_counter() - t0) * 1000, 2)
        return dataclasses.replace(choice, cost=WorkerCost(latency_ms=waited))

    def match(self, subgoal: Subgoal, marks: list[Mark],
              excluded: frozenset[TargetIdentity] = frozenset(), prefer_toggle: bool = False,
              places: list[Mark] | None = None, history: list[str] | None = None) -> Choice:
        """The reply for this subgoal on this listing; reply None when no mark fits. With the
        episode's `history` (what was done so far), a submission no mark names may go to the
        form's action button (`form_button`)."""
        if not subgoal.targeted or (subgoal.action == "scroll" and subgoal.target is None):
            return Choice(WorkerReply(action=subgoal.action, url=subgoal.url,
                                        direction=subgoal.direction, answer=subgoal.text,
                                        value=subgoal.seconds if subgoal.action == "wait" else None))
        if subgoal.nth is not None:
            return self._nth(subgoal, marks, excluded)
        best: tuple[float, Mark] | None = None
        least = 0.01 if subgoal.label else least_score(subgoal)
        synonyms = not any(names_symbol_exactly(subgoal, m) for m in marks
                           if not (excluded and among(m.identity, excluded)))
        for mark in marks:
            if excluded and among(mark.identity, excluded):
                continue
            s = score(subgoal, mark, prefer_toggle, synonyms)
            if s >= least and (best is None or s > best[0]):
                best = (s, mark)
        if best is None and places and (subgoal.action == "drag" or names_place(subgoal)):
            # the thing to drag, hover or click may be no control but a place itself (an item of a
            # sortable list, a card, a row that shows its actions under the pointer): it is found
            # among the places the way a click target is among the marks
            moved = self.match(Subgoal(action="click", target=subgoal.target, label=subgoal.label),
                               places, excluded)
            if moved.mark is not None:
                best = (moved.score, moved.mark)
        if best is None and history and names_submission(subgoal):
            button = form_button(marks, excluded, history)
            if button is not None:
                best = (FORM_BUTTON_SCORE, button)
        if best is None:
            return Choice(None)
        s, mark = best
        if state_holds(subgoal, mark):
            return Choice(None, mark, s, satisfied=True)
        if subgoal.action == "drag" and subgoal.to is not None:
            return self._drag(subgoal, mark, s, marks, excluded, places or [])
        return self._reply(subgoal, mark, s)

    def _drag(self, subgoal: Subgoal, mark: Mark, s: float, marks: list[Mark],
              excluded: frozenset[TargetIdentity], places: list[Mark]) -> Choice:
        """A drag onto a target: the drop mark is matched like a click on `to` among the marks
        and the places things are dropped on (list items, rows, cards), never the mark being
        dragged. A `to` that names a position ("the first item of the Sprint list") is the nth
        place, in reading order, of the places whose context fits it best."""
        to = subgoal.to or ""
        drop: Mark | None = None
        n = ordinal(said(to)[0]) or (1 if FROM_END.search(said(to)[0]) else None)
        if n is not None and places:
            drop = nth_place(to, n, places)
        if drop is None and n is None and places:
            drop = place_beside(to, places) or place_at(to, places)
        if drop is None:
            chosen = self.match(Subgoal(action="click", target=to),
                                [m for m in [*marks, *places] if m.number != mark.number], excluded)
            drop = chosen.mark
        if drop is None:
            return Choice(None)
        reply = WorkerReply(action="drag", mark=mark.number, to_mark=drop.number)
        return Choice(reply, mark, s, to=drop)

    def _nth(self, subgoal: Subgoal, marks: list[Mark], excluded: frozenset[TargetIdentity]) -> Choice:
        """"The 2nd text box": the targets whose role the description names (and that show the
        label, if one is expected), one per element, in reading order; the nth of them (from the
        end when the description counts from the right, the bottom or the end, or says "last").
        When no mark has such a role (stars, dots, tick boxes drawn without one), the nth of a
        row of alike marks without a name (`visual_nth`)."""
        roles = described_roles(subgoal)
        kind = described_kind(subgoal)
        seen: set[str] = set()
        fits = []
        start, end = affixes(subgoal.target or "")
        for mark in marks:
            # without a role, vision's own word for what it saw drawn ("slider") stands for one
            drawn_as = not mark.role and kind is not None and (
                kind in words(mark.label) or bool(KIND_NAMES.get(kind, frozenset()) & set(words(mark.label))))
            if (excluded and among(mark.identity, excluded)) or (mark.role not in roles and not drawn_as) or (
                    subgoal.label and not shows_label(subgoal.label, mark)) or (
                    (start or end) and not has_affixes(mark.label, start, end)):
                continue
            if mark.ref is not None and mark.ref in seen:
                continue
            if mark.ref is None and any(f.ref is None and iou(f.box, mark.box) > 0.5 for f in fits):
                continue  # one thing drawn twice (a second look adds to the first)
            seen.add(mark.ref or "")
            fits.append(mark)
        assert subgoal.nth is not None
        if not fits:
            return self._visual_nth(subgoal, marks, excluded)
        fits.sort(key=lambda m: (round((m.box.y + m.box.height / 2) / 8), m.box.x))
        if from_end(subgoal):
            fits.reverse()
        if len(fits) < subgoal.nth:
            return Choice(None)
        mark = fits[subgoal.nth - 1]
        if state_holds(subgoal, mark):
            return Choice(None, mark, 1.0, satisfied=True)
        return self._reply(subgoal, mark, 1.0)

    def _visual_nth(self, subgoal: Subgoal, marks: list[Mark],
                    excluded: frozenset[TargetIdentity]) -> Choice:
        """"The 4th star from the left": among marks with no name and no role, the groups of alike
        ones (the peers a hit test found beside a mark; else vision's boxes of about one size in
        one row); the group whose context fits the description best; its nth box in reading
        order. The mark acted on is the listed one at that box, or, when vision missed it, the
        group's mark moved there (reached by its point)."""
        assert subgoal.nth is not None
        nameless = [m for m in marks if not m.role and not words(m.label)
                    and not (excluded and among(m.identity, excluded))]
        groups: list[tuple[list[Box], list[Mark]]] = []
        by_peers: dict[tuple, int] = {}
        for m in nameless:
            if len(m.peers) >= 2:
                key = tuple((round(b.x), round(b.y)) for b in m.peers)
                if key not in by_peers:
                    by_peers[key] = len(groups)
                    groups.append((list(m.peers), []))
                groups[by_peers[key]][1].append(m)
        for m in sorted((m for m in nameless if len(m.peers) < 2), key=lambda m: m.box.x):
            home = next((g for g in groups if not g[1][0].peers and alike_in_row(g[1][-1], m)), None)
            if home is None:
                groups.append(([], [m]))
            else:
                home[1].append(m)
        groups = [(boxes or [m.box for m in members], members) for boxes, members in groups]
        groups = [g for g in groups if len(g[0]) >= 2]
        if not groups:
            return Choice(None)
        target, _ = said(subgoal.target or "")
        desc = [w for w in words(target) if w not in STOP_WORDS]

        def fit(group: tuple[list[Box], list[Mark]]) -> tuple[float, float, float]:
            context = tuple(c for m in group[1] for c in m.context)
            first = min(group[0], key=lambda b: (b.y, b.x))
            return (context_fit(desc, set(), context), -round(first.y / 8), -first.x)

        boxes, members = max(groups, key=fit)
        across = max(b.x for b in boxes) - min(b.x for b in boxes) >= max(b.y for b in boxes) - min(b.y for b in boxes)
        boxes = sorted(boxes, key=(lambda b: (b.x, b.y)) if across else (lambda b: (b.y, b.x)))
        if from_end(subgoal):
            boxes.reverse()
        if len(boxes) < subgoal.nth:
            return Choice(None)
        box = boxes[subgoal.nth - 1]
        cx, cy = box.center
        listed = next((m for m in members if m.box.x <= cx <= m.box.x + m.box.width
                       and m.box.y <= cy <= m.box.y + m.box.height), None)
        mark = listed or members[0].model_copy(update={"box": box})
        return self._reply(subgoal, mark, 1.0)

    @staticmethod
    def _reply(subgoal: Subgoal, mark: Mark, s: float) -> Choice:
        reply = WorkerReply(action=subgoal.action, mark=mark.number, text=subgoal.text,
                            clear=subgoal.clear, then=subgoal.then, value=subgoal.value,
                            direction=subgoal.direction, offset=subgoal.offset)
        return Choice(reply, mark, s)


def names_submission(subgoal: Subgoal) -> bool:
    """A click on a form's submission: "Sign in button", "login button", "the Search button" (a
    word of `SUBMITTING` among at most three words before "button")."""
    if subgoal.action != "click" or subgoal.nth is not None:
        return False
    said_words = [w for w in words(said(subgoal.target or "")[0]) if w not in ("the", "a", "an")]
    if not said_words or said_words[-1] != "button" or not 1 <= len(said_words) - 1 <= 3:
        return False
    return bool(set(said_words[:-1]) & SUBMITTING)


def form_button(marks: list[Mark], excluded: frozenset[TargetIdentity], history: list[str]) -> Mark | None:
    """The button that ends the group of fields the plan filled: after a `type` that changed the
    page, the nearest button-like mark below the lowest text field (or right of it in its row),
    not one that turns something down (Cancel, Back, Reset). A form's action button says what the
    site calls it ("OK", "Continue", "Go!"), which the plan cannot know; where it sits it shares
    with every form. Button-like: the role button; only where none is, a short name without a
    role that is no field's caption (a div drawn as a button; not the "Year" written under a box)."""
    if not any(h.startswith("type ") and h.endswith("changed the page") for h in history):
        return None
    fields = [m for m in marks if m.role in ACTION_ROLES["type"]]
    if not fields:
        return None
    last = max(fields, key=lambda m: (m.box.y + m.box.height, m.box.x))
    bottom, right = last.box.y + last.box.height, last.box.x + last.box.width
    captions = {" ".join(words(c)) for f in fields for c in f.context[:2]}

    def drawn_as_button(m: Mark) -> bool:
        n = words(m.label)
        return not m.role and 1 <= len(n) <= 3 and " ".join(n) not in captions

    def after(m: Mark) -> bool:
        cy = m.box.y + m.box.height / 2
        return cy > bottom or (last.box.y <= cy <= bottom and m.box.x >= right)

    usable = [m for m in marks if after(m) and not dismissing(m.label)
              and not (excluded and among(m.identity, excluded))]
    # a real button first: a role-less name may be a caption whose field this listing lacks
    fits = [m for m in usable if m.role == "button"] or [m for m in usable if drawn_as_button(m)]
    if not fits:
        return None
    cx = last.box.x + last.box.width / 2
    return min(fits, key=lambda m: (max(0.0, m.box.y - bottom), abs(m.box.x + m.box.width / 2 - cx)))
