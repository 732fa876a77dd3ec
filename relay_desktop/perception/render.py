"""The element map as the model reads it (compact text) and as the window reads it (JSON).

Prompt text: one line per element — ``e12 switch "Wi-Fi" on`` — with only what helps the model choose:
role, label, a field's value and hint, and states that are not the default. Bounds are left out (the
screenshot shows where things are) except ``@x,y`` on elements whose role and label repeat, so the model
can tell the five "Follow" buttons apart. Text is quoted as JSON quotes it, so a field's line breaks show
as ``\n`` (``e7 field "Note" = "milk\neggs"``) and the line stays one line. Sliders say where they are
(``value 128 of 0–255``). Keyboard keys collapse into one line with their IDs: typing goes through the
type action, a key is tapped by its ID only when typing cannot do it.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.hashes import layout_hash, semantic_fingerprint
from relay_desktop.perception.labels import MAX_VALUE, humanize_id, quote, shorten
from relay_desktop.perception.list_end import runs_past_its_edge
from relay_desktop.perception.screen import current_dialog, focused_field
from relay_desktop.perception.tree import UINode, WindowKind

__all__ = ["KEYBOARD_ADVICE", "NAVIGATION_ADVICE", "element_line", "in_navigation_bar", "in_system_bar",
           "keyboard_line", "to_json", "to_json_text", "to_prompt_text"]


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
        parts.append(quote(element.label))
    elif words:
        parts.append(f"[{words}]")
    elif element.interactive and element.role not in ("scroll", "pager"):
        position = True  # nothing else tells this control apart
    if element.role == "field":
        if element.value:
            parts.append("= " + quote(shorten(element.value, MAX_VALUE)))
        elif element.hint:
            parts.append("hint " + quote(element.hint))
    direction = scroll_direction(element.node) if element.role in ("scroll", "pager", "web") else ""
    if element.role in ("scroll", "pager"):
        parts.append(direction)
    scrolls = element.role == "scroll" or (element.role == "web" and element.node.scrollable)
    if scrolls and runs_past_its_edge(element.node, direction):
        parts.append("(cut at its " + ("bottom" if direction == "vertical" else "right") +
                     " edge: more may follow; scroll to see)")
    parts.extend(element.states)
    if position:
        parts.append("@{},{}".format(*element.tap))
    return " ".join(parts)


KEYBOARD_ADVICE = "type text with the type action; tap a key by its id only when typing is not possible"


def keyboard_line(keys: list[Element]) -> str:
    """``keyboard: e16–e25 q w e r t y u i o p, e35 "Shift", … (type text with the type action; …)``: every key
    addressable by its ID, a character key by its character alone ("q · 1" is q with its long-press digit), and
    a run of character keys with consecutive IDs as one range (the first character is the first ID), so a full
    keyboard costs a line, not a paragraph."""
    parts: list[str] = []
    run: list[tuple[int, str]] = []

    def flush() -> None:
        if len(run) >= 3:
            parts.append(f"e{run[0][0]}–e{run[-1][0]} {' '.join(char for _, char in run)}")
        else:
            parts.extend(f"e{number} {quote(char)}" for number, char in run)
        run.clear()

    for key in keys:
        name = _key_name(key.name)
        number = int(key.id[1:]) if key.id[1:].isdigit() else None
        if number is not None and len(name) == 1 and not name.isspace() and (not run or run[-1][0] == number - 1):
            run.append((number, name))
            continue
        flush()
        if number is not None and len(name) == 1 and not name.isspace():
            run.append((number, name))
        else:
            parts.append(f"{key.id} {quote(name)}")
    flush()
    return f"keyboard: {', '.join(parts)} ({KEYBOARD_ADVICE})"


def _key_name(name: str) -> str:
    first = name.split(" · ")[0]
    return first if len(first) == 1 else name


def _window_root(node: UINode) -> UINode:
    while node.parent is not None:
        node = node.parent
    return node


def in_system_bar(element: Element) -> bool:
    """In the status bar or the navigation bar: a system window much wider than tall. The notification
    shade and system dialogs are system windows too, but what they say is content."""
    if element.window is not WindowKind.SYSTEM:
        return False
    root = _window_root(element.node)
    return root.bounds.height * 4 < root.bounds.width


def in_navigation_bar(element: Element, screen_height: int) -> bool:
    """A button of the navigation bar (Back, Home, Overview): a system bar along the bottom of the screen. (A
    heads-up notification is a wide, flat system window too, but under the status bar, and it is content.)"""
    return (element.interactive and in_system_bar(element)
            and _window_root(element.node).bounds.top >= screen_height // 2)


NAVIGATION_ADVICE = "the back, home and recent_apps actions do the same"


def to_prompt_text(element_map: ElementMap) -> str:
    elements = element_map.elements
    # uiautomator2's dump holds the navigation bar: its buttons go on one line of their own, so that its "Home"
    # is not taken for (or does not turn into a look-alike of) an app's own "Home".
    navigation = [e for e in elements if in_navigation_bar(e, element_map.screen.bottom)]
    on_navigation_bar = {e.id for e in navigation}
    repeats = Counter((e.role, e.label) for e in elements
                      if e.window is not WindowKind.KEYBOARD and e.id not in on_navigation_bar)
    lines = []
    keys = []
    status = []
    for element in elements:
        if element.window is WindowKind.KEYBOARD and element.interactive:
            keys.append(element)
        elif element.id in on_navigation_bar:
            continue
        elif in_system_bar(element) and not element.interactive:
            status.append(element)
        else:
            repeated = repeats[(element.role, element.label)] > 1 and element.role not in ("scroll", "pager")
            lines.append(element_line(element, position=repeated))
    if status:
        # Clock, signal and battery: context, not controls, so one line without IDs.
        lines.append("status bar: " + ", ".join(quote(e.label) for e in status))
    if navigation:
        lines.append("navigation bar: " + ", ".join(f"{e.id} {quote(e.name)}" for e in navigation)
                     + f" ({NAVIGATION_ADVICE})")
    if keys:
        lines.append(keyboard_line(keys))
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
