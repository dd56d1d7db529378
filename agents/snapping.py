"""Resolve/snap stage: turns a chosen mark into something the browser can act on now.

Frame-aware geometry (iframe offset, border, padding and inner scroll, nested), the interactive
owner under a point (through same-origin frames and open shadow roots; cross-origin frames through
their own Frame handles), and the degraded coordinate route for regions the DOM cannot name
(canvas, closed shadow roots). With snapping off none of this exists: the agent sees the top
document only and has no coordinate fallback."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page
from pydantic import BaseModel

from agents.frames import OFFSET_JS, FramePlace, Geometry, Route, frame_offset
from agents.interactive import inject
from agents.marks import Mark, iou
from agents.observation import Box, Element, Observation, StaleRefError, live_locator
from agents.pipeline import Mechanism, Step


class SnappingConfig(BaseModel):
    snapping: bool = True

# The interactive owner at (x, y) of this document: descends open shadow roots; for an iframe,
# reports it so the caller can continue inside (same-origin: here; cross-origin: via its Frame).
# Owners are agents/interactive.py's CLICK_OWNER: a control, a <label> or an <option>.
_OWNER_JS = inject(r"""
([x, y]) => {
  const SEL = __CLICK_OWNER__;
  let el = document.elementFromPoint(x, y);
  let closedHost = false;
  while (el && el.shadowRoot) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  if (el && el.tagName !== "IFRAME" && el.tagName !== "CANVAS" && !el.shadowRoot &&
      customElements.get(el.localName) && el.childElementCount === 0 && !el.matches(SEL)) closedHost = true;
  if (!el) return null;
  if (el.tagName === "IFRAME") {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    const ox = r.left + el.clientLeft + parseFloat(cs.paddingLeft);
    const oy = r.top + el.clientTop + parseFloat(cs.paddingTop);
    let sameOrigin = false;
    try { sameOrigin = !!el.contentDocument; } catch (e) {}
    return { iframe: true, sameOrigin, ox, oy, name: el.name || el.id || "" };
  }
  let owner = el.closest(SEL) || el;
  // A pointer cursor that starts below that owner marks a clickable part of it (a link drawn as a
  // span inside a tab panel): the part is what a click must land on, not the container's centre.
  const pointer = (n) => n && getComputedStyle(n).cursor === "pointer";
  for (let n = el; n && n !== owner; n = n.parentElement) {
    if (pointer(n) && !pointer(n.parentElement)) { owner = n; break; }
  }
  const r = owner.getBoundingClientRect();
  const pointerish = getComputedStyle(owner).cursor === "pointer";
  return { iframe: false, tag: owner.tagName.toLowerCase(), canvas: owner.tagName === "CANVAS",
           closedHost, interactive: owner.matches(SEL) || pointerish,
           box: [r.left, r.top, r.width, r.height], text: (owner.innerText || owner.value || "").slice(0, 80) };
}
""")


@dataclass(frozen=True)
class Owner:
    """The element that would receive an event at a point, in viewport coordinates."""

    box: Box
    route: Route
    tag: str
    interactive: bool
    degraded: bool
    frame_url: str = ""
    text: str = ""

    @property
    def point(self) -> tuple[float, float]:
        return self.box.center


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def owner_at(page: Page, x: float, y: float, max_depth: int = 4) -> Owner | None:
    """Descend from the top document to the owner at viewport point (x, y)."""
    frame: Frame = page.main_frame
    dx = dy = 0.0
    route: Route = "point"
    for _ in range(max_depth):
        try:
            hit = await frame.evaluate(_OWNER_JS, [x - dx, y - dy])
        except PlaywrightError:
            return None
        if hit is None:
            return None
        if hit["iframe"]:
            child = await _child_frame_at(frame, hit)
            if child is None:
                return None
            dx, dy = dx + hit["ox"], dy + hit["oy"]
            route = "point"
            frame = child
            continue
        bx, by, bw, bh = hit["box"]
        degraded = hit["canvas"] or hit["closedHost"] or not hit["interactive"]
        box = Box(x=bx + dx, y=by + dy, width=bw, height=bh)
        if degraded:
            # The DOM cannot name what is drawn here: act on the perceived point itself.
            box = Box(x=x - 1, y=y - 1, width=2, height=2)
        return Owner(box=box, route="degraded_point" if degraded else route, tag=hit["tag"],
                     interactive=hit["interactive"], degraded=degraded, frame_url=frame.url,
                     text=hit["text"])
    return None


async def _child_frame_at(frame: Frame, hit: dict) -> Frame | None:
    """The child Frame behind an iframe hit: the one whose content box starts where the hit's does."""
    children = frame.child_frames
    if len(children) <= 1:
        return children[0] if children else None
    for child in children:
        try:
            ox, oy = await (await child.frame_element()).evaluate(OFFSET_JS)
        except PlaywrightError:
            continue
        if abs(ox - hit["ox"]) < 1 and abs(oy - hit["oy"]) < 1:
            return child
    return None


async def frame_geometry(page: Page, obs: Observation) -> Geometry:
    """Exact viewport offset and route of every frame prefix in an observation ("" = top)."""
    frames: dict[str, FramePlace] = {"": FramePlace(0.0, 0.0, "top")}
    top_origin = _origin(page.url)
    iframes = [e for e in obs.elements.values() if e.role == "iframe"]
    for iframe in iframes:
        child_prefix = _child_prefix(obs, iframe)
        if child_prefix is None:
            continue
        try:
            handle = await (await live_locator(page, obs, iframe.ref)).element_handle(timeout=1000)
            frame = await handle.content_frame() if handle else None
        except (PlaywrightError, StaleRefError):
            frame = None
        if frame is None or handle is None:
            continue
        try:  # the iframe's own content box, from the handle in hand; then its document's offset
            own = await handle.evaluate(OFFSET_JS)
            up = await frame_offset(frame.parent_frame) if frame.parent_frame else (0.0, 0.0)
        except PlaywrightError:
            continue
        ox, oy = own[0] + up[0], own[1] + up[1]
        route: Route = "same_origin_frame" if _origin(frame.url) == top_origin else "cross_origin_frame"
        frames[child_prefix] = FramePlace(ox, oy, route)
    return Geometry(frames)


def _child_prefix(obs: Observation, iframe: Element) -> str | None:
    for el in obs.elements.values():
        if el.parent_ref == iframe.ref and el.frame != iframe.frame:
            return el.frame
    return None


def _same_place(owner: Box, mark: Box) -> bool:
    """The owner found under a mark's centre is the mark's element (or inside it, or holds it)."""
    return iou(owner, mark) > 0.3 or _inside(owner, mark) or _inside(mark, owner)


def _inside(inner: Box, outer: Box) -> bool:
    return (inner.x >= outer.x - 2 and inner.y >= outer.y - 2 and inner.x + inner.width <= outer.x +
            outer.width + 2 and inner.y + inner.height <= outer.y + outer.height + 2)


class Snapping(Mechanism):
    """Places frame content exactly, names the owner at a point (marks without an element, the
    worker's coordinates), checks that a target is not covered, and finds a DOM target that
    something covers or clips in view."""

    name = "snapping"
    resolves_points = True

    def __init__(self) -> None:
        self._uncovered: set[str] = set()  # tried once per element and subgoal

    async def geometry(self, step: Step) -> Geometry | None:
        return await frame_geometry(step.page, step.obs) if step.obs is not None else None

    async def owner_at(self, page: Page, x: float, y: float) -> Owner | None:
        return await owner_at(page, x, y)

    async def actionable(self, step: Step, mark: Mark) -> bool:
        """Visible and not covered: the owner at its centre is the element itself."""
        owner = await owner_at(step.page, *mark.box.center)
        return owner is not None and _same_place(owner.box, mark.box)

    async def hidden(self, step: Step, mark: Mark) -> bool:
        """Covered, or clipped by a scrolling box (a dialog's own text): scrolling it into view is
        how it comes out. Tried once per element and subgoal, so one that scrolling cannot uncover
        (under a sticky header) goes on to the usual search."""
        key = f"{mark.role}|{mark.label}"
        if key in self._uncovered:
            return False
        self._uncovered.add(key)
        owner = await owner_at(step.page, *mark.box.center)
        # a degraded owner is whatever non-interactive thing is there (a dialog's backdrop)
        return owner is None or owner.degraded or not _same_place(owner.box, mark.box)

    def subgoal_done(self) -> None:
        self._uncovered.clear()
