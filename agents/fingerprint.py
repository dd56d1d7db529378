"""Composite page fingerprint: the evidence that the page still agrees with what was perceived.

Parts (each hashed with xxhash: xxHash32 in the page, so only digests leave it; each recorded per
step so a cache miss names the part that moved):
- dom: the interactive element set (tag, role, type, name, checked/expanded/pressed/disabled), in
  order; volatile ids and class names are left out on purpose.
- text: the rendered text, the scroll position (the window's, and a count of scrolls inside the
  page: a list or strip that scrolled shows other things where the cached boxes were) and where
  the controls in view are drawn (so a layout shift under cached boxes is a miss). On a page
  about one viewport tall, the whole body's text; on a longer page, the text in view (what vision saw): the elements in view that
  fit about one viewport, found going down from <body> without entering what is out of view.
  Rendering the whole text of a 40,000-element page was the largest part of a step's reading, and
  a change far below the fold moves no box in view. Such a change still counts as an action's
  effect: `changes`, below. (Not seen: text drawn in view by a fixed-position element whose
  container is wholly out of view.)
- frames: content of same-origin frames; src and geometry of cross-origin ones, plus their
  content read through Playwright's own Frame handles (the page's scripts cannot read it).
- url: the top document's URL.
- values: what form fields and editing hosts (contenteditable) hold. Typing changes it; it proves an
  effect but does not move targets, so it is not part of the gating key.
Plus the mutation delta between two fingerprints: nodes added or removed (a MutationObserver
installed before page scripts) as a share of the document; and `changes`, the count of node and
text mutations, which tells the validator that a long page changed outside the text part's view.

The same walk indexes the viewport for agents/viewport_scope.py: which containers hold the controls
in view, and what the controls outside it are called."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import xxhash
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from agents.editing_hosts import Host
from agents.frames import REACHABLE_JS
from agents.interactive import inject

# One walk: interactive signatures (top document, open shadow roots, same-origin frames), the
# rendered text, the scroll position, and cross-origin frames' src + geometry.
# Counts nodes added to or removed from the document (and open shadow roots reached by them),
# installed before any page script runs; attribute churn (volatile ids, classes) is not counted.
# Also counts node and text changes (records), for `changes`.
MUTATION_COUNTER_JS = r"""
(() => {
  window.__gbMutations = 0;
  window.__gbChanges = 0;
  // Scrolls of elements (a list, a strip, a panel) move what is in view without moving the
  // window's scroll position: counted, so the text part changes with them.
  window.__gbInnerScrolls = 0;
  document.addEventListener("scroll", (e) => { if (e.target !== document) window.__gbInnerScrolls += 1; },
                            { capture: true, passive: true });
  const observer = new MutationObserver((records) => {
    window.__gbChanges += records.length;
    for (const r of records) window.__gbMutations += r.addedNodes.length + r.removedNodes.length;
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
  // The change log: which elements changed in which delivery of a second observer (attributes
  // too, shadow roots as they are attached), pruned to the newest deliveries (`floor`: the
  // newest pruned). The walk below reads it: what changed since an earlier fingerprint, and
  // whether every change since was made by an element known to change by itself.
  const log = { seq: 0, entries: [], floor: 0, takes: new Map(), take: 0,
                doc: Math.random().toString(36).slice(2) };
  const elementOf = (node) => !node ? null : node.nodeType === 1 ? node : node.nodeType === 11 ? node.host
    : node.parentElement || (node.parentNode && node.parentNode.host) || null;
  const note = (records) => {
    if (!records.length) return;
    log.seq += 1;
    const seen = new Set();
    for (const r of records) {
      const el = elementOf(r.target);
      if (el && !seen.has(el)) { seen.add(el); log.entries.push(log.seq, el); }
    }
    if (log.entries.length > 8000) {
      log.floor = log.entries[3998];
      log.entries = log.entries.slice(4000);
    }
  };
  const logger = new MutationObserver(note);
  const all = { subtree: true, childList: true, characterData: true, attributes: true };
  logger.observe(document, all);
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    logger.observe(root, all);
    return root;
  };
  Object.defineProperty(window, "__gbLog", { value: { state: log, flush: () => note(logger.takeRecords()) } });
})();
"""

# xxHash32 (seed 0) of a string's UTF-8 bytes, run in the page so that only digests cross the
# wire: shipping the parts themselves (a megabyte of text at 40,000 elements) costs more than the
# walk. Checked against the xxhash library in tests/test_fingerprint.py.
XXH32_JS = r"""
(str) => {
  const b = new TextEncoder().encode(str), n = b.length;
  const P1 = 2654435761, P2 = 2246822519, P3 = 3266489917, P4 = 668265263, P5 = 374761393;
  const rotl = (x, r) => (x << r) | (x >>> (32 - r));
  const rd = (p) => b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24);
  const round = (acc, v) => Math.imul(rotl((acc + Math.imul(v, P2)) | 0, 13), P1);
  let i = 0, h;
  if (n >= 16) {
    let v1 = (P1 + P2) | 0, v2 = P2 | 0, v3 = 0, v4 = (0 - P1) | 0;
    for (; i + 16 <= n; i += 16) {
      v1 = round(v1, rd(i)); v2 = round(v2, rd(i + 4)); v3 = round(v3, rd(i + 8)); v4 = round(v4, rd(i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = P5 | 0;
  }
  h = (h + n) | 0;
  for (; i + 4 <= n; i += 4) h = Math.imul(rotl((h + Math.imul(rd(i), P3)) | 0, 17), P4);
  for (; i < n; i++) h = Math.imul(rotl((h + Math.imul(b[i], P5)) | 0, 11), P1);
  h ^= h >>> 15; h = Math.imul(h, P2); h ^= h >>> 13; h = Math.imul(h, P3); h ^= h >>> 16;
  return (h >>> 0).toString(16).padStart(8, "0");
}
"""

_WALK_JS = inject(r"""
(since) => {
  const xxh = __XXH32__;
  const SEL = __INTERACTIVE__;  // agents/interactive.py: controls only (no label, no option)
  const sigs = [], values = [], frames = [], layout = [], offscreen = [], editables = [];
  const rects = new Map();  // controls in view (top document) -> where drawn
  let mutations = window.__gbMutations ?? -1;
  const vw = innerWidth, vh = innerHeight;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 60);
  const meets = (r) => r.bottom > 0 && r.top < vh && r.right > 0 && r.left < vw && r.width > 0;
  // Scope roots: for each control in view, its largest light-DOM ancestor that still fits about
  // one viewport (a card, a toolbar, a dialog); below <body>, never <body> itself.
  const roots = new Set(), rootOf = new Map();
  const fits = (el) => { const r = el.getBoundingClientRect(); return r.height <= vh * 1.25 && r.width <= vw * 1.25; };
  const scopeRoot = (el) => {
    const path = [];
    let node = el, root = null;
    while (node) {
      if (rootOf.has(node)) { root = rootOf.get(node); break; }
      path.push(node);
      const host = node.parentNode instanceof ShadowRoot ? node.parentNode.host : null;
      const parent = host || node.parentElement;
      if (!parent || parent === document.body || parent === document.documentElement) { root = node; break; }
      if (!host && !(node.getRootNode() instanceof ShadowRoot) && !fits(parent)) { root = node; break; }
      node = parent;
    }
    while (root && root.getRootNode() instanceof ShadowRoot) root = root.getRootNode().host;
    for (const n of path) rootOf.set(n, root);
    return root;
  };
  const walk = (root, depth, frameInView, frameBox = null) => {
    // Controls straight from the selector engine (document order); the loop over every element
    // only looks for shadow roots and frames. (Testing each element against a set of the controls
    // cost a fifth of the walk at 40,000 elements.) A shadow root's or a frame's controls follow
    // the controls of the document that holds it.
    for (const el of root.querySelectorAll(SEL)) control(el, depth, frameInView, frameBox);
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot, depth, frameInView);
      if (el.tagName === "IFRAME") {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        const r = el.getBoundingClientRect();
        const inView = depth === 0 ? meets(r) : frameInView;
        if (inView && depth === 0) roots.add(scopeRoot(el));
        const geo = `${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)}`;
        if (doc && doc.body && depth < 4) {
          frames.push(`same:${geo}:${doc.getElementsByTagName("*").length}:${doc.body.innerText || ""}`);
          if (mutations >= 0 && (doc.defaultView?.__gbMutations ?? -1) >= 0) mutations += doc.defaultView.__gbMutations;
          walk(doc, depth + 1, inView, depth === 0 ? [r.left, r.top, r.width, r.height] : null);
          // a document in design mode is edited whole, without a contenteditable attribute
          if (depth === 0 && doc.designMode === "on") editables.push(editable(doc.body, [r.left, r.top, r.width, r.height]));
        } else {
          frames.push(`cross:${el.src}:${geo}`);
        }
      }
    }
  };
  function control(el, depth, frameInView, frameBox) {
    if (el.tagName === "IFRAME") return;  // a frame is read above, as a frame
    const tag = el.tagName;
    const field = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
    const label = norm(el.getAttribute("aria-label") || (field ? el.labels?.[0]?.textContent : el.textContent) ||
                       el.placeholder || el.title || "");
    sigs.push([tag, el.getAttribute("role") || "", el.type || "", label,
               el.checked ? 1 : 0, el.getAttribute("aria-expanded") || "", el.getAttribute("aria-checked") || "",
               el.getAttribute("aria-pressed") || "", el.disabled ? 1 : 0].join("|"));
    const editor = el.isContentEditable && !el.parentElement?.isContentEditable && el.getAttribute("role") === null;
    values.push(field ? el.value : editor ? el.innerText : "");
    if (editor && (depth === 0 || frameBox)) editables.push(editable(el, frameBox));
    if (depth === 0) {
      // Where the controls in view are drawn: a layout shift moves cached boxes off them.
      const r = el.getBoundingClientRect();
      if (meets(r)) {
        layout.push(`${Math.round(r.left / 4)},${Math.round(r.top / 4)}`);
        rects.set(el, [r.left, r.top, r.width, r.height]);
        roots.add(scopeRoot(el));
      } else if (label) {
        offscreen.push(label);
      }
    } else if (!frameInView && label) {
      offscreen.push(label);
    }
  }
  // An editing host without a role (a rich-text editor, an inline-editable value): where it is
  // drawn, what it is named (aria-label, aria-labelledby, aria-placeholder; the placeholder a
  // style draws in it while it holds nothing, in its ::before or its first descendants'), and
  // whether it holds nothing. Playwright's snapshot calls it generic (agents/editing_hosts.py).
  // In a frame of the top document: also the frame's box, and whether the host is the frame's
  // whole document (an editor's <body>, as classic rich-text editors build theirs).
  function editable(el, frameBox) {
    const r = el.getBoundingClientRect();
    const empty = !el.textContent.trim();
    const drawn = (e) => {
      for (const pseudo of ["::before", "::after"]) {
        const c = getComputedStyle(e, pseudo).content;
        if (c && c.startsWith('"')) return c.slice(1, -1).replace(/\\(.)/g, "$1");
      }
      return "";
    };
    let placeholder = "";
    for (let e = el, i = 0; empty && e && i < 3 && !placeholder; e = e.firstElementChild, i++) placeholder = drawn(e);
    const by = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean)
      .map((id) => el.getRootNode().getElementById?.(id)?.textContent || "").join(" ");
    return [r.left, r.top, r.width, r.height,
            norm(el.getAttribute("aria-label") || by || el.getAttribute("aria-placeholder") || placeholder || el.title), empty,
            frameBox, el === el.ownerDocument.body || el === el.ownerDocument.documentElement];
  }
  walk(document, 0, true);
  // Locators for the scope roots: an XPath of child positions from the root element (native
  // lookup, light DOM only; a CSS locator would make Playwright walk every shadow root).
  const pathOf = (el) => {
    const parts = [];
    for (let n = el; n && n !== document.documentElement; n = n.parentElement)
      parts.unshift(`*[${Array.prototype.indexOf.call(n.parentElement.children, n) + 1}]`);
    return "xpath=/*/" + parts.join("/");
  };
  const kept = [...roots].filter((r) => r && ![...roots].some((o) => o !== r && o && o.contains(r)));
  const small = document.documentElement.scrollHeight <= vh * 1.25 && document.documentElement.scrollWidth <= vw * 1.25;
  // A long page: the text in view, not the whole body (see the docstring). Down from <body>, each
  // element in view that fits about one viewport gives its rendered text; a larger one is entered;
  // an element out of view is skipped with everything in it.
  const viewText = () => {
    const out = [];
    const visit = (el) => {
      for (const node of el.childNodes) {
        if (node.nodeType === 3) { if (node.data.trim()) out.push(node.data.trim()); continue; }
        if (node.nodeType !== 1) continue;
        const r = node.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) {
          // No box: its children are drawn only for display: contents (not for hidden ones,
          // scripts and styles, which have no rendered text).
          if (getComputedStyle(node).display === "contents") visit(node);
        } else if (!meets(r)) continue;
        else if (r.height <= vh * 1.25 && r.width <= vw * 1.25) out.push(node.innerText ?? "");
        else visit(node);
      }
    };
    visit(document.body);
    return out.join("\n");
  };
  const text = !document.body ? "" : small ? document.body.innerText : viewText();
  const place = `@${Math.round(scrollX)},${Math.round(scrollY)},${window.__gbInnerScrolls ?? 0}\n${layout.join(";")}`;
  // The change log (MUTATION_COUNTER_JS), top document only: frames keep logs of their own.
  const L = !frames.length && window.__gbLog ? window.__gbLog : null;
  let take = -1, ambient = null, regions = null;
  if (L) {
    L.flush();
    const log = L.state, entries = log.entries;
    take = ++log.take;
    log.takes.set(take, { seq: log.seq, place, rects });
    for (const k of log.takes.keys()) {
      if (log.takes.size <= 16) break;
      if (k !== since) log.takes.delete(k);
    }
    // With agents/ambient_key.py: the last delivery that changed an element not known (by now)
    // to change by itself. A key taken at delivery `seq` holds but for those while quiet <= seq.
    const A = window.__gbKeyAmbient && window.__gbAmbient?.isAmbient ? window.__gbAmbient : null;
    if (A) {
      A.sync();
      let quiet = log.floor;
      for (let i = entries.length - 2; i >= 0; i -= 2) {
        if (!A.isAmbient(entries[i + 1])) { quiet = entries[i]; break; }
      }
      ambient = [log.doc, log.seq, quiet];
    }
    // Since an earlier take (agents/region_scope.py): where the page changed, as boxes in the
    // viewport. Elements changed since (not the ambient ones), each where it is drawn now (or its
    // nearest ancestor drawn, for one now hidden); controls in view that moved (both places),
    // appeared or went. Unknown (null) when that take or the log since it is gone, or the view
    // scrolled.
    const then = since == null ? null : log.takes.get(since);
    if (then && then.seq >= log.floor && then.place.split("\n")[0] === place.split("\n")[0]) {
      const boxes = [];
      const add = (r) => { if (r[2] > 0 && r[3] > 0) boxes.push(r.map(Math.round)); };
      const changed = new Set();
      for (let i = entries.length - 2; i >= 0 && entries[i] > then.seq; i -= 2) changed.add(entries[i + 1]);
      for (let el of changed) {
        if (A && A.isAmbient(el)) continue;
        if (!el.isConnected) continue;  // gone: its parent's change holds its place
        let r = el.getBoundingClientRect();
        while (r.width === 0 && r.height === 0 && el.parentElement) { el = el.parentElement; r = el.getBoundingClientRect(); }
        if (meets(r)) add([r.left, r.top, r.width, r.height]);
      }
      const near = (a, b) => Math.abs(a[0] - b[0]) <= 2 && Math.abs(a[1] - b[1]) <= 2 &&
        Math.abs(a[2] - b[2]) <= 2 && Math.abs(a[3] - b[3]) <= 2;
      for (const [el, r] of then.rects) {
        const now = rects.get(el);
        if (!now) add(r);
        else if (!near(r, now)) { add(r); add(now); }
      }
      for (const [el, r] of rects) if (!then.rects.has(el)) add(r);
      regions = boxes.slice(0, 200);
    }
  }
  // One string back: Playwright serialises a large object field by field.
  return JSON.stringify({
    dom: xxh(sigs.join("\n")), values: xxh(values.join("\x1f")), frames: xxh(frames.join("\n")),
    text: xxh(`${text}\n${place}`), place: xxh(place),
    take, ambient, regions,
    bodyText: xxh(text), cross: frames.some((f) => f.startsWith("cross:")),
    url: location.href, mutations, size: document.getElementsByTagName("*").length,
    changes: window.__gbChanges ?? -1, textScope: small ? "document" : "view",
    scopes: small ? null : kept.map(pathOf), offscreen: [...new Set(offscreen)], editables,
    framed: small ? [] : kept.filter((r) => r.tagName === "IFRAME" || r.querySelector("iframe")).map(pathOf) });
}
""".replace("__XXH32__", XXH32_JS.strip()))

PARTS = ("dom", "text", "frames", "url")


@dataclass(frozen=True)
class Fingerprint:
    dom: str
    text: str
    frames: str
    url: str
    values: str
    mutations: int  # nodes added or removed in this document so far (-1: no counter installed)
    size: int  # elements in the document
    # The viewport index the same walk collects (not part of the page's identity):
    # locators of the containers that hold every control in view (None: the document fits about
    # one viewport, read it whole), and the labels of the controls outside the viewport.
    scopes: tuple[str, ...] | None = field(default=None, compare=False)
    offscreen: tuple[str, ...] = field(default=(), compare=False)
    framed: frozenset[str] = field(default=frozenset(), compare=False)  # scopes holding an iframe
    # "document": `text` covers the whole body; "view": only the text in view (a long page).
    text_scope: str = field(default="document", compare=False)
    changes: int = field(default=-1, compare=False)  # node and text mutation records (-1: no counter)
    # Where the view is: the scroll positions and where the controls in view are drawn (in `text`).
    place: str = field(default="", compare=False)
    # The page's change log (top document; none with frames): this fingerprint's number, and
    # with agents/ambient_key.py (document, delivery counter when taken, the last delivery that
    # changed an element not known to change by itself).
    take: int = field(default=-1, compare=False)
    ambient: tuple[str, int, int] | None = field(default=None, compare=False)
    # Asked for with `since` (an earlier fingerprint's `take`): where the page changed since, as
    # boxes in the viewport (x, y, width, height); None when unknown.
    since: int | None = field(default=None, compare=False)
    regions: tuple[tuple[int, int, int, int], ...] | None = field(default=None, compare=False)
    # The editing hosts without a role of the top document and its same-origin frames: text
    # fields the snapshot calls generic (agents/editing_hosts.py).
    editables: tuple[Host, ...] = field(default=(), compare=False)

    def changed_out_of_view(self, other: Fingerprint) -> bool:
        """A long page's nodes or text changed (possibly outside what `text` covers)."""
        return self.text_scope == "view" and self.url == other.url and \
            self.changes >= 0 and other.changes >= 0 and self.changes != other.changes

    def differs(self, other: Fingerprint) -> list[str]:
        """The parts that disagree, in a fixed order (empty when the page still agrees)."""
        return [p for p in PARTS if getattr(self, p) != getattr(other, p)]

    def only_ambient_since(self, earlier: Fingerprint) -> bool:
        """Every change to this document since `earlier` was taken was made by elements seen
        changing by themselves (a clock, a live count, known as such by now), and the view did not
        move: what such elements changed leaves the key, though the text part moved with them."""
        return self.ambient is not None and earlier.ambient is not None and \
            self.ambient[0] == earlier.ambient[0] and self.ambient[2] <= earlier.ambient[1] and \
            self.place == earlier.place and self.url == earlier.url

    def key_differs(self, earlier: Fingerprint, tolerance: float) -> str:
        """Why vision taken at `earlier` no longer describes this page: the first part that
        disagrees, `delta` (nodes replaced beyond `tolerance`), or "" — also when only
        ambient elements moved the text part or the nodes (see `only_ambient_since`)."""
        parts = earlier.differs(self)
        delta = earlier.delta(self) > tolerance
        if (parts == ["text"] or (not parts and delta)) and self.only_ambient_since(earlier):
            return ""
        return parts[0] if parts else "delta" if delta else ""

    def delta(self, other: Fingerprint) -> float:
        """Mutation delta (0..1): nodes added or removed between the two fingerprints, as a share
        of the document. A re-render that replaces the nodes with look-alikes moves it even when
        every hash part still agrees. Unknown (1.0) across documents or without the counter."""
        if self.url != other.url or self.mutations < 0 or other.mutations < 0:
            return 0.0 if self == other else 1.0
        return min(1.0, abs(other.mutations - self.mutations) / max(self.size, other.size, 1))


def _h(text: str) -> str:
    return xxhash.xxh64_hexdigest(text.encode("utf-8", "surrogatepass"))


async def take(page: Page, since: int | None = None) -> Fingerprint | None:
    """The page's fingerprint now, or None while the page is navigating; with `since` (the
    `take` of an earlier fingerprint of this document) also where the page changed since."""
    try:
        walked = await page.evaluate(_WALK_JS, since)
    except PlaywrightError:
        return None
    return await of_walk(page, walked, since)


# Whether this document changed since the fingerprint `take` (attributes too: the change log) or,
# without the log (a page with frames) or once that take is pruned, whether its node and text
# changes moved past the count the fingerprint saw. null: cannot tell.
_CHANGED_SINCE_JS = r"""([take, changes]) => {
  const L = window.__gbLog;
  if (L && take >= 0) {
    L.flush();
    const then = L.state.takes.get(take);
    if (then) return L.state.seq > then.seq;
  }
  return changes >= 0 && window.__gbChanges !== undefined ? window.__gbChanges !== changes : null;
}"""


def changed_since(fp: Fingerprint) -> tuple[str, Any]:
    """A read (for a round trip made anyway) of whether the page changed since `fp` was taken:
    True, False, or None when it cannot tell."""
    return _CHANGED_SINCE_JS, [fp.take, fp.changes]


def read(since: int | None = None) -> tuple[str, int | None]:
    """`take` as a read of the page that travels with another round trip (a settle's last wait):
    give what it read to `of_walk`, with the same `since`."""
    return _WALK_JS, since


async def of_walk(page: Page, walked: str, since: int | None = None) -> Fingerprint:
    """The fingerprint from what `read` gave (the frames a top document cannot reach are read
    here, each in its own round trip)."""
    raw = json.loads(walked)
    doms, values, frames = [raw["dom"]], [raw["values"]], [raw["frames"]]
    if raw["cross"]:
        for frame in page.frames[1:]:
            try:
                if await (await frame.frame_element()).evaluate(REACHABLE_JS):
                    continue
                inner = json.loads(await frame.evaluate(_WALK_JS))
            except PlaywrightError:
                continue
            doms.append(inner["dom"])
            values.append(inner["values"])
            frames.append(inner["bodyText"])
    return Fingerprint(
        dom=_h("\n".join(doms)),
        text=raw["text"],
        frames=_h("\n".join(frames)),
        url=raw["url"],
        values=_h("\n".join(values)),
        mutations=int(raw["mutations"]),
        size=int(raw["size"]),
        scopes=None if raw["scopes"] is None else tuple(raw["scopes"]),
        offscreen=tuple(raw["offscreen"]),
        framed=frozenset(raw["framed"]),
        text_scope=raw["textScope"],
        changes=int(raw["changes"]),
        place=raw["place"],
        take=int(raw["take"]),
        ambient=None if raw["ambient"] is None else (str(raw["ambient"][0]), int(raw["ambient"][1]),
                                                     int(raw["ambient"][2])),
        since=since,
        regions=None if raw["regions"] is None else tuple(tuple(int(v) for v in b) for b in raw["regions"]),
        editables=tuple(Host.of(raw_host) for raw_host in raw["editables"]),
    )
