"""Sections: the control a plan names may sit in a section that is closed — a `<details>` whose
summary was not opened, a panel behind a button with `aria-expanded="false"`, a tab panel behind a
tab not selected — and the plan names the control, not the section ("Order number field" on a
help page whose Returns section is closed). A closed section's content is laid out but not drawn
and not in the accessibility snapshot, so nothing on the page fits, though the document holds it.

When nothing fits a subgoal, the agent reads what each closed section of each frame holds (the
controls' roles and names, one evaluate per frame), and when one of them fits the subgoal as well
as a drawn control would have to (the worker's own matching), it opens that section by its header
(a click on the header's mark), once per subgoal, and looks again, as a person opens the section
whose title promises the control. Recorded as `effect` `revealed: sections ...`. Cost: one
evaluate per frame on a step where nothing fits; nothing on other steps."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from agents.interactive import inject
from agents.marks import Mark
from agents.pipeline import Mechanism, Step
from agents.worker.base import PlanFollower
from tasks.text_match import words

# Each closed section of the document (open shadow roots included): the header a person opens it
# by (its text) and the controls it holds, [role, name] each. Names come from the markup (labels,
# aria-label, placeholder, text content): what is not drawn has no rendered text.
_CLOSED_JS = inject("""() => {
  const SELECTOR = __INTERACTIVE__;
  const norm = (s) => (s || "").replace(/\\s+/g, " ").trim().slice(0, 80);
  const roleOf = (el) => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(" ")[0];
    const tag = el.localName, type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "a") return "link";
    if (tag === "select") return "combobox";
    if (tag === "textarea") return "textbox";
    if (tag === "input") {
      if (type === "checkbox" || type === "radio") return type;
      if (type === "range") return "slider";
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      return type === "search" ? "searchbox" : "textbox";
    }
    return tag === "button" || tag === "summary" ? "button" : "";
  };
  const nameOf = (el, root) => {
    const by = (el.getAttribute("aria-labelledby") || "").split(/\\s+/)
      .map((id) => id && root.getElementById ? root.getElementById(id) : null).filter(Boolean);
    return norm(el.getAttribute("aria-label") || by.map((n) => n.textContent).join(" ")
                || (el.labels && el.labels[0] ? el.labels[0].textContent : "")
                || (["input", "textarea", "select"].includes(el.localName) ? "" : el.textContent)
                || el.getAttribute("placeholder") || el.getAttribute("title") || el.value || "");
  };
  const controls = (box, root, skip) => [...box.querySelectorAll(SELECTOR)]
    .filter((el) => !(skip && skip.contains(el)))
    .map((el) => [roleOf(el), nameOf(el, root)]).filter(([role, name]) => role && name);
  const out = [];
  const visit = (root) => {
    for (const d of root.querySelectorAll("details:not([open])")) {
      const summary = d.querySelector(":scope > summary");
      if (summary) out.push([norm(summary.textContent), controls(d, root, summary)]);
    }
    for (const h of root.querySelectorAll('[aria-expanded="false"][aria-controls], [role=tab][aria-selected="false"][aria-controls]')) {
      const role = h.getAttribute("role");
      if (role === "combobox" || (role || "").startsWith("menuitem")) continue;  // lists and menus: not sections
      const panels = h.getAttribute("aria-controls").split(/\\s+/)
        .map((id) => root.getElementById ? root.getElementById(id) : null).filter(Boolean);
      const held = panels.flatMap((p) => controls(p, root, null));
      if (held.length) out.push([nameOf(h, root), held]);
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
  };
  visit(document);
  return out;
}""")


class SectionsConfig(BaseModel):
    sections: bool = True


def _key(mark: Mark) -> str:
    return f"{mark.role}|{mark.label}"


def _closed_header(mark: Mark, header: str) -> bool:
    """The mark a person opens the section by: it says the header's words, and is not open."""
    return bool(header) and words(mark.label) == words(header) \
        and mark.states.get("expanded") != "true" and mark.states.get("selected") != "true"


class Sections(Mechanism):
    name = "sections"
    opens_by = "click"

    def __init__(self) -> None:
        self.opened: set[str] = set()

    def subgoal_done(self) -> None:
        self.opened.clear()

    async def opener(self, step: Step) -> Mark | None:
        worker = step.episode.worker
        if not isinstance(worker, PlanFollower):
            return None
        page = step.page
        read = await asyncio.gather(*(f.evaluate(_CLOSED_JS) for f in page.frames if not f.is_detached()),
                                    return_exceptions=True)
        closed = [section for got in read if isinstance(got, list) for section in got]
        for header, held in closed:
            opener = next((m for m in step.marks if _closed_header(m, header) and _key(m) not in self.opened),
                          None)
            if opener is None:
                continue
            inside = [Mark(number=i + 1, box=opener.box, label=name, role=role, context=(header,))
                      for i, (role, name) in enumerate(held)]
            if worker.match(step.subgoal, inside).reply is not None:
                self.opened.add(_key(opener))
                return opener
        return None
