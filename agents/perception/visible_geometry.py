"""The synthetic backend's narrow reader: what a screenshot of the viewport shows, as regions
(box in viewport CSS px, visible text, visual kind), standing in for pixels. It returns no refs,
no roles the eye cannot see and no state: only what is drawn.

Regions drawn inside a canvas or a closed shadow root are invisible to any DOM walk; a page
declares them for the simulation with `data-gb-visual='[{"label": ..., "box": [x, y, w, h]}]'`
(box relative to the element), which is what a real model would see painted there.

A control without text or caption (an icon) is named by what its picture depicts: a model sees
the drawing and says "trash icon"; the page's author named that drawing when storing it
(delete.png, background-image trash.svg, an SVG's <title> or its <use>d symbol #icon-trash, an
icon font's fa-trash), so that name, put into words, stands in for the pixels (`picture_name`).
Its limits: a meaningless name (img_3.png, a hash) gives no label where a model would still see
the drawing; a misnamed file misleads where pixels would not; a picture drawn with bare paths
names nothing. An icon font drawn by ligature (material icons) shows its name as text, read as
any text is."""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import BaseModel, ConfigDict

from agents.frames import REACHABLE_JS, frame_offset
from agents.interactive import as_json, inject

# Walks the top document, same-origin frames and open shadow roots; cross-origin frames are read
# through their own Frame handles (see read_regions) because their documents are not reachable.
_READ_JS = as_json(inject(r"""
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
  const undrawn = __UNDRAWN__;
  const visibleBox = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return null;
    const cs = getComputedStyle(el);
    if (cs.visibility === "hidden" || cs.display === "none" || undrawn(el)) return null;
    // faded to nothing itself: unless a control over what its parent draws for it (agents/interactive.py)
    if (parseFloat(cs.opacity) === 0 && !el.matches(INTERACTIVE)) return null;
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
  // Painted shapes: what the eye calls them ("red circle"), by their outline and fill colour.
  const SHAPES = ["circle", "ellipse", "rect", "polygon"];
  const COLOURS = [["black", 0, 0, 0], ["white", 255, 255, 255], ["gray", 128, 128, 128],
                   ["red", 220, 30, 30], ["orange", 255, 150, 0], ["yellow", 250, 230, 40],
                   ["green", 30, 150, 40], ["cyan", 0, 210, 220], ["blue", 30, 60, 220],
                   ["purple", 130, 40, 170], ["pink", 250, 150, 190], ["brown", 140, 80, 30]];
  const colourName = (css) => {
    const m = (css || "").match(/\d+(\.\d+)?/g);
    if (!m || m.length < 3) return "";
    const [r, g, b] = m.map(Number);
    return COLOURS.reduce((best, c) => {
      const d = (c[1] - r) ** 2 + (c[2] - g) ** 2 + (c[3] - b) ** 2;
      return d < best[1] ? [c[0], d] : best;
    }, ["", Infinity])[0];
  };
  const paintedShape = (el) => {
    if (!SHAPES.includes(el.tagName) || !el.ownerSVGElement || el.closest(CLICKABLE)) return false;
    const svg = el.ownerSVGElement, sb = svg.getBoundingClientRect();
    return sb.width >= 48 && sb.height >= 48 && !svg.querySelector(":scope > title");
  };
  const shapeName = (el, r) => {
    const t = el.tagName;
    const points = t === "polygon" ? (el.getAttribute("points") || "").trim().split(/[\s,]+/).length / 2 : 0;
    const form = t === "circle" || t === "ellipse" ? "circle"
      : t === "rect" ? (Math.abs(r.width - r.height) <= 0.1 * Math.max(r.width, r.height) ? "square" : "rectangle")
      : points === 3 ? "triangle" : "polygon";
    return `${colourName(getComputedStyle(el).fill)} ${form}`.trim();
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
  // What a text-less control's picture is made of: its image file (an <img>'s source, a CSS
  // content or background-image url, also on ::before), an inline <svg>'s <title>, the symbol its
  // <use> draws or its <image>'s file, else an icon font's classes (fa-trash). The element's own
  // first, then a few of its descendants' (a button holding an <img>). Raw: `picture_name` (below,
  // in Python) turns them into words.
  const URL_IN = /url\(\s*["']?([^"')]+)["']?\s*\)/;
  const ICON_CLASS = /^(?:fa[a-z]?|bi|mdi|glyphicon|icon|ion|ti|la[a-z]?|ri|octicon|codicon|feather)-[a-z]/i;
  const sourcesOf = (n) => {
    const tag = n.tagName.toLowerCase(), out = [];
    if (tag === "img") out.push(n.currentSrc || n.getAttribute("src") || "", (n.getAttribute("srcset") || "").trim().split(/[\s,]+/)[0]);
    if (tag === "image" || tag === "use") out.push(n.getAttribute("href") || n.getAttribute("xlink:href") || "");
    if (tag === "svg") {
      const title = n.querySelector("title");
      if (title && norm(title.textContent)) out.push("title:" + norm(title.textContent));
      for (const u of n.querySelectorAll("use, image")) out.push(...sourcesOf(u));
      return out.filter(Boolean);
    }
    const cs = getComputedStyle(n), before = getComputedStyle(n, "::before");
    for (const v of [cs.content, cs.backgroundImage, before.content, before.backgroundImage]) {
      const m = URL_IN.exec(v || "");
      if (m) out.push(m[1]);
    }
    const classes = Array.from(n.classList || []).filter((c) => ICON_CLASS.test(c));
    if (classes.length) out.push("class:" + classes.join(" "));
    return out.filter(Boolean);
  };
  const pictureOf = (el) => {
    const out = sourcesOf(el);
    if (el.tagName.toLowerCase() !== "svg") {
      for (const n of Array.from(el.querySelectorAll("img, svg, i, span")).slice(0, 4)) out.push(...sourcesOf(n));
    }
    return out.slice(0, 6);
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
      if (paintedShape(el)) {
        // a painted shape (not a control's own icon, nor part of an icon-sized or titled drawing:
        // a gear's circle, which is drawn as the control it is part of): drawn as what it looks like
        const b = visibleBox(el);
        if (b && r.width >= 10 && r.height >= 10 && onTop(el, r)) {
          out.push({ box: [b[0] + dx, b[1] + dy, b[2], b[3]], text: shapeName(el, r), kind: "shape",
                     row: -1, small: r.width * r.height < 24 * 24, state: "" });
        }
        continue;
      }
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
      const kind = kindOf(el, text);
      out.push({ box: b, text, kind, row, state, caption, small: r.width * r.height < 24 * 24,
                 picture: kind === "icon" && !caption ? pictureOf(el) : [] });
    }
  };
  walk(document, 0, 0);
  return out;
}
"""))


class Region(BaseModel):
    """One drawn region: what a model could see, in viewport CSS pixels."""

    model_config = ConfigDict(frozen=True)
    box: tuple[float, float, float, float]
    text: str
    kind: str  # control, field, checkbox, slider, icon, row, shape
    row: int = -1  # index of the enclosing compound row region, or -1
    small: bool = False
    state: str = ""  # a visible state cue: checked (a tick) or expanded (an open section)
    caption: str = ""  # an empty field's label, shown beside it
    # A text-less icon: what its picture depicts, named from what it is drawn with ("delete icon");
    # "" when the picture has no telling name (see `picture_name`).
    picture: str = ""

    @property
    def label(self) -> str:
        """What a model would call the region: its visible text, else what its picture shows."""
        return self.text or self.picture


async def read_regions(page: Page, occlusion: bool = False) -> list[Region]:
    """Regions of the viewport, top document and every frame, in viewport coordinates. With
    `occlusion`, only regions something of which is on top (not covered by another element)."""
    size = page.viewport_size or {"width": 1280, "height": 720}
    vw, vh = size["width"], size["height"]
    raw: list[dict] = json.loads(await page.evaluate(_READ_JS, [0, 0, vw, vh, occlusion]))
    for frame in page.frames[1:]:
        try:
            handle = await frame.frame_element()
            if await handle.evaluate(REACHABLE_JS):
                continue  # same-origin: already walked from its parent document
            ox, oy = await frame_offset(frame)
            base = len(raw)
            raw.extend({**r, "row": r["row"] + base if r["row"] >= 0 else -1}
                       for r in json.loads(await frame.evaluate(_READ_JS, [ox, oy, vw, vh, occlusion])))
        except PlaywrightError:
            continue  # a frame that detached mid-read is simply not drawn
    return _dedupe_rows([Region(**{**r, "picture": picture_name(r.get("picture") or [])})
                         for r in raw])


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


# Words that say only that something is a picture, or that a toolkit prefixes to its icon names;
# a file named with nothing else ("img_3.png", "icon-sprite.svg") tells a model nothing.
_GENERIC = frozenset({
    "img", "imgs", "image", "images", "icon", "icons", "ic", "ico", "sprite", "sprites", "asset",
    "assets", "static", "media", "pic", "pics", "picture", "graphic", "glyph", "glyphs", "svg",
    "png", "jpg", "jpeg", "gif", "webp", "file", "default", "title", "untitled"})
# Icon-font and set prefixes and modifiers (fa fa-lg fa-trash; bi-star-fill; mdi-delete).
_TOOLKIT = frozenset({
    "fa", "fas", "far", "fal", "fab", "fad", "fat", "bi", "mdi", "glyphicon", "ion", "ios", "md",
    "ti", "la", "las", "lar", "lab", "ri", "octicon", "codicon", "feather", "lg", "sm", "xs",
    "xl", "fw", "solid", "regular", "light", "brands", "duotone", "spin", "pulse", "fill",
    "outline", "outlined", "line", "round", "rounded", "sharp"})
# The least a telling name holds: one word of three letters or more that is not generic.
_TELLING = 3
_MAX_WORDS = 5


def picture_name(sources: list[str]) -> str:
    """What a text-less icon depicts, in words ("left arrow white icon"), from the first of the
    raw sources the reader found that names it (a file, a sprite symbol, an SVG title, an icon
    font's classes); "" when none does.

    A vision model sees the drawing and says what it shows; the page's author named that drawing
    when storing it (delete.png, #icon-trash, fa-trash), so the name stands in for the pixels.
    Its limits: a meaningless name (img_3.png, a hash) gives no label, where a model would still
    see a bin; an author may misname a picture; an icon drawn with bare paths names nothing."""
    for source in sources:
        name = _source_words(source)
        if any(len(w) >= _TELLING and w.isalpha() and w not in _GENERIC for w in name):
            return " ".join([*name[:_MAX_WORDS], "icon"])
    return ""


def _source_words(source: str) -> list[str]:
    """The words of one raw source: an SVG title's words, icon classes without their toolkit
    prefix, or a file's stem (a sprite's symbol id after '#') without sizes, scales and hashes."""
    if source.startswith("title:"):
        return _words(source[len("title:"):], drop=frozenset())
    if source.startswith("class:"):
        return _words(source[len("class:"):], drop=_TOOLKIT)
    if source.startswith("data:"):
        return []  # an inline picture carries no name
    path, _, fragment = source.partition("#")
    stem = fragment or unquote(path.split("?")[0].rstrip("/").rsplit("/", 1)[-1]).split(".")[0]
    return _words(stem, drop=_TOOLKIT)


def _words(text: str, drop: frozenset[str]) -> list[str]:
    """Lower-case words of a name: camelCase and separators split; digits (sizes like 24px,
    scales like @2x, hashes), generic and `drop` words left out; each word once."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).lower()
    out: list[str] = []
    for w in re.split(r"[^a-z0-9]+", spaced):
        if w and not any(c.isdigit() for c in w) and w not in _GENERIC and w not in drop \
                and w not in out:
            out.append(w)
    return out
