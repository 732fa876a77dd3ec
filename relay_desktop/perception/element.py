"""One element of the element map: what the agent is told about one control or text on the screen.

Its own module so that the map's builders (the dump's walk in element_map.py, the text read from pixels in
ocr.py) can both make elements without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.ids import Identity
from relay_desktop.perception.labels import humanize_id
from relay_desktop.perception.tree import UINode, WindowKind

__all__ = ["Element"]


@dataclass(eq=False, slots=True)
class Element:
    id: str
    role: str
    label: str            # what the control says or shows, folded from its content when it says nothing itself
    value: str            # a field's text (empty when only the hint shows)
    hint: str
    states: tuple[str, ...]
    bounds: Bounds        # on-screen part of the node's bounds
    visible: Bounds       # largest part not covered by anything
    tap: tuple[int, int]  # where a tap reaches this element and nothing nested in it
    node: UINode
    sources: tuple[UINode, ...]   # every dump node this element stands for
    window: WindowKind
    interactive: bool
    priority: int

    @property
    def name(self) -> str:
        """The label, or failing that the resource id in words, for elements that show nothing."""
        return self.label or humanize_id(self.node.resource_id)

    @property
    def identity(self) -> Identity:
        # A field's label comes from its hint or description, never its typed value, so it stays put.
        label = self.label
        volatile = self.role == "field" or self.node.checkable or not self.label
        return Identity(self.node.package, self.node.cls, self.node.resource_id, label, self.bounds, volatile,
                        _row_key(self.sources[0]))

    def __repr__(self) -> str:
        return f"Element({self.id} {self.role} {self.name!r} {self.bounds.uiautomator()})"


def _row_key(node: UINode) -> str:
    """The first text of the list row a node is in ("" outside lists): what tells its row from the others."""
    row = node
    while row.parent is not None and not row.parent.scrollable:
        row = row.parent
    if row.parent is None:
        return ""
    return next((n.text or n.desc for n in row.walk() if n.text or n.desc), "")[:80]
