"""Frame geometry shared by the stages that place frame content in the page: where a frame's
content box sits in the viewport (iframe offset, border and padding, nested frames included)."""

from __future__ import annotations

from playwright.async_api import Frame

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
