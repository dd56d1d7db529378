"""What stands around an element in the snapshot's tree, its context: the captions and pieces
beside it, nearest first, and in a record (a table row, a list item, a card) every piece of the
record up to it. Read once per element as a snapshot is parsed (agents/observation.py)."""

from __future__ import annotations

from agents.roles import FIELD_ROLES, INTERACTIVE_ROLES, ROW_ROLES

ROW_CONTEXT = 12  # the most pieces of a row kept as context


class Tree:
    """The parsed nodes with what the label helpers ask of them again and again: each node's
    children, its position among its siblings, and the labels already worked out (a row's pieces
    are read for every control of the row)."""

    def __init__(self, nodes: dict[str, dict], texts: dict[str, list[str]]) -> None:
        self.nodes, self.texts = nodes, texts
        self.children: dict[str, list[str]] = {}
        self.position: dict[str, int] = {}
        for ref, node in nodes.items():
            if node["parent_ref"]:
                kids = self.children.setdefault(node["parent_ref"], [])
                self.position[ref] = len(kids)
                kids.append(ref)
        self.labels: dict[tuple[str, int], str] = {}


# How far up a record (a table row, a list item, an article) may hold an element for its pieces
# to be the element's context (a card's footer button, two wrappers below the card's title).
RECORD_LEVELS = 4


def record_level(ref: str, tree: Tree) -> int:
    """How many levels up the nearest record holding the element is (0: none within RECORD_LEVELS)."""
    node_ref = ref
    for level in range(1, RECORD_LEVELS + 1):
        parent = tree.nodes[node_ref]["parent_ref"]
        if parent is None:
            return 0
        if tree.nodes[parent]["role"] in ROW_ROLES:
            return level
        node_ref = parent
    return 0


def nearby_labels(ref: str, tree: Tree, wanted: int = 4, levels: int = 3) -> list[str]:
    """What stands next to an element: its parent's text and the labels of the nearest
    non-interactive siblings (a card's heading, a row's caption); when nothing stands beside it
    (alone in a cell or wrapper), the same one level up (the row header beside the cell). In a
    record (a table row, a list item, a card) that is every piece of the record up to it, nearest
    first, however deep the element sits in it (a price beside a card's button does not stand for
    the card's title): the record is what the control acts on, and its key may sit at the far end."""
    nodes = tree.nodes
    out: list[str] = []
    node_ref = ref
    record = record_level(ref, tree)
    for level in range(1, max(levels, record) + 1):
        parent = nodes[node_ref]["parent_ref"]
        if parent is None:
            break
        out.extend(tree.texts.get(parent, ()))
        siblings = tree.children.get(parent, [])
        here = tree.position[node_ref]
        reach = len(siblings) if level <= record else wanted
        field = nodes[node_ref]["role"] in FIELD_ROLES
        for d in range(1, reach + 1):
            for j in (here - d, here + d):
                if not 0 <= j < len(siblings):
                    continue
                sib = nodes[siblings[j]]
                if sib["role"] in INTERACTIVE_ROLES or sib["role"] == "iframe":
                    continue
                if field and j + 1 != here and j + 1 < len(siblings) and nodes[siblings[j + 1]]["role"] in FIELD_ROLES:
                    continue  # a caption right before another field (the next, the one before) is that field's
                label = shown_label(siblings[j], tree)
                if label:
                    out.append(label)
        if out and level >= record:  # the nearest container that says something is the element's own
            return out[:ROW_CONTEXT if record else wanted + 2]
        node_ref = parent
    return out[:ROW_CONTEXT if record else wanted + 2]


def shown_label(ref: str, tree: Tree, depth: int = 3) -> str:
    """What a non-interactive element says: its name, or its text; when it shows neither, what its
    content says (Playwright leaves out a name its content repeats: a card's heading whose words
    are its link's, "heading [level=3]" over `link "Speckled Stoneware Mug"`). A link in it is read
    as text (a title, a person's name), a control of any other kind is not. A container's own
    words beside a heading of its own (a card's price under its title and its blurb) are only
    part of what it says: its elements' come first, the title leading."""
    known = tree.labels.get((ref, depth))
    if known is not None:
        return known
    nodes = tree.nodes
    node = nodes[ref]
    own = " ".join(tree.texts.get(ref, ()))
    label = node["name"] or node["text"] or own
    kids = tree.children.get(ref, ())
    titled = label == own and any(nodes[c]["role"] == "heading" for c in kids)
    if not (depth == 0 or node["name"] or (label and not titled)):
        parts = [part for c in kids if nodes[c]["role"] == "link" or nodes[c]["role"] not in INTERACTIVE_ROLES
                 if (part := shown_label(c, tree, depth - 1))]
        label = " ".join([*parts[:3], own] if own else parts[:3])
    tree.labels[ref, depth] = label
    return label
