"""Ambient changes out of the gating key: what only a ticking clock or a live count changed does
not end the vision epoch.

On a page that changes by itself every step's fingerprint disagrees with the epoch's in its text
part, so every step perceived again. The ambient filter (agents/ambient.py) knows which elements
change by themselves; this mechanism lets the fingerprint use that knowledge. The page's change
log (agents/fingerprint.py) numbers its change deliveries and notes the elements each one changed;
with this mechanism on, a fingerprint also carries the last delivery that changed an element
*not* known (by the time it is taken) to change by itself. A later fingerprint whose text part
or node count disagrees with the epoch's still agrees when every change since the epoch was an
ambient element's, the view did not move (scroll positions, where the controls in view are drawn)
and it is the same document (`Fingerprint.key_differs`): a `hit` with `miss_reason` `ambient`.
The judgement is retroactive: an element learned to be ambient after the epoch began (a clock
ticks twice while vision looks) clears the ticks it made before it was known. The same rule lets
a prefetched pass through.

Not seen: text shown by style alone (a `:hover` tip, no DOM change) while only ambient elements
changed keeps the epoch (its candidates are still checked against the live page, and coverage
looks again when the label is missing). A page with frames keeps the plain key (each frame logs
its own changes). Needs `ambient` (it owns what is ambient). Cost per step: a backward scan of the
change log over the ambient entries at each fingerprint."""

from __future__ import annotations

from pydantic import BaseModel

from agents.pipeline import Mechanism

KEY_AMBIENT_JS = "Object.defineProperty(window, '__gbKeyAmbient', { value: true });"


class AmbientKeyConfig(BaseModel):
    ambient_key: bool = True


class AmbientKey(Mechanism):
    name = "ambient_key"

    def init_script(self) -> str | None:
        return KEY_AMBIENT_JS
