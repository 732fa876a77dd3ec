"""Roles, labels and states: how an element is named to the model in as few words as possible."""

from __future__ import annotations

import re

from relay_desktop.perception.tree import UINode

MAX_LABEL = 80
_SEPARATOR = " · "

# Checked first to last; the first suffix of the class name that matches gives the role.
_ROLE_BY_CLASS = (
    ("Switch", "switch"), ("SwitchCompat", "switch"), ("SwitchMaterial", "switch"), ("ToggleButton", "toggle"),
    ("CheckBox", "checkbox"), ("CheckedTextView", "checkbox"), ("RadioButton", "radio"),
    ("SeekBar", "slider"), ("RatingBar", "slider"), ("Spinner", "dropdown"),
    ("TabView", "tab"), ("Tab", "tab"),
    ("HorizontalScrollView", "scroll"), ("ScrollView", "scroll"), ("RecyclerView", "scroll"),
    ("ListView", "scroll"), ("GridView", "scroll"), ("ViewPager", "pager"), ("WebView", "web"),
    ("ImageButton", "button"), ("Button", "button"), ("ImageView", "image"),
)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_WHITESPACE = re.compile(r"\s+")


def role_of(node: UINode) -> str:
    if node.editable:
        return "field"
    short = node.short_class
    for suffix, role in _ROLE_BY_CLASS:
        if short.endswith(suffix):
            if role == "image" and (node.clickable or node.long_clickable):
                return "button"
            if role in ("scroll", "pager", "web") and not node.scrollable:
                if node.clickable or node.long_clickable:
                    return "button"
                break
            return role
    if node.checkable:
        return "checkbox"
    if node.scrollable and not node.clickable:
        return "scroll"
    if node.clickable or node.long_clickable:
        return "button"
    return "text"


def clean(text: str) -> str:
    """One line, trimmed: labels must never break the one-element-per-line prompt format."""
    text = _WHITESPACE.sub(" ", text).strip()
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1].rstrip() + "…"


def humanize_id(resource_id: str) -> str:
    """``com.app:id/btnSendMessage`` → ``btn send message``: better than nothing for unlabeled icons."""
    name = resource_id.rsplit("/", 1)[-1]
    return _CAMEL.sub(" ", name).replace("_", " ").lower().strip()


def field_value(node: UINode) -> str:
    """What is typed in a field. Android reports an empty field's hint as its text, so text equal to the
    hint means empty; password fields show dots, which say only how long the secret is."""
    text = node.text
    if not text or (node.hint and text == node.hint):
        return ""
    return clean(text)


def own_words(node: UINode) -> list[str]:
    if node.editable:
        words = [node.hint, node.desc] if field_value(node) or node.hint else [node.desc, node.text]
    elif node.checkable and node.text.strip().upper() in ("ON", "OFF"):
        # A switch's own "ON"/"OFF" text is its state, which the element's states already say; as a label it
        # would put "OFF" before "Wi-Fi" and name every switch the same.
        words = [node.desc]
    else:
        words = [node.text, node.desc]
    return [w for w in (clean(w) for w in words) if w]


def join_label(parts: list[str]) -> str:
    seen: list[str] = []
    for part in parts:
        # Drop repeats and words already contained in a longer part ("Wi-Fi" next to "Wi-Fi, on").
        if part and not any(part == s or (len(part) > 2 and part in s) for s in seen):
            seen = [s for s in seen if not (len(s) > 2 and s in part)] + [part]
    return clean(_SEPARATOR.join(seen))


def states_of(node: UINode, role: str, value: str) -> list[str]:
    states = []
    if node.checkable:
        if role in ("switch", "toggle"):
            states.append("on" if node.checked else "off")
        else:
            states.append("checked" if node.checked else "unchecked")
    if node.selected:
        states.append("selected")
    if node.focused and role == "field":
        states.append("focused")
    if node.password:
        states.append("password")
    if not node.enabled:
        states.append("disabled")
    if node.long_clickable and not node.clickable and role != "field":
        states.append("long-press")
    if node.scrollable and role not in ("scroll", "pager"):
        states.append("scrollable")
    return states
