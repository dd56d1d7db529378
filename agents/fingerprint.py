"""Composite page fingerprint: the evidence that the page still agrees with what was perceived.

Parts (each hashed with xxhash, each recorded per step so a cache miss names the part that moved):
- dom: the interactive element set (tag, role, type, name, checked/expanded/pressed/disabled), in
  order; volatile ids and class names are left out on purpose.
- text: the rendered text plus the scroll position.
- frames: content of same-origin frames; src and geometry of cross-origin ones, plus their
  content read through Playwright's own Frame handles (the page's scripts cannot read it).
- url: the top document's URL.
- values: what form fields hold. Typing changes it; it proves an effect but does not move targets,
  so it is not part of the gating key.
Plus the mutation delta between two fingerprints: the share of interactive elements that changed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import xxhash
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from agents.frames import REACHABLE_JS

# One walk: interactive signatures (top document, open shadow roots, same-origin frames), the
# rendered text, the scroll position, and cross-origin frames' src + geometry.
_WALK_JS = r"""
() => {
  const SEL = "a[href],button,input,select,textarea,summary,[role],[onclick],[tabindex],[contenteditable]";
  const sigs = [], values = [], texts = [], frames = [];
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 60);
  const walk = (root, depth) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot, depth);
      if (el.tagName === "IFRAME") {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) {}
        const r = el.getBoundingClientRect();
        if (doc && doc.body && depth < 4) {
          texts.push(doc.body.innerText || "");
          walk(doc, depth + 1);
          frames.push("same:" + (doc.body.innerText || "").length + ":" + doc.querySelectorAll("*").length);
        } else {
          frames.push(`cross:${el.src}:${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)}`);
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
    }
  };
  walk(document, 0);
  texts.unshift(document.body ? document.body.innerText : "");
  return { sigs, values, text: texts.join("\n"), scroll: [Math.round(scrollX), Math.round(scrollY)], frames, url: location.href };
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
    elements: Counter
    n_elements: int

    def differs(self, other: Fingerprint) -> list[str]:
        """The parts that disagree, in a fixed order (empty when the page still agrees)."""
        return [p for p in PARTS if getattr(self, p) != getattr(other, p)]

    def delta(self, other: Fingerprint) -> float:
        """Mutation delta: share of interactive elements added, removed or changed (0..1)."""
        changed = sum(((self.elements - other.elements) + (other.elements - self.elements)).values())
        return changed / max(self.n_elements, other.n_elements, 1)


def _h(text: str) -> str:
    return xxhash.xxh64_hexdigest(text.encode("utf-8", "surrogatepass"))


async def take(page: Page) -> Fingerprint | None:
    """The page's fingerprint now, or None while the page is navigating."""
    try:
        raw = await page.evaluate(_WALK_JS)
    except PlaywrightError:
        return None
    sigs = list(raw["sigs"])
    values = list(raw["values"])
    frames = list(raw["frames"])
    if any(f.startswith("cross:") for f in frames):
        for frame in page.frames[1:]:
            try:
                if await (await frame.frame_element()).evaluate(REACHABLE_JS):
                    continue
                inner = await frame.evaluate(_WALK_JS)
            except PlaywrightError:
                continue
            sigs.extend(f"{frame.name}>{s}" for s in inner["sigs"])
            values.extend(inner["values"])
            frames.append(_h(inner["text"]))
    return Fingerprint(
        dom=_h("\n".join(sigs)),
        text=_h(f"{raw['text']}\n@{raw['scroll'][0]},{raw['scroll'][1]}"),
        frames=_h("\n".join(frames)),
        url=raw["url"],
        values=_h("\x1f".join(values)),
        elements=Counter(sigs),
        n_elements=len(sigs),
    )
