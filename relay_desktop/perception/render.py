"""The element map as the model reads it (compact text) and as the window reads it (JSON).

Prompt text: one line per element — ``e12 switch "Wi-Fi" on`` — with only what helps the model choose:
role, label, a field's value and hint, and states that are not the default. Bounds are left out (the
screenshot shows where things are) except ``@x,y`` on elements whose role and label repeat, so the model
can tell the five "Follow" buttons apart. Keyboard keys collapse into one line: typing goes through the
type action, and the model needs only the keys that do something else (search, enter, delete).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.hashes import layout_hash, semantic_fingerprint
from relay_desktop.perception.labels import humanize_id
from relay_desktop.perception.screen import current_dialog, focused_field
from relay_desktop.perception.tree import UINode, WindowKind

__all__ = ["element_line", "to_json", "to_json_text", "to_prompt_text"]


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def scroll_direction(node: UINode) -> str:
    short = node.short_class
    if short.endswith(("HorizontalScrollView", "ViewPager", "ViewPager2")):
        return "horizontal"
    tops = {c.bounds.top for c in node.children if not c.bounds.empty}
    lefts = {c.bounds.left for c in node.children if not c.bounds.empty}
    if len(tops) == 1 and len(lefts) > 1:
        return "horizontal"
    return "vertical"


def id_words(element: Element) -> str:
    """The resource id in words, unless it is obfuscated (``0_resource_name_obfuscated``, ``d3``)."""
    name = element.node.id_name
    if not name or len(name) <= 3 or "obfuscated" in name:
        return ""
    return humanize_id(name)


def element_line(element: Element, *, position: bool = False) -> str:
    parts = [element.id, element.role]
    words = "" if element.label else id_words(element)
    if element.label:
        parts.append(_quote(element.label))
    elif words:
        parts.append(f"[{words}]")
    elif element.interactive and element.role not in ("scroll", "pager"):
        position = True  # nothing else tells this control apart
    if element.role == "field":
        if element.value:
            parts.append("= " + _quote(element.value))
        elif element.hint:
            parts.append("hint " + _quote(element.hint))
    if element.role in ("scroll", "pager"):
        parts.append(scroll_direction(element.node))
    parts.extend(element.states)
    if position:
        parts.append("@{},{}".format(*element.tap))
    return " ".join(parts)


def _keyboard_line(keys: list[Element]) -> str:
    named = [k for k in keys if len(k.name) > 1 and not _is_character_key(k.name)]
    characters = len(keys) - len(named)
    shown = ", ".join(f"{k.id} {_quote(k.name)}" for k in named)
    tail = f" + {characters} character keys" if characters else ""
    return f"keyboard (type text with the type action): {shown}{tail}"


def _is_character_key(name: str) -> bool:
    # "q · 1" is a letter key with its long-press digit
    first = name.split(" · ")[0]
    return len(first) == 1


def to_prompt_text(element_map: ElementMap) -> str:
    elements = element_map.elements
    repeats = Counter((e.role, e.label) for e in elements if e.window is not WindowKind.KEYBOARD)
    lines = []
    keys = []
    status = []
    for element in elements:
        if element.window is WindowKind.KEYBOARD and element.interactive:
            keys.append(element)
        elif element.window is WindowKind.SYSTEM and not element.interactive:
            status.append(element)
        else:
            repeated = repeats[(element.role, element.label)] > 1 and element.role not in ("scroll", "pager")
            lines.append(element_line(element, position=repeated))
    if status:
        # Clock, signal and battery: context, not controls, so one line without IDs.
        lines.append("status bar: " + ", ".join(_quote(e.label) for e in status))
    if keys:
        lines.append(_keyboard_line(keys))
    if element_map.truncated:
        lines.append(f"({element_map.truncated} less important elements not listed)")
    return "\n".join(lines)


def _flags(node: UINode) -> dict[str, bool]:
    return {
        "clickable": node.clickable, "long_clickable": node.long_clickable, "checkable": node.checkable,
        "checked": node.checked, "editable": node.editable, "scrollable": node.scrollable,
        "focusable": node.focusable, "focused": node.focused, "selected": node.selected,
        "enabled": node.enabled, "password": node.password, "visible": node.visible,
    }


def element_json(element: Element) -> dict[str, Any]:
    node = element.node
    return {
        "id": element.id, "role": element.role, "label": element.label, "value": element.value,
        "hint": element.hint, "states": list(element.states), "interactive": element.interactive,
        "bounds": element.bounds.as_list(), "visible_bounds": element.visible.as_list(),
        "tap": list(element.tap), "window": element.window.value, "package": node.package,
        "class": node.cls, "resource_id": node.resource_id, "text": node.text, "content_desc": node.desc,
        "node_hint": node.hint, "flags": _flags(node), "path": node.path(),
        "sources": [n.path() for n in element.sources],
    }


def to_json(element_map: ElementMap) -> dict[str, Any]:
    """Everything the overlay and the inspector show: full attributes and bounds of every element."""
    dialog = current_dialog(element_map)
    focused = focused_field(element_map)
    tree = element_map.tree
    return {
        "screen": [tree.screen.width, tree.screen.height],
        "rotation": tree.rotation,
        "format": tree.source_format,
        "packages": tree.packages,
        "keyboard": element_map.keyboard.as_list() if element_map.keyboard else None,
        "dialog": dialog.as_json() if dialog else None,
        "focused": focused.id if focused else None,
        "layout_hash": layout_hash(element_map),
        "fingerprint": semantic_fingerprint(element_map),
        "truncated": element_map.truncated,
        "dropped": dict(element_map.visibility.reasons),
        "warnings": list(tree.warnings),
        "elements": [element_json(e) for e in element_map.elements],
    }


def to_json_text(element_map: ElementMap) -> str:
    return json.dumps(to_json(element_map), ensure_ascii=False, indent=1)
