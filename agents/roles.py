"""The role vocabulary of Playwright's aria snapshot as the agent reads it: which roles are
controls, which hold typed text, which carry no meaning of their own, whose caption stands before
them, and which containers are one record each (agents/observation.py, agents/surroundings.py)."""

from __future__ import annotations

# Roles of controls: what a user acts on.
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio", "switch", "slider",
    "spinbutton", "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
    "listbox", "gridcell", "columnheader",
})

# Fields whose snapshot text is what was typed into them.
HOLDS_TEXT = frozenset({"textbox", "searchbox", "spinbutton"})

# Roles of elements that carry no meaning of their own: made clickable by a page's script alone.
PLAIN_ROLES = frozenset({"generic", "paragraph", "listitem", "img", "cell", "text"})

# Controls whose caption stands before them (above, or left on the row), as forms place them;
# a checkbox's or a radio's stands after it.
FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})

# Containers that are one record each: a control inside one belongs to all of it (a table row's
# key cell, however far from the row's button; a list item's or a card's heading).
ROW_ROLES = frozenset({"row", "listitem", "article"})
