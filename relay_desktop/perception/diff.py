"""What changed between two steps' element maps — the prompt's "what changed" section.

Elements are matched by ID, so build the second map with ``previous=`` the first (IDs then follow the
elements). An element counts as changed when its label, value, states or position differ.

The text says what a person would notice, in as few lines as it takes: a screen that was mostly replaced
is one line (``new screen: "Display" (com.android.settings, 9 elements)``) — the element list shows what
is on it; the keyboard coming or going is one line, never one per key; the status bar (clock, battery)
is never worth a line.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.labels import MAX_LABEL, quote, shorten
from relay_desktop.perception.ocr import is_ocr, normalise
from relay_desktop.perception.render import element_line, in_system_bar
from relay_desktop.perception.screen import current_dialog, screen_title
from relay_desktop.perception.tree import WindowKind

__all__ = ["ElementChange", "ElementDiff", "diff_maps"]

# Moves smaller than this are layout jitter (a badge appearing nudges a label), not a change worth a line.
_MOVE_TOLERANCE = 8
# A screen counts as replaced when more than this share of its elements (before and after together) came
# or went, and listing them would take at least _MIN_REPLACED lines: a small screen is cheaper to list.
_REPLACED_SHARE = 0.6
_MIN_REPLACED = 8


@dataclass(frozen=True)
class ElementChange:
    before: Element
    after: Element
    fields: tuple[str, ...]   # "label", "value", "states", "bounds"

    @property
    def id(self) -> str:
        return self.after.id

    def describe(self) -> str:
        name = f"{self.after.id} {self.after.role} {quote(self.after.name)}"
        details = []
        if "label" in self.fields:
            details.append(f"label {quote(self.before.label)} → {quote(self.after.label)}")
        if "value" in self.fields:
            details.append(f"value {quote(shorten(self.before.value, MAX_LABEL))} → "
                           f"{quote(shorten(self.after.value, MAX_LABEL))}")
        if "states" in self.fields:
            details.append(_state_change(self.before.states, self.after.states))
        if "bounds" in self.fields:
            details.append("moved")
        return f"{name}: {'; '.join(details)}"


def _state_change(before: tuple[str, ...], after: tuple[str, ...]) -> str:
    """``off → on`` when one state replaced another; else what was gained and lost in words ("now focused",
    "no longer disabled"): a bare "disabled → -" read to a model as if the button had gone."""
    gained = [s for s in after if s not in before]
    lost = [s for s in before if s not in after]
    if len(gained) == 1 and len(lost) == 1:
        return f"{lost[0]} → {gained[0]}"
    parts = [f"now {' '.join(gained)}"] * bool(gained) + [f"no longer {' '.join(lost)}"] * bool(lost)
    return ", ".join(parts) or "state changed"


@dataclass(frozen=True)
class ElementDiff:
    added: tuple[Element, ...] = ()
    removed: tuple[Element, ...] = ()
    changed: tuple[ElementChange, ...] = field(default=())
    # Set by diff_maps when most of the screen was replaced: 'new screen: "Display" (…)'.
    new_screen: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    @property
    def keyboard(self) -> str | None:
        """"keyboard shown", "keyboard hidden" or "keyboard changed" (shift, symbols), or None."""
        came = any(_is_key(e) for e in self.added)
        went = any(_is_key(e) for e in self.removed)
        if came and not went:
            return "keyboard shown"
        if went and not came:
            return "keyboard hidden"
        if came or went or any(_is_key(c.after) for c in self.changed):
            return "keyboard changed"
        return None

    def to_text(self, max_lines: int = 30) -> str:
        """``+`` added, ``-`` removed, ``~`` changed; long diffs end with a count of what was left out."""
        lines = [self.new_screen] if self.new_screen else []
        keyboard = self.keyboard
        if keyboard:
            lines.append(keyboard)
        if not self.new_screen:
            lines += [f"+ {element_line(e)}" for e in self.added if _worth_a_line(e)]
            lines += [f"- {element_line(e)}" for e in self.removed if _worth_a_line(e)]
            lines += [f"~ {c.describe()}" for c in self.changed if _worth_a_line(c.after)]
        if not lines:
            return "nothing changed" if self.empty else "nothing changed but the status bar"
        if len(lines) > max_lines + 1:     # one more line is shown, not counted
            hidden = len(lines) - max_lines
            lines = [*lines[:max_lines], f"… and {hidden} more changes"]
        return "\n".join(lines)


def _is_key(element: Element) -> bool:
    return element.window is WindowKind.KEYBOARD and element.interactive


def _is_status(element: Element) -> bool:
    # The same elements the prompt folds into its one "status bar:" line.
    return in_system_bar(element) and not element.interactive


def _worth_a_line(element: Element) -> bool:
    return not (_is_key(element) or _is_status(element))


def _on_screen_content(element: Element) -> bool:
    """Elements that say which screen this is: not keys, not the status or navigation bar."""
    return element.window not in (WindowKind.KEYBOARD, WindowKind.OVERLAY) and not in_system_bar(element)


def _same_kind(a: Element, b: Element) -> bool:
    na, nb = a.node, b.node
    return (na.package, na.cls, na.resource_id) == (nb.package, nb.cls, nb.resource_id)


def _moved(a: Element, b: Element) -> bool:
    return max(abs(x - y) for x, y in zip(a.bounds, b.bounds, strict=True)) > _MOVE_TOLERANCE


def _new_screen(before: ElementMap, after: ElementMap, added: tuple[Element, ...],
                removed: tuple[Element, ...]) -> str | None:
    came = sum(_on_screen_content(e) for e in added)
    went = sum(_on_screen_content(e) for e in removed)
    total = sum(_on_screen_content(e) for e in before.elements) + sum(_on_screen_content(e) for e in after.elements)
    if came + went < _MIN_REPLACED or came + went <= _REPLACED_SHARE * total:
        return None
    title, old_title = screen_title(after), screen_title(before)
    packages, old_packages = after.tree.packages, before.tree.packages
    count = sum(_on_screen_content(e) for e in after.elements)
    named = f": {quote(title)}" if title else ""
    system = {e.node.package for e in after.elements if e.window is WindowKind.SYSTEM and _on_screen_content(e)}
    where = ", ".join(packages or sorted(system)) or "unknown app"
    listed = _elements(count)
    content = [e for e in after.elements if _on_screen_content(e) and e.name]
    if 0 < count <= _QUOTED_WHEN_FEW and content:
        # A screen that says little is said whole ("No recent items"): a transcript line is then evidence.
        listed += ": " + ", ".join(quote(shorten(e.name, MAX_LABEL)) for e in content[:_QUOTED_WHEN_FEW])
    if current_dialog(after) is not None and current_dialog(before) is None:
        return f"a dialog opened{named} ({where}, {listed})"
    kept = count - came
    if packages != old_packages or (title is not None and title != old_title) or kept == 0:
        return f"new screen{named} ({where}, {listed})"
    # Same app, same name and something stayed: a list scrolled by a page, a tab switched.
    return f"most of the screen changed{named} ({where}): {_elements(came)} new, {went} gone, {count} in all"


_QUOTED_WHEN_FEW = 3


def _elements(count: int) -> str:
    return f"{count} element" if count == 1 else f"{count} elements"


def _without_rereads(added: tuple[Element, ...],
                     removed: tuple[Element, ...]) -> tuple[tuple[Element, ...], tuple[Element, ...]]:
    """Text read from pixels that was read again, a little differently, in about the same place ("4.0 (0,111)"
    then "4.0 (0, 1 1 1 )") is the same text, not a change: reported as one, it made an unrelated tap look as
    if it had done something."""
    unmatched = [e for e in removed if is_ocr(e)]        # each old read pairs with at most one new one
    reread: list[Element] = []
    kept_added = []
    for element in added:
        match = next((old for old in unmatched if _reread(old, element)), None) if is_ocr(element) else None
        if match is None:
            kept_added.append(element)
        else:
            unmatched.remove(match)
            reread.append(match)
    return tuple(kept_added), tuple(e for e in removed if not any(e is r for r in reread))


def _reread(old: Element, new: Element) -> bool:
    """Near the same place, much the same words, and the very same digits (a count that went up is a change)."""
    near = old.bounds.intersect(new.bounds).area >= 0.5 * max(1, min(old.bounds.area, new.bounds.area))
    digits = [c for c in old.label if c.isdigit()] == [c for c in new.label if c.isdigit()]
    return near and digits and \
        difflib.SequenceMatcher(None, old.label.casefold(), new.label.casefold()).ratio() >= 0.75


def diff_maps(before: ElementMap, after: ElementMap) -> ElementDiff:
    old = {e.id: e for e in before.elements}
    new = {e.id: e for e in after.elements}
    # An ID that now names an element of another kind (it cannot be reused, but a dump may change a node's
    # class in place) is a removal and an addition, not a change.
    same = {i for i, e in new.items() if i in old and _same_kind(old[i], e)}
    added = tuple(e for e in after.elements if e.id not in same)
    removed = tuple(e for e in before.elements if e.id not in same)
    added, removed = _without_rereads(added, removed)
    # Text read from pixels that the last screen already showed (a product's row seen before the scroll, now
    # read off the picture where the row is cut) is nothing new.
    seen = {normalise(e.label) for e in before.elements if e.label}
    added = tuple(e for e in added if not (is_ocr(e) and normalise(e.label) in seen))
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
    return ElementDiff(added, removed, tuple(changed), _new_screen(before, after, added, removed))
