"""The synthetic backend's narrow reader: what a screenshot of the viewport shows, as regions
(box in viewport CSS px, visible text, visual kind), standing in for pixels. It returns no refs,
no roles the eye cannot see and no state: only what is drawn.

Regions drawn inside a canvas or a closed shadow root are invisible to any DOM walk; a page
declares them for the simulation with `data-gb-visual='[{"label": ..., "box": [x, y, w, h]}]'`
(box relative to the element), which is what a real model would see painted there."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict

from agents.frames import REACHABLE_JS, frame_offset
from agents.interactive import inject

# Walks the top document, same-origin frames and open shadow roots; cross-origin frames are read
# through their own Frame handles (see read_regions) because their documents are not reachable.
_READ_JS = inject(r"""
([ox, oy, vw, vh, occlusion]) => {
  const out = [];
  // With occlusion on, a box is drawn only if something of it is on top at one of five points
  // (centre and the four quarter points): what lies wholly under a sticky header, a toast or a
  // dialog's backdrop is not in the picture. Coordinates are the element's own document's.
  const onTop = (el, r) => {
    if (!occlusion) return true;
    const root = el.getRootNode();
    for (const [fx, fy] of [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]) {
      const x = r.left + fx * r.width, y = r.top + fy * r.height;
      const hit = root.elementFromPoint ? root.elementFromPoint(x, y) : null;
      if (hit && (hit === el || el.contains(hit))) return true;
    }
    return false;
  };
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  // agents/interactive.py: controls are drawn as regions; a compound row's parent may hold at
  // most two places to click (controls and labels).
  const INTERACTIVE = __INTERACTIVE__, CLICKABLE = __CLICKABLE__;
  const visibleBox = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none" || parseFloat(cs.opacity) === 0) return null;
    const x = r.left + ox, y = r.top + oy;
    if (x + r.width < 0 || y + r.height < 0 || x > vw || y > vh) return null;
    return [x, y, r.width, r.height];
  };
  const ownText = (el) => {
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
      if (["checkbox", "radio", "range", "color"].includes(el.type)) return "";
      return norm(el.value || el.placeholder || "");
    }
    if (el.tagName === "SELECT") return norm(el.options[el.selectedIndex]?.text || "");
    return norm(el.innerText || el.getAttribute("aria-label") || el.title || "");
  };
  // A text-less control placed out of the flow inside a long, thin box it alone occupies: a knob
  // drawn on a track, which is what the eye calls a slider (a hand-made or jQuery UI one).
  const knobOnTrack = (el) => {
    const track = el.parentElement;
    if (!track || getComputedStyle(el).position !== "absolute") return false;
    const k = el.getBoundingClientRect(), t = track.getBoundingClientRect();
    const long = Math.max(t.width, t.height), thin = Math.min(t.width, t.height);
    return long >= 3 * Math.max(k.width, k.height) && thin <= 2.5 * Math.max(k.width, k.height)
      && track.querySelectorAll(INTERACTIVE).length === 1 && !norm(track.innerText);
  };
  const kindOf = (el, text) => {
    const t = el.tagName;
    if (t === "INPUT" && (el.type === "checkbox" || el.type === "radio")) return "checkbox";
    if (t === "INPUT" && el.type === "range") return "slider";
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT") return "field";
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return "field";  // an editor
    if (!text && knobOnTrack(el)) return "slider";
    if (!text) return "icon";
    return "control";
  };
  // A control, or anything drawn with a pointer cursor. Not a <label>, even one with a pointer:
  // it is drawn as its control's caption (see `caption` and the compound row), not as a control.
  const looksInteractive = (el) => {
    if (el.tagName === "LABEL") return false;
    return el.matches(INTERACTIVE) || getComputedStyle(el).cursor === "pointer";
  };
  const walk = (root, dx, dy) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.dataset && el.dataset.gbVisual) {
        // The element declares what is painted on it; it is drawn as that, not as itself.
        const b = visibleBox(el);
        if (b) {
          for (const v of JSON.parse(el.dataset.gbVisual)) {
            out.push({ box: [b[0] + v.box[0] + dx, b[1] + v.box[1] + dy, v.box[2], v.box[3]],
                       text: v.label || "", kind: v.kind || "control", row: -1,
                       small: v.box[2] * v.box[3] < 24 * 24, state: "" });
          }
        }
        continue;
      }
      if (el.shadowRoot) walk(el.shadowRoot, dx, dy);
      if (el.tagName === "IFRAME") {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.body) {
          const r = el.getBoundingClientRect();
          const cs = getComputedStyle(el);
          walk(doc, dx + r.left + el.clientLeft + parseFloat(cs.paddingLeft),
                    dy + r.top + el.clientTop + parseFloat(cs.paddingTop));
        }
        continue;
      }
      // Geometry first: most of a long page lies outside the viewport, and a box test is far
      // cheaper than the computed style looksInteractive may need.
      const r = el.getBoundingClientRect();
      if (r.width < 2 || r.height < 2 || r.right + ox < 0 || r.bottom + oy < 0 || r.left + ox > vw || r.top + oy > vh) continue;
      if (!looksInteractive(el)) continue;
      const b = visibleBox(el);
      if (!b || !onTop(el, r)) continue;
      b[0] += dx; b[1] += dy;
      const text = ownText(el);
      // A compound row: the control's parent row also shows plain text next to it.
      let row = -1;
      const parent = el.parentElement;
      if (parent && parent !== document.body) {
        const pt = norm(parent.innerText);
        const pb = visibleBox(parent);
        if (pb && pt && pt !== text && pt.length <= 60 && pb[2] < vw * 0.9 && pb[3] < 80 &&
            parent.querySelectorAll(CLICKABLE).length <= 2 &&
            onTop(parent, parent.getBoundingClientRect())) {
          row = out.length;
          out.push({ box: [pb[0] + dx, pb[1] + dy, pb[2], pb[3]], text: pt, kind: "row", row: -1, small: false, state: "" });
        }
      }
      const state = (el.checked || el.getAttribute("aria-checked") === "true" ||
                     el.getAttribute("aria-pressed") === "true") ? "checked"
                  : el.getAttribute("aria-expanded") === "true" ? "expanded" : "";
      // What names an empty field on screen: its <label>, else its aria-label (the model sees
      // the caption beside the box even though the box itself shows nothing).
      const caption = !text && el.labels && el.labels.length ? norm(el.labels[0].innerText)
                    : !text ? norm(el.getAttribute("aria-label") || "") : "";
      out.push({ box: b, text, kind: kindOf(el, text), row, state, caption,
                 small: r.width * r.height < 24 * 24 });
    }
  };
  walk(document, 0, 0);
  return out;
}
""")


class Region(BaseModel):
    """One drawn region: what a model could see, in viewport CSS pixels."""

    model_config = ConfigDict(frozen=True)
    box: tuple[float, float, float, float]
    text: str
    kind: str  # control, field, checkbox, slider, icon, row
    row: int = -1  # index of the enclosing compound row region, or -1
    small: bool = False
    state: str = ""  # a visible state cue: checked (a tick) or expanded (an open section)
    caption: str = ""  # an empty field's label, shown beside it


async def read_regions(page: Page, occlusion: bool = False) -> list[Region]:
    """Regions of the viewport, top document and every frame, in viewport coordinates. With
    `occlusion`, only regions something of which is on top (not covered by another element)."""
    size = page.viewport_size or {"width": 1280, "height": 720}
    vw, vh = size["width"], size["height"]
    raw: list[dict] = await page.evaluate(_READ_JS, [0, 0, vw, vh, occlusion])
    for frame in page.frames[1:]:
        try:
            handle = await frame.frame_element()
            if await handle.evaluate(REACHABLE_JS):
                continue  # same-origin: already walked from its parent document
            ox, oy = await frame_offset(frame)
            base = len(raw)
            raw.extend({**r, "row": r["row"] + base if r["row"] >= 0 else -1}
                       for r in await frame.evaluate(_READ_JS, [ox, oy, vw, vh, occlusion]))
        except PlaywrightError:
            continue  # a frame that detached mid-read is simply not drawn
    return _dedupe_rows([Region(**r) for r in raw])


def _dedupe_rows(regions: list[Region]) -> list[Region]:
    """A row with two controls is reported once per control by the walk; keep the first."""
    seen: dict[tuple, int] = {}
    remap: dict[int, int] = {}
    out: list[Region] = []
    for i, r in enumerate(regions):
        if r.kind == "row":
            key = tuple(round(v) for v in r.box)
            if key in seen:
                remap[i] = seen[key]
                continue
            seen[key] = remap[i] = len(out)
        out.append(r)
    return [r.model_copy(update={"row": remap.get(r.row, -1)}) if r.row >= 0 else r for r in out]
