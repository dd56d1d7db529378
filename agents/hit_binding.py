"""Hit binding: a vision box that the DOM bridge could not match to any element of the
accessibility tree is bound to what the page would hand a click at that place.

Pages draw controls the accessibility tree does not know: a <div> painted as a tick box or a
switch, stars painted as SVG paths, a strip of dots. None has a role or a name, so the bridge has
nothing to bind and a mark without a name never fits a description. The hit test asks the page
instead: the element on top at the box's centre, and the outermost element of its chain drawn
with a pointer cursor (or with an `onclick`), is the control. The mark then carries

- the control's own box (the vision box snapped to it), its own text, if any, as its label;
- its context: the text beside it (a sibling sentence; else, one level up, the caption of the row
  it sits in), so "the box beside "I agree to the Terms"" can be chosen by that text;
- its peers: the alike controls beside it (same tag, a pointer cursor, about its size), so "the
  4th star" is counted among the stars the page draws, not among the ones vision happened to see;
- its pieces: for a control made of several blocks (a list row showing initials, a name, a time
  and the last message), each block's whole text, so the row can be known by the name it shows.

A box whose centre holds no such control but that encloses some (a row drawn as one box: a tick
and its sentence) becomes those controls, each with the box's words as context. A box over words
that take no click (or only through a link inside them) becomes the nameless controls drawn
beside it in its row, left or right and close (a tick box before its sentence, the sentence the
only thing vision saw). A box over text with neither (no pointer, no handler, no control inside or
beside; not a canvas, a frame or a closed widget, which only coordinates reach) is dropped: it is
not something to act on. A box whose place
the page cannot name (a canvas, a shape painted in an <svg>) stays as vision saw it, for the
degraded coordinate route."""

from __future__ import annotations

import json

from playwright.async_api import Error as PlaywrightError
from pydantic import BaseModel

from agents.interactive import as_json, inject
from agents.marks import Mark, Seen
from agents.observation import Box
from agents.pipeline import Mechanism, Step


class HitBindingConfig(BaseModel):
    hit_binding: bool = True


# For each box [x, y, w, h] (top-document viewport px): {kind: "bound", parts: [...]} with the
# controls bound there, {kind: "inert"} for plain text, or {kind: "opaque"} (canvas, frame, closed
# widget, nothing there). A part: {box, text, context: [...], peers: [[x, y, w, h], ...]}.
_BIND_JS = as_json(inject(r"""
(boxes) => {
  const KNOWN = __CLICKABLE__;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const pointer = (n) => n && n.nodeType === 1 && getComputedStyle(n).cursor === "pointer";
  const rect = (n) => { const r = n.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
  const clickable = (n) => pointer(n) || (n.hasAttribute && n.hasAttribute("onclick"));
  // The control a click at `el` lands on: the outermost element of its pointer chain (a pointer
  // cursor is inherited, so the control is where it starts), or an element with onclick. Not one
  // the accessibility tree already knows (the bridge binds those).
  const controlOf = (el) => {
    let found = null;
    for (let n = el; n && n !== document.body && n !== document.documentElement; n = n.parentElement) {
      if (n.matches(KNOWN)) return null;
      if (clickable(n) && !(pointer(n) && pointer(n.parentElement))) { found = n; break; }
    }
    return found && !found.closest(KNOWN) ? found : null;
  };
  const textOf = (n) => norm(n.innerText || n.textContent || "");
  // The text beside a control: its siblings' text, nearest first; else the same one level up.
  const contextOf = (el) => {
    const out = [];
    let node = el;
    for (let level = 0; level < 4 && node.parentElement && !out.length; level++) {
      const parent = node.parentElement;
      const sibs = Array.from(parent.childNodes);
      const here = sibs.indexOf(node);
      const order = [];
      for (let d = 1; d < sibs.length; d++) {
        if (here - d >= 0) order.push(sibs[here - d]);
        if (here + d < sibs.length) order.push(sibs[here + d]);
      }
      for (const s of order) {
        if (s.nodeType === 3) { const t = norm(s.textContent); if (t) out.push(t); continue; }
        if (s.nodeType !== 1 || s.contains(el)) continue;
        const t = textOf(s);
        if (t && t.length <= 200) out.push(t);
        if (out.length >= 3) break;
      }
      node = parent;
    }
    return out.slice(0, 3);
  };
  const peersOf = (el) => {
    const parent = el.parentElement;
    if (!parent) return [];
    const [, , w, h] = rect(el);
    const alike = Array.from(parent.children).filter((c) => {
      if (c.tagName !== el.tagName || !clickable(c)) return false;
      const [, , cw, ch] = rect(c);
      return cw > 1 && ch > 1 && Math.abs(cw - w) <= 0.3 * w + 1 && Math.abs(ch - h) <= 0.3 * h + 1;
    });
    return alike.length >= 2 ? alike.map(rect) : [];
  };
  // The blocks a control made of several shows, each as its whole text (a list row: its
  // initials, a name, a time, the last message), in reading order; [] for a control of one block.
  const piecesOf = (el) => {
    const out = [];
    const inside = el.querySelectorAll("*");
    for (let i = 0; i < inside.length && i < 200; i++) {  // (a row's blocks, not a page's)
      const n = inside[i], t = norm(n.textContent);
      if (!t || t.length > 80 || out.includes(t)) continue;
      const [, , w, h] = rect(n);
      if (w < 1 || h < 1) continue;
      out.push(t);
      if (out.length >= 16) break;
    }
    return out.length > 1 ? out : [];
  };
  const part = (el) => ({ box: rect(el), text: norm(el.getAttribute("aria-label") || textOf(el)).slice(0, 80),
                          context: contextOf(el), peers: peersOf(el), pieces: piecesOf(el) });
  const hitAt = (x, y) => {
    let el = document.elementFromPoint(x, y);
    while (el && el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  };
  // The nameless controls drawn beside a box in its row, left or right and close; `scope`: the
  // element the box covers (its own descendants inside the box do not count).
  const besideOf = (scope, x, y, w, h) => {
    const beside = [];
    const row = scope.parentElement;
    if (!row || row === document.body || row === document.documentElement) return beside;
    for (const n of row.querySelectorAll("*")) {
      if (n.contains(scope)) continue;
      const [nx, ny, nw, nh] = rect(n);
      if (nw < 2 || nh < 2 || ny > y + h || ny + nh < y) continue;  // not in the box's row
      if (nx < x + w && nx + nw > x) continue;  // under the box, not beside it
      if (Math.min(Math.abs(nx + nw - x), Math.abs(nx - (x + w))) > 3 * h + 24) continue;
      if (!clickable(n) || (pointer(n) && pointer(n.parentElement)) || n.matches(KNOWN) || n.closest(KNOWN)) continue;
      if (norm(n.getAttribute("aria-label") || textOf(n))) continue;  // it has words of its own
      beside.push(part(n));
    }
    return beside;
  };
  return boxes.map(([x, y, w, h, insideOnly, around]) => {
    const el = hitAt(x + w / 2, y + h / 2);
    if (around) {
      // a link vision saw inside a sentence: the nameless controls beside that sentence
      const link = el && el.closest(KNOWN);
      const sentence = link && link.parentElement;
      if (!sentence || norm(sentence.textContent) === norm(link.textContent)) return { kind: "bound", parts: [] };
      const [sx, sy, sw, sh] = rect(sentence);
      return { kind: "bound", parts: besideOf(sentence, sx, sy, sw, sh) };
    }
    if (!el || el === document.body || el === document.documentElement) return { kind: "opaque" };
    if (el.tagName === "IFRAME" || el.tagName === "CANVAS" || el.tagName === "EMBED" || el.tagName === "OBJECT" ||
        (customElements.get(el.localName) && !el.shadowRoot)) return { kind: "opaque" };
    // a painted shape of an <svg> (listeners a script attached leave no trace in the DOM): like a
    // canvas, what vision saw there is reached by its point
    if (el.ownerSVGElement && !el.closest(KNOWN) && !clickable(el)) return { kind: "opaque" };
    const known = el.closest(KNOWN);
    // the tree's own control (a box about its size), unless the box is words around a link
    if (known && !insideOnly) {
      const [, , kw, kh] = rect(known);
      if (w * h < 2 * kw * kh) return { kind: "opaque" };
    }
    const own = insideOnly || known ? null : controlOf(el);
    if (own) return { kind: "bound", parts: [part(own)], centre: true };
    // A box drawn over a row: the nameless controls mostly inside it.
    const inside = [];
    let scope = el;
    while (scope.parentElement && scope !== document.body) {
      const [sx, sy, sw, sh] = rect(scope);
      if (sx <= x + 2 && sy <= y + 2 && sx + sw >= x + w - 2 && sy + sh >= y + h - 2) break;
      scope = scope.parentElement;
    }
    for (const n of scope.querySelectorAll("*")) {
      const [nx, ny, nw, nh] = rect(n);  // geometry first: far cheaper than a computed style
      if (nw < 2 || nh < 2 || nx + nw < x || ny + nh < y || nx > x + w || ny > y + h) continue;
      if (!clickable(n) || (pointer(n) && pointer(n.parentElement)) || n.matches(KNOWN) || n.closest(KNOWN)) continue;
      const ix = Math.max(0, Math.min(nx + nw, x + w) - Math.max(nx, x));
      const iy = Math.max(0, Math.min(ny + nh, y + h) - Math.max(ny, y));
      if (ix * iy >= 0.5 * nw * nh && nw * nh < 0.9 * w * h) inside.push(part(n));
    }
    if (inside.length) return { kind: "bound", parts: inside };
    // Words that take no click (or only through a link inside them): the nameless controls
    // beside them in their row, left or right (a tick box drawn before its sentence).
    const beside = besideOf(scope, x, y, w, h);
    if (beside.length || insideOnly) return { kind: "bound", parts: beside };
    if (known) return { kind: "opaque" };  // words around a link, nothing beside: the link's
    for (let n = el; n; n = n.parentElement) if (clickable(n)) return { kind: "opaque" };
    return { kind: "inert" };
  });
}
"""))


def _not_listed(parts: list[dict], out: list[Mark]) -> list[dict]:
    """The parts no mark of `out` already stands for (overlapping one by more than half)."""
    edges = [(b.x, b.y, b.x + b.width, b.y + b.height, b.area) for b in (m.box for m in out)]
    return [p for p in parts if not _overlaps(_box(p["box"]), edges, 0.5)]


def _overlaps(box: Box, edges: list[tuple[float, float, float, float, float]], above: float,
              at_least: float = 0.0) -> bool:
    """Whether the box overlaps one of the boxes (their edges and area), by more than `above` of
    their union (`marks.iou`, the same result), that is at least `at_least` of its size."""
    x0, y0, x1, y1, area = box.x, box.y, box.x + box.width, box.y + box.height, box.area
    for mx0, my0, mx1, my1, marea in edges:
        ix = min(x1, mx1) - max(x0, mx0)
        if ix <= 0:
            continue
        iy = min(y1, my1) - max(y0, my0)
        if iy <= 0:
            continue
        inter = ix * iy
        union = marea + area - inter
        if union > 0 and inter / union > above and marea >= at_least * area:
            return True
    return False


def _box(b: list[float]) -> Box:
    return Box(x=b[0], y=b[1], width=b[2], height=b[3])


class HitBinding(Mechanism):
    name = "hit_binding"

    async def bind(self, step: Step, seen: list[Seen], marks: list[Mark]) -> list[Mark]:
        loose = [m for m in marks if m.ref is None and not m.role and not m.frame]
        # A candidate the bridge bound to a much smaller control of the tree (a row drawn as one
        # box, its centre on the link in its sentence): the nameless controls inside it too.
        # (Every candidate against every mark: their edges as plain numbers, a long list has
        # hundreds of each.)
        unbound = {(m.box.x, m.box.y, m.box.width, m.box.height) for m in loose}
        edges = [(b.x, b.y, b.x + b.width, b.y + b.height, b.area) for b in (m.box for m in marks)]
        partly = [s for s in seen if (s.box.x, s.box.y, s.box.width, s.box.height) not in unbound
                  and not _overlaps(s.box, edges, 0.3, at_least=0.5)]
        if not loose and not partly and not any(m.role == "link" and m.source == "vision" for m in marks):
            return marks
        # A link the bridge bound (vision saw it) that stands inside a sentence: a tick box drawn
        # before that sentence is found beside it, though vision drew neither.
        linked = [m for m in marks if m.role == "link" and m.source == "vision" and not m.frame]
        query = [[b.x, b.y, b.width, b.height, False, False] for b in (m.box for m in loose)]
        query += [[s.box.x, s.box.y, s.box.width, s.box.height, True, False] for s in partly]
        query += [[m.box.x, m.box.y, m.box.width, m.box.height, False, True] for m in linked]
        try:
            found = json.loads(await step.page.evaluate(_BIND_JS, query))
        except PlaywrightError:
            return marks
        bound = {id(m): f for m, f in zip(loose, found)}
        out: list[Mark] = []
        taken: set[tuple[int, ...]] = set()

        def add(mark: Mark, parts: list[dict], words_of_box: str, seen_as: str = "") -> None:
            """`seen_as`: what vision called a box bound one to one to a control without text of
            its own (an icon: "next month arrow"), kept as its label."""
            for part in parts:
                key = tuple(round(v) for v in part["box"])
                if key in taken:
                    continue  # two boxes on one control make one mark
                taken.add(key)
                context = tuple(part["context"])
                if words_of_box and words_of_box != part["text"] and words_of_box not in context:
                    context = (*context, words_of_box)  # a row's words name the controls in it
                out.append(mark.model_copy(update={
                    "box": _box(part["box"]), "label": part["text"] or seen_as, "context": context[:4],
                    "ref": None, "role": "", "states": {}, "frame": "", "source": "vision",
                    "peers": tuple(_box(b) for b in part["peers"]), "pieces": tuple(part["pieces"])}))

        for mark in marks:
            got = bound.get(id(mark))
            if got is None or got["kind"] == "opaque":
                out.append(mark)
            elif got["kind"] == "bound":
                centre = bool(got.get("centre"))
                add(mark, got["parts"], "" if centre else mark.label,
                    mark.label if centre and len(got["parts"]) == 1 else "")
            # "inert": text that takes no click, not something to act on
        for s, got in zip(partly, found[len(loose):len(loose) + len(partly)]):
            base = Mark(number=0, box=s.box, label=s.label, confidence=s.confidence, source="vision")
            add(base, _not_listed(got.get("parts", []), out), s.label)
        for m, got in zip(linked, found[len(loose) + len(partly):]):
            base = Mark(number=0, box=m.box, label="", confidence=m.confidence, source="vision")
            add(base, _not_listed(got.get("parts", []), out), "")
        step.rec.hit_bound = sum(1 for m in out if m.ref is None and (m.context or m.peers))
        return [m.model_copy(update={"number": i}) for i, m in enumerate(out, 1)]
