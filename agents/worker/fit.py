"""How well a mark fits a subgoal's description, as the scripted worker reads it: the words said
(quoted names, affixes, what the description rules out), the kind of control named, synonyms and
symbols, the context a mark sits in, and the state a subgoal asks for. Mechanisms that read a
description the same way (the words that carry no meaning, the roles a description names) take
them from here."""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise

from agents.marks import RESEMBLES, Mark
from tasks.schema import Subgoal
from tasks.text_match import (
    FIELD_NAMES,
    ICON_WORDS,
    affixes,
    glyph_words,
    has_affixes,
    label_matches,
    singular,
    symbol_names,
    synonym_words,
    words,
)

STOP_WORDS = frozenset(["a", "an", "the", "in", "of", "on", "to", "for", "and", "or", "with", "into", "from", "this", "that", "its", "your", "my", "our", "field", "button", "form", "box", "list", "link", "option", "item", "control"])
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


# Without an expected label, the description must match at least this well (`least_score`).
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


@cache
def ruled_out(target: str) -> frozenset[str]:
    """The words that name what the target is not ("the group tour, not the Private one":
    private), beyond the kinds of control (`said`) and the words that say nothing."""
    return frozenset(w for clause in _NEGATED.findall(target) for w in words(clause)
                     if w not in STOP_WORDS and w not in ROLE_WORDS and w not in ("one", "ones"))


def symbol_synonyms(desc: list[str], name_words: set[str], synonyms: bool = True, field: bool = False,
                    glyph: bool = False) -> tuple[set[str], set[str]]:
    """The description's words an icon shows by another name of the same UI symbol ("trash" shown
    as "delete"), or a field by another name of what it asks for ("last name" shown as "Surname",
    `field`), and the label's words that name them; none unless the description or the label is an
    icon's (`ICON_WORDS`), the label a glyph's (`glyph`: "+" named "plus", and so "add") or the
    target a field, so other controls are compared word for word."""
    if not synonyms:
        return set(), set()
    if field:
        return synonym_words(set(desc), name_words, FIELD_NAMES)
    if not glyph and not (ICON_WORDS & (set(desc) | name_words)):
        return set(), set()
    return synonym_words(set(desc), name_words)


# The roles that take typed text, and the words that say a target is one.
TEXT_FIELDS = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
FIELD_WORDS = frozenset({"field", "input", "textbox", "textarea"})


# A field's name that only hints at what goes in it (the placeholder or the value Playwright
# shows when no label names the field): an example ("e.g. Alex Morgan", "For example: 221B Baker
# Street", "you@example.com"), an instruction left unfinished ("Start typing…", "Search…"), or a
# number (a quantity's value). Its words may still fit a description; they never contradict one,
# and what stands beside the field weighs as a name would.
_HINT = re.compile(r"^\s*(?:e\.?\s?g\.?|for example|for instance|such as|ex\.)\W"
                   r"|^\s*[^\s@]+@[^\s@]+\.[a-z]{2,}\s*$|(?:…|\.\.\.)\s*$|^\s*[-+]?[\d.,]+\s*$", re.IGNORECASE)


def names_by_hint(mark: Mark) -> bool:
    """A text field whose name only hints at its content (`_HINT`): it has no name of its own."""
    return mark.role in TEXT_FIELDS and bool(_HINT.search(mark.label))


# Choices named by their label's whole content: a radio card or a tick box whose label holds a
# title and a line that explains it ("Original payment method" over "Visa ending 4242 · 3-5
# working days"). The title leads the name; the name is no container that merely shows it.
TITLED = frozenset({"radio", "checkbox", "switch", "menuitemradio", "menuitemcheckbox"})


def shows_label(expected: str, mark: Mark) -> bool:
    """The mark shows the expected visible label: as (most of) its name, as the title that leads
    the name of a choice (`TITLED`), or, for a control without a role made of several blocks (a
    list row), as the whole text of one of its blocks (a row that shows "John Baker" beside its
    time and last message; not one whose message mentions him, nor "Jon Baker")."""
    if label_matches(expected, mark.label):
        return True
    want = words(expected)
    if not want:
        return False
    if mark.role in TITLED and words(mark.label)[:len(want)] == want:
        return True
    return not mark.role and any(words(piece) == want for piece in mark.pieces)


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


# The words of STOP_WORDS that name a kind of control, and the articles and possessives ("your
# status" is the status): what a description says beside a control's name.
KIND_OF_CONTROL = frozenset(["field", "button", "form", "box", "list", "link", "option", "item", "control"])
ARTICLES = frozenset(["a", "an", "the", "this", "that", "its", "your", "my", "our"])


def content_words(target: str) -> list[str]:
    """The words of a description that say which control (stop words left out); a control whose
    name is only such words (the "From" and "To" fields of a journey) is described by them."""
    said_words = words(_AFFIX_CLAUSE.sub(" ", target))
    return [w for w in said_words if w not in STOP_WORDS] or \
        [w for w in said_words if w not in KIND_OF_CONTROL and w not in ARTICLES]


def least_score(subgoal: Subgoal) -> float:
    """How well a mark must fit a description without an expected label: MIN_SCORE, as much as two
    of its words; but a description that is one word and says no kind of control ("Branch",
    "Search", "Confirm": the control's own name) can give no more than that word, so the word
    matched is enough."""
    target = said(subgoal.target or "")[0]
    kinds = [w for w in words(target) if w in ROLE_WORDS]
    return 1.0 if len(content_words(target)) + len(kinds) == 1 else MIN_SCORE


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
    if allowed is not None and mark.role and mark.role not in allowed \
            and not (subgoal.action == "select" and mark.role == "button"):
        # (a select the page draws itself is often a button that opens a list box: it may be a
        # select's target by its name, though it does not count among a page's selects)
        return 0.0
    if subgoal.label and not shows_label(subgoal.label, mark):
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
    desc = content_words(target)
    # a name that is a glyph ("+", "›") is the word its glyph is named by ("plus", "next")
    glyphs = glyph_words(mark.label)
    name_words = unjoined(set(words(mark.label) or glyphs), desc)
    hinted = names_by_hint(mark)
    # the word that says what kind of control is asked for ("the Billed yearly billing switch"),
    # in the name of a control of another kind ("Can I switch between monthly and yearly
    # billing?"), is a word of that name, not the description's
    explained = set(desc) - ({kind} if (kind := other_kind(target, mark)) else set())
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
    s += sum(1.0 for w in desc if w in name_words and w in explained)
    field = is_field(subgoal, mark)
    by_synonym, naming = symbol_synonyms(desc, name_words, synonyms, field, glyph=bool(glyphs))
    s += SYNONYM_WEIGHT * len(by_synonym)
    if not subgoal.label and not (start or end) and not subgoal.looks_like and subgoal.action != "select":
        # (a select may show its value in its name: "Country Choose…", "Country Portugal")
        # A short label that says something the description does not ("previous" for a "next"
        # arrow) contradicts it; a synonym of its words does not, nor does "icon", which says only
        # that a picture is named.
        counted = shown_count(mark.label, desc)
        s -= sum(1.0 for w in name_words if w not in explained and w not in STOP_WORDS and w not in counted
                 and w not in naming and w not in ICON_WORDS and len(name_words) <= 4 and not hinted)
    # A control without a name of its own (a text box after a plain "Username" label) is known
    # by what stands beside it, so its context weighs as much as a name would.
    nameless = not name_words or hinted
    s += (1.0 if nameless else 0.5) * context_fit(desc, name_words, mark.context, says_more=nameless,
                                                  renames=field and synonyms)
    # a mark that says what the description rules out ("not the Private one") is less likely it
    if (out := ruled_out(subgoal.target or "")):
        shown = set(words(mark.label)).union(*(words(piece) for piece in mark.context))
        s -= sum(1.0 for w in out if w in shown)
    role_hints = set().union(*(ROLE_WORDS.get(w, set()) for w in kind_words(target)))
    if glyphs and GLYPH_KINDS & set(desc):
        s += 1.0  # "the next arrow", "the plus sign": what is asked for is a glyph, and this is one
    if mark.role in DISTINCT_KINDS.get(head_word(target) or "", ()):
        s += KIND_WEIGHT  # the very kind of control the description names
    elif mark.role in role_hints:
        s += 0.75
    if s > 0 and prefer_toggle and subgoal.action == "expand" and prefers_toggle(mark):
        s += 1.0
    return s


# The words that say a control shows a glyph ("the next arrow", "the plus sign", "the close icon").
GLYPH_KINDS = frozenset({"arrow", "chevron", "caret", "sign", "symbol", "glyph", "icon"})
# Kinds of control a description names by a word that could also be a word of a name, and the
# roles a control of that kind has (a switch drawn on a tick box is still one).
DISTINCT_KINDS = {
    "switch": frozenset({"switch", "checkbox", "menuitemcheckbox"}),
    "checkbox": frozenset({"checkbox", "switch", "menuitemcheckbox"}),
    "radio": frozenset({"radio", "menuitemradio"}), "slider": frozenset({"slider", "spinbutton"}),
    "textbox": TEXT_FIELDS, "textarea": TEXT_FIELDS, "input": TEXT_FIELDS,
}
# What a control of the kind a description names by its head word counts ("the Billed yearly
# switch" and a switch): more than a word of a name, so a control of another kind whose name
# happens to hold more of the description's words (a question about switching billing) does not
# win over it; the controls of that kind are told apart by their names as before.
KIND_WEIGHT = 1.5
# Words after which a description says where the control is or which one it is ("above the plan
# cards", "of the Team card", "in the checkout dialog", "whose subject ..."), not what it is.
_PHRASE_ENDS = frozenset(["above", "below", "under", "over", "beneath", "beside", "next", "near", "in",
                          "on", "of", "at", "inside", "within", "for", "from", "with", "to", "that",
                          "which", "whose", "showing", "named", "called", "labelled", "labeled", "left",
                          "right", "between", "after", "before", "by", "where", "shown"])


@cache  # asked for every mark a description is scored against
def head_word(target: str) -> str | None:
    """The last word of the description's naming phrase (before any word of `_PHRASE_ENDS`): the
    kind of thing it names ("switch" in "the Billed yearly billing switch above the plan cards")."""
    phrase: list[str] = []
    for w in kind_words(target):
        if w in _PHRASE_ENDS and phrase:
            break
        if w not in ARTICLES:
            phrase.append(w)
    return phrase[-1] if phrase else None


def other_kind(target: str, mark: Mark) -> str | None:
    """The description's head word when it names a kind of control (`DISTINCT_KINDS`) that the
    mark, a control of another role, is not; else None."""
    head = head_word(target)
    kinds = DISTINCT_KINDS.get(head or "")
    return head if kinds is not None and mark.role and mark.role not in kinds else None


def shown_count(name: str, desc: list[str]) -> set[str]:
    """The words of a count a control shows in its name ("Cart 1 item", "Inbox 12 unread",
    "Basket (3)": a number and the word after it), when the description gives no number: a badge
    says how many, not which control, so it does not contradict a description that names the
    control without it. A description that gives a number ("Page 3 link", "Seat 12") is
    contradicted by another number as before."""
    if any(w.isdigit() for w in desc):
        return set()
    said_words = words(name)
    return {w for i, w in enumerate(said_words) for n in (said_words[i - 1] if i else "", w) if n.isdigit()}


# What the picture a subgoal shows (`looks_like`) counts, times the mark's resemblance: as much as
# a label shown exactly, so the picture, not the description's generic words, decides.
PICTURE_WEIGHT = 3.0

# Between two marks that show the plan's label, the one that writes it in the same case.
CASE_BONUS = 0.15  # less than the margin by which the DOM must know a better fit (MISSED_MARGIN)

# A caption may say this many words more than the description and still name the control.
CAPTION_SLACK = 2


def context_fit(desc: list[str], name_words: set[str], context: tuple[str, ...],
                 says_more: bool = False, renames: bool = False) -> float:
    """How well the context (the pieces of it: a heading, a row header, a group name) fits the
    description: each of the description's words counts once, weighted by the share of the piece
    that says it best, so "Colour" beats "Keyboard colour" for "Silver checkbox in the Colour
    filter", and a piece every candidate shares ("Filters", a table named "Orders") adds the same
    to each of them instead of drowning the piece that tells them apart. (One piece holding
    every word counts as before: its words times the share they explain.)

    `says_more` (a control without a name of its own): a short caption holding every word of the
    description and a few more ("Movie Genre" for "Genre field", "Your account password" for
    "Password field") names the control nearly as well as one that says just those words: each
    word more, and each piece further from the control, costs a tenth, so the exact caption, and
    the control's own caption before its neighbour's, still win. A caption sharing no word with
    the description still counts nothing.

    `renames` (a field): a caption that names what the description asks for by another of its
    names ("Surname" for "last name", `FIELD_NAMES`) counts as saying the description's words,
    less a tenth, so a caption in the description's own words still wins."""
    # a group's name in either number ("Mail folders" for "the Archive folder"); a name's words
    # are compared as written ("Late Night Drives" is not "Night Drive")
    want = {singular(w) for w in desc} - {singular(w) for w in name_words}
    core = want - set(ROLE_WORDS)  # "Genre input": the caption need not say "input"
    credit: dict[str, float] = {}  # each word of the description: the best share saying it
    for i, piece in enumerate(context):
        have = {singular(w) for w in words(piece)} - STOP_WORDS
        if BYLINE.match(piece):
            have = (have - BYLINE_WORDS) | AUTHOR_WORDS  # "By Ines Carvalho": the author's name
        scale = 1.0
        if renames:
            named, naming = synonym_words(want, have, FIELD_NAMES)
            if named:
                have, scale = (have - naming) | named, 1.0 - RENAMED_COST
        hit = have & want
        if hit:
            share = len(hit) / len(have)
            extra = len(have - hit)
            if says_more and core and core <= hit and extra <= CAPTION_SLACK:
                share = max(share, 1.0 - 0.1 * extra - 0.1 * i)
            for w in hit:
                credit[w] = max(credit.get(w, 0.0), scale * share)
    return sum(credit.values())


# A byline ("By Ines Carvalho", "Written by ...", "Posted by ...", or the word "By" alone before a
# link to the writer, which the snapshot shows apart): the name in it is the author's, so the
# piece says "author" for a description that asks for the author's control ("Follow button next
# to the author's name").
BYLINE = re.compile(r"\s*(?:(?:written|posted)\s+)?by(?:\s|$)", re.IGNORECASE)
BYLINE_WORDS = frozenset({"by", "written", "posted"})
AUTHOR_WORDS = frozenset({"author", "writer"})

# What a caption loses for naming the field by another of its names (`FIELD_NAMES`).
RENAMED_COST = 0.1


def state_holds(subgoal: Subgoal, mark: Mark) -> bool:
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
