"""Observe stage: Playwright aria snapshots (mode "ai", with boxes) parsed into typed elements.

An observation reads either the whole document (one `page.aria_snapshot`) or only the containers
that hold what is in view (one `locator.aria_snapshot` per scope, see agents/viewport_scope.py),
so its cost follows the viewport instead of the document.

Refs (`e12`, `f1e3`) belong to the observation that produced them; `RefBook` enforces that.
Playwright resolves `aria-ref=` against the last snapshot taken in a frame and keeps an element's
ref while its role and name hold, so a ref from an earlier scope of the same observation is made
current again by re-reading that scope (`live`), which also proves it still exists."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Locator, Page
from pydantic import BaseModel, ConfigDict

from agents.roles import HOLDS_TEXT, INTERACTIVE_ROLES, PLAIN_ROLES
from agents.surroundings import ROW_CONTEXT, Tree, nearby_labels
from tasks.text_match import words

_LINE = re.compile(
    r'^(?P<indent>\s*)- (?P<role>[a-zA-Z]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?P<attrs>(?: \[[^\]]*\])*)'
    r'(?::\s*(?P<text>.*))?$'
)
_ATTR = re.compile(r"\[([a-z-]+)(?:=([^\]]*))?\]")


class Box(BaseModel):
    model_config = ConfigDict(frozen=True)
    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2

    @property
    def area(self) -> float:
        return max(self.width, 0) * max(self.height, 0)

    def meets(self, size: dict[str, int]) -> bool:
        """Whether some of the box lies in a viewport of this size ({"width", "height"})."""
        return self.x + self.width > 0 and self.y + self.height > 0 and self.x < size["width"] \
            and self.y < size["height"]


class Element(BaseModel):
    """One node of the aria snapshot that carries a ref."""

    model_config = ConfigDict(frozen=True)
    ref: str
    role: str
    name: str = ""
    text: str = ""
    box: Box | None = None  # relative to the viewport of the element's own frame
    states: dict[str, str] = {}
    depth: int = 0
    parent_ref: str | None = None
    context: tuple[str, ...] = ()  # names and texts of ancestors, nearest first
    frame: str = ""  # "" for the top document, else the ref prefix of the frame's content

    @property
    def interactive(self) -> bool:
        return self.role in INTERACTIVE_ROLES

    @property
    def clickable(self) -> bool:
        """A plain element the page made clickable without a role, as a careless page writes a
        dropdown or a list of choices (`<div tabindex=0>` and `<div onclick>`s): a pointer cursor
        starts on it (Playwright's snapshot marks where the cursor turns to a pointer, not the
        children that inherit it) and it says something of its own."""
        return self.role in PLAIN_ROLES and self.states.get("cursor") == "pointer" and bool(self.label)

    @property
    def target(self) -> bool:
        """What an action may be aimed at by the DOM alone: a control, or a plain clickable."""
        return self.interactive or self.clickable

    @property
    def label(self) -> str:
        """What the element goes by: its name or, without one, the text it shows; a text field's
        text is what it holds, which names nothing (a field holding "Available" beside "Status:"
        is the status field), so a text field goes by its name alone (its caption is context)."""
        return self.name if self.role in HOLDS_TEXT else self.name or self.text


class StaleRefError(LookupError):
    """A ref used against a page state other than the observation that produced it."""

    def __init__(self, ref: str, observation_id: int, current_id: int | None, why: str) -> None:
        self.ref, self.observation_id, self.current_id = ref, observation_id, current_id
        super().__init__(f"ref {ref} from observation {observation_id} is stale ({why}); "
                         f"current observation: {current_id}")


@dataclass
class Observation:
    id: int
    url: str
    elements: dict[str, Element]
    snapshot: str
    taken_at: float = field(default_factory=time.monotonic)
    cost_ms: float = 0.0
    # Viewport observations: the scope locator each ref was read from (empty: whole document),
    # and the scope Playwright's aria-ref lookup currently answers for.
    scopes: dict[str, str] = field(default_factory=dict)
    last_scope: str = ""

    @property
    def scope(self) -> str:
        return "viewport" if self.scopes else "document"

    def interactive(self) -> list[Element]:
        return [e for e in self.elements.values() if e.interactive]


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('\\"', '"')
    return text


def _unquote_key(line: str) -> str:
    """Playwright quotes a line's key YAML-style when the name holds ': ' —
    `- 'button "Sort by: Price" [ref=e5]'` — so the key is unquoted before matching."""
    stripped = line.lstrip()
    if not stripped.startswith("- '"):
        return line
    indent = line[: len(line) - len(stripped)]
    body = stripped[3:]
    i = 0
    while i < len(body):
        if body[i] == "'" and body[i + 1: i + 2] == "'":
            i += 2
            continue
        if body[i] == "'":
            return f"{indent}- {body[:i].replace(chr(39) * 2, chr(39))}{body[i + 1:]}"
        i += 1
    return line


def parse_snapshot(snapshot: str) -> dict[str, Element]:
    """Parse Playwright's YAML-like aria snapshot into elements keyed by ref, in document order.

    Boxes are as Playwright reports them: relative to the viewport of the element's own frame
    (placing frame content in the page is the snapper's job)."""
    nodes: dict[str, dict] = {}
    texts: dict[str, list[str]] = {}
    stack: list[tuple[int, str]] = []
    for line in snapshot.splitlines():
        m = _LINE.match(_unquote_key(line))
        if not m:
            continue
        indent = len(m["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent_ref = stack[-1][1] if stack else None
        attrs = dict(_ATTR.findall(m["attrs"] or ""))
        ref = attrs.pop("ref", None)
        if m["role"] == "text":
            if parent_ref:
                texts.setdefault(parent_ref, []).append(_unquote(m["text"] or ""))
            continue
        if ref is None:
            continue
        box = None
        if "box" in attrs:
            x, y, w, h = (float(v) for v in attrs.pop("box").split(","))
            box = Box(x=x, y=y, width=w, height=h)
        parent = nodes.get(parent_ref or "")
        nodes[ref] = {
            "ref": ref, "role": m["role"], "name": (m["name"] or "").replace('\\"', '"'),
            "text": _unquote(m["text"] or ""), "box": box,
            "states": {k: v or "true" for k, v in attrs.items()}, "depth": indent // 2,
            # Frame keys come from nesting, not from the ref text: Playwright may prefix even the
            # top document's refs (e.g. after a navigation), so "" is whatever holds the root.
            "parent_ref": parent_ref,
            "frame": (ref[: ref.rindex("e")] if parent["role"] == "iframe" else parent["frame"])
            if parent else "",
            "context": tuple(c for c in (parent["name"], *parent["context"]) if c)[:6] if parent else (),
        }
        stack.append((indent, ref))
    tree = Tree(nodes, texts)
    elements: dict[str, Element] = {}
    for ref, node in nodes.items():
        own = " ".join(texts.get(ref, ()))
        if own and not node["text"]:
            node["text"] = own
        node["context"] = (*nearby_labels(ref, tree), *node["context"])[:ROW_CONTEXT + 4]
        elements[ref] = Element(**node)
    return elements


# Disclosure widgets. Playwright's aria snapshot calls a <summary> `generic` (it names it from its
# content, but gives it no role and no expanded state), and when the summary wraps a heading it
# shows only the heading, so a section a person opens by its header is no control at all on the
# accessibility side. Each frame's summaries are read (their box in the frame's viewport, whether
# their <details> is open, their text) and the element the snapshot shows for each (the one whose
# box lies in the summary's and whose name is the summary's words, the outermost such) is given
# the role and the state the summary has for a person: a button, expanded or collapsed.
# <details> is a `group` in the snapshot: without one the page is not read.
SUMMARIES_JS = r"""() => {
  const out = [];
  const visit = (root) => {
    for (const s of root.querySelectorAll("details > summary")) {
      if (s.parentElement.querySelector(":scope > summary") !== s) continue;  // the first is the header
      const r = s.getBoundingClientRect();
      if (r.width > 0 && r.height > 0)
        out.push([r.x, r.y, r.width, r.height, s.parentElement.open, s.textContent.replace(/\s+/g, " ").trim()]);
    }
    for (const el of root.querySelectorAll("*")) if (el.shadowRoot) visit(el.shadowRoot);
  };
  visit(document);
  return out;
}"""


def mark_disclosures(elements: dict[str, Element], summaries: list[list[Any]]) -> dict[str, Element]:
    """`elements` with the element each summary shows (see SUMMARIES_JS) made a button, expanded
    when its <details> is open; `summaries`: [x, y, width, height, open, text] per summary."""
    out = dict(elements)
    for x, y, w, h, is_open, text in summaries:
        said = set(words(text))
        shown = [el for el in out.values() if el.role not in INTERACTIVE_ROLES and el.label
                 and box_within(el.box, x, y, w, h) and set(words(el.label)) <= said]
        if shown:
            el = max(shown, key=lambda e: e.box.area if e.box else 0.0)
            out[el.ref] = el.model_copy(update={"role": "button",
                                                "states": {**el.states, "expanded": str(bool(is_open)).lower()}})
    return out


def box_within(b: Box | None, x: float, y: float, w: float, h: float) -> bool:
    """Whether a box lies in another (x, y, w, h), give or take a pixel of rounding."""
    return b is not None and b.x >= x - 1 and b.y >= y - 1 and b.x + b.width <= x + w + 1 \
        and b.y + b.height <= y + h + 1


async def _summaries(page: Page) -> list[list[Any]]:
    """Every frame's summaries (SUMMARIES_JS), read together; a frame that cannot be read (gone,
    navigating) gives none."""
    got = await asyncio.gather(*(f.evaluate(SUMMARIES_JS) for f in page.frames if not f.is_detached()),
                               return_exceptions=True)
    return [s for each in got if isinstance(each, list) for s in each]


class RefBook:
    """Issues observation ids and refuses refs from any observation but the current, unspent one."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.current: Observation | None = None
        self._spent = False
        self._unwarmed: set[Frame] = set()

    def watch(self, page: Page) -> None:
        """Every document a frame of the page loads is warmed by the next `warm`."""
        page.on("framenavigated", lambda frame: self._unwarmed.add(frame))

    async def warm(self, timeout_s: float = 3.0) -> None:
        """Build Playwright's injected scripts in the frames that loaded a document since the last
        call: the utility world's, which aria snapshots run in, and the main world's, which
        `aria-ref=` evaluation runs in. A document builds each on its first use, 20-35 ms of the
        renderer's time apiece, which otherwise lies on the path of its first observation and its
        first resolved ref; the agent runs this while the page settles, where it overlaps the
        settle's quiet window. What fails or does not answer within `timeout_s` (a frame gone, a
        document replaced or frozen) is left alone: the next use builds the script, as it would
        have."""
        frames, self._unwarmed = self._unwarmed, set()
        works = [work for frame in frames if not frame.is_detached()
                 for work in (frame.locator(":root").count(), frame.eval_on_selector(":root", "() => 0"))]
        if works:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*works, return_exceptions=True), timeout_s)

    async def observe(self, page: Page, scopes: tuple[str, ...] | None = None,
                      framed: frozenset[str] = frozenset()) -> Observation:
        """Read the page: the whole document, or only the given scope containers (locators);
        `framed` names the scopes that hold an iframe."""
        t0 = time.perf_counter()
        reads: list = []
        if scopes:
            # Containers without frames are read together: the renderer runs the reads one after
            # another, the round trips overlap. Playwright drops a frame's content from reads that
            # overlap, so containers holding an iframe are read one by one, last.
            plain = [s for s in scopes if s not in framed]
            order = plain + [s for s in scopes if s in framed]
            reads = list(await asyncio.gather(*(self._read(page, s) for s in plain)))
            for scope in order[len(plain):]:
                reads.append(await self._read(page, scope))
            scopes = tuple(order)
        if not scopes or any(isinstance(read, PlaywrightError) for read in reads):
            # A container that went away between the walk and the read: the whole document.
            snapshot = await page.aria_snapshot(mode="ai", boxes=True)
            obs = Observation(id=next(self._ids), url=page.url, elements=parse_snapshot(snapshot),
                              snapshot=snapshot)
        else:
            elements: dict[str, Element] = {}
            owner: dict[str, str] = {}
            for scope, text in zip(scopes, reads):
                for ref, el in parse_snapshot(text).items():
                    elements.setdefault(ref, el)
                    owner.setdefault(ref, scope)
            # Which read ran last is known only when the last one ran alone.
            obs = Observation(id=next(self._ids), url=page.url, elements=elements,
                              snapshot="\n".join(reads), scopes=owner,
                              last_scope=scopes[-1] if scopes[-1] in framed or len(scopes) == 1 else "")
        if any(el.role == "group" for el in obs.elements.values()):
            obs.elements = mark_disclosures(obs.elements, await _summaries(page))
        obs.cost_ms = (time.perf_counter() - t0) * 1000
        self.current, self._spent = obs, False
        return obs

    @staticmethod
    async def _read(page: Page, scope: str) -> str | PlaywrightError:
        try:
            return await page.locator(scope).aria_snapshot(mode="ai", boxes=True, timeout=2000)
        except PlaywrightError as exc:
            return exc

    def resolve(self, ref: str, observation_id: int) -> Element:
        current = self.current
        if current is None or observation_id != current.id:
            raise StaleRefError(ref, observation_id, current.id if current else None,
                                "a newer observation exists")
        if self._spent:
            raise StaleRefError(ref, observation_id, current.id, "the page was acted on since")
        if ref not in current.elements:
            raise StaleRefError(ref, observation_id, current.id, "no such ref in that observation")
        return current.elements[ref]

    async def live(self, page: Page, ref: str, observation_id: int) -> Locator:
        """The live element behind a ref of the current, unspent observation."""
        self.resolve(ref, observation_id)
        assert self.current is not None
        return await live_locator(page, self.current, ref)

    async def evaluate(self, page: Page, ref: str, observation_id: int, js: str, arg: Any = None) -> Any:
        """A JS function of the live element behind a ref (and `arg`), run in the page in one round
        trip; raises PlaywrightError at once for an element that is gone (a ref names the element
        of one snapshot: waiting would not bring it back). A locator's `evaluate` takes three
        (wait for the element, evaluate, release the handle)."""
        self.resolve(ref, observation_id)
        assert self.current is not None
        await _read_scope(page, self.current, ref)
        return await page.eval_on_selector(f"aria-ref={ref}", js, arg, strict=True)

    def spend(self) -> None:
        """An action ran: the page may have changed, so the current observation's refs expire."""
        self._spent = True


async def live_locator(page: Page, obs: Observation, ref: str) -> Locator:
    """`aria-ref=` locator for a ref of `obs` (see `_read_scope`)."""
    await _read_scope(page, obs, ref)
    return page.locator(f"aria-ref={ref}")


async def _read_scope(page: Page, obs: Observation, ref: str) -> None:
    """For a viewport observation the ref's scope is read again when another scope was read
    last, so Playwright's lookup answers for it. A scope is known by its position in the
    document, so a page that moved its content since (a banner inserted above) may have put
    another container there, or none: the ref is then looked for in the whole document, where
    its element keeps its ref as long as it exists. A ref that is gone by then is stale."""
    scope = obs.scopes.get(ref)
    if scope is None or scope == obs.last_scope:
        return
    try:
        text = await page.locator(scope).aria_snapshot(mode="ai", boxes=True, timeout=1000)
    except PlaywrightError:
        text = ""  # no container there any more
    if f"[ref={ref}]" in text:
        obs.last_scope = scope
        return
    try:
        text = await page.aria_snapshot(mode="ai", boxes=True)
    except PlaywrightError as exc:
        raise StaleRefError(ref, obs.id, obs.id, "the page could not be read") from exc
    obs.last_scope = ""  # the document was read last: any scope is read again when asked for
    if f"[ref={ref}]" not in text:
        raise StaleRefError(ref, obs.id, obs.id, "no longer on the page")
