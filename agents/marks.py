"""The values the stages pass between them once the page has been read: what vision saw (`Seen`),
where the page's elements are (`Placed`), and the numbered listing a worker chooses from (`Mark`,
Set-of-Mark: mark N in the picture and N in the listing are one object)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from agents.observation import Box, Element

STATE_KEYS = ("checked", "expanded", "pressed", "selected", "disabled")
# Two identities are one target when role and name agree and their boxes overlap by this much.
SAME_TARGET_IOU = 0.5


# A mark whose `resemblance` is below this does not show the subgoal's picture (agents/pictures.py).
RESEMBLES = 0.8


@dataclass(frozen=True)
class Seen:
    """A vision candidate in viewport CSS pixels: a hypothesis, not yet a target."""

    box: Box
    label: str
    confidence: float


@dataclass(frozen=True)
class Placed:
    """An element of the observation with its box in viewport coordinates (frames included)."""

    element: Element
    box: Box


class Mark(BaseModel):
    model_config = ConfigDict(frozen=True)
    number: int
    box: Box
    label: str
    role: str = ""  # from the DOM bridge; "" when enrichment is off or nothing matched
    states: dict[str, str] = {}
    context: tuple[str, ...] = ()
    ref: str | None = None  # aria ref of the matched live element, valid for one observation only
    observation_id: int = 0  # the observation that produced `ref`
    frame: str = ""
    confidence: float = 1.0
    relevance: float = 0.0
    source: Literal["vision", "dom"] = "dom"
    degraded: bool = False  # reachable by coordinates only (canvas, closed shadow root, no match)
    # A control drawn without a name: the boxes of the alike controls beside it (itself among
    # them), as the page lays them out (agents/hit_binding.py); () when not known.
    peers: tuple[Box, ...] = ()
    # A control without a role made of several blocks: each block's whole text, in reading order
    # (a list row: initials, a name, a time, the last message; agents/hit_binding.py); () else.
    pieces: tuple[str, ...] = ()
    # How alike the picture a subgoal's `looks_like` gives is to what the mark shows, 0..1
    # (agents/pictures.py); 0 when the subgoal gives no picture.
    resemblance: float = 0.0

    def listing_line(self) -> str:
        """How the mark reads in the text listing shown to a language-model worker."""
        state = "".join(f" [{k}={v}]" if v != "true" else f" [{k}]" for k, v in self.states.items())
        role = self.role or "region"
        extra = " (coordinates only)" if self.degraded else ""
        where = f" in \"{self.context[0]}\"" if self.context else ""
        return f"[{self.number}] {role} \"{self.label}\"{state}{where}{extra}"

    @property
    def context_text(self) -> str:
        """Its context as the traces hold it (`target_context`): nearest first, " | " between."""
        return " | ".join(self.context)

    @property
    def identity(self) -> TargetIdentity:
        """Who this target is across observations (refs are per observation): role, name, place."""
        b = self.box
        return TargetIdentity(self.role, self.label, b.x, b.y, b.width, b.height)


# What a thing can be dropped on, besides a control: an item of a list, a row, a card, a cell.
PLACE_ROLES = frozenset({"listitem", "row", "article", "gridcell", "cell", "treeitem"})


def element_mark(number: int, placed: Placed, confidence: float, source: Literal["vision", "dom"],
                 observation_id: int) -> Mark:
    el = placed.element
    return Mark(number=number, box=placed.box, label=el.label, role=el.role,
                states={k: v for k, v in el.states.items() if k in STATE_KEYS},
                context=el.context, ref=el.ref, observation_id=observation_id, frame=el.frame,
                confidence=confidence, source=source)


def dom_marks(placed: list[Placed], observation_id: int) -> list[Mark]:
    """The controls (and the plain elements a page made clickable) as a listing, as the DOM
    alone knows them (no vision)."""
    return [element_mark(i, p, 1.0, "dom", observation_id)
            for i, p in enumerate((p for p in placed if p.element.target), 1)]


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
    iy = max(0.0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
    inter = ix * iy
    if inter <= 0:
        return 0.0  # (most pairs: apart)
    union = a.area + b.area - inter
    return inter / union if union > 0 else 0.0


class TargetIdentity(NamedTuple):
    """A target across observations: a vision box moves a little from one perception to the next
    (the model's jitter), so two are the same when role and name agree and their boxes overlap by
    half. Two buttons of the same name in different places stay two targets."""

    role: str
    label: str
    x: float
    y: float
    width: float
    height: float

    def same_target(self, other: TargetIdentity) -> bool:
        if (self.role, self.label) != (other.role, other.label):
            return False
        w = min(self.x + self.width, other.x + other.width) - max(self.x, other.x)
        h = min(self.y + self.height, other.y + other.height) - max(self.y, other.y)
        inter = max(0.0, w) * max(0.0, h)
        union = self.width * self.height + other.width * other.height - inter
        return union > 0 and inter / union >= SAME_TARGET_IOU


def among(target: TargetIdentity, targets: frozenset[TargetIdentity] | set[TargetIdentity]) -> bool:
    return any(target.same_target(t) for t in targets)

# What a target reached by coordinates alone (no element names it) is believed at, at most.
DEGRADED_CONFIDENCE = 0.5
