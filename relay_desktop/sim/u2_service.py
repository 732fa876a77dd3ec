"""The methods of u2.jar's ``AutomatorServiceImpl`` that the virtual phone acts out, wired to the same state and
input paths the shell's ``input``, ``uiautomator dump`` and the scrcpy server use.

What the real server does, and how it shows here:

* ``dumpWindowHierarchy(compressed, maxDepth[, rootInActive])``: every window (system bars and keyboard too)
  from the tree ``uiautomator dump`` reads, in the client's format (``hierarchy.dump_xml_u2``). u2.jar sets
  uiautomator's idle timeout to 0, so unlike ``uiautomator dump`` it never fails with "could not get idle
  state" while the screen animates; it answers with whatever is on screen. In the realistic profile it takes
  ``Realism.u2_dump_seconds`` (see config.py for where the figure comes from).
* ``click``/``swipe``/``drag``/``injectInputEvent``/``pressKey*``: through the phone's input dispatcher, like
  ``input tap``. Gestures take no simulated time beyond the realism profile's input latency, as ``input``'s do.
* ``setClipboard``/``getClipboard``: the phone's one clipboard, the one scrcpy's SET_CLIPBOARD writes.
  ``pasteClipboard`` injects Ctrl+V, which a text field handles exactly like KEYCODE_PASTE (TextView turns
  both into its paste action), so the sim sends the paste key: any language lands in the focused field.
* ``deviceInfo``: the size is ``Display.getRealSize`` (androidx uiautomator 2.3, which u2.jar bundles), so the
  whole panel as it is turned now, navigation bar included; the dp size divides by the current density.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PIL import Image

from relay_desktop.sim import u2_selector as sel
from relay_desktop.sim.hierarchy import dump_xml_u2, reported_text
from relay_desktop.sim.u2_rpc import Overload
from relay_desktop.sim.views import Window

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

__all__ = ["AutomatorService"]

KEY_PASTE = 279
STEP_MS = 5              # UiDevice.swipe: "each step execution is throttled to 5 ms"
TAP_SLOP_PX = 24
LONG_PRESS_MS = 500
POLL_S = 0.1             # re-check waits even without a change event (the clock, a toast expiring)
# UiDevice.pressKey* by name (AutomatorServiceImpl.pressKey); anything else is "false".
KEY_NAMES = {"home": 3, "back": 4, "left": 21, "right": 22, "up": 19, "down": 20, "center": 23, "menu": 82,
             "search": 84, "enter": 66, "delete": 67, "del": 67, "recent": 187, "volume_up": 24,
             "volume_down": 25, "volume_mute": 164, "camera": 27, "power": 26}
ORIENTATIONS = {"left": 1, "l": 1, "right": 3, "r": 3, "natural": 0, "n": 0}


class AutomatorService:
    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.last_toast: str | None = None
        self._changed = asyncio.Event()
        self._touch: tuple[float, float, float] | None = None   # injectInputEvent: x, y and time of DOWN
        self._touch_end: tuple[float, float] = (0.0, 0.0)
        self._remove_listener = phone.add_listener(self._on_change)

    def close(self) -> None:
        self._remove_listener()

    def _on_change(self) -> None:
        # The real server hears toasts through an accessibility listener from its start until it is cleared.
        if self.phone.toast is not None:
            self.last_toast = self.phone.toast[0]
        self._changed.set()

    def methods(self) -> dict[str, list[Overload]]:
        o = Overload
        return {
            "ping": [o((), self.ping)],
            "deviceInfo": [o((), self.device_info)],
            "click": [o(("int", "int"), self.click), o(("int", "int", "long"), self.click),
                      o(("obj",), self.click_object), o(("obj", "str"), self.click_object)],
            "longClick": [o(("obj",), self.long_click_object), o(("obj", "str"), self.long_click_object)],
            "swipe": [o(("int", "int", "int", "int", "int"), self.swipe)],
            "drag": [o(("int", "int", "int", "int", "int"), self.drag)],
            "swipePoints": [o(("int[]", "int"), self.swipe_points)],
            "injectInputEvent": [o(("int", "float", "float", "int"), self.inject_input_event)],
            "dumpWindowHierarchy": [o(("bool",), self.dump), o(("bool", "int"), self.dump),
                                    o(("bool", "int", "bool"), self.dump)],
            "takeScreenshot": [o(("float", "int"), self.take_screenshot)],
            "pressKey": [o(("str",), self.press_key)],
            "pressKeyCode": [o(("int",), self.press_key_code), o(("int", "int"), self.press_key_code)],
            "wakeUp": [o((), self.wake_up)], "sleep": [o((), self.sleep)], "isScreenOn": [o((), self.is_screen_on)],
            "setOrientation": [o(("str",), self.set_orientation)], "freezeRotation": [o(("bool",), self.nothing)],
            "openNotification": [o((), self.open_notification)], "openQuickSettings": [o((), self.open_notification)],
            "waitForIdle": [o(("long",), self.nothing)],
            "waitForWindowUpdate": [o(("str", "long"), self.wait_for_window_update)],
            "getLastToast": [o((), self.get_last_toast)], "clearLastToast": [o((), self.clear_last_toast)],
            "setClipboard": [o(("str", "str"), self.set_clipboard)], "getClipboard": [o((), self.get_clipboard)],
            "pasteClipboard": [o((), self.paste_clipboard)], "clearInputText": [o((), self.clear_input_text)],
            "launchApp": [o(("str",), self.launch_app)],
            "exist": [o(("obj",), self.exist)], "objInfo": [o(("obj",), self.obj_info)],
            "count": [o(("obj",), self.count)], "objInfoOfAllInstances": [o(("obj",), self.obj_info_all)],
            "waitForExists": [o(("obj", "long"), self.wait_for_exists)],
            "waitUntilGone": [o(("obj", "long"), self.wait_until_gone)],
            "getText": [o(("obj",), self.get_text)], "setText": [o(("obj", "str"), self.set_text)],
            "clearTextField": [o(("obj",), self.clear_text_field)],
        }

    # ------------------------------------------------------------ device

    async def ping(self) -> str:
        return "pong"

    async def nothing(self, *_args: Any) -> None:
        return None

    def _focused_window(self) -> Window | None:
        focused = [w for w in self.phone.windows() if w.kind in ("app", "dialog", "notification")]
        return focused[-1] if focused else None

    async def device_info(self) -> dict[str, Any]:
        phone = self.phone
        width, height = phone.display_size  # Display.getRealSize: the whole panel, turned with the phone
        scale = (phone.density_override or phone.physical_density) / 160
        focused = self._focused_window()
        # Jackson's order for DeviceInfo's getters, as real answers show it.
        return {"currentPackageName": focused.package if focused else None, "displayHeight": height,
                "displayRotation": phone.rotation, "displaySizeDpX": round(width / scale),
                "displaySizeDpY": round(height / scale), "displayWidth": width,
                "productName": phone.props.get("ro.product.name", ""), "screenOn": phone.screen_on,
                "sdkInt": phone.config.sdk, "naturalOrientation": phone.rotation % 2 == 0}

    async def wake_up(self) -> None:
        if not self.phone.screen_on:
            self.phone.screen_on = True
            self.phone.invalidate()

    async def sleep(self) -> None:
        if self.phone.screen_on:
            self.phone.screen_on = False
            self.phone.invalidate()

    async def is_screen_on(self) -> bool:
        return bool(self.phone.screen_on)

    async def set_orientation(self, direction: str) -> None:
        rotation = ORIENTATIONS.get((direction or "").lower())
        if rotation is not None:
            self.phone.rotate(rotation)

    async def open_notification(self) -> bool:
        self.phone.notifications.expand()
        return True

    async def launch_app(self, package: str) -> bool:
        try:
            self.phone.launch(package)
        except LookupError:
            return False
        return True

    # ------------------------------------------------------------ screen

    async def dump(self, compressed: bool, max_depth: int = 50, active_only: bool = False) -> str:
        # `compressed` hides nodes unimportant for accessibility; every node of the sim's trees is important.
        realism = self.phone.config.realism
        if realism.u2_dump_seconds:
            await asyncio.sleep(realism.u2_dump_seconds)
        return dump_xml_u2(self.phone.windows(), rotation=self.phone.rotation, max_depth=max_depth,
                           active_only=active_only)

    async def take_screenshot(self, scale: float, quality: int) -> str | None:
        image = await self.phone.screenshot()
        return await asyncio.to_thread(_jpeg_base64, image, scale, quality)

    # ------------------------------------------------------------ input

    async def click(self, x: int, y: int, milliseconds: int | None = None) -> bool:
        if x < 0 or y < 0:
            return False
        if milliseconds is None:
            await self.phone.tap(x, y)
        else:
            await self.phone.long_press(x, y, milliseconds)  # a short hold is a tap there too
        return True

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, steps: int) -> bool:
        await self.phone.swipe(x1, y1, x2, y2, max(1, steps) * STEP_MS)
        return True

    async def drag(self, x1: int, y1: int, x2: int, y2: int, steps: int) -> bool:
        await self.phone.drag_and_drop(x1, y1, x2, y2, max(1, steps) * STEP_MS)
        return True

    async def swipe_points(self, points: list[int], steps: int) -> bool:
        # One finger along a path; the sim's gestures have a start and an end, so the path is its two ends.
        if len(points) < 4:
            return False
        segments = len(points) // 2 - 1
        await self.phone.swipe(points[0], points[1], points[-2], points[-1], max(1, segments * steps) * STEP_MS)
        return True

    async def inject_input_event(self, action: int, x: float, y: float, _meta: int) -> bool:
        now = time.monotonic()
        if action == 0:                       # ACTION_DOWN
            self._touch, self._touch_end = (x, y, now), (x, y)
        elif action == 2 and self._touch:     # ACTION_MOVE
            self._touch_end = (x, y)
        elif action == 1 and self._touch:     # ACTION_UP: the gesture is known now
            x0, y0, started = self._touch
            self._touch = None
            held_ms = int((now - started) * 1000)
            if max(abs(x - x0), abs(y - y0)) <= TAP_SLOP_PX:
                await (self.phone.tap(x0, y0) if held_ms < LONG_PRESS_MS else
                       self.phone.long_press(x0, y0, held_ms))
            else:
                await self.phone.swipe(x0, y0, x, y, max(50, held_ms))
        else:
            return False
        return True

    async def press_key(self, name: str) -> bool:
        code = KEY_NAMES.get((name or "").lower())
        if code is None:
            return False
        await self.phone.press_key(code)
        return True

    async def press_key_code(self, code: int, _meta: int = 0) -> bool:
        await self.phone.press_key(code)
        return True

    # ------------------------------------------------------------ clipboard and text

    async def set_clipboard(self, _label: str | None, text: str | None) -> None:
        self.phone.clipboard = text or ""

    async def get_clipboard(self) -> str | None:
        return self.phone.clipboard or None  # ClipboardManager.getText(): null when there is no clip

    async def paste_clipboard(self) -> None:
        await self.phone.press_key(KEY_PASTE)

    async def clear_input_text(self) -> None:
        await self.phone.input.replace_text("")

    # ------------------------------------------------------------ toasts and waiting

    async def get_last_toast(self) -> str | None:
        return self.last_toast

    async def clear_last_toast(self) -> None:
        self.last_toast = None

    async def _wait(self, done: Callable[[], bool | Awaitable[bool]], timeout_ms: int) -> bool:
        deadline = time.monotonic() + max(0, timeout_ms) / 1000
        while True:
            self._changed.clear()
            result = done()
            if not isinstance(result, bool):
                result = await result
            remaining = deadline - time.monotonic()
            if result or remaining <= 0:
                return result
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, POLL_S))

    async def wait_for_window_update(self, package: str | None, timeout: int) -> bool:
        focused = self._focused_window()
        if package and (focused is None or focused.package != package):
            return False
        start = self.phone.revision
        return await self._wait(lambda: self.phone.revision != start, timeout)

    # ------------------------------------------------------------ selectors (UiObject2 / UiObject)

    def _find(self, selector: dict[str, Any] | None) -> list[sel.Match]:
        return sel.find(self.phone.windows(), selector or {})

    async def exist(self, selector: dict[str, Any] | None) -> bool:
        return bool(self._find(selector))

    async def obj_info(self, selector: dict[str, Any] | None) -> dict[str, Any]:
        return sel.obj_info(sel.first(self.phone.windows(), selector or {}))

    async def count(self, selector: dict[str, Any] | None) -> int:
        return len(self._find(selector))

    async def obj_info_all(self, selector: dict[str, Any] | None) -> list[dict[str, Any]]:
        return [sel.obj_info(m) for m in self._find(selector)]

    async def wait_for_exists(self, selector: dict[str, Any] | None, timeout: int) -> bool:
        return await self._wait(lambda: bool(self._find(selector)), timeout)

    async def wait_until_gone(self, selector: dict[str, Any] | None, timeout: int) -> bool:
        return await self._wait(lambda: not self._find(selector), timeout)

    async def get_text(self, selector: dict[str, Any] | None) -> str | None:
        return reported_text(sel.first(self.phone.windows(), selector or {}).view) or None

    async def click_object(self, selector: dict[str, Any] | None, corner: str | None = "center") -> bool:
        box = sel.first(self.phone.windows(), selector or {}).view.visible
        where = (corner or "center").lower()
        if where in ("c", "center"):
            x, y = box.center
        elif where in ("tl", "topleft"):
            x, y = box.left + 5, box.top + 5         # UiObject.clickTopLeft
        elif where in ("br", "bottomright"):
            x, y = box.right - 5, box.bottom - 5     # UiObject.clickBottomRight
        else:
            return False
        await self.phone.tap(x, y)
        return True

    async def long_click_object(self, selector: dict[str, Any] | None, _corner: str | None = None) -> bool:
        x, y = sel.first(self.phone.windows(), selector or {}).view.visible.center
        await self.phone.long_press(x, y)
        return True

    async def set_text(self, selector: dict[str, Any] | None, text: str | None) -> bool:
        # UiObject2: click the field (which focuses it), then ACTION_SET_TEXT replaces its text.
        match = sel.first(self.phone.windows(), selector or {})
        await self.phone.tap(*match.view.visible.center)
        if match.view.editable:
            await self.phone.input.replace_text(text or "")
        return True

    async def clear_text_field(self, selector: dict[str, Any] | None) -> None:
        match = sel.first(self.phone.windows(), selector or {})
        await self.phone.input.replace_text("", match.view)


def _jpeg_base64(image: Image.Image, scale: float, quality: int) -> str:
    if 0 < scale != 1:
        image = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                             Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, "JPEG", quality=max(0, min(100, quality)))
    # android.util.Base64.DEFAULT: lines of 76 characters, each ending in "\n".
    return base64.encodebytes(buffer.getvalue()).decode("ascii")
