"""The element map: what the agent is told is on the screen, built from a parsed dump.

Every interactive node the user can see and reach becomes an element (clickable, long-clickable,
checkable, editable, scrollable); the text of non-interactive nodes inside a control is folded into that
control's label, so a list row reads ``button "Wi-Fi · Connected"`` instead of three lines. Text that
belongs to no control stays as a ``text`` element. A control nested in an identical control (a clickable
wrapper around a clickable button of the same size) is one element.

Cap (200 by default): when a screen has more, elements are kept by priority, then reading order —

0. text fields (and the focused element), 1. labelled controls, 2. scroll containers,
3. controls with no label, 4. plain text, 5. keyboard keys (typing goes through the type action).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from relay_desktop.perception.element import Element
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.ids import Identity, assign_ids
from relay_desktop.perception.labels import clean, field_value, join_label, own_words, role_of, states_of
from relay_desktop.perception.ocr import OcrText, ocr_elements
from relay_desktop.perception.parse import parse_hierarchy
from relay_desktop.perception.tree import UINode, UITree, WindowKind
from relay_desktop.perception.visibility import Visibility, compute_visibility, tap_point

__all__ = ["MAX_ELEMENTS", "Element", "ElementMap", "build_element_map"]

MAX_ELEMENTS = 200
# Text inside a control bigger than this share of the screen is content, not the control's label
# (a full-screen clickable video would otherwise swallow every caption on the page).
_FOLD_MAX_SCREEN_SHARE = 0.5
_SAME_BOX_IOU = 0.9
_CONTAINER_ROLES = ("scroll", "pager", "web")


RECENT_IDENTITIES = 400     # elements of earlier screens an element can take its ID back from


@dataclass(eq=False)
class ElementMap:
    elements: list[Element]
    tree: UITree
    visibility: Visibility
    next_number: int = 1                      # where the next map continues numbering new elements
    keyboard: Bounds | None = None
    truncated: int = 0                        # elements left out by the cap
    # (id, identity) of elements of the few screens before this one that it does not show, newest first
    recent: tuple[tuple[str, Identity], ...] = ()
    _by_id: dict[str, Element] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {e.id: e for e in self.elements}

    @property
    def screen(self) -> Bounds:
        return self.tree.screen

    def get(self, element_id: str) -> Element | None:
        return self._by_id.get(element_id.strip().lower())

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.elements)

    def __len__(self) -> int:
        return len(self.elements)

    def interactive(self) -> list[Element]:
        return [e for e in self.elements if e.interactive]

    def find(self, text: str) -> list[Element]:
        """Elements whose label, value or hint contains ``text`` (case-insensitive)."""
        needle = text.casefold()
        return [e for e in self.elements if needle in f"{e.label}\n{e.value}\n{e.hint}".casefold()]

    def element_at(self, x: float, y: float) -> Element | None:
        """The smallest element whose visible bounds hold the point — what a click on the mirror selects."""
        hits = [e for e in self.elements if e.bounds.contains_point(x, y)]
        return min(hits, key=lambda e: e.bounds.area, default=None)


@dataclass(eq=False, slots=True)
class _Draft:
    primary: UINode
    merged: list[UINode] = field(default_factory=list)
    folded: list[UINode] = field(default_factory=list)
    nested: list[_Draft] = field(default_factory=list)
    folds: bool = True


def _iou(a: Bounds, b: Bounds) -> float:
    inter = a.intersect(b).area
    union = a.area + b.area - inter
    return inter / union if union else 0.0


def _specificity(node: UINode) -> int:
    return 2 if node.editable else 1 if node.checkable else 0


def _merges_into(node: UINode, owner: UINode) -> bool:
    """One control, not two: a switch or check box that only shows the state of the row that toggles it
    (Settings rows), or a control wrapped in a clickable of the same size."""
    if node.scrollable and not owner.scrollable:
        return False
    if not (node.clickable or node.long_clickable) and (node.checkable or node.editable):
        return owner.clickable
    return _iou(node.bounds, owner.bounds) >= _SAME_BOX_IOU


def _same_card(a: UINode, b: UINode, screen_area: int) -> bool:
    """Close relatives (sharing a parent or grandparent) inside a small, non-scrolling container."""
    ancestor = b.parent
    for _ in range(2):
        if ancestor is None or ancestor.scrollable or ancestor.bounds.area > _FOLD_MAX_SCREEN_SHARE * screen_area:
            return False
        if ancestor.is_ancestor_of(a):
            return True
        ancestor = ancestor.parent
    return False


def _collect(tree: UITree, vis: Visibility) -> list[_Draft]:
    drafts: list[_Draft] = []
    owner_of: list[_Draft | None] = [None] * len(tree.nodes)
    screen_area = tree.screen.area or 1
    for node in tree.nodes:
        owner = owner_of[node.parent.order] if node.parent is not None else None
        owner_of[node.order] = owner
        if not vis.visible(node):
            continue
        if node.interactive:
            if owner is not None and owner.folds and _merges_into(node, owner.primary):
                owner.merged.append(node)
                continue
            draft = _Draft(node)
            role = role_of(node)
            draft.folds = (role not in _CONTAINER_ROLES
                           and node.bounds.area <= _FOLD_MAX_SCREEN_SHARE * screen_area)
            if owner is not None:
                owner.nested.append(draft)
            drafts.append(draft)
            owner_of[node.order] = draft
        elif node.text or node.desc:
            last = drafts[-1] if drafts else None
            if owner is not None and owner.folds:
                owner.folded.append(node)
            elif (last is not None and not last.primary.interactive
                  and role_of(last.primary) == role_of(node) == "text"
                  and _same_card(last.folded[-1] if last.folded else last.primary, node, screen_area)):
                # Texts of one card read as one line: "Wall Clock · $32.99 · (841)".
                last.folded.append(node)
            else:
                drafts.append(_Draft(node, folds=False))
    return drafts


def _finish(draft: _Draft, tree: UITree, vis: Visibility) -> Element | None:
    node = draft.primary
    pieces = vis.pieces[node.order]
    if not pieces:
        return None
    # The most specific node names the role (a row holding a switch is a switch); taps go to the node
    # that takes them.
    role_node = max((node, *draft.merged), key=_specificity)
    role = role_of(role_node)
    value = field_value(role_node) if role_node.editable else ""
    words = own_words(node)
    for other in draft.merged:
        words.extend(own_words(other))
    for text_node in draft.folded:
        words.extend(own_words(text_node))
    label = join_label(words)
    hint = clean(role_node.hint) if role_node.editable else ""
    if role == "field" and label == hint:
        hint = ""
    flags = _merged_flags(role_node, [n for n in (node, *draft.merged) if n is not role_node])
    states = tuple(states_of(flags, role, value))
    avoid = [d.primary.bounds for d in draft.nested]
    tap = tap_point(pieces, avoid) or node.bounds.center
    window = tree.windows[node.window].kind
    interactive = node.interactive or any(n.interactive for n in draft.merged)
    bounds = tree.on_screen(node.bounds)
    # The visible part the tap lands in (the tap may avoid nested controls in the largest part).
    visible = next((p for p in pieces if p.contains_point(*tap)), max(pieces, key=lambda p: p.area))
    if window is WindowKind.KEYBOARD:
        priority = 5
    elif role == "field" or role_node.focused:
        priority = 0
    elif interactive and role in _CONTAINER_ROLES:
        priority = 2
    elif interactive:
        priority = 1 if label else 3
    else:
        priority = 4
    return Element("", role, label, value, hint, states, bounds, visible, tap, node,
                   (node, *draft.merged, *draft.folded), window, interactive, priority)


def _merged_flags(node: UINode, merged: list[UINode]) -> UINode:
    if not merged:
        return node
    # States of the wrapper and the wrapped button describe one control; any "on" flag is the control's.
    return replace(node, checked=node.checked or any(m.checked for m in merged),
                   selected=node.selected or any(m.selected for m in merged),
                   checkable=node.checkable or any(m.checkable for m in merged),
                   children=[], parent=None)


def build_element_map(source: UITree | str | bytes, previous: ElementMap | None = None, *,
                      max_elements: int = MAX_ELEMENTS, keyboard: Bounds | None = None,
                      ocr: Sequence[OcrText] = ()) -> ElementMap:
    """The element map of a dump (text, bytes or a parsed tree).

    ``previous``: the last step's map, so unchanged elements keep their IDs. ``keyboard``: the keyboard's
    area when the dump has no keyboard window but the device says one is shown. ``ocr``: lines read from the
    screenshot (in screen pixels); those the dump does not show become text elements (perception/ocr.py).
    """
    tree = source if isinstance(source, UITree) else parse_hierarchy(source)
    vis = compute_visibility(tree, keyboard)
    elements = [e for e in (_finish(d, tree, vis) for d in _collect(tree, vis)) if e is not None]
    if ocr:
        # Appended after the dump's elements, so the stable sort below puts each right after the node it is in.
        elements += ocr_elements(ocr, tree, keyboard)
    layer = {w.index: (w.kind.layer, w.index) for w in tree.windows}
    elements.sort(key=lambda e: (layer[e.node.window], e.node.order))
    truncated = 0
    if len(elements) > max_elements:
        ranked = sorted(range(len(elements)), key=lambda i: (elements[i].priority, i))
        keep = set(ranked[:max_elements])
        truncated = len(elements) - max_elements
        elements = [e for i, e in enumerate(elements) if i in keep]
    old = [(e.id, e.identity) for e in previous.elements] if previous is not None else []
    shown = {element_id for element_id, _ in old}
    earlier = [(i, identity) for i, identity in (previous.recent if previous is not None else ()) if i not in shown]
    ids, next_number = assign_ids([e.identity for e in elements], old + earlier,
                                  previous.next_number if previous is not None else 1)
    for element, element_id in zip(elements, ids, strict=True):
        element.id = element_id
    keyboard_area = keyboard
    for window in tree.windows:
        if window.kind is WindowKind.KEYBOARD:
            keyboard_area = window.bounds
    taken = set(ids)
    recent = tuple((i, identity) for i, identity in old + earlier if i not in taken)[:RECENT_IDENTITIES]
    return ElementMap(elements, tree, vis, next_number, keyboard_area, truncated, recent)
