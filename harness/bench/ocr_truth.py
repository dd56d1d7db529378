"""The ground truth of the OCR recall benchmark (harness/bench/ocr_recall.py): the interactive
controls a page draws in view, read from the DOM in the harness (the backend never sees it).

Ground truth is read from the DOM here, in the harness; the backend never sees it. A *control* is
an element in view that a user can act on (links, buttons, inputs, selects, textareas, summary,
elements with an interactive ARIA role, onclick or tabindex >= 0, and the outermost element
with a pointer cursor outside those, i.e. a div with a click handler; not focusable scroll
containers), visible (CSS visibility and
opacity, non-zero size, inside the viewport and its frames) and not covered (the element or one
of its descendants is topmost at one of five points of its box; for controls inside
iframes also at every enclosing document level). Same-origin and cross-origin iframes and open
shadow roots are included. A control is *text-labelled* if it shows readable text: its own
rendered text (innerText, one source per line), the value of a button-like input, the selected
option of a select, the value or placeholder of a text input, or the visible text of its
<label>s / aria-labelledby elements. Each such text with the box it is drawn in is a *source*;
a visible control without any source is *text-less* (counted apart, with box-only hits).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import Frame, Page

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in CSS px of the viewport

# Runs in every frame; returns controls with boxes in that frame's viewport coordinates.
_CONTROLS_JS = r"""
() => {
  const SEL = [
    "a[href]", "button", "input:not([type=hidden])", "select", "textarea", "summary",
    "[onclick]", "[tabindex]:not([tabindex='-1'])", "[contenteditable='']", "[contenteditable=true]",
    ...["button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
        "menuitemradio", "option", "combobox", "textbox", "searchbox", "slider", "spinbutton",
        "treeitem", "gridcell"].map((r) => `[role=${r}]`),
  ].join(",");
  const vw = innerWidth, vh = innerHeight;
  const norm = (s) => (s || "").replace(/[ \t\u00a0]+/g, " ").trim();
  const clip = (r) => [Math.max(0, r.left), Math.max(0, r.top), Math.min(vw, r.right), Math.min(vh, r.bottom)];
  const topAt = (x, y) => {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  // topmost at a point: the element itself or something inside it (an ancestor being topmost
  // means the element is clipped away or covered by its own container's backdrop)
  const related = (a, b) => a && b && (a === b || a.contains(b) ||
    (a.shadowRoot && b.getRootNode() === a.shadowRoot));
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return null;
    if (r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) return null;
    if (el.checkVisibility && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return null;
    const c = clip(r);
    const pts = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
    const free = pts.some(([fx, fy]) => related(el, topAt(c[0] + fx * (c[2] - c[0]), c[1] + fy * (c[3] - c[1]))));
    return free ? [r.left, r.top, r.right, r.bottom] : null;
  };
  const lines = (s) => (s || "").split(/\n+/).map(norm).filter((t) => /[\p{L}\p{N}]/u.test(t)).slice(0, 6);
  const all = [];
  // plain elements with a click handler show it only by the pointer cursor (outermost one)
  const pointer = (el) => getComputedStyle(el).cursor === "pointer";
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.matches(SEL)) all.push(el);
      else if (pointer(el) && !(el.parentElement && pointer(el.parentElement)) && !el.closest(SEL)) all.push(el);
    }
  };
  walk(document);
  const out = [];
  // a focusable scroll container (a dialog body with tabindex=0) is a region, not a control
  const scroller = (el) => {
    const cs = getComputedStyle(el);
    return /(auto|scroll)/.test(cs.overflowY + cs.overflowX) &&
      (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
  };
  for (const el of all) {
    if (!el.matches("a[href],button,input,select,textarea,[role]") && scroller(el)) continue;
    const box = shown(el);
    if (!box) continue;
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") || "").toLowerCase();
    const sources = [];
    const add = (text, b) => { for (const t of lines(text)) sources.push({text: t.slice(0, 160), box: b}); };
    const fromLabels = () => {
      const labs = [...(el.labels || [])];
      const ids = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
      for (const id of ids) { const l = el.getRootNode().getElementById?.(id) || document.getElementById(id); if (l) labs.push(l); }
      for (const l of labs) { const b = shown(l); if (b) add(l.innerText, b); }
    };
    if (tag === "input" && ["submit", "button", "reset"].includes(type)) add(el.value, box);
    else if (tag === "input" || tag === "textarea") {
      fromLabels();
      if (!["checkbox", "radio", "range", "color", "file"].includes(type)) add(el.value || el.placeholder, box);
    } else if (tag === "select") {
      fromLabels();
      add(el.options[el.selectedIndex]?.text, box);
    } else {
      add(el.innerText, box);
      if (!sources.length) fromLabels();
    }
    out.push({tag, type, role: el.getAttribute("role") || "", box, sources});
  }
  return out;
}
"""

_FRAME_BOX_JS = r"""
(el) => {
  const r = el.getBoundingClientRect();
  const cs = getComputedStyle(el);
  const pl = parseFloat(cs.paddingLeft) || 0, pt = parseFloat(cs.paddingTop) || 0;
  const pr = parseFloat(cs.paddingRight) || 0, pb = parseFloat(cs.paddingBottom) || 0;
  return [r.left + el.clientLeft + pl, r.top + el.clientTop + pt,
          el.clientWidth - pl - pr, el.clientHeight - pt - pb];
}
"""

# Is the iframe element itself topmost at these points of its parent document?
_FRAME_UNCOVERED_JS = r"""
(el, pts) => pts.map(([x, y]) => {
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit === el;
})
"""


@dataclass
class Source:
    text: str
    box: Box


@dataclass
class Control:
    tag: str
    type: str
    role: str
    box: Box
    sources: list[Source]
    frame: str = "main"

    @property
    def label(self) -> str:
        return self.sources[0].text if self.sources else ""



def compact(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def _intersect(a: Box, b: Box) -> Box | None:
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _shift(box: Sequence[float], dx: float, dy: float) -> Box:
    return (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)


async def _collect(frame: Frame, dx: float, dy: float, clip: Box, name: str) -> list[Control]:
    """Controls of `frame` and its child frames, boxes in main-viewport CSS px."""
    try:
        raw = await frame.evaluate(_CONTROLS_JS)
    except Exception:  # noqa: BLE001 - a detached or navigating frame has nothing to show
        return []
    controls: list[Control] = []
    for item in raw:
        box = _intersect(_shift(item["box"], dx, dy), clip)
        if box is None:
            continue
        sources = []
        for s in item["sources"]:
            sbox = _intersect(_shift(s["box"], dx, dy), clip)
            if sbox is not None:
                sources.append(Source(s["text"], sbox))
        controls.append(Control(item["tag"], item["type"], item["role"], box, sources, name))
    for index, child in enumerate(frame.child_frames):
        try:
            element = await child.frame_element()
            fx, fy, fw, fh = await element.evaluate(_FRAME_BOX_JS)
        except Exception:  # noqa: BLE001, S112 - the frame went away meanwhile
            continue
        if fw < 2 or fh < 2:
            continue
        cx, cy = dx + fx, dy + fy
        child_clip = _intersect(clip, (cx, cy, cx + fw, cy + fh))
        if child_clip is None:
            continue
        inner = await _collect(child, cx, cy, child_clip, f"{name}/{index}")
        if not inner:
            continue
        # keep what is not covered by something of this document drawn over the iframe
        points = [[(c.box[0] + c.box[2]) / 2 - dx, (c.box[1] + c.box[3]) / 2 - dy] for c in inner]
        try:
            free = await element.evaluate(_FRAME_UNCOVERED_JS, points)
        except Exception:  # noqa: BLE001
            free = [True] * len(inner)
        controls += [c for c, ok in zip(inner, free, strict=True) if ok]
    return controls


def control_key(c: Control) -> tuple[str, tuple[int, ...]]:
    return compact(c.label), tuple(round(v / 4) for v in c.box)


async def collect_controls(page: Page) -> list[Control]:
    """Visible interactive controls in the viewport, deduplicated by label and box."""
    size = page.viewport_size or {"width": 1280, "height": 720}
    found = await _collect(page.main_frame, 0.0, 0.0, (0.0, 0.0, size["width"], size["height"]),
                           "main")
    seen: set[tuple[str, tuple[int, ...]]] = set()
    unique = []
    for c in found:
        key = control_key(c)
        if key in seen:
            continue
        seen.add(key)
        unique.append(c)
    return unique
