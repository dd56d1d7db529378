"""Typed inputs take their value in one wire format, whatever the page displays: a date field
shows "12/04/2025" in an American locale but takes and reports "2025-12-04"; a time field shows
"4:35 PM" and takes "16:35". A value written the way people write it is turned into that format
before it is filled, and the validator compares against the same; a value already in the wire
format passes through. Written by hand because it is the product: which human spellings count
(`/`, `-` or `.` between numbers, month first unless the first number cannot be a month, month
names, 12-hour clocks with AM/PM)."""

from __future__ import annotations

import re
from datetime import date, datetime

# Input types whose value is a machine format, and how `wire` writes each.
TYPED = frozenset({"date", "time", "datetime-local", "month"})

_MONTHS = {m.lower(): i for i, m in enumerate(
    ["January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"], 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})

_NUMERIC_DATE = re.compile(r"^(\d{1,4})[/.\-](\d{1,2})[/.\-](\d{1,4})$")
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap]\.?m\.?)?$", re.IGNORECASE)


def _date(text: str) -> date | None:
    t = text.strip().replace(",", " ")
    found = _NUMERIC_DATE.match(t)
    if found:
        a, b, c = (int(g) for g in found.groups())
        if len(found.group(1)) == 4:  # 2025-12-04
            year, month, day = a, b, c
        elif a > 12:  # 24/12/2025: the first number cannot be a month
            day, month, year = a, b, c
        else:  # 12/04/2025: month first
            month, day, year = a, b, c
        if year < 100:
            year += 2000
        try:
            return date(year, month, day)
        except ValueError:
            return None
    parts = t.lower().split()
    named = [p for p in parts if p.rstrip(".") in _MONTHS]
    numbers = [int(p.rstrip("stndrh.")) for p in parts if re.fullmatch(r"\d{1,4}(st|nd|rd|th)?\.?", p)]
    if len(named) == 1 and len(numbers) == 2:
        day, year = sorted(numbers)  # "December 4 2025", "4 Dec 2025"
        try:
            return date(year, _MONTHS[named[0].rstrip(".")], day)
        except ValueError:
            return None
    return None


def _time(text: str) -> str | None:
    found = _TIME.match(text.strip())
    if not found:
        return None
    hour, minute, second = int(found.group(1)), int(found.group(2) or 0), found.group(3)
    half = (found.group(4) or "").lower().replace(".", "")
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}" + (f":{int(second):02d}" if second else "")


def wire(kind: str, text: str) -> str | None:
    """`text` in the wire format of an input of type `kind`; None when it cannot be read as one
    (the text is then typed as it is)."""
    if kind == "date":
        d = _date(text)
        return d.isoformat() if d else None
    if kind == "time":
        return _time(text)
    if kind == "month":
        found = re.match(r"^(\d{4})-(\d{1,2})$", text.strip())
        if found:
            return f"{int(found.group(1)):04d}-{int(found.group(2)):02d}"
        d = _date(f"1 {text}") or _date(text.replace("/", "/1/", 1))
        return f"{d.year:04d}-{d.month:02d}" if d else None
    if kind == "datetime-local":
        try:
            return datetime.fromisoformat(text.strip()).strftime("%Y-%m-%dT%H:%M")
        except ValueError:
            pass
        # the date part may itself hold spaces ("December 4 2025 4:35 PM"): split at the clock
        found = re.search(r"\d{1,2}:\d{2}", text)
        if found:
            d, t = _date(text[:found.start()]), _time(text[found.start():])
            return f"{d.isoformat()}T{t[:5]}" if d and t else None
        return None
    return None


# What a field that formats its input (an input mask) adds or takes away as it shows a value:
# separators and spacing ("4035 5010 0000 0008", "09 / 30", "(555) 013-4567"), and letter case
# ("SW1A 1AA" for "sw1a1aa").
_FORMATTING = re.compile(r"[\W_]+")


def _unformatted(text: str) -> str:
    return _FORMATTING.sub("", text).casefold()


def same_value(now: str, typed: str) -> bool:
    """Whether a field's value is what was typed: as typed, in the typed input's wire format, or
    with the same letters and digits in the same order where the field formats what it is given
    (an expiry typed "09/30" that the page shows as "09 / 30"). A digit or letter more, less or
    changed is another value."""
    if now == typed or any(wire(kind, typed) == now for kind in TYPED):
        return True
    bare = _unformatted(typed)
    return bool(bare) and _unformatted(now) == bare
