"""uiautomator selectors on the virtual phone's windows: what u2.jar does with the ``Selector`` the Python
client sends for ``d(text="Settings")`` (``exist``, ``objInfo``, ``count``, ``waitForExists``...).

The client's Selector is a JSON object of UiSelector criteria plus ``mask``, ``childOrSibling`` and
``childOrSiblingSelector``. u2.jar turns one without ``index`` into a BySelector (UiObject2), which searches
every window, the focused one first; with ``index`` it uses a UiSelector, which only sees the focused
window. Text is what accessibility reports (a password's bullets, an empty field's hint), as in the dump.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from relay_desktop.sim.hierarchy import reported_text, resource_id
from relay_desktop.sim.u2_rpc import NOT_FOUND_CLASS, JavaError
from relay_desktop.sim.views import Rect, View, Window

__all__ = ["Match", "describe", "find", "first", "obj_info"]

_SEARCHED = ("app", "dialog", "popup", "divider", "ime", "notification", "status_bar", "nav_bar")
_FOCUSABLE_WINDOWS = ("app", "dialog", "notification")


@dataclass(frozen=True)
class Match:
    window: Window
    view: View
    index: int  # position among the parent's children (UiSelector's `index`)


def _full_match(pattern: str, value: str) -> bool:
    try:
        return re.fullmatch(pattern, value, re.DOTALL) is not None  # Java's Pattern.matches
    except re.error:
        return False


_CRITERIA: dict[str, Callable[[Match, Any], bool]] = {
    "text": lambda m, v: reported_text(m.view) == v,
    "textContains": lambda m, v: v in reported_text(m.view),
    "textMatches": lambda m, v: _full_match(v, reported_text(m.view)),
    "textStartsWith": lambda m, v: reported_text(m.view).startswith(v),
    "className": lambda m, v: m.view.cls == v,
    "classNameMatches": lambda m, v: _full_match(v, m.view.cls),
    "description": lambda m, v: m.view.desc == v,
    "descriptionContains": lambda m, v: v in m.view.desc,
    "descriptionMatches": lambda m, v: _full_match(v, m.view.desc),
    "descriptionStartsWith": lambda m, v: m.view.desc.startswith(v),
    "checkable": lambda m, v: m.view.checkable == bool(v),
    "checked": lambda m, v: m.view.checked == bool(v),
    "clickable": lambda m, v: m.view.clickable == bool(v),
    "longClickable": lambda m, v: m.view.long_clickable == bool(v),
    "scrollable": lambda m, v: m.view.scrollable == bool(v),
    "enabled": lambda m, v: m.view.enabled == bool(v),
    "focusable": lambda m, v: m.view.focusable == bool(v),
    "focused": lambda m, v: m.view.focused == bool(v),
    "selected": lambda m, v: m.view.selected == bool(v),
    "packageName": lambda m, v: m.window.package == v,
    "packageNameMatches": lambda m, v: _full_match(v, m.window.package),
    "resourceId": lambda m, v: resource_id(m.view, m.window.package) == v,
    "resourceIdMatches": lambda m, v: _full_match(v, resource_id(m.view, m.window.package)),
    "index": lambda m, v: m.index == v,
}
# UiSelector.toString() names, for the message of UiObjectNotFoundException.
_JAVA_NAMES = {
    "text": "TEXT", "textContains": "CONTAINS_TEXT", "textMatches": "PATTERN_TEXT", "textStartsWith": "START_TEXT",
    "className": "CLASS", "classNameMatches": "PATTERN_CLASS", "description": "DESCRIPTION",
    "descriptionContains": "CONTAINS_DESCRIPTION", "descriptionMatches": "PATTERN_DESCRIPTION",
    "descriptionStartsWith": "START_DESCRIPTION", "checkable": "CHECKABLE", "checked": "CHECKED",
    "clickable": "CLICKABLE", "longClickable": "LONG_CLICKABLE", "scrollable": "SCROLLABLE", "enabled": "ENABLED",
    "focusable": "FOCUSABLE", "focused": "FOCUSED", "selected": "SELECTED", "packageName": "PACKAGE_NAME",
    "packageNameMatches": "PATTERN_PACKAGE_NAME", "resourceId": "RESOURCE_ID",
    "resourceIdMatches": "RESOURCE_ID_REGEX", "index": "INDEX", "instance": "INSTANCE",
}


def _criteria(selector: dict[str, Any]) -> dict[str, Any]:
    if selector.get("childOrSibling"):
        raise JavaError("java.lang.UnsupportedOperationException",
                        "child and sibling selectors are not simulated by the virtual phone")
    return {k: v for k, v in selector.items() if k in _CRITERIA or k == "instance"}


def _walk(window: Window, view: View, index: int) -> Iterator[Match]:
    yield Match(window, view, index)
    for i, child in enumerate(view.children):
        if not child.visible.empty:  # what the user cannot see is not in the accessibility tree either
            yield from _walk(window, child, i)


def _windows(windows: list[Window], focused_only: bool) -> list[Window]:
    searched = [w for w in windows if w.kind in _SEARCHED]
    focused = [w for w in searched if w.kind in _FOCUSABLE_WINDOWS][-1:]
    if focused_only:
        return focused
    return focused + [w for w in reversed(searched) if w not in focused]


def find(windows: list[Window], selector: dict[str, Any]) -> list[Match]:
    """Every node the selector matches, in search order; ``instance`` keeps only that one (0-based)."""
    criteria = _criteria(selector)
    instance = criteria.pop("instance", None)
    matches = [m for w in _windows(windows, "index" in criteria) for m in _walk(w, w.root, 0)
               if all(_CRITERIA[k](m, v) for k, v in criteria.items())]
    if instance is not None:
        return matches[instance:instance + 1] if isinstance(instance, int) and instance >= 0 else []
    return matches


def describe(selector: dict[str, Any]) -> str:
    parts = [f"{_JAVA_NAMES[k]}={'true' if v is True else 'false' if v is False else v}"
             for k, v in selector.items() if k in _JAVA_NAMES]
    return f"UiSelector[{', '.join(parts)}]"


def first(windows: list[Window], selector: dict[str, Any]) -> Match:
    """The first match, or UiObjectNotFoundException as u2.jar throws it."""
    matches = find(windows, selector)
    if not matches:
        raise JavaError(NOT_FOUND_CLASS, describe(selector))
    return matches[0]


def _rect(r: Rect) -> dict[str, int]:
    return {"bottom": r.bottom, "left": r.left, "right": r.right, "top": r.top}


def obj_info(match: Match) -> dict[str, Any]:
    """u2.jar's ObjInfo of a UiObject2: absent text, description and resource name are null."""
    view = match.view
    shown = sum(1 for c in view.children if not c.visible.empty)
    return {
        "bounds": _rect(view.visible), "visibleBounds": _rect(view.visible), "childCount": shown,
        "className": view.cls, "contentDescription": view.desc or None, "packageName": match.window.package,
        "text": reported_text(view) or None, "checkable": view.checkable, "checked": view.checked,
        "clickable": view.clickable, "enabled": view.enabled, "focusable": view.focusable, "focused": view.focused,
        "longClickable": view.long_clickable, "scrollable": view.scrollable, "selected": view.selected,
        "resourceName": resource_id(view, match.window.package) or None,
    }
