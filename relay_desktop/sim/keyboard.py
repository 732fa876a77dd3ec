"""The on-screen keyboard: a Gboard-like IME window (suggestion strip plus four rows of keys).

Keys dump as Gboard's do (``android.widget.FrameLayout``, ``key_pos_<row>_<col>`` ids, the spoken name
as content-desc: "q", "Shift", "Delete", "Symbol keyboard", "Space", "Search"...), and each calls
``on_key`` with what it types or one of ``DEL``, ``SHIFT``, ``SYMBOLS``, ``ENTER``, ``SPACE``.
Sizes are Gboard's at 1080 px wide, scaled to the screen width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from relay_desktop.sim.views import Color, Rect, Style, View

PANEL: Color = (236, 239, 244)
LETTER_KEY: Color = (255, 255, 255)
FUNCTION_KEY: Color = (212, 217, 226)
ACTION_KEY: Color = (211, 227, 253)
KEY_TEXT: Color = (31, 31, 35)
ACTION_TEXT: Color = (4, 30, 73)

LETTERS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
SYMBOLS = ("1234567890", "@#$_&-+()/", "=*\"':;!?")

# IME action -> (content-desc, icon), as Gboard labels the action key for each EditorInfo action.
ACTIONS = {
    "enter": ("Enter", "enter"),
    "search": ("Search", "search"),
    "send": ("Send", "send"),
    "go": ("Go", "arrow_forward"),
    "next": ("Next", "arrow_forward"),
    "done": ("Done", "check"),
}


def keyboard(width: int, bottom: int, on_key: Callable[[str], None], shifted: bool = False,
             symbols: bool = False, action_label: str = "enter",
             suggestions: Sequence[str] = ()) -> tuple[View, Rect]:
    """The keyboard window's root view and its frame, which ends at ``bottom`` (the navigation bar).
    ``suggestions`` (left to right) fill the strip above the keys; a tapped one calls ``on_key("SUGGEST:<word>")``."""
    scale = width / 1080
    strip_h, row_h = round(132 * scale), round(148 * scale)
    pad_top, pad_bottom, pad_side = round(16 * scale), round(14 * scale), round(6 * scale)
    letter_size, label_size = round(58 * scale), round(38 * scale)

    def key(id: str, desc: str, name: str, weight: float, *, face: str = "", bg: Color = LETTER_KEY,
            fg: Color = KEY_TEXT, size: int = letter_size) -> View:
        return View(cls="android.widget.FrameLayout", id=f"key_pos_{id}", desc=desc, clickable=True,
                    focusable=True, weight=weight, on_click=lambda: on_key(name),
                    style=Style(kind="key", bg=bg, fg=fg, icon=face, size=size, radius=round(16 * scale),
                                weight=500 if face else 400))

    def row(keys: list[View], inset: float = 0.0) -> View:
        unit = (width - 2 * pad_side) / 10
        side = round(unit * inset)
        return View(cls="android.widget.LinearLayout", orientation="h", children=keys, height=row_h,
                    padding=(side, 0, side, 0))

    def chars(row_index: int, text: str) -> list[View]:
        shown = text.upper() if shifted and not symbols else text
        return [key(f"{row_index}_{i}", c, c, 1) for i, c in enumerate(shown)]

    layout = SYMBOLS if symbols else LETTERS
    if symbols:
        # Eight symbols on the third row, so Delete grows to fill the Shift key's place.
        third = [*chars(2, layout[2]), key("del", "Delete", "DEL", 2, face="backspace", bg=FUNCTION_KEY)]
        switch = key("switch_to_symbol", "Letter keyboard", "SYMBOLS", 1.5, face="ABC", bg=FUNCTION_KEY,
                     size=label_size)
    else:
        shift = key("shift", "Shift", "SHIFT", 1.5, face="shift_on" if shifted else "shift",
                    bg=ACTION_KEY if shifted else FUNCTION_KEY)
        third = [shift, *chars(2, layout[2]), key("del", "Delete", "DEL", 1.5, face="backspace", bg=FUNCTION_KEY)]
        switch = key("switch_to_symbol", "Symbol keyboard", "SYMBOLS", 1.5, face="?123", bg=FUNCTION_KEY,
                     size=label_size)
    action_desc, action_icon = ACTIONS.get(action_label, ACTIONS["enter"])
    fourth = [
        switch,
        key("bottom_symbol_1", ",", ",", 1, bg=FUNCTION_KEY),
        key("space", "Space", "SPACE", 5),
        key("bottom_symbol_2", ".", ".", 1, bg=FUNCTION_KEY),
        key("ime_action", action_desc, "ENTER", 1.5, face=action_icon, bg=ACTION_KEY, fg=ACTION_TEXT),
    ]
    rows = View(cls="android.widget.LinearLayout", id="input_area", padding=(pad_side, 0, pad_side, 0), children=[
        row(chars(0, layout[0])),
        row(chars(1, layout[1]), inset=0.0 if symbols else 0.5),
        row(third),
        row(fourth),
    ])
    strip = _suggestion_strip(strip_h, scale, suggestions, on_key)
    height = strip_h + pad_top + 4 * row_h + pad_bottom
    holder = View(cls="android.widget.LinearLayout", id="keyboard_holder", padding=(0, 0, 0, pad_bottom),
                  children=[strip, View(cls="android.view.View", height=pad_top), rows])
    root = View(cls="android.widget.FrameLayout", children=[holder], width=width, height=height,
                style=Style(bg=PANEL))
    return root, Rect(0, bottom - height, width, bottom)


def _suggestion_strip(height: int, scale: float, suggestions: Sequence[str] = (),
                      on_key: Callable[[str], None] | None = None) -> View:
    """The strip above the keys; with no word typed Gboard shows its tool buttons there. With a word being typed
    it shows up to three candidates between them, as Gboard dumps them: a ``softkey_holder_fixed_candidates``
    row of clickable frames whose content-desc is the word (no text node: the word is drawn)."""

    def tool(id: str, desc: str, icon: str) -> View:
        return View(cls="android.widget.FrameLayout", id=id, desc=desc, clickable=True, focusable=True,
                    width=round(126 * scale), style=Style(kind="icon_button", icon=icon, fg=(68, 71, 78)))

    def candidate(word: str) -> View:
        # A flat "key" drawn in the panel's colour: the word shows, the frame does not.
        return View(cls="android.widget.FrameLayout", desc=word, clickable=True, focusable=True, weight=1,
                    on_click=(lambda: on_key(f"SUGGEST:{word}")) if on_key is not None else None,
                    style=Style(kind="key", icon=word, bg=PANEL, fg=KEY_TEXT, size=round(44 * scale)))

    middle = View(cls="android.view.View", weight=1)
    if suggestions:
        middle = View(cls="android.widget.LinearLayout", id="softkey_holder_fixed_candidates", orientation="h",
                      weight=1, children=[candidate(word) for word in suggestions[:3]])
    return View(cls="android.widget.FrameLayout", id="keyboard_header_view_holder", orientation="h",
                height=height, padding=(round(6 * scale), 0, round(6 * scale), 0), children=[
                    tool("key_pos_header_access_points_menu", "Open features menu", "apps"),
                    middle,
                    tool("key_pos_header_power_key", "Voice input", "mic"),
                ])
