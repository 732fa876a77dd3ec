"""The cursor and the selection of the focused text field, and Android's floating text-selection toolbar.

Android keeps a selection (start, end) in every EditText: a tap moves the cursor to the nearest character, a
long press selects the word under the finger and shows the floating toolbar, typed text replaces the selection
(an empty one is the cursor), DEL deletes before the cursor. The toolbar is a PopupWindow of the app: a row of
items, each a clickable ``LinearLayout`` (content-desc the title) around a ``TextView`` with the framework's id
``android:id/floating_toolbar_menu_item_text`` and the title as text: "Cut", "Copy", "Paste", "Select all".

Positions come from :func:`relay_desktop.sim.fields.text_layout`, the layout the field is drawn with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relay_desktop.sim import fonts
from relay_desktop.sim.fields import TextLayout, text_layout
from relay_desktop.sim.render import DP_PER_SHORT_SIDE
from relay_desktop.sim.views import Rect, Style, View, Window, layout

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

TOOLBAR_ITEM_TEXT_ID = "android:id/floating_toolbar_menu_item_text"
CUT, COPY, PASTE, SELECT_ALL = "Cut", "Copy", "Paste", "Select all"
_TOOLBAR_BG = (255, 255, 255)
_TOOLBAR_FG = (28, 27, 31)
_TOOLBAR_EDGE = (218, 220, 224)   # stands in for the popup's elevation shadow


def screen_dp(phone: VirtualPhone) -> float:
    """Pixels per dp as the renderer draws the screen (from its short side)."""
    return min(phone.display_size) / DP_PER_SHORT_SIDE


def field_layout(phone: VirtualPhone, view: View) -> TextLayout:
    return text_layout(view, view.bounds, screen_dp(phone))


def caret_point(phone: VirtualPhone, view: View, offset: int) -> tuple[int, int]:
    """The screen point of the cursor before ``offset`` in a laid-out field (the middle of its line)."""
    x, top, bottom = field_layout(phone, view).caret(offset)
    return x, (top + bottom) // 2


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char in "_'"


def word_around(text: str, offset: int) -> tuple[int, int]:
    """The word at ``offset`` (or ending just before it), as Android's word iterator finds it; (offset, offset)
    when there is none there."""
    if offset < len(text) and _is_word_char(text[offset]):
        start = end = offset
    elif offset > 0 and _is_word_char(text[offset - 1]):
        start = end = offset - 1
    else:
        return offset, offset
    while start > 0 and _is_word_char(text[start - 1]):
        start -= 1
    while end < len(text) and _is_word_char(text[end]):
        end += 1
    return start, end


@dataclass
class TextEditing:
    """The focused field's selection. It follows the field by identity and by text: a different field, or a text
    the app changed by itself (a cleared compose box, a set_text), puts the cursor at the end, as apps do."""

    key: str | None = None
    text: str = ""
    start: int = 0
    end: int = 0
    toolbar: bool = False
    field: View | None = None          # the focused field as last laid out (where the toolbar goes)

    def sync(self, view: View) -> tuple[int, int]:
        if view.identity != self.key or view.text != self.text:
            focusing = view.identity != self.key
            self.key, self.text = view.identity, view.text
            self.start = 0 if focusing and view.select_all_on_focus else len(view.text)
            self.end = len(view.text)
            self.toolbar = False
        return self.start, self.end

    def attach(self, view: View) -> None:
        """The frame's focused field: it shows this selection."""
        self.field = view
        view.selection = self.sync(view)

    def detach(self) -> None:
        """No field has focus any more: its selection and toolbar are gone."""
        self.key, self.field, self.toolbar = None, None, False

    def place(self, view: View, start: int, end: int | None = None, toolbar: bool = False) -> None:
        self.key, self.text = view.identity, view.text
        self.start, self.end = start, start if end is None else end
        self.toolbar = toolbar

    def selected(self, view: View) -> str:
        start, end = self.sync(view)
        return view.text[start:end]

    def replaced(self, view: View, text: str, delete_back: bool = False,
                 delete_forward: bool = False) -> tuple[str, int]:
        """The field's text with the selection replaced by ``text`` (DEL / FORWARD_DEL with none selected:
        the character before / after the cursor), and where the cursor goes."""
        start, end = self.sync(view)
        if start == end and delete_back:
            start = max(0, start - 1)
        if start == end and delete_forward:
            end = min(len(view.text), end + 1)
        return view.text[:start] + text + view.text[end:], start + len(text)

    def toolbar_items(self, view: View, clipboard: str) -> list[str]:
        start, end = self.sync(view)
        items = [CUT, COPY] if start != end else []
        if clipboard:
            items.append(PASTE)
        if view.text and (start, end) != (0, len(view.text)):
            items.append(SELECT_ALL)
        return items

    def toolbar_window(self, phone: VirtualPhone, package: str, on_item: Callable[[str], None]) -> Window | None:
        """The floating toolbar over the selection, or None when it is not shown."""
        view = self.field
        if not self.toolbar or view is None:
            return None
        items = self.toolbar_items(view, phone.clipboard)
        if not items:
            return None
        kit = phone.kit
        size = kit.sp(14)
        buttons = [_toolbar_item(title, size, kit.dp(16), on_item) for title in items]
        width = sum(fonts.text_width(title, size, 500) + 2 * kit.dp(16) for title in items) + 2 * kit.dp(4)
        height = kit.dp(48)
        root = View(cls="android.widget.LinearLayout", orientation="h", children=buttons, width=width,
                    height=height, padding=kit.pad(4, 0),
                    style=Style(kind="card", bg=_TOOLBAR_BG, radius=kit.dp(8), border=_TOOLBAR_EDGE))
        text = field_layout(phone, view)
        start, end = sorted((self.start, self.end))
        x1, top, _ = text.caret(start)
        x2, _, bottom = text.caret(end)
        screen_w, screen_h = phone.display_size
        y = top - kit.dp(8) - height
        if y < kit.dp(24):                          # no room above (under the status bar): below, past the handles
            y = bottom + kit.dp(28)
        x = min(max(kit.dp(8), (x1 + x2) // 2 - width // 2), screen_w - width - kit.dp(8))
        frame = Rect(x, y, x + width, min(y + height, screen_h))
        layout(root, frame)
        return Window("popup", package, root, frame)


def _toolbar_item(title: str, size: int, pad: int, on_item: Callable[[str], None]) -> View:
    label = View(cls="android.widget.TextView", id=TOOLBAR_ITEM_TEXT_ID, text=title,
                 style=Style(kind="text", fg=_TOOLBAR_FG, size=size, weight=500))
    return View(cls="android.widget.LinearLayout", desc=title, clickable=True, focusable=True, children=[label],
                padding=(pad, 0, pad, 0), justify="center", on_click=lambda: on_item(title))
