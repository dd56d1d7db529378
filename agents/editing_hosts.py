"""Editing hosts. A contenteditable element without a role (a rich-text editor, a message box, a
value edited in place) is a text field to a person, and a generic container to Playwright's
snapshot: its drawn placeholder or its content read as text, no role, no name. The fingerprint's
walk reports each one of the top document and its same-origin frames (`Host`, agents/fingerprint.py);
`mark` makes the element the snapshot shows for each a textbox: the one drawn over the same box
or, where the snapshot folded the host into its only child (an editor holding one paragraph), the
one element drawn inside it; for a frame's whole document (an editor's <body>), the frame's element
itself, which shows nothing while the document is empty. It is named as the host is named (for an
empty host without a name: the placeholder it shows) and holds the host's text."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from agents.observation import PLAIN_ROLES, Box, Element, box_within


class Host(NamedTuple):
    """An editing host as the fingerprint's walk found it: its box (in its own frame's viewport),
    its name, whether it holds nothing; in a frame of the top document, the frame element's box and
    whether the host is that frame's whole document."""

    x: float
    y: float
    width: float
    height: float
    name: str
    empty: bool
    frame: tuple[float, float, float, float] | None = None
    whole: bool = False

    @classmethod
    def of(cls, raw: Sequence[Any]) -> Host:
        x, y, w, h, name, empty, frame, whole = raw
        return cls(float(x), float(y), float(w), float(h), str(name), bool(empty),
                   None if frame is None else tuple(float(v) for v in frame), bool(whole))


def mark(elements: dict[str, Element], hosts: Sequence[Host]) -> dict[str, Element]:
    """`elements` with the element each editing host shows made a textbox (see the module)."""
    out = dict(elements)
    for host in hosts:
        shown = _host_element(out, host)
        if shown is None:
            continue
        shows = shown.text or _text_under(out, shown.ref)  # an empty host: the placeholder drawn
        out[shown.ref] = shown.model_copy(update={
            "role": "textbox", "name": host.name or shown.name or (shows if host.empty else ""),
            "text": "" if host.empty else shows})
    return out


def _host_element(elements: dict[str, Element], host: Host) -> Element | None:
    """The element the snapshot shows for an editing host (see the module), or None."""
    frame: Element | None = None
    if host.frame is not None:
        fx, fy, fw, fh = host.frame
        frames = [el for el in elements.values() if el.role == "iframe" and not el.frame and el.box is not None
                  and box_within(el.box, fx, fy, fw, fh)
                  and box_within(Box(x=fx, y=fy, width=fw, height=fh), el.box.x, el.box.y, el.box.width, el.box.height)]
        if len(frames) != 1:
            return None
        frame = frames[0]
        if host.whole:
            return frame  # the frame is the field; what its document shows is its text
    inside = [el for el in elements.values()
              if el.role in PLAIN_ROLES and box_within(el.box, host.x, host.y, host.width, host.height)
              and (frame.ref in _ancestors(elements, el) if frame else not el.frame)]
    refs = {el.ref for el in inside}
    outer = [el for el in inside if not any(up in refs for up in _ancestors(elements, el))]
    return outer[0] if len(outer) == 1 else None  # none drawn (an empty host left out), or several


def _ancestors(elements: dict[str, Element], el: Element) -> Iterator[str]:
    ref = el.parent_ref
    while ref is not None and ref in elements:
        yield ref
        ref = elements[ref].parent_ref


def _text_under(elements: dict[str, Element], ref: str) -> str:
    """The labels of the elements under `ref`, in document order."""
    under, parts = {ref}, []
    for el in elements.values():
        if el.parent_ref in under:
            under.add(el.ref)
            if el.label:
                parts.append(el.label)
    return " ".join(parts)
