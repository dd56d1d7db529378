"""Frame geometry shared by the stages that place frame content in the page: where a frame's
content box sits in the viewport (iframe offset, border and padding, nested frames included), and
the `Geometry` of one observation (the top document alone unless agents/snapping.py places the
frames)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from playwright.async_api import Frame

from agents.observation import Box, Element

# Evaluated on an <iframe> element in its parent document (works for cross-origin frames too).
OFFSET_JS = """el => { const r = el.getBoundingClientRect(); const cs = getComputedStyle(el);
  return [r.left + el.clientLeft + parseFloat(cs.paddingLeft), r.top + el.clientTop + parseFloat(cs.paddingTop)]; }"""
REACHABLE_JS = "el => { try { return !!el.contentDocument; } catch (e) { return false; } }"


async def frame_offset(frame: Frame) -> tuple[float, float]:
    """Viewport position of a frame's content box."""
    if frame.parent_frame is None:
        return (0.0, 0.0)
    handle = await frame.frame_element()
    own = await handle.evaluate(OFFSET_JS)
    up = await frame_offset(frame.parent_frame)
    return own[0] + up[0], own[1] + up[1]


Route = Literal["top", "same_origin_frame", "cross_origin_frame", "point", "degraded_point"]


@dataclass(frozen=True)
class FramePlace:
    """Where a frame's content box starts in the viewport, and how events reach it."""

    x: float
    y: float
    route: Route


@dataclass(frozen=True)
class Geometry:
    """Every frame of an observation placed in the viewport, by ref prefix ("" = top document).
    A frame that is not here does not exist for the agent (its elements get no place)."""

    frames: dict[str, FramePlace] = field(default_factory=lambda: {"": FramePlace(0.0, 0.0, "top")})

    def place(self, el: Element) -> Box | None:
        """The element's box in viewport coordinates, from its frame-relative box."""
        where = self.frames.get(el.frame)
        if el.box is None or where is None:
            return None
        return Box(x=el.box.x + where.x, y=el.box.y + where.y, width=el.box.width,
                   height=el.box.height)

    def route_of(self, el: Element) -> Route:
        where = self.frames.get(el.frame)
        return where.route if where is not None else "top"


TOP_ONLY = Geometry()
