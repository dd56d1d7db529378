"""Word-level text matching shared by the stages that compare what was seen with what was asked:
labels against expectations, candidates against subgoals, candidates against accessible names."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

# A label this many words longer than the expected one is a container showing it, not the target.
LABEL_SLACK = 6


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


# Words whose final "s" is not a plural's.
_NOT_PLURAL = frozenset(["news", "series", "species", "always", "perhaps"])


def singular(word: str) -> str:
    """An English plural's singular ("folders" -> "folder", "categories" -> "category", "boxes" ->
    "box"); any other word as it is. A description and a page name one thing in either number
    ("the Archive folder" in a list named "Mail folders")."""
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")) or word in _NOT_PLURAL:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    return word[:-1]


def word_set(text: str) -> set[str]:
    return set(words(text))


def near(want: str, got: set[str]) -> bool:
    """A word is present, allowing the one dropped or changed character of a noisy label."""
    return want in got or (len(want) > 3 and any(
        len(g) >= len(want) - 1 and SequenceMatcher(None, want, g).ratio() >= 0.85 for g in got))


def label_matches(expected: str, label: str) -> bool:
    """Every word of the expected visible label appears in the (not much longer) label. A label
    without words that shows glyphs ("+", "×") is shown by a label showing the same glyphs or
    naming their symbols ("Close", "Add one wrap"), never by any label merely short enough."""
    want, got = words(expected), words(label)
    if not want and (named := glyph_words(expected)):
        return len(got) <= LABEL_SLACK and names_glyphs(named, glyph_words(label) or got)
    return len(got) <= len(want) + LABEL_SLACK and all(near(w, set(got)) for w in want)


# Glyphs a control shows instead of a word, each with the word people name it by: a name of its
# symbol in SYMBOLS, so that its other names count for it as they do for an icon ("add" for "+",
# "back" for "‹"). A stepper's "−" and "+", a carousel's "‹" and "›", a dialog's "×", a row's "⋮".
GLYPHS: dict[str, str] = {
    **dict.fromkeys("+＋➕", "plus"), **dict.fromkeys("−-–—➖﹣", "minus"),
    **dict.fromkeys("×✕✖╳✗✘", "close"), **dict.fromkeys("›»→❯⟩>⇨➜➔", "next"),
    **dict.fromkeys("‹«←❮⟨<⇦", "previous"), **dict.fromkeys("⋮⋯…︙", "more"),
    **dict.fromkeys("☰≡", "menu"), **dict.fromkeys("★☆⭐", "star"), **dict.fromkeys("♥♡❤", "like"),
    **dict.fromkeys("✎✏🖉", "edit"), **dict.fromkeys("🗑", "delete"), **dict.fromkeys("⚙", "settings"),
    **dict.fromkeys("🔍🔎", "search"), **dict.fromkeys("↑▲△⌃⏶", "up"), **dict.fromkeys("↓▼▽⌄⏷", "down"),
    **dict.fromkeys("✓✔", "check"), **dict.fromkeys("↻⟳🔄", "refresh"), **dict.fromkeys("▶►⏵", "play"),
    **dict.fromkeys("⏸", "pause"), **dict.fromkeys("🛒", "cart"), **dict.fromkeys("⌂🏠", "home"),
    **dict.fromkeys("ⓘℹ", "info"), **dict.fromkeys("⤓", "download"), **dict.fromkeys("⤒", "upload"),
}


def glyph_words(text: str) -> list[str]:
    """The words naming the glyphs of a text that has no word of its own ("+": ["plus"], "‹ ›":
    ["previous", "next"]), each once; [] when the text has a word or shows no glyph known."""
    if words(text):
        return []
    return list(dict.fromkeys(GLYPHS[c] for c in text if c in GLYPHS))


def names_glyphs(named: Sequence[str], shown: Sequence[str]) -> bool:
    """Whether words shown name every glyph word of `named`: the same word, or another name of
    its symbol ("close" for "dismiss", "add" for "plus")."""
    have = set(shown)
    symbols = symbol_names(have)
    return all(w in have or any(w in SYMBOLS[i] for i in symbols) for w in named)


def jaccard(a: str, b: str) -> float:
    wa, wb = word_set(a), word_set(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


def coverage(wanted: str, text: str) -> float:
    """Share of the wanted words present in the text (0 when nothing is wanted)."""
    want = word_set(wanted)
    return len(want & word_set(text)) / len(want) if want else 0.0


_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
                  "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
_ORDINAL = re.compile(r"\b(?:number|no\.?|#)\s*(\d+)\b|#(\d+)\b|\b(\d+)(?:st|nd|rd|th)\b|\b("
                      + "|".join(_ORDINAL_WORDS) + r")\b", re.IGNORECASE)


def ordinal(text: str) -> int | None:
    """The position a description names ("the first item", "the 3rd row", "number 2"), 1-based; None when it names none. Counting from the end ("the last", "2nd
    from the bottom") is the caller's to read."""
    found = _ORDINAL.search(text)
    if found is None:
        return None
    number = next((g for g in found.groups()[:3] if g), None)
    return int(number) if number else _ORDINAL_WORDS[found.group(4).lower()]


# "ending in "ica"", "that starts with An", "beginning with 'Re'": a qualifier on the characters a
# name starts or ends with (a part of a word, which word matching cannot see).
_AFFIX = re.compile(r"\b(start(?:s|ing)?|begin(?:s|ning)?|end(?:s|ing)?)\s+(?:in|with)\s+"
                    r"(?:\"([^\"]+)\"|“([^”]+)”|'([^']+)'|([^\s,;.)]+))", re.IGNORECASE)


def affixes(text: str) -> tuple[str | None, str | None]:
    """The (start, end) a description requires of a name, lower-cased; None where it says nothing."""
    start = end = None
    for found in _AFFIX.finditer(text):
        value = next(g for g in found.groups()[1:] if g).strip().lower()
        if found.group(1).lower().startswith(("start", "begin")):
            start = value
        else:
            end = value
    return start, end


def has_affixes(name: str, start: str | None, end: str | None) -> bool:
    """Whether a name starts and ends as required (spaces and case ignored at the edges)."""
    name = " ".join(name.split()).lower()
    return (start is None or name.startswith(start)) and (end is None or name.endswith(end))


# UI symbols and the names people give them: a plan says "trash icon" where the picture is named
# "delete" and a model, seeing it, may say "bin". A name of several words ("left arrow") names the
# symbol when all its words are there. Used only where a target or a label is an icon (`ICON_WORDS`).
SYMBOLS: tuple[tuple[str, ...], ...] = (
    ("delete", "trash", "remove", "bin", "garbage", "rubbish", "wastebasket"),
    ("star", "favorite", "favourite", "important", "bookmark"),
    ("close", "dismiss", "x", "cross", "cancel"),
    ("search", "magnifier", "magnifying glass", "find"),
    ("settings", "gear", "cog", "preferences"),
    ("menu", "hamburger"),
    ("edit", "pencil"),
    ("back", "left arrow", "arrow left", "return", "previous", "prev"),
    ("forward", "right arrow", "arrow right", "next"),
    ("add", "plus", "new", "increase", "increment"),
    ("minus", "subtract", "decrease", "decrement", "fewer", "less"),
    ("more", "ellipsis", "kebab", "overflow", "options"),
    ("up", "up arrow", "arrow up", "raise"),
    ("down", "down arrow", "arrow down", "lower"),
    ("check", "tick", "checkmark"),
    ("refresh", "reload"),
    ("play",),
    ("pause",),
    ("reply", "respond"),
    ("send", "paper plane"),
    ("share",),
    ("download",),
    ("upload",),
    ("home", "house"),
    ("user", "profile", "account", "person", "avatar"),
    ("cart", "basket", "bag", "trolley"),
    ("like", "heart", "love"),
    ("info", "information"),
)
# The words that say a target or a label is a picture.
ICON_WORDS = frozenset({"icon", "icons", "symbol", "glyph", "pictogram"})


# What a form asks for and the names forms give it: a task says "last name" where the page says
# "Surname", "ZIP code" where it says "Postcode". The common fields of address, contact and sign-up
# forms (the concepts of HTML's autocomplete tokens), in the words people and pages use for them.
# Used only where the target is a field (agents/worker/fit.py `is_field`). A date's year, month or day count as
# the date: "the year" goes into a field captioned "Released date" when no field says "year".
FIELD_NAMES: tuple[tuple[str, ...], ...] = (
    ("first name", "given name", "forename", "christian name"),
    ("last name", "surname", "family name"),
    ("email", "e mail", "mail address"),
    ("phone", "telephone", "tel", "mobile", "cell"),
    ("zip", "zip code", "postcode", "postal code", "post code"),
    ("company", "organisation", "organization", "employer"),
    ("street", "address line", "street address"),
    ("city", "town"),
    ("state", "province", "county"),
    ("username", "user name", "login", "user id"),
    ("password", "passphrase", "passcode"),
    ("birthday", "date of birth", "birth date", "dob"),
    ("date", "year", "month", "day"),
    ("quantity", "qty"),
)


def symbol_names(have: set[str], table: tuple[tuple[str, ...], ...] | None = None
                 ) -> dict[int, frozenset[str]]:
    """The symbols (indices into `table`, SYMBOLS by default) these words name, each with the words
    that name it (the longest of its names present)."""
    out: dict[int, frozenset[str]] = {}
    for i, names in enumerate(SYMBOLS if table is None else table):
        for name in sorted(names, key=lambda n: -len(n.split())):
            parts = frozenset(name.split())
            if parts <= have:
                out[i] = parts
                break
    return out


def synonym_words(wanted: set[str], have: set[str], table: tuple[tuple[str, ...], ...] | None = None
                  ) -> tuple[set[str], set[str]]:
    """Where `have` names a symbol (of `table`, SYMBOLS by default) `wanted` names by other words
    ("delete" for "trash"): the wanted words so named and the words of `have` that name them. A
    symbol both name with one word is an exact match, not a synonym, and is left out."""
    # (a word asked for in another form names the same symbol: "increases" for "increase")
    asked, shown = symbol_names(wanted | {singular(w) for w in wanted}, table), symbol_names(have, table)
    got: set[str] = set()
    used: set[str] = set()
    for i, words_asked in asked.items():
        if i in shown and not words_asked <= have:
            got |= words_asked
            used |= shown[i]
    return got, used


# The answers that turn down what a popup offers and leave the page as it was ("Leave this page?":
# Stay; "Exit to home page?": Cancel), and the words of a form's own action button ("Sign in",
# "Search", "Go!"). Words, not phrases: "not now" is "not" and "now"; an offer's and a consent
# banner's own refusals too ("Skip", "Decline", "Reject all", "Deny").
DISMISSING = frozenset({"cancel", "close", "no", "dismiss", "not", "stay", "later", "x", "back",
                        "reset", "clear", "keep", "skip", "decline", "reject", "deny", "refuse",
                        "ignore"})
SUBMITTING = frozenset({"submit", "login", "log", "sign", "signin", "register", "search", "send",
                        "go", "continue", "confirm", "ok", "okay", "apply", "save", "next", "done",
                        "find", "proceed", "update", "enter"})
# A symbol-only close button ("×", "✕") has no word at all.
CLOSE_SYMBOLS = frozenset({"×", "✕", "✖", "╳"})


def dismissing(label: str) -> bool:
    """Whether a button's name turns something down (Cancel, Close, No, Not now, Stay, ×)."""
    name = label.strip()
    return name in CLOSE_SYMBOLS or bool(set(words(name)) & DISMISSING)


# Words of a plan's targets that say nothing of which popup button it goes on to.
PLAN_STOP = frozenset({"a", "an", "the", "button", "field", "link", "box", "of", "to", "in", "on", "and"})


def turning_down(names: Sequence[str], plan: set[str]) -> str | None:
    """Of a popup's buttons (`names`), the one that turns it down (see `dismissing`), or None: none
    does, or a button holds a word of `plan` (the words of the targets the plan has left), so the
    plan goes on inside the popup (a confirmation it expects: "Delete" for a "Delete button")."""
    if any(set(words(n)) & plan for n in names):
        return None
    return next((n for n in names if dismissing(n)), None)
