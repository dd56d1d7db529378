"""Word-level text matching shared by the stages that compare what was seen with what was asked:
labels against expectations, candidates against subgoals, candidates against accessible names."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

# A label this many words longer than the expected one is a container showing it, not the target.
LABEL_SLACK = 6


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def word_set(text: str) -> set[str]:
    return set(words(text))


def near(want: str, got: set[str]) -> bool:
    """A word is present, allowing the one dropped or changed character of a noisy label."""
    return want in got or (len(want) > 3 and any(
        len(g) >= len(want) - 1 and SequenceMatcher(None, want, g).ratio() >= 0.85 for g in got))


def label_matches(expected: str, label: str) -> bool:
    """Every word of the expected visible label appears in the (not much longer) label."""
    want, got = words(expected), words(label)
    return len(got) <= len(want) + LABEL_SLACK and all(near(w, set(got)) for w in want)


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
