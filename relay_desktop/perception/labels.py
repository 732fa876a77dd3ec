"""Roles, labels and states: how an element is named to the model in as few words as possible, without
changing what the screen says.

A label keeps its text's own line breaks, as a field's value does: the prompt quotes both as JSON does, so
a note's preview reads ``"Passport\nPhone charger"`` on one prompt line, and a model retyping it types the
line break (" / " was taken for text: "Network: Maple-Guest / Password: bluebird2024" retyped as one line).
Long text is cut at a word boundary with a note of how much was left out — ``…(+412 chars)`` — so the model
knows to look closer instead of trusting a fragment.
"""

from __future__ import annotations

import json
import re

from relay_desktop.perception.tree import UINode

MAX_LABEL = 300
MAX_VALUE = 1000
_SEPARATOR = " · "
LINE_JOINER = "\n"      # quoted in the prompt as JSON quotes it: \\n, on one line

# Checked first to last; the first suffix of the class name that matches gives the role.
_ROLE_BY_CLASS = (
    ("Switch", "switch"), ("SwitchCompat", "switch"), ("SwitchMaterial", "switch"), ("ToggleButton", "toggle"),
    ("CheckBox", "checkbox"), ("RadioButton", "radio"),
    ("SeekBar", "slider"), ("RatingBar", "slider"), ("Slider", "slider"), ("Spinner", "dropdown"),
    ("TabView", "tab"), ("Tab", "tab"),
    ("HorizontalScrollView", "scroll"), ("ScrollView", "scroll"), ("RecyclerView", "scroll"),
    ("ListView", "scroll"), ("GridView", "scroll"), ("ViewPager", "pager"), ("WebView", "web"),
    ("ImageButton", "button"), ("Button", "button"), ("ImageView", "image"),
)
_STATE_WIDGETS = ("switch", "toggle", "checkbox", "radio")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_LINE_BREAK = re.compile("\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)")
# How far back from the limit a cut may move to land between words instead of inside one.
_WORD_SLACK = 0.2


def role_of(node: UINode) -> str:
    if node.editable:
        return "field"
    short = node.short_class
    if short.endswith("CheckedTextView") and node.checkable:
        return "radio" if _single_choice(node) else "checkbox"
    if node.checkable and node.parent is not None and node.parent.short_class.endswith("RadioGroup"):
        return "radio"
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
        # A checkable row (Settings' radio lists, switch rows) is the widget it shows.
        widget = _state_widget_inside(node)
        return role_of(widget) if widget is not None else "checkbox"
    if node.scrollable and not node.clickable:
        return "scroll"
    if node.clickable or node.long_clickable:
        return "button"
    return "text"


def _state_widget_inside(node: UINode, depth: int = 3) -> UINode | None:
    for child in node.children:
        if child.checkable and role_of(child) in _STATE_WIDGETS:
            return child
        if depth > 1:
            found = _state_widget_inside(child, depth - 1)
            if found is not None:
                return found
    return None


def _single_choice(node: UINode) -> bool:
    """A CheckedTextView is a radio in a single-choice list (AlertDialog's setSingleChoiceItems, a spinner's
    drop-down) and a check box in a multi-choice one. Dumps do not say which, so: a RadioGroup parent, or a
    list of several where exactly one is checked."""
    parent = node.parent
    if parent is None:
        return False
    if parent.short_class.endswith("RadioGroup"):
        return True
    # Rows may wrap each item in a layout of its own: look from the list, one level up when needed.
    container = parent if len(parent.children) > 1 or parent.parent is None else parent.parent
    items = [n for n in container.walk() if n is not container and n.short_class.endswith("CheckedTextView")]
    return len(items) >= 2 and sum(n.checked for n in items) == 1


def one_line(text: str) -> str:
    """The text with runs of spaces as one space and blank lines dropped; its own line breaks stay (quoted,
    they show as \\n)."""
    lines = (" ".join(line.split()) for line in _LINE_BREAK.split(text))
    return LINE_JOINER.join(line for line in lines if line)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters between words, saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= limit * (1 - _WORD_SLACK):
        cut = cut[:space]
    cut = cut.rstrip(" \n·/,;:")
    return f"{cut}…(+{len(text) - len(cut)} chars)"


def clean(text: str) -> str:
    """One line, trimmed and bounded: labels must never break the one-element-per-line prompt format."""
    return shorten(one_line(text), MAX_LABEL)


def quote(text: str) -> str:
    """Text in double quotes as JSON writes it: a quote inside is ``\\"``, a line break ``\\n``, so a value
    stays on one prompt line and still says exactly what the screen holds."""
    return json.dumps(text, ensure_ascii=False)


def field_text(text: str) -> str:
    """A field's text as typed: line breaks kept (``\\r\\n`` and ``\\r`` read as ``\\n``), spaces at the end
    of each line trimmed."""
    return "\n".join(line.rstrip(" \t") for line in _LINE_BREAK.split(text))


def humanize_id(resource_id: str) -> str:
    """``com.app:id/btnSendMessage`` → ``btn send message``: better than nothing for unlabeled icons."""
    name = resource_id.rsplit("/", 1)[-1]
    return _CAMEL.sub(" ", name).replace("_", " ").lower().strip()


def field_value(node: UINode) -> str:
    """What is typed in a field, uncut (the prompt shortens it). Android reports an empty field's hint as its
    text, so text equal to the hint means empty; password fields show dots, which say only how long the
    secret is."""
    text = node.text
    if not text or (node.hint and text == node.hint):
        return ""
    return field_text(text)


def slider_reading(node: UINode) -> tuple[float | None, float | None, float | None]:
    """(min, max, current) of a slider, each None when the dump does not say. The range comes only from
    ``range-*`` attributes (AccessibilityNodeInfo.RangeInfo, which uiautomator does not dump); the current
    value from them or from a number the node reports as its text."""
    current = node.range_current
    if current is None and _NUMBER.fullmatch(node.text.strip()):
        current = float(node.text.strip())
    return node.range_min, node.range_max, current


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e15 else str(value)


def slider_state(node: UINode) -> str:
    """``value 128 of 0–255``, ``value 128, range unknown``, or "" when the slider reports nothing."""
    low, high, current = slider_reading(node)
    if current is None:
        return ""
    if low is not None and high is not None and high > low:
        return f"value {_number(current)} of {_number(low)}–{_number(high)}"
    return f"value {_number(current)}, range unknown"


def own_words(node: UINode) -> list[str]:
    if node.editable:
        words = [node.hint, node.desc] if field_value(node) or node.hint else [node.desc, node.text]
    elif node.checkable and node.text.strip().upper() in ("ON", "OFF"):
        # A switch's own "ON"/"OFF" text is its state, which the element's states already say; as a label it
        # would put "OFF" before "Wi-Fi" and name every switch the same.
        words = [node.desc]
    elif _NUMBER.fullmatch(node.text.strip()) and role_of(node) == "slider":
        words = [node.desc]  # the slider's position, which its state says
    else:
        words = [node.text, node.desc]
    # Uncut: join_label cuts the whole label once, so the count of what was left out is right.
    return [w for w in (one_line(w) for w in words) if w]


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
        elif role == "radio":
            states.append("selected" if node.checked else "not selected")
        else:
            states.append("checked" if node.checked else "unchecked")
    if role == "slider":
        reading = slider_state(node)
        if reading:
            states.append(reading)
    if node.selected and not (role == "radio" and node.checked):
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
