"""Touch, key and text input of the virtual phone, routed the way Android routes it.

Touches go to the topmost window under the finger (system bars, keyboard, dialog, then the app), and
inside it to the topmost enabled view that takes touches. A dialog is modal: a touch outside it cancels
it. Text goes to the focused field, at its cursor (see text_selection.py: a tap moves the cursor, a long press
selects a word and shows the floating toolbar, typing replaces the selection). In split screen a touch in a
half gives that app focus (keys, text and BACK go to it from then on), a dialog is modal within its half only,
and a drag of the divider moves it (see split_screen.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from relay_desktop.sim.gboard_suggestions import pick
from relay_desktop.sim.system_dialog import SYSTEM_DIALOG_PACKAGES
from relay_desktop.sim.text_selection import COPY, CUT, PASTE, SELECT_ALL, TextEditing, field_layout, word_around
from relay_desktop.sim.views import View, Window, hit_test, scroll_container_at

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

TOUCH_SLOP_PX = 24          # Android's default touch slop at xxhdpi is ~8 dp
LONG_PRESS_MS = 500         # ViewConfiguration.getLongPressTimeout()
FLING_MS = 150              # quick swipes travel further, as a fling would

log = logging.getLogger(__name__)

KEY_HOME, KEY_BACK, KEY_TAB, KEY_SPACE, KEY_ENTER, KEY_DEL = 3, 4, 61, 62, 66, 67
KEY_ESCAPE, KEY_APP_SWITCH, KEY_NUMPAD_ENTER, KEY_PASTE = 111, 187, 160, 279
KEY_CUT, KEY_COPY = 277, 278
KEY_DPAD_LEFT, KEY_DPAD_RIGHT, KEY_FORWARD_DEL, KEY_MOVE_HOME, KEY_MOVE_END = 21, 22, 112, 122, 123
_CHAR_KEYS = {**{7 + d: str(d) for d in range(10)}, **{29 + i: chr(97 + i) for i in range(26)},
              55: ",", 56: ".", 68: "`", 69: "-", 70: "=", 71: "[", 72: "]", 73: "\\", 74: ";", 75: "'",
              76: "/", 77: "@", 81: "+"}


def _takes_touch(view: View) -> bool:
    return view.enabled and (view.clickable or view.on_touch is not None)


class InputDispatcher:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.editing = TextEditing()     # the focused field's cursor, selection and floating toolbar

    async def _delay(self) -> None:
        if self.phone.config.realism.input_seconds:
            await asyncio.sleep(self.phone.config.realism.input_seconds)

    def _window_at(self, x: float, y: float) -> Window | None:
        for window in reversed(self.phone.windows()):
            if window.kind == "toast":
                continue
            if window.frame.contains(x, y):
                return window
            if window.kind == "dialog" and (window.dim_area is None or window.dim_area.contains(x, y)):
                return window  # modal: nothing beneath it (in its half, in split screen) gets the touch
        return None

    def _touch_down(self, window: Window) -> None:
        """In split screen, touching a half gives its app focus, so keys and text go there afterwards."""
        if window.kind in ("app", "dialog"):
            self.phone.split.focus(window.package)

    # ------------------------------------------------------------ touches

    async def tap(self, x: float, y: float) -> None:
        await self._delay()
        window = self._window_at(x, y)
        if self.editing.toolbar and (window is None or window.kind != "popup"):
            # A touch anywhere but on the floating toolbar puts it away (and goes on to what is under it).
            self.editing.toolbar = False
            self.phone.invalidate()
            window = self._window_at(x, y)
        if window is None:
            return
        self._touch_down(window)
        if window.kind == "dialog" and not window.frame.contains(x, y):
            system = self.phone.system_dialog
            if window.package not in SYSTEM_DIALOG_PACKAGES:     # the system's dialogs stay until answered
                self._dismiss_dialog()
            elif system is not None and system.outside_cancels:   # …but for those a tap outside dismisses
                self._cancel_system_dialog()
            return
        target = hit_test(window.root, x, y, _takes_touch)
        if target is None:
            return
        if target.editable:
            if target.select_all_on_focus and not target.focused:
                self.editing.place(target, 0, len(target.text))
            else:
                self.editing.place(target, field_layout(self.phone, target).offset_at(x, y))
            self.phone.focus_key = target.identity
            self.phone.keyboard_shown = True
        elif target.on_touch is not None:
            self._invoke(window.package, target.on_touch, int(x), int(y))
        elif target.on_click is not None:
            chaos = self.phone.chaos
            # In chaos mode an app may hang on a tap ("isn't responding"): the click runs only after "Wait".
            if chaos is None or not chaos.hangs(window, target):
                self._invoke(window.package, target.on_click)
        self.phone.invalidate()

    def _invoke(self, package: str, handler: Callable[..., Any], *args: Any) -> None:
        """Run an app's handler; an exception is an app crash, handled the way Android does."""
        try:
            handler(*args)
        except Exception:
            log.exception("%s crashed handling input", package)
            self.phone.crash(package)

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        if abs(x2 - x1) < TOUCH_SLOP_PX and abs(y2 - y1) < TOUCH_SLOP_PX:
            if duration_ms >= LONG_PRESS_MS:
                await self._long_press(x1, y1)
            else:
                await self.tap(x1, y1)
            return
        await self._delay()
        window = self._window_at(x1, y1)
        if window is not None and window.kind == "status_bar" and y2 - y1 > TOUCH_SLOP_PX:
            self.phone.notifications.expand()  # pulling down from the status bar opens the shade
            return
        if window is not None and window.kind == "notification":
            self.phone.notifications.swiped(window, x1, y1, x2, y2)
            return
        if window is not None and window.kind == "divider":
            self.phone.split.drag_divider(x2, y2)   # dragging the split-screen divider's handle
            return
        if window is None or window.kind in ("status_bar", "nav_bar", "ime", "divider"):
            return
        self._touch_down(window)
        container = scroll_container_at(window.root, x1, y1)
        if container is None:
            return
        delta = (y1 - y2) if container.orientation == "v" else (x1 - x2)
        if duration_ms < FLING_MS:
            delta *= 2
        pl, pt, pr, pb = container.padding
        viewport = container.bounds.height - pt - pb if container.orientation == "v" else \
            container.bounds.width - pl - pr
        limit = max(0, container.content_extent - viewport)
        activity = self.phone.current_activity()
        activity.scroll[container.identity] = min(limit, max(0, container.scroll + round(delta)))
        self.phone.invalidate()

    async def _long_press(self, x: float, y: float) -> None:
        await self._delay()
        window = self._window_at(x, y)
        if window is None or not window.frame.contains(x, y):
            return
        self._touch_down(window)
        target = hit_test(window.root, x, y, lambda v: v.enabled and v.long_clickable)
        if target is not None and target.editable:
            self._select_word(target, x, y)
        elif target is not None and target.on_long_click is not None:
            self._invoke(window.package, target.on_long_click)
            self.phone.invalidate()

    # ------------------------------------------------------------ keys

    async def press_key(self, code: int, long_press: bool = False) -> None:
        await self._delay()
        if code in (KEY_BACK, KEY_ESCAPE):
            self.back()
        elif code == KEY_HOME:
            self.home()
        elif code == KEY_APP_SWITCH:
            self.recents()
        elif code in (KEY_ENTER, KEY_NUMPAD_ENTER):
            self._enter()
        elif code == KEY_DEL:
            self._replace_selection("", delete_back=True)
        elif code == KEY_FORWARD_DEL:
            self._replace_selection("", delete_forward=True)
        elif code in (KEY_DPAD_LEFT, KEY_DPAD_RIGHT, KEY_MOVE_HOME, KEY_MOVE_END):
            self._move_cursor(code)
        elif code == KEY_SPACE:
            self._insert(" ")
        elif code == KEY_PASTE and self.phone.clipboard:   # nothing to paste leaves the selection alone
            self._insert(self.phone.clipboard)
        elif code in (KEY_COPY, KEY_CUT):       # a keyboard's Copy/Cut (scrcpy's GET_CLIPBOARD copy key)
            field = self.focused_field()
            if field is not None and self.editing.selected(field):
                self.toolbar_item(CUT if code == KEY_CUT else COPY)
        elif code == KEY_TAB:
            self._focus_next()
        elif code in _CHAR_KEYS:
            self._insert(_CHAR_KEYS[code])

    def back(self) -> None:
        phone = self.phone
        activity = phone.current_activity()
        if phone.notifications.shade_open:
            phone.notifications.collapse()
        elif phone.system_dialog is not None:
            if phone.system_dialog.cancelable:
                self._cancel_system_dialog()
        elif phone.split.selecting is not None and activity.dialog is None:
            phone.split.cancel_selection()   # BACK while picking the second app puts the first one back
        elif phone.keyboard_shown:
            phone.keyboard_shown = False
            phone.invalidate()
        elif activity.dialog is not None:
            self._dismiss_dialog()
        elif activity.app.on_back(activity):
            phone.invalidate()
        else:
            phone.finish_activity()

    def home(self) -> None:
        self.phone.split.cancel_selection()
        self.phone.go_home()

    def recents(self) -> None:
        from relay_desktop.sim.app import Activity
        from relay_desktop.sim.phone import LAUNCHER_PACKAGE

        launcher = self.phone.apps[LAUNCHER_PACKAGE]
        if self.phone.focused_activity() == (LAUNCHER_PACKAGE, ".RecentsActivity"):
            self.phone.finish_activity()
        else:
            self.phone.start_activity(Activity(launcher, ".RecentsActivity"))

    def _cancel_system_dialog(self) -> None:
        dialog = self.phone.system_dialog
        self.phone.system_dialog = None
        if dialog is not None and dialog.on_cancel is not None:
            dialog.on_cancel()
        self.phone.invalidate()

    def _dismiss_dialog(self) -> None:
        activity = self.phone.current_activity()
        if activity.dialog is not None and not activity.state.get("dialog_modal", False):
            activity.dialog = None
            self.phone.invalidate()

    # ------------------------------------------------------------ text

    def focused_field(self) -> View | None:
        if self.phone.focus_key is None:
            return None
        if self.phone.system_dialog is not None and self.phone.system_dialog.blocks_input:
            return None     # a dialog that took the input focus gets the keys; the app's field does not
        for window in reversed(self.phone.windows()):
            for view in window.root.walk():
                if view.focused and view.editable:
                    return view
        return None

    async def type_text(self, text: str) -> None:
        await self._delay()
        self._insert(text)

    async def replace_text(self, text: str, view: View | None = None) -> None:
        """A field's whole text set at once, as an accessibility ACTION_SET_TEXT (or Ctrl+A and typing over it)
        does: the focused field, or ``view`` when given (which need not have focus)."""
        await self._delay()
        field = view if view is not None else self.focused_field()
        if field is None or not field.editable or field.on_text is None or not field.enabled:
            return
        self._invoke(self.phone.current_activity().app.package, field.on_text, text)
        self.phone.invalidate()

    def _insert(self, text: str) -> None:
        self._replace_selection(text)

    def _replace_selection(self, text: str, delete_back: bool = False, delete_forward: bool = False) -> None:
        """Typed text replaces the selection (an empty one is the cursor); DEL / FORWARD_DEL with nothing
        selected take the character before / after the cursor."""
        field = self.focused_field()
        if field is None or field.on_text is None or not field.enabled:
            return
        new_text, cursor = self.editing.replaced(field, text, delete_back, delete_forward)
        self._invoke(self.phone.current_activity().app.package, field.on_text, new_text)
        self.editing.place(field, cursor)
        self.editing.text = new_text     # the app may change it further: then the cursor goes to its end
        self.phone.invalidate()

    def _move_cursor(self, code: int) -> None:
        """DPAD_LEFT/RIGHT move the cursor a character; MOVE_HOME/END to the start/end of its line (Android's
        ArrowKeyMovementMethod: of the line on screen, not of the whole text)."""
        field = self.focused_field()
        if field is None:
            return
        start, end = self.editing.sync(field)
        text = field_layout(self.phone, field)
        line = text.line_of(end)
        line_start = text.starts[line]
        offsets = {KEY_DPAD_LEFT: max(0, min(start, end) - 1) if start == end else min(start, end),
                   KEY_DPAD_RIGHT: min(len(field.text), end + 1) if start == end else max(start, end),
                   KEY_MOVE_HOME: line_start, KEY_MOVE_END: line_start + len(text.lines[line])}
        self.editing.place(field, offsets[code])
        self.phone.invalidate()

    def _select_word(self, field: View, x: float, y: float) -> None:
        """A long press in a field focuses it, selects the word under the finger and shows the floating toolbar."""
        self.phone.focus_key = field.identity
        self.phone.keyboard_shown = True
        start, end = word_around(field.text, field_layout(self.phone, field).offset_at(x, y))
        self.editing.place(field, start, end, toolbar=True)
        self.phone.invalidate()

    def toolbar_item(self, title: str) -> None:
        """An item of the floating text-selection toolbar was tapped."""
        field = self.focused_field()
        self.editing.toolbar = False
        if field is not None:
            if title in (CUT, COPY):
                self.phone.clipboard = self.editing.selected(field) or self.phone.clipboard
                if title == CUT:
                    self._replace_selection("")
                else:
                    self.editing.place(field, max(self.editing.start, self.editing.end))
            elif title == PASTE:
                self._replace_selection(self.phone.clipboard)
            elif title == SELECT_ALL:
                self.editing.place(field, 0, len(field.text), toolbar=True)
        self.phone.invalidate()

    def _edit(self, change: object) -> None:
        field = self.focused_field()
        if field is None or field.on_text is None or not field.enabled:
            return
        self._invoke(self.phone.current_activity().app.package, field.on_text, change(field.text))  # type: ignore[operator]
        self.phone.invalidate()

    def _enter(self) -> None:
        field = self.focused_field()
        if field is None:
            return
        if field.on_submit is not None:
            self._invoke(self.phone.current_activity().app.package, field.on_submit)
            self.phone.keyboard_shown = False
            self.phone.invalidate()
        elif field.height is None:  # multi-line fields take a newline
            self._insert("\n")

    def _focus_next(self) -> None:
        fields = [v for w in self.phone.windows() if w.kind in ("app", "dialog") and not w.unfocused
                  for v in w.root.walk() if v.editable and not v.visible.empty]
        if not fields:
            return
        keys = [f.identity for f in fields]
        index = keys.index(self.phone.focus_key) + 1 if self.phone.focus_key in keys else 0
        self.phone.focus_key = keys[index % len(keys)]
        self.phone.keyboard_shown = True
        self.phone.invalidate()

    def ime_key(self, name: str) -> None:
        """A key on the on-screen keyboard was tapped."""
        phone = self.phone
        if name == "DEL":
            self._replace_selection("", delete_back=True)
        elif name == "SHIFT":
            phone.keyboard_shift = not phone.keyboard_shift
        elif name == "SYMBOLS":
            phone.keyboard_symbols = not phone.keyboard_symbols
        elif name == "ENTER":
            self._enter()
        elif name == "SPACE":
            self._insert(" ")
        elif name.startswith("SUGGEST:"):    # a candidate of the suggestion strip replaces the word being typed
            word = name.split(":", 1)[1]
            self._edit(lambda text: pick(text, word))
        else:
            self._insert(name.upper() if phone.keyboard_shift else name)
            phone.keyboard_shift = False
        phone.invalidate()
