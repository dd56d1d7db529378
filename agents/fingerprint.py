"""Composite page fingerprint: the evidence that the page still agrees with what was perceived.

Parts (each hashed with xxhash, each recorded per step so a cache miss names the part that moved):
- dom: the interactive element set (tag, role, type, name, checked/expanded/pressed/disabled), in
  order; volatile ids and class names are left out on purpose.
- text: the rendered text, the scroll position and where the controls in view are drawn (so a
  layout shift under cached boxes is a miss).
- frames: content of same-origin frames; src and geometry of cross-origin ones, plus their
  content read through Playwright's own Frame handles (the page's scripts cannot read it).
- url: the top document's URL.
- values: what form fields hold. Typing changes it; it proves an effect but does not move targets,
  so it is not part of the gating key.
Plus the mutation delta between two fingerprints: nodes added or removed (a MutationObserver
installed before page scripts) as a share of the document."""

from __future__ import annotations

from dataclasses import dataclass

import xxhash
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from agents.frames import REACHABLE_JS

# One walk: interactive signatures (top document, open shadow roots, same-origin frames), the
# rendered text, the scroll position, and cross-origin frames' src + geometry.
# Counts nodes added to or removed from the document (and open shadow roots reached by them),
# installed before any page script runs; attribute churn (volatile ids, classes) is not counted.
MUTATION_COUNTER_JS = r"""
(() => {
  window.__gbMutations = 0;
  const observer = new MutationObserver((records) => {
    for (const r of records) window.__gbMutations += r.addedNodes.length + r.removedNodes.length;
  });
  observer.observe(document, { subtree: true, childList: true });
})();
"""

_WALK_JS = r"""
() => {
  const SEL = "a[href],button,input,select,textarea,summary,[role],[onclick],[tabindex],[contenteditable]";
  const sigs = [], values = [], frames = [], layout = [];
  let mutations = window.__gbMutations ?? -1;
  const vw = innerWidth, vh = innerHeight;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 60);
  const walk = (root, depth) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot, depth);
      if (el.tagName === "IFRAME") {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        const r = el.getBoundingClientRect();
        const geo = `${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)}`;
        if (doc && doc.body && depth < 4) {
          frames.push(`same:${geo}:${doc.getElementsByTagName("*").length}:${doc.body.innerText || ""}`);
          if (mutations >= 0 && (doc.defaultView?.__gbMutations ?? -1) >= 0) mutations += doc.defaultView.__gbMutations;
          walk(doc, depth + 1);
        } else {
          frames.push(`cross:${el.src}:${geo}`);
        }
        continue;
      }
      if (!el.matches(SEL)) continue;
      const value = (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT") ? el.value : "";
      sigs.push([el.tagName, el.getAttribute("role") || "", el.type || "",
                 norm(el.getAttribute("aria-label") || el.innerText || el.placeholder || ""),
                 el.checked ? 1 : 0, el.getAttribute("aria-expanded") || "", el.getAttribute("aria-checked") || "",
                 el.getAttribute("aria-pressed") || "", el.disabled ? 1 : 0].join("|"));
      values.push(value);
      if (depth === 0) {
        // Where the controls in view are drawn: a layout shift moves cached boxes off them.
        const r = el.getBoundingClientRect();
        if (r.bottom > 0 && r.top < vh && r.right > 0 && r.left < vw && r.width > 0)
          layout.push(`${Math.round(r.left / 4)},${Math.round(r.top / 4)}`);
      }
    }
  };
  walk(document, 0);
  return { sigs: sigs.join("\n"), n: sigs.length, values: values.join("\x1f"),
           text: document.body ? document.body.innerText : "", layout: layout.join(";"),
           scroll: [Math.round(scrollX), Math.round(scrollY)], frames: frames.join("\n"),
           url: location.href, mutations,
           size: document.getElementsByTagName("*").length };
}
"""

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

    def differs(self, other: Fingerprint) -> list[str]:
        """The parts that disagree, in a fixed order (empty when the page still agrees)."""
        return [p for p in PARTS if getattr(self, p) != getattr(other, p)]

    def delta(self, other: Fingerprint) -> float:
        """Mutation delta (0..1): nodes added or removed between the two fingerprints, as a share
        of the document. A re-render that replaces the nodes with look-alikes moves it even when
        every hash part still agrees. Unknown (1.0) across documents or without the counter."""
        if self.url != other.url or self.mutations < 0 or other.mutations < 0:
            return 0.0 if self == other else 1.0
        return min(1.0, abs(other.mutations - self.mutations) / max(self.size, other.size, 1))


def _h(text: str) -> str:
    return xxhash.xxh64_hexdigest(text.encode("utf-8", "surrogatepass"))


async def take(page: Page) -> Fingerprint | None:
    """The page's fingerprint now, or None while the page is navigating."""
    try:
        raw = await page.evaluate(_WALK_JS)
    except PlaywrightError:
        return None
    sigs, values, frames = [raw["sigs"]], [raw["values"]], [raw["frames"]]
    if "cross:" in raw["frames"]:
        for frame in page.frames[1:]:
            try:
                if await (await frame.frame_element()).evaluate(REACHABLE_JS):
                    continue
                inner = await frame.evaluate(_WALK_JS)
            except PlaywrightError:
                continue
            sigs.append(inner["sigs"])
            values.append(inner["values"])
            frames.append(inner["text"])
    return Fingerprint(
        dom=_h("\n".join(sigs)),
        text=_h(f"{raw['text']}\n@{raw['scroll'][0]},{raw['scroll'][1]}\n{raw['layout']}"),
        frames=_h("\n".join(frames)),
        url=raw["url"],
        values=_h("\x1f".join(values)),
        mutations=int(raw["mutations"]),
        size=int(raw["size"]),
    )
