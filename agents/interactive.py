"""The one in-page definition of an interactive element: the CSS selectors every JS walker builds on
(snapping's owner at a point, the fingerprint's control set, the synthetic reader's regions)."""

from __future__ import annotations

import json

# A control in its own right: what a user acts on. Links with a target, native form controls and
# disclosure summaries; anything a page gave an ARIA role, a click handler attribute or a tab stop;
# and an editable region (a rich-text editor is a text field even without role="textbox"), but not
# an island a page marked contenteditable="false" inside one (a mention chip, a widget).
# The aria-snapshot side of the same notion is agents/roles.py's INTERACTIVE_ROLES.
INTERACTIVE = ('a[href],button,input,select,textarea,summary,[role],[onclick],[tabindex],'
               '[contenteditable]:not([contenteditable=false i])')

# What can hold the keyboard focus: the same controls narrowed to tab stops (a tabindex of -1 is
# focusable by script only), for what acts by keys (agents/stepper.py).
FOCUSABLE = ('a[href],button,input,select,textarea,summary,[tabindex]:not([tabindex="-1"]),'
             '[contenteditable]:not([contenteditable=false i])')

# Where a click does something: a control, or a <label>, which forwards the click to its control
# (clicking "Remember me" ticks the box) though it is not a control of its own: a walker that
# lists controls (the fingerprint, the synthetic reader's regions) leaves it out, since its text
# is already its control's name or caption. The synthetic reader counts these in a row's parent:
# a row with at most two places to click is drawn as one compound row.
CLICKABLE = INTERACTIVE + ",label"

# The owner of a click at a point (snapping): where a click does something, or an <option> of a
# list box drawn in the page (<select multiple>, size > 1), the part a click must land on: its
# <select>'s centre is another option. Elsewhere an option is part of its select (the select's
# value holds the choice; in a closed dropdown it has no box at all) and is not counted.
CLICK_OWNER = CLICKABLE + ",option"

# What a person would call a button of a popup or a layer (agents/interruptions.py, agents/uncover.py),
# and the name such a button goes by there: its text, value or label, spaces collapsed, 60 characters.
BUTTONS = "button,[role=button],input[type=button],input[type=submit],a[href],[onclick]"
BUTTON_NAME_JS = r"""(el) => (el.textContent || el.value || el.getAttribute('aria-label') || '')
  .replace(/\s+/g, ' ').trim().slice(0, 60)"""

# The element on top at an element's centre (through its own shadow root), or null when the
# element has no box or its centre lies outside the viewport: a JS function expression, for the
# checks that ask whether a target is reachable there (agents/act.py, agents/uncover.py).
CENTRE_HIT_JS = """(el) => {
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return null;
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return null;
  const root = el.getRootNode();
  return (root.elementFromPoint ? root : document).elementFromPoint(x, y);
}"""

# Whether an element is drawn at all: a JS function expression, `(el) => true` when it is not
# (hidden, or inside a box faded to opacity 0, which keeps it in the document, the accessibility
# tree and the hit test). An element whose own opacity is 0 in a drawn parent counts as drawn: it
# stands over what the page draws for it (a tick box's square, a styled file button), the way
# design systems build such controls. Content the browser lays out but skips drawing (a closed
# <details>' content, anything under `content-visibility: hidden`) is not drawn either: it has
# boxes, but nothing of it is on the screen. Used by the synthetic reader and agents/undrawn.py.
UNDRAWN_JS = """(el) => {
  if (getComputedStyle(el).visibility === "hidden") return true;
  if (el.checkVisibility && !el.checkVisibility()) return true;  // no box, or skipped content
  const root = el.getRootNode();
  const parent = el.parentElement || (root instanceof ShadowRoot ? root.host : null);
  return !!parent && !!parent.checkVisibility && !parent.checkVisibility({ opacityProperty: true });
}"""

# Whether a person can see an element: not hidden, not faded to opacity 0 with what holds it
# (a dialog kept in the page unseen until it is shown). Unlike UNDRAWN_JS, an element's own
# opacity counts too: a button is pressed where it is seen, not where the page draws for it.
DRAWN_JS = "(el) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true })"

_PLACEHOLDERS = {"__INTERACTIVE__": INTERACTIVE, "__CLICKABLE__": CLICKABLE,
                 "__CLICK_OWNER__": CLICK_OWNER, "__BUTTONS__": BUTTONS}


def inject(js: str) -> str:
    """`js` with each placeholder (__INTERACTIVE__, __CLICKABLE__, __CLICK_OWNER__, __BUTTONS__) replaced by its
    selector as a JS string literal, __UNDRAWN__ by the function `UNDRAWN_JS`, __DRAWN__ by
    `DRAWN_JS` and __BUTTON_NAME__ by `BUTTON_NAME_JS`."""
    for name, selector in _PLACEHOLDERS.items():
        js = js.replace(name, json.dumps(selector))
    return js.replace("__UNDRAWN__", UNDRAWN_JS).replace("__DRAWN__", DRAWN_JS) \
        .replace("__BUTTON_NAME__", BUTTON_NAME_JS)


def as_json(js: str) -> str:
    """A JS function of one argument whose (plain data) result comes back as one JSON string, for
    `json.loads`: Playwright sends an object as a tree of typed nodes that its client checks node
    by node, which for a reading of a few hundred boxes costs more of the agent's time than the
    reading itself (a string is one node; measured in docs/performance.md). Undefined members
    are left out, as Playwright's None would be read with `.get`; numbers must be finite."""
    return f"(arg) => JSON.stringify(({js})(arg))"
