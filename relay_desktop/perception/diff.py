"""What changed between two steps' element maps — the prompt's "what changed" section.

Elements are matched by ID, so build the second map with ``previous=`` the first (IDs then follow the
elements). An element counts as changed when its label, value, states or position differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.render import element_line

__all__ = ["ElementChange", "ElementDiff", "diff_maps"]

# Moves smaller than this are layout jitter (a badge appearing nudges a label), not a change worth a line.
_MOVE_TOLERANCE = 8


@dataclass(frozen=True)
class ElementChange:
    before: Element
    after: Element
    fields: tuple[str, ...]   # "label", "value", "states", "bounds"

    @property
    def id(self) -> str:
        return self.after.id

    def describe(self) -> str:
        name = f'{self.after.id} {self.after.role} "{self.after.name}"'
        details = []
        if "label" in self.fields:
            details.append(f'label "{self.before.label}" → "{self.after.label}"')
        if "value" in self.fields:
            details.append(f'value "{self.before.value}" → "{self.after.value}"')
        if "states" in self.fields:
            before = " ".join(self.before.states) or "-"
            after = " ".join(self.after.states) or "-"
            details.append(f"{before} → {after}")
        if "bounds" in self.fields:
            details.append("moved")
        return f"{name}: {'; '.join(details)}"


@dataclass(frozen=True)
class ElementDiff:
    added: tuple[Element, ...] = ()
    removed: tuple[Element, ...] = ()
    changed: tuple[ElementChange, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def to_text(self, max_lines: int = 30) -> str:
        """``+`` added, ``-`` removed, ``~`` changed; long diffs end with a count of what was left out."""
        if self.empty:
            return "nothing changed"
        lines = [f"+ {element_line(e)}" for e in self.added]
        lines += [f"- {element_line(e)}" for e in self.removed]
        lines += [f"~ {c.describe()}" for c in self.changed]
        if len(lines) > max_lines:
            hidden = len(lines) - max_lines
            lines = [*lines[:max_lines], f"… and {hidden} more changes"]
        return "\n".join(lines)


def _same_kind(a: Element, b: Element) -> bool:
    na, nb = a.node, b.node
    return (na.package, na.cls, na.resource_id) == (nb.package, nb.cls, nb.resource_id)


def _moved(a: Element, b: Element) -> bool:
    return max(abs(x - y) for x, y in zip(a.bounds, b.bounds, strict=True)) > _MOVE_TOLERANCE


def diff_maps(before: ElementMap, after: ElementMap) -> ElementDiff:
    old = {e.id: e for e in before.elements}
    new = {e.id: e for e in after.elements}
    # Numbering restarts on a new screen, so one ID may name two unrelated elements: that is a removal and
    # an addition, not a change.
    same = {i for i, e in new.items() if i in old and _same_kind(old[i], e)}
    added = tuple(e for e in after.elements if e.id not in same)
    removed = tuple(e for e in before.elements if e.id not in same)
    changed = []
    for element in after.elements:
        if element.id not in same:
            continue
        previous = old[element.id]
        fields = []
        if previous.label != element.label:
            fields.append("label")
        if previous.value != element.value:
            fields.append("value")
        if previous.states != element.states:
            fields.append("states")
        if _moved(previous, element):
            fields.append("bounds")
        if fields:
            changed.append(ElementChange(previous, element, tuple(fields)))
    return ElementDiff(added, removed, tuple(changed))
