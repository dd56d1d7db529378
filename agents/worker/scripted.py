"""Choose stage, scripted: follow the task's plan and pick, among the marks of the current listing,
the one whose label, role and context best match the subgoal's description.

With a fixed plan every failure is a grounding failure, which is what the harness measures. The
worker uses whatever the listing carries: with enrichment off it has labels and boxes only."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from itertools import pairwise

from agents.marks import RESEMBLES, Mark, TargetIdentity, among, iou
from agents.observation import Box
from agents.worker.base import Choice, ChoiceRequest, WorkerCost, WorkerReply
from tasks.schema import Subgoal
from tasks.text_match import (
    FIELD_NAMES,
    ICON_WORDS,
    SUBMITTING,
    affixes,
    dismissing,
    has_affixes,
    label_matches,
    ordinal,
    symbol_names,
    synonym_words,
    words,
)

STOP_WORDS = frozenset(["a", "an", "the", "in", "of", "on", "to", "for", "and", "or", "with", "into", "from", "this", "that", "its", "field", "button", "form", "box", "list", "link", "option", "item", "control"])
ROLE_WORDS = {
    "button": {"button"}, "link": {"link"}, "field": {"textbox", "searchbox", "combobox", "spinbutton"},
    "box": {"textbox", "searchbox", "combobox", "checkbox"}, "input": {"textbox", "searchbox"},
    "checkbox": {"checkbox"}, "toggle": {"switch", "checkbox", "button"}, "switch": {"switch"},
    "slider": {"slider"}, "option": {"option", "button", "menuitem", "radio"}, "tab": {"tab"},
    "radio": {"radio"}, "dropdown": {"combobox", "listbox", "button"}, "menu": {"menuitem", "button"},
    "suggestion": {"option", "menuitem"}, "textbox": {"textbox", "searchbox"},
    "shape": {"img"}, "circle": {"img"}, "textarea": {"textbox"},
}
# Two words that name one kind of control.
_KIND_PHRASES = re.compile(r"\btext\s+area\b", re.IGNORECASE)


def kind_words(target: str) -> list[str]:
    """The description's words, a phrase that names a kind of control ("text area") as one."""
    return words(_KIND_PHRASES.sub("textarea", target))
# A kind of thing and the names vision gives the things of that kind ("the shape": a red circle).
KIND_NAMES = {"shape": frozenset({"circle", "square", "rectangle", "triangle", "polygon"})}
ACTION_ROLES = {
    "type": {"textbox", "searchbox", "combobox", "spinbutton"},
    "set_value": {"slider", "spinbutton", "textbox"},
    "select": {"combobox", "listbox"},
}


# Without an expected label, the description must match at least this well.
MIN_SCORE = 1.5
# What the form's action button counts when it is chosen for a submission no mark names
# (`form_button`): below any name or caption match, so it is recognisable in `match_score`.
FORM_BUTTON_SCORE = 0.5
# What a word of the description counts when an icon shows it by another name of the same symbol
# ("delete icon" for a "trash icon"): less than the word itself, so the exact name wins a tie.
SYNONYM_WEIGHT = 0.75


def exact_name(subgoal: Subgoal) -> str | None:
    """The name a description asks for *exactly* ("the jacket named exactly "Trail Jacket""): its
    expected label, else the quoted words; None when it does not say "exactly"."""
    target = subgoal.target or ""
    if "exactly" not in words(target):
        return None
    quoted = _QUOTED.search(target)
    return subgoal.label or (next(g for g in quoted.groups() if g) if quoted else None)


_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|\'([^\']+)\'')

# The affix clause itself ("ending in ica") is not words the name should show.
_AFFIX_CLAUSE = re.compile(r"\b(?:start|begin|end)\w*\s+(?:in|with)\s+(?:\"[^\"]*\"|“[^”]*”|'[^']*'|\S+)",
                           re.IGNORECASE)


# "(the box, not the sentence or its link)": a clause that says what the target is not.
_NEGATED = re.compile(r"(?:[,(;]|\bbut)\s*not\s+(?:the|a|an|its|any)\b([^)\];]*)", re.IGNORECASE)


def said(target: str) -> tuple[str, set[str]]:
    """A description without the clauses that say what the target is not, and the roles those
    clauses name ("not the sentence or its link": link)."""
    negated: set[str] = set()
    for clause in _NEGATED.findall(target):
        negated |= set().union(*(ROLE_WORDS.get(w, set()) for w in words(clause)
                                 if w not in ("box", "toggle", "option")))
    return _NEGATED.sub(" ", target), negated


def symbol_synonyms(desc: list[str], name_words: set[str], synonyms: bool = True, field: bool = False
                    ) -> tuple[set[str], set[str]]:
    """The description's words an icon shows by another name of the same UI symbol ("trash" shown
    as "delete"), or a field by another name of what it asks for ("last name" shown as "Surname",
    `field`), and the label's words that name them; none unless the description or the label is an
    icon's (`ICON_WORDS`) or the target a field, so other controls are compared word for word."""
    if not synonyms:
        return set(), set()
    if field:
        return synonym_words(set(desc), name_words, FIELD_NAMES)
    if not (ICON_WORDS & (set(desc) | name_words)):
        return set(), set()
    return synonym_words(set(desc), name_words)


# The roles that take typed text, and the words that say a target is one.
TEXT_FIELDS = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
FIELD_WORDS = frozenset({"field", "input", "textbox", "textarea"})


def is_field(subgoal: Subgoal, mark: Mark) -> bool:
    """Whether the target is a field: typed into, asked for as one, or a mark that is one."""
    return (subgoal.action == "type" or mark.role in TEXT_FIELDS
            or bool(FIELD_WORDS & set(kind_words(subgoal.target or ""))))


def names_symbol_exactly(subgoal: Subgoal, mark: Mark) -> bool:
    """An icon whose label names a symbol of the description by the description's own word: where
    one is listed, no other icon counts by a synonym (the exact word beats a synonym)."""
    label = set(words(mark.label))
    desc = set(words(said(subgoal.target or "")[0])) - STOP_WORDS
    return bool(ICON_WORDS & label) and any(parts <= label for parts in symbol_names(desc).values())


def unjoined(name_words: set[str], desc: list[str]) -> set[str]:
    """A name's words with two of the description's run together ("textmessages" read for "Text
    messages": a reader of pixels drops a narrow space) counted as those two words."""
    out = set(name_words)
    for a, b in pairwise(desc):
        if a + b in out:
            out.discard(a + b)
            out |= {a, b}
    return out


def score(subgoal: Subgoal, mark: Mark, prefer_toggle: bool = False, synonyms: bool = True) -> float:
    """Higher is a better match; <= 0 means this mark is not a plausible target. When the plan
    names the visible label, a mark that does not show it is never chosen; when the description
    asks for a name exactly, a mark whose name says more (or less) is never chosen; when it says
    how the name starts or ends ("the suggestion ending in "ica""), a mark whose name does not is
    never chosen, and one whose name does counts as named. An icon may show a word of the
    description by a synonym (`symbol_synonyms`; off with `synonyms`)."""
    allowed = ACTION_ROLES.get(subgoal.action)
    if allowed is not None and mark.role and mark.role not in allowed:
        return 0.0
    if subgoal.label and not label_matches(subgoal.label, mark.label):
        return 0.0
    exact = exact_name(subgoal)
    if exact is not None and words(exact) != words(mark.label):
        return 0.0
    start, end = affixes(subgoal.target or "")
    if (start or end) and not has_affixes(mark.label, start, end):
        return 0.0
    target, negated = said(subgoal.target or "")
    if mark.role and mark.role in negated:
        return 0.0
    if subgoal.looks_like and mark.resemblance < RESEMBLES:
        return 0.0  # the plan shows the picture and this mark does not show it
    desc = [w for w in words(_AFFIX_CLAUSE.sub(" ", target)) if w not in STOP_WORDS]
    name_words = unjoined(set(words(mark.label)), desc)
    s = 0.0
    if start or end:
        # the name's edges are what the description asks for: as good as a named label, and the
        # rest of the name is not a contradiction; a box holding several names ("Guam Guatemala",
        # a list drawn as one) fits less well than one holding one
        s += max(MIN_SCORE, 3.0 - 0.5 * (len(name_words) - 1))
    if subgoal.label:
        label, name = " ".join(words(subgoal.label)), " ".join(words(mark.label))
        if name == label:
            s += 3.0
        elif label and label in name:
            s += 1.5
        if re.search(rf"(?<!\w){re.escape(subgoal.label.strip())}(?!\w)", mark.label):
            s += CASE_BONUS  # written as the plan writes it: "Eget" before "eget"
    if subgoal.looks_like:
        s += PICTURE_WEIGHT * mark.resemblance  # the picture names it as a label would
    s += sum(1.0 for w in desc if w in name_words)
    field = is_field(subgoal, mark)
    by_synonym, naming = symbol_synonyms(desc, name_words, synonyms, field)
    s += SYNONYM_WEIGHT * len(by_synonym)
    if not subgoal.label and not (start or end) and not subgoal.looks_like:
        # A short label that says something the description does not ("previous" for a "next"
        # arrow) contradicts it; a synonym of its words does not, nor does "icon", which says only
        # that a picture is named.
        s -= sum(1.0 for w in name_words if w not in desc and w not in STOP_WORDS
                 and w not in naming and w not in ICON_WORDS and len(name_words) <= 4)
    # A control without a name of its own (a text box after a plain "Username" label) is known
    # by what stands beside it, so its context weighs as much as a name would.
    s += (1.0 if not name_words else 0.5) * _context_fit(desc, name_words, mark.context,
                                                          says_more=not name_words,
                                                          renames=field and synonyms)
    role_hints = set().union(*(ROLE_WORDS.get(w, set()) for w in kind_words(target)))
    if mark.role in role_hints:
        s += 0.75
    if s > 0 and prefer_toggle and subgoal.action == "expand" and prefers_toggle(mark):
        s += 1.0
    return s


# What the picture a subgoal shows (`looks_like`) counts, times the mark's resemblance: as much as
# a label shown exactly, so the picture, not the description's generic words, decides.
PICTURE_WEIGHT = 3.0

# Between two marks that show the plan's label, the one that writes it in the same case.
CASE_BONUS = 0.15  # less than the margin by which the DOM must know a better fit (MISSED_MARGIN)

# A caption may say this many words more than the description and still name the control.
CAPTION_SLACK = 2


def _context_fit(desc: list[str], name_words: set[str], context: tuple[str, ...],
                 says_more: bool = False, renames: bool = False) -> float:
    """How well the best single piece of context (a heading, a row header, a group name) fits the
    description: matched words weighted by the share of that piece they explain, so "Colour"
    beats "Keyboard colour" for "Silver checkbox in the Colour filter".

    `says_more` (a control without a name of its own): a short caption holding every word of the
    description and a few more ("Movie Genre" for "Genre field", "Your account password" for
    "Password field") names the control nearly as well as one that says just those words: each
    word more, and each piece further from the control, costs a tenth, so the exact caption, and
    the control's own caption before its neighbour's, still win. A caption sharing no word with
    the description still counts nothing.

    `renames` (a field): a caption that names what the description asks for by another of its
    names ("Surname" for "last name", `FIELD_NAMES`) counts as saying the description's words,
    less a tenth, so a caption in the description's own words still wins."""
    want = set(desc) - name_words
    core = want - set(ROLE_WORDS)  # "Genre input": the caption need not say "input"
    best = 0.0
    for i, piece in enumerate(context):
        have = set(words(piece)) - STOP_WORDS
        scale = 1.0
        if renames:
            named, naming = synonym_words(want, have, FIELD_NAMES)
            if named:
                have, scale = (have - naming) | named, 1.0 - RENAMED_COST
        hit = have & want
        if hit:
            fit = len(hit) * len(hit) / len(have)
            extra = len(have - hit)
            if says_more and core and core <= hit and extra <= CAPTION_SLACK:
                fit = max(fit, len(hit) * (1.0 - 0.1 * extra - 0.1 * i))
            best = max(best, scale * fit)
    return best


# What a caption loses for naming the field by another of its names (`FIELD_NAMES`).
RENAMED_COST = 0.1


def _state_holds(subgoal: Subgoal, mark: Mark) -> bool:
    want = subgoal.ensure or ("expanded" if subgoal.action == "expand" else None)
    if want is None or not mark.role:
        return False  # without enrichment the state is unknown: nothing to skip
    on = {"checked": "checked", "unchecked": "checked", "expanded": "expanded",
          "collapsed": "expanded"}[want]
    is_on = mark.states.get(on, "false") not in ("false", "mixed") or (
        on == "checked" and mark.states.get("pressed", "false") == "true")
    return is_on == (want in ("checked", "expanded"))


def prefers_toggle(mark: Mark) -> bool:
    """A part that opens or toggles something: aria-expanded, pressed or checked semantics."""
    return "expanded" in mark.states or "pressed" in mark.states or mark.role in (
        "checkbox", "switch") or "expand" in mark.label.lower()


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
        synonyms = not any(names_symbol_exactly(subgoal, m) for m in marks
                           if not (excluded and among(m.identity, excluded)))
        for mark in marks:
            if excluded and among(mark.identity, excluded):
                continue
            s = score(subgoal, mark, prefer_toggle, synonyms)
            if s >= (0.01 if subgoal.label else MIN_SCORE) and (best is None or s > best[0]):
                best = (s, mark)
        if best is None and subgoal.action == "drag" and places:
            # the thing to drag may be no control but a place itself (an item of a sortable list,
            # a card): it is found among the places the way a click target is among the marks
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
        if _state_holds(subgoal, mark):
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
        n = ordinal(said(to)[0]) or (1 if _FROM_END.search(said(to)[0]) else None)
        if n is not None and places:
            drop = _nth_place(to, n, places)
        if drop is None and n is None and places:
            drop = _place_beside(to, places) or _place_at(to, places)
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
                    subgoal.label and not label_matches(subgoal.label, mark.label)) or (
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
        if _state_holds(subgoal, mark):
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
            home = next((g for g in groups if not g[1][0].peers and _alike_in_row(g[1][-1], m)), None)
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
            return (_context_fit(desc, set(), context), -round(first.y / 8), -first.x)

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


_FROM_END = re.compile(r"\bfrom the (?:right|end|bottom|last)\b|\blast\b", re.IGNORECASE)


def from_end(subgoal: Subgoal) -> bool:
    """Whether the description counts from the end ("2nd from the right", "the last")."""
    return bool(_FROM_END.search(said(subgoal.target or "")[0]))


# The words that name a kind of place.
_PLACE_WORDS = {"row": {"row"}, "rows": {"row"}, "item": {"listitem", "treeitem"},
                "items": {"listitem", "treeitem"}, "entry": {"listitem", "row"},
                "card": {"article"}, "cards": {"article"}, "cell": {"cell", "gridcell"},
                "position": {"listitem", "row", "article"}, "place": {"listitem", "row", "article"}}


def _nth_place(description: str, n: int, places: list[Mark]) -> Mark | None:
    """The nth (from the end when the description says so), in reading order, of the places of
    one kind in one holder (the rows of one table, the items of one list) that fit the
    description best: by the holder's name (a place's first piece of context) and the kind of
    place it names."""
    target, _ = said(description)
    desc = [w for w in words(target) if w not in STOP_WORDS]
    kinds = set().union(*(_PLACE_WORDS.get(w, set()) for w in words(target)))
    groups: dict[tuple[str, str], list[Mark]] = {}
    for p in places:
        groups.setdefault((p.role, p.context[0] if p.context else ""), []).append(p)

    def fit(key: tuple[str, str]) -> tuple[float, int]:
        role, holder = key
        return _context_fit(desc, set(), (holder,)) + (1.0 if role in kinds else 0.0), len(groups[key])
    best = max(groups, key=fit)
    if fit(best)[0] <= 0:
        return None
    group = sorted(groups[best], key=lambda p: (round((p.box.y + p.box.height / 2) / 8), p.box.x))
    if _FROM_END.search(target):
        group.reverse()
    return group[n - 1] if len(group) >= n else None


# "the item just below Carol", "the cell right of Ann": a place named by where it lies from another.
_BESIDE = re.compile(r"\b(?:just |right |directly |immediately )?(below|under|above|over|left of|right of|"
                     r"before|after)\s+(.+?)\s*$", re.IGNORECASE)
# "at the top left", "the centre", "bottom right": a place named by where it lies among its kind.
_AT_WORDS = {"top": (0, None), "bottom": (2, None), "left": (None, 0), "right": (None, 2),
             "center": (1, 1), "centre": (1, 1), "middle": (1, 1)}


def _peers_of(place: Mark, places: list[Mark]) -> list[Mark]:
    """The places of the same kind in the same holder (the items of one list or grid)."""
    home = place.context[0] if place.context else ""
    return [p for p in places if p.role == place.role and (p.context[0] if p.context else "") == home]


def _place_beside(description: str, places: list[Mark]) -> Mark | None:
    """The place of the same kind just below / above / left of / right of a named one (before and
    after: above and below in a list, left and right in a row): the nearest one on that side that
    shares its column (or its row)."""
    found = _BESIDE.search(said(description)[0])
    if found is None:
        return None
    side, name = found.group(1).lower(), found.group(2)
    named = [p for p in places if p.label and label_matches(p.label, name) and label_matches(name, p.label)]
    if not named:
        return None
    anchor = named[0]
    (ax, ay), aw, ah = anchor.box.center, anchor.box.width, anchor.box.height
    vertical = side in ("below", "under", "above", "over", "before", "after")
    sign = 1 if side in ("below", "under", "after", "right of") else -1
    best: tuple[float, Mark] | None = None
    for p in _peers_of(anchor, places):
        (px, py) = p.box.center
        along, across = (py - ay, abs(px - ax) <= aw / 2) if vertical else (px - ax, abs(py - ay) <= ah / 2)
        if p.number != anchor.number and across and along * sign > 0 and (best is None or abs(along) < best[0]):
            best = (abs(along), p)
    return best[1] if best else None


def _place_at(description: str, places: list[Mark]) -> Mark | None:
    """The place at "the top left", "the center", "the bottom right" of its group (the kind of
    place the description names, else the largest group): rows and columns by the places' centres,
    top/left the first, bottom/right the last, center/middle the middle one."""
    want = [w for w in words(said(description)[0]) if w in _AT_WORDS]
    if not want:
        return None
    row = col = None
    for w in want:
        r, c = _AT_WORDS[w]
        row = r if r is not None and (row is None or w not in ("center", "centre", "middle")) else row
        col = c if c is not None and (col is None or w not in ("center", "centre", "middle")) else col
    kinds = set().union(*(_PLACE_WORDS.get(w, set()) for w in words(description)))
    groups: dict[tuple[str, str], list[Mark]] = {}
    for p in places:
        groups.setdefault((p.role, p.context[0] if p.context else ""), []).append(p)
    group = max(groups.values(), key=lambda g: (g[0].role in kinds, len(g)))

    def lines(values: list[float], size: float) -> list[float]:
        out: list[float] = []
        for v in sorted(values):
            if not out or v - out[-1] > size / 2:
                out.append(v)
        return out
    rows = lines([p.box.center[1] for p in group], min(p.box.height for p in group))
    cols = lines([p.box.center[0] for p in group], min(p.box.width for p in group))

    def pick(axis: list[float], which: int | None) -> float | None:
        if which is None:
            return None
        return axis[0] if which == 0 else axis[-1] if which == 2 else axis[(len(axis) - 1) // 2] if len(axis) % 2 else None
    y, x = pick(rows, row), pick(cols, col)
    if (row is not None and y is None) or (col is not None and x is None):
        return None  # no middle of an even count
    fits = [p for p in group if (y is None or abs(p.box.center[1] - y) <= p.box.height / 2)
            and (x is None or abs(p.box.center[0] - x) <= p.box.width / 2)]
    return fits[0] if len(fits) == 1 else None


def _alike_in_row(a: Mark, b: Mark) -> bool:
    """Two boxes of about one size side by side in one row (two stars of a painted rating)."""
    (ax, ay), (bx, by) = a.box.center, b.box.center
    h = max(a.box.height, b.box.height)
    return (abs(ay - by) <= h / 2 and abs(a.box.width - b.box.width) <= 0.4 * max(a.box.width, b.box.width)
            and abs(a.box.height - b.box.height) <= 0.4 * h and abs(ax - bx) <= 4 * max(a.box.width, b.box.width))


def described_kind(subgoal: Subgoal) -> str | None:
    """The first word of the description that names a kind of control ("slider"), if any."""
    return next((w for w in kind_words(subgoal.target or "") if w in ROLE_WORDS), None)


def described_roles(subgoal: Subgoal) -> set[str]:
    """The roles the description names: its first word that names a kind of control ("radio" in
    "radio button"), or the roles the action needs when no word does."""
    for word in kind_words(subgoal.target or ""):
        if word in ROLE_WORDS:
            roles = ROLE_WORDS[word]
            allowed = ACTION_ROLES.get(subgoal.action)
            return roles & allowed if allowed and roles & allowed else roles
    return set(ACTION_ROLES.get(subgoal.action, ()))

