"""Questions the agent asks about a screen: is the keyboard up, is a dialog open (and what it says and
offers), which field has focus, is this a sign-in screen, what is the screen called, where is a slider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.labels import MAX_LABEL, clean, one_line, quote, role_of, shorten, slider_reading
from relay_desktop.perception.tree import UINode, WindowKind

__all__ = ["Dialog", "current_dialog", "focused_field", "in_list", "keyboard_region", "screen_title",
           "sign_in_screen", "slider_range"]

_TITLE_IDS = ("android:id/alertTitle", "android:id/title")
_DIALOG_BUTTON_IDS = ("android:id/button1", "android:id/button2", "android:id/button3")
CHOICE_ROLES = ("radio", "checkbox", "switch", "toggle")
# Inputs that hold a value of their own, listed with it: typed text, a slider's position, a drop-down's pick.
FIELD_ROLES = ("field", "slider", "dropdown")
_CONTAINER_ROLES = ("scroll", "pager", "web")
# A first line longer than this is the dialog's message, not a title it lacks.
_MAX_GUESSED_TITLE = 60
_BAR_MARKERS = ("toolbar", "action_bar", "actionbar", "app_bar", "appbar")
_TITLE_AREA_SHARE = 0.25


@dataclass(frozen=True)
class Dialog:
    """The dialog or pop-up in front. ``title`` is None when it has none; ``message`` is the rest of its text
    ("" when none). Its controls, in reading order: ``fields`` (text fields, sliders, drop-downs),
    ``choices`` (radio buttons, check boxes, switches) and ``buttons`` (everything else that can be tapped)."""

    title: str | None
    message: str
    fields: tuple[Element, ...]
    choices: tuple[Element, ...]
    buttons: tuple[Element, ...]
    bounds: Bounds

    @property
    def controls(self) -> tuple[Element, ...]:
        """Every control of the dialog, in reading order."""
        return tuple(sorted((*self.fields, *self.choices, *self.buttons), key=lambda e: e.node.order))

    def describe(self) -> str:
        """One line for the prompt: ``A dialog is open: "Rename" — fields: e3 "Name" = "Pixel"; buttons: e4
        "Cancel", e5 "OK"``."""
        head = "A dialog is open" + (f": {quote(self.title)}" if self.title else "")
        parts = [head]
        if self.message:
            parts.append(quote(self.message))
        groups = []
        if self.fields:
            groups.append("fields: " + ", ".join(_field_words(e) for e in self.fields))
        if self.choices:
            groups.append("choices: " + ", ".join(_choice_words(e) for e in self.choices))
        if self.buttons:
            groups.append("buttons: " + ", ".join(f"{e.id} {quote(e.name)}" for e in self.buttons))
        parts.append("; ".join(groups) if groups else "no buttons (back closes it)")
        return " — ".join(parts)

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "message": self.message, "fields": [e.id for e in self.fields],
                "choices": [e.id for e in self.choices], "buttons": [b.id for b in self.buttons],
                "bounds": self.bounds.as_list()}


def _field_words(element: Element) -> str:
    words = f"{element.id} {quote(element.name)}" if element.role == "field" else \
        f"{element.id} {element.role} {quote(element.name)}"
    if element.role == "field":
        words += f" = {quote(shorten(element.value, MAX_LABEL))}" if element.value else " (empty)"
    readings = [s for s in element.states if s.startswith("value ")]
    return " ".join([words, *readings])


def _choice_words(element: Element) -> str:
    state = next((s for s in element.states if s in ("on", "off", "checked", "unchecked", "selected",
                                                     "not selected")), "")
    return " ".join(w for w in (element.id, element.role, quote(element.name), state) if w)


def keyboard_region(element_map: ElementMap) -> Bounds | None:
    """The screen area the on-screen keyboard covers, when the dump shows one (or the caller said so)."""
    return element_map.keyboard


def current_dialog(element_map: ElementMap) -> Dialog | None:
    """The dialog or pop-up in front: a dialog window, or an app window laid out as an AlertDialog."""
    tree = element_map.tree
    windows = [w for w in tree.windows_by_layer() if w.kind is WindowKind.DIALOG]
    if windows:
        window = windows[-1]
        members = [e for e in element_map.elements if e.node.window == window.index]
        bounds = window.bounds
    else:
        buttons = [e for e in element_map.elements if e.node.resource_id in _DIALOG_BUTTON_IDS]
        if not buttons:
            return None
        window_index = buttons[0].node.window
        members = [e for e in element_map.elements if e.node.window == window_index]
        bounds = tree.windows[window_index].bounds
    if not members:
        return None
    title, message = _dialog_text(members)
    controls = [e for e in members if e.interactive and e.role not in _CONTAINER_ROLES]
    fields = tuple(e for e in controls if e.role in FIELD_ROLES)
    choices = tuple(e for e in controls if e.role in CHOICE_ROLES)
    buttons = tuple(e for e in controls if e.role not in FIELD_ROLES + CHOICE_ROLES)
    return Dialog(title, message, fields, choices, buttons, bounds)


def _dialog_text(members: list[Element]) -> tuple[str | None, str]:
    """The title and the message, read from the dump's nodes: texts of one card fold into one element
    ("Delete this contact? · Dave Kim will be…"), and the title is only one of them."""
    texts: list[tuple[UINode, str]] = []
    for element in members:
        if element.interactive:
            continue
        for node in element.sources:
            words = [w for w in (one_line(node.text), one_line(node.desc)) if w]
            if words:
                texts.append((node, words[0] if len(words) == 1 or words[1] in words[0] else " · ".join(words)))
    title_node = next((n for n, _ in texts if n.resource_id in _TITLE_IDS), None)
    if title_node is None and len(texts) > 1 and len(texts[0][1]) <= _MAX_GUESSED_TITLE:
        title_node = texts[0][0]   # an app's own dialog: the first of several texts heads it
    title = next((clean(t) for n, t in texts if n is title_node), None)
    message = clean(" · ".join(t for n, t in texts if n is not title_node))
    return title or None, message


def focused_field(element_map: ElementMap) -> Element | None:
    """The text field that has input focus (where typed text goes), if any."""
    for element in element_map.elements:
        if element.role == "field" and "focused" in element.states:
            return element
    for element in element_map.elements:
        if any(n.focused and n.editable for n in element.sources):
            return element
    return None


def sign_in_screen(element_map: ElementMap) -> bool:
    """A password field is showing: the agent must ask the user instead of typing a password it was not given."""
    return any("password" in e.states or (e.node.password and e.role == "field") for e in element_map.elements)


def slider_range(element: Element) -> tuple[float, float, float] | None:
    """(min, max, current) of a slider when the dump tells all three, else None. uiautomator dumps carry no
    range (only dumpers that write ``range-*`` attributes do), so on most real phones this is None and a
    value has to be set as a share of the track."""
    if element.role != "slider":
        return None
    node = next((n for n in element.sources if role_of(n) == "slider"), element.node)
    low, high, current = slider_reading(node)
    if low is None or high is None or current is None or high <= low:
        return None
    return low, high, current


def screen_title(element_map: ElementMap) -> str | None:
    """What the screen is called: the dialog's title when one is open, else the app bar's title (a text in
    a toolbar, or a title-named text near the top that is not a list row), or None."""
    dialog = current_dialog(element_map)
    if dialog is not None and dialog.title:
        return dialog.title
    limit = element_map.screen.top + element_map.screen.height * _TITLE_AREA_SHARE
    candidates = []
    for element in element_map.elements:
        if element.window is not WindowKind.APP or element.interactive:
            continue
        for node in element.sources:
            # A title is shown text: not an icon's description ("Connection is secure" beside Chrome's address)
            # nor a letter in an avatar ("B" before "Bob Martinez" in a conversation's bar).
            text = one_line(node.text)
            if text and node.bounds.top <= limit and sum(c.isalnum() for c in text) >= 2:
                candidates.append((node, text))
    for node, text in candidates:
        if _in_app_bar(node):
            return clean(text)
    for node, text in candidates:
        if "title" in node.id_name.lower() and not in_list(node):
            return clean(text)
    # A browser's page: the web view says its page's title (Chrome's toolbar shows only the address).
    web = next((e for e in element_map.elements if e.role == "web" and e.label and e.window is WindowKind.APP), None)
    return clean(web.label) if web is not None else None


def _ancestors(node: UINode):  # type: ignore[no-untyped-def]
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


def _in_app_bar(node: UINode) -> bool:
    return any(a.short_class.endswith("Toolbar") or any(m in a.id_name.lower() for m in _BAR_MARKERS)
               for a in _ancestors(node))


def in_list(node: UINode) -> bool:
    """Inside a scrollable container: a row of a list, not a fixed control."""
    return any(a.scrollable for a in _ancestors(node))
