"""Questions the agent asks about a screen: is the keyboard up, is a dialog open, which field has focus,
is this a sign-in screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.tree import WindowKind

__all__ = ["Dialog", "current_dialog", "focused_field", "keyboard_region", "sign_in_screen"]

_TITLE_IDS = ("android:id/alertTitle", "android:id/title")
_MESSAGE_IDS = ("android:id/message",)
_DIALOG_BUTTON_IDS = ("android:id/button1", "android:id/button2", "android:id/button3")


@dataclass(frozen=True)
class Dialog:
    title: str
    message: str
    buttons: tuple[Element, ...]
    bounds: Bounds

    def as_json(self) -> dict[str, Any]:
        return {"title": self.title, "message": self.message, "buttons": [b.id for b in self.buttons],
                "bounds": self.bounds.as_list()}


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
    title = next((e.label for e in members if e.node.resource_id in _TITLE_IDS), "")
    message = next((e.label for e in members if e.node.resource_id in _MESSAGE_IDS), "")
    texts = [e.label for e in members if not e.interactive and e.label]
    if not title and texts:
        title = texts[0]
    if not message and len(texts) > 1:
        message = max(texts[1:], key=len)
    controls = tuple(e for e in members if e.interactive and e.role not in ("scroll", "pager"))
    return Dialog(title, message, controls, bounds)


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
