"""Choose stage, scripted: follow the task's plan and pick, among the marks of the current listing,
the one whose label, role and context best match the subgoal's description.

With a fixed plan every failure is a grounding failure, which is what the harness measures. The
worker uses whatever the listing carries: with enrichment off it has labels and boxes only."""

from __future__ import annotations

from agents.marks import Mark, TargetIdentity, among
from agents.text_match import label_matches, words
from agents.worker.base import Choice, ChoiceRequest, WorkerReply
from tasks.schema import Subgoal

STOP_WORDS = frozenset(["a", "an", "the", "in", "of", "on", "to", "for", "and", "or", "with", "into", "from", "this", "that", "its", "field", "button", "form", "box", "list", "link", "option", "item", "control"])
ROLE_WORDS = {
    "button": {"button"}, "link": {"link"}, "field": {"textbox", "searchbox", "combobox", "spinbutton"},
    "box": {"textbox", "searchbox", "combobox", "checkbox"}, "input": {"textbox", "searchbox"},
    "checkbox": {"checkbox"}, "toggle": {"switch", "checkbox", "button"}, "switch": {"switch"},
    "slider": {"slider"}, "option": {"option", "button", "menuitem", "radio"}, "tab": {"tab"},
    "radio": {"radio"}, "dropdown": {"combobox", "listbox", "button"}, "menu": {"menuitem", "button"},
    "suggestion": {"option", "menuitem"}, "textbox": {"textbox", "searchbox"},
}
ACTION_ROLES = {
    "type": {"textbox", "searchbox", "combobox", "spinbutton"},
    "set_value": {"slider", "spinbutton", "textbox"},
    "select": {"combobox", "listbox"},
}


# Without an expected label, the description must match at least this well.
MIN_SCORE = 1.5


def score(subgoal: Subgoal, mark: Mark, prefer_toggle: bool = False) -> float:
    """Higher is a better match; <= 0 means this mark is not a plausible target. When the plan
    names the visible label, a mark that does not show it is never chosen."""
    allowed = ACTION_ROLES.get(subgoal.action)
    if allowed is not None and mark.role and mark.role not in allowed:
        return 0.0
    if subgoal.label and not label_matches(subgoal.label, mark.label):
        return 0.0
    desc = [w for w in words(subgoal.target or "") if w not in STOP_WORDS]
    name_words = set(words(mark.label))
    s = 0.0
    if subgoal.label:
        label, name = " ".join(words(subgoal.label)), " ".join(words(mark.label))
        if name == label:
            s += 3.0
        elif label and label in name:
            s += 1.5
    s += sum(1.0 for w in desc if w in name_words)
    if not subgoal.label:
        # A short label that says something the description does not ("previous" for a "next"
        # arrow) contradicts it.
        s -= sum(1.0 for w in name_words if w not in desc and w not in STOP_WORDS and len(name_words) <= 4)
    # A control without a name of its own (a text box after a plain "Username" label) is known
    # by what stands beside it, so its context weighs as much as a name would.
    s += (1.0 if not name_words else 0.5) * _context_fit(desc, name_words, mark.context)
    role_hints = set().union(*(ROLE_WORDS.get(w, set()) for w in words(subgoal.target or "")))
    if mark.role in role_hints:
        s += 0.75
    if s > 0 and prefer_toggle and subgoal.action == "expand" and prefers_toggle(mark):
        s += 1.0
    return s


def _context_fit(desc: list[str], name_words: set[str], context: tuple[str, ...]) -> float:
    """How well the best single piece of context (a heading, a row header, a group name) fits the
    description: matched words weighted by the share of that piece they explain, so "Colour"
    beats "Keyboard colour" for "Silver checkbox in the Colour filter"."""
    want = set(desc) - name_words
    best = 0.0
    for piece in context:
        have = set(words(piece)) - STOP_WORDS
        hit = have & want
        if hit:
            best = max(best, len(hit) * len(hit) / len(have))
    return best


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
    """Answers at once, from the plan: a `PlanFollower`."""

    name = "scripted"
    sees_image = False

    async def decide(self, request: ChoiceRequest) -> Choice:
        assert request.subgoal is not None, "the scripted worker follows a plan"
        return self.match(request.subgoal, request.marks, request.excluded, request.prefer_toggle)

    def match(self, subgoal: Subgoal, marks: list[Mark],
              excluded: frozenset[TargetIdentity] = frozenset(), prefer_toggle: bool = False
              ) -> Choice:
        """The reply for this subgoal on this listing; reply None when no mark fits."""
        if not subgoal.targeted or (subgoal.action == "scroll" and subgoal.target is None):
            return Choice(WorkerReply(action=subgoal.action, url=subgoal.url,
                                        direction=subgoal.direction, answer=subgoal.text,
                                        value=subgoal.seconds if subgoal.action == "wait" else None))
        if subgoal.nth is not None:
            return self._nth(subgoal, marks, excluded)
        best: tuple[float, Mark] | None = None
        for mark in marks:
            if excluded and among(mark.identity, excluded):
                continue
            s = score(subgoal, mark, prefer_toggle)
            if s >= (0.01 if subgoal.label else MIN_SCORE) and (best is None or s > best[0]):
                best = (s, mark)
        if best is None:
            return Choice(None)
        s, mark = best
        if _state_holds(subgoal, mark):
            return Choice(None, mark, s, satisfied=True)
        if subgoal.action == "drag" and subgoal.to is not None:
            return self._drag(subgoal, mark, s, marks, excluded)
        return self._reply(subgoal, mark, s)

    def _drag(self, subgoal: Subgoal, mark: Mark, s: float, marks: list[Mark],
              excluded: frozenset[TargetIdentity]) -> Choice:
        """A drag onto a target: the drop mark is matched like a click on `to`, never the mark
        being dragged."""
        drop = self.match(Subgoal(action="click", target=subgoal.to),
                          [m for m in marks if m.number != mark.number], excluded)
        if drop.mark is None:
            return Choice(None)
        reply = WorkerReply(action="drag", mark=mark.number, to_mark=drop.mark.number)
        return Choice(reply, mark, s, to=drop.mark)

    def _nth(self, subgoal: Subgoal, marks: list[Mark], excluded: frozenset[TargetIdentity]) -> Choice:
        """"The 2nd text box": the targets whose role the description names (and that show the
        label, if one is expected), one per element, in reading order; the nth of them."""
        roles = described_roles(subgoal)
        seen: set[str] = set()
        fits = []
        for mark in marks:
            if (excluded and among(mark.identity, excluded)) or mark.role not in roles or (
                    subgoal.label and not label_matches(subgoal.label, mark.label)):
                continue
            if mark.ref is not None and mark.ref in seen:
                continue
            seen.add(mark.ref or "")
            fits.append(mark)
        fits.sort(key=lambda m: (round((m.box.y + m.box.height / 2) / 8), m.box.x))
        assert subgoal.nth is not None
        if len(fits) < subgoal.nth:
            return Choice(None)
        mark = fits[subgoal.nth - 1]
        if _state_holds(subgoal, mark):
            return Choice(None, mark, 1.0, satisfied=True)
        return self._reply(subgoal, mark, 1.0)

    @staticmethod
    def _reply(subgoal: Subgoal, mark: Mark, s: float) -> Choice:
        reply = WorkerReply(action=subgoal.action, mark=mark.number, text=subgoal.text,
                            clear=subgoal.clear, then=subgoal.then, value=subgoal.value,
                            direction=subgoal.direction, offset=subgoal.offset)
        return Choice(reply, mark, s)


def described_roles(subgoal: Subgoal) -> set[str]:
    """The roles the description names: its first word that names a kind of control ("radio" in
    "radio button"), or the roles the action needs when no word does."""
    for word in words(subgoal.target or ""):
        if word in ROLE_WORDS:
            roles = ROLE_WORDS[word]
            allowed = ACTION_ROLES.get(subgoal.action)
            return roles & allowed if allowed and roles & allowed else roles
    return set(ACTION_ROLES.get(subgoal.action, ()))

