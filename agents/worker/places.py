"""Descriptions of a place rather than of a control, as the scripted worker reads them: the n-th
row or item ("the second row", "from the end"), a place beside a named one ("just below
Apples") and a place at a side of a set ("the top left")."""

from __future__ import annotations

import re

from agents.marks import Mark
from agents.worker.fit import (
    ACTION_ROLES,
    ROLE_WORDS,
    STOP_WORDS,
    context_fit,
    head_word,
    kind_words,
    said,
)
from tasks.schema import Subgoal
from tasks.text_match import (
    label_matches,
    words,
)

FROM_END = re.compile(r"\bfrom the (?:right|end|bottom|last)\b|\blast\b", re.IGNORECASE)


def from_end(subgoal: Subgoal) -> bool:
    """Whether the description counts from the end ("2nd from the right", "the last")."""
    return bool(FROM_END.search(said(subgoal.target or "")[0]))


# The words that name a kind of place.
_PLACE_WORDS = {"row": {"row"}, "rows": {"row"}, "item": {"listitem", "treeitem"},
                "items": {"listitem", "treeitem"}, "entry": {"listitem", "row"},
                "card": {"article"}, "cards": {"article"}, "cell": {"cell", "gridcell"},
                "position": {"listitem", "row", "article"}, "place": {"listitem", "row", "article"}}


def names_place(subgoal: Subgoal) -> bool:
    """Whether a pointer subgoal's description names a place rather than a control ("the row of
    the email from Elena Varga", "the Linen Apron card"): its head word is a kind of place."""
    return subgoal.action in ("click", "hover", "drag") and head_word(subgoal.target or "") in _PLACE_WORDS


def nth_place(description: str, n: int, places: list[Mark]) -> Mark | None:
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
        return context_fit(desc, set(), (holder,)) + (1.0 if role in kinds else 0.0), len(groups[key])
    best = max(groups, key=fit)
    if fit(best)[0] <= 0:
        return None
    group = sorted(groups[best], key=lambda p: (round((p.box.y + p.box.height / 2) / 8), p.box.x))
    if FROM_END.search(target):
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


def place_beside(description: str, places: list[Mark]) -> Mark | None:
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


def place_at(description: str, places: list[Mark]) -> Mark | None:
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


def alike_in_row(a: Mark, b: Mark) -> bool:
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
