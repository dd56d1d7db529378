"""Region-scoped invalidation: when the page changed in one place, keep what vision saw elsewhere.

With gating alone, any change of the key ends the whole vision epoch: an "Add to cart" that
renames "Cart (1)" in the header, a quantity shown as text, a filter that re-renders the results
list all cost a full vision pass for the next step, wherever its target is. This mechanism asks
the page *where* it changed since the epoch began (agents/fingerprint.py's change log): every
element changed since (the ambient ones left out with `ambient_key`), where it is drawn now (its
nearest drawn ancestor when it is now hidden), and every control in view that moved (old and new
place), appeared or went.

When the gate misses on `dom`, `text` or `delta` only (never a new URL, a frame's change, a
scroll or a no-op's forced look), the step's candidates are the epoch's that lie outside those
regions (grown by `region_scope_margin_px`), plus, inside them, the named controls of the new
observation, each where it is drawn and under its accessible name; all of them go through the
DOM bridge like any reused candidate (`cache` `region`). A page that has since grown dense enough
for the large vision tier keeps its small-tier candidates this way too: the label check below
decides whether they still suffice. It perceives again when the regions are unknown (the page
scrolled, the log was pruned past the epoch, the page has frames), or when no candidate shows the
label the subgoal expects (by vision's label, or by the name of a control inside a kept box): the
target may be somewhere vision never looked, or painted where the DOM names nothing. A subgoal
without an expected label (a model's own choice) perceives again too.

Recorded per step: `changed_regions` (the boxes, `x,y,w,h;...`, the first 20),
`kept_candidates` and `region_filled`. Cost per step: a walk of the change log since the epoch
and one box per changed element, in the fingerprint the step takes anyway."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agents.gating import Gating
from agents.marks import Placed, Seen
from agents.observation import Box
from agents.perception.base import Tier
from agents.pipeline import Mechanism, Step
from tasks.text_match import label_matches

# The misses whose cause can be placed on the page; the rest end the epoch as before.
PLACEABLE = ("dom", "text", "delta")


class RegionScopeConfig(BaseModel):
    region_scope: bool = True
    region_scope_margin_px: int = Field(16, ge=0)  # a candidate this close to a change goes too


def _meets(a: Box, b: tuple[int, int, int, int], margin: float) -> bool:
    x, y, w, h = b
    return a.x < x + w + margin and x - margin < a.x + a.width and \
        a.y < y + h + margin and y - margin < a.y + a.height


def kept(candidates: list[Seen], regions: tuple[tuple[int, int, int, int], ...],
         margin: float) -> list[Seen]:
    """The candidates that lie outside every changed region (grown by `margin`)."""
    return [s for s in candidates if not any(_meets(s.box, r, margin) for r in regions)]


def filled(placed: list[Placed], regions: tuple[tuple[int, int, int, int], ...],
           margin: float) -> list[Seen]:
    """Inside the changed regions, the page as the new observation knows it: its named controls,
    each a candidate where it is drawn, under its accessible name."""
    return [Seen(p.box, p.element.name, 1.0) for p in placed
            if p.element.interactive and p.element.name and any(_meets(p.box, r, margin) for r in regions)]


def named_inside(placed: list[Placed], seen: list[Seen]) -> list[Placed]:
    """The named controls whose centre lies inside one of the candidates' boxes (what the DOM
    bridge will match them to)."""
    def inside(p: Placed, b: Box) -> bool:
        cx, cy = p.box.center
        return b.x <= cx <= b.x + b.width and b.y <= cy <= b.y + b.height
    return [p for p in placed if p.element.interactive and p.element.name and any(inside(p, s.box) for s in seen)]


class RegionScope(Mechanism):
    name = "region_scope"
    keeps_vision_on_change = True

    def __init__(self, margin_px: int) -> None:
        self.margin = margin_px

    @staticmethod
    def _gating(step: Step) -> Gating | None:
        return next((m for m in step.episode.mechanisms if isinstance(m, Gating)), None)

    def changes_since(self, step: Step) -> int | None:
        gating = self._gating(step)
        epoch = gating.gate.epoch if gating is not None else None
        return epoch.fp.take if epoch is not None and epoch.fp.take >= 0 else None

    def reuse(self, step: Step, tier: Tier) -> list[Seen] | None:
        rec, fp, gating = step.rec, step.fp_before, self._gating(step)
        epoch = gating.gate.epoch if gating is not None else None
        if rec.cache != "miss" or rec.miss_reason not in PLACEABLE or epoch is None or fp is None \
                or fp.regions is None or fp.since != epoch.fp.take \
                or not set(epoch.fp.differs(fp)) <= {"dom", "text"}:
            return None
        rec.changed_regions = ";".join(",".join(map(str, r)) for r in fp.regions[:20])
        keep = kept(epoch.candidates, fp.regions, self.margin)
        fill = filled(step.placed, fp.regions, self.margin)
        rec.kept_candidates, rec.region_filled = len(keep), len(fill)
        label = step.subgoal.label
        if not label or not (any(label_matches(label, s.label) for s in fill) or
                             any(label_matches(label, s.label) for s in keep) or
                             any(label_matches(label, p.element.name) for p in named_inside(step.placed, keep))):
            return None
        rec.cache = "region"
        return keep + fill
