"""A scripted phone for orchestrator tests: screens as small state machines, every command recorded.

Whole runs on the virtual phone through adb live in the end-to-end tests; this fake exists to put the loop
in one exact situation (a screen that never changes, an A→B→A cycle, a sign-in screen, a launcher that
comes to the front) without building that situation in a simulated app.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from xml.sax.saxutils import quoteattr

from PIL import Image

from relay_desktop.device.errors import AppNotFoundError
from relay_desktop.device.models import AppInfo, CurrentApp, DeviceContext

LAUNCHER = "com.android.launcher3"
ROW = 160


@dataclass
class Widget:
    label: str
    kind: str = "button"          # button, switch, field, password, text, list
    checked: bool = False
    value: str = ""
    resource_id: str = ""


@dataclass
class Screen:
    package: str
    widgets: list[Widget]
    # label tapped → name of the next screen, or a callable run on the phone
    taps: dict[str, str | Callable[[FakePhone], None]] = field(default_factory=dict)
    back: str | None = None


def _node(index: int, w: Widget, top: int, package: str) -> str:
    bounds = f"[0,{top}][1080,{top + ROW - 10}]"
    attrs = {"index": str(index), "package": package, "text": w.value if w.kind in ("field", "password") else w.label,
             "class": {"switch": "android.widget.Switch", "field": "android.widget.EditText",
                       "password": "android.widget.EditText", "text": "android.widget.TextView",
                       "list": "androidx.recyclerview.widget.RecyclerView"}.get(w.kind, "android.widget.Button"),
             "content-desc": "", "checkable": str(w.kind == "switch").lower(), "checked": str(w.checked).lower(),
             "clickable": str(w.kind not in ("text", "list")).lower(), "enabled": "true",
             "focusable": str(w.kind in ("field", "password")).lower(), "focused": "false",
             "scrollable": str(w.kind == "list").lower(), "long-clickable": "false",
             "password": str(w.kind == "password").lower(), "selected": "false", "bounds": bounds,
             "hint": w.label if w.kind in ("field", "password") else "", "resource-id": w.resource_id}
    text = " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items())
    return f"<node {text} />"


class FakePhone:
    serial = "fake-phone"

    def __init__(self, screens: dict[str, Screen], start: str, *, apps: dict[str, str] | None = None) -> None:
        self.screens = screens
        self.current = start
        self.commands: list[str] = []
        self.keyboard = False
        self.apps = apps or {"com.example.app": "Example", LAUNCHER: "Launcher"}
        self.launch_screens: dict[str, str] = {}    # package → screen opened by launch_app
        self.dump_delay = 0.0
        self.screenshot_delay = 0.0
        self.intervals: dict[str, list[tuple[float, float]]] = {"dump": [], "screenshot": []}
        self.typed: list[str] = []
        self.recents: str | None = None              # the screen APP_SWITCH opens

    @property
    def screen(self) -> Screen:
        return self.screens[self.current]

    def xml(self) -> str:
        nodes = "".join(_node(i, w, 100 + i * ROW, self.screen.package) for i, w in enumerate(self.screen.widgets))
        return (f'<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"><node index="0" text="" '
                f'class="android.widget.FrameLayout" package="{self.screen.package}" content-desc="" '
                f'checkable="false" checked="false" clickable="false" enabled="true" focusable="false" '
                f'focused="false" scrollable="false" long-clickable="false" password="false" selected="false" '
                f'bounds="[0,0][1080,2400]" resource-id="">{nodes}</node></hierarchy>')

    async def _timed(self, name: str, delay: float) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await asyncio.sleep(delay)
        self.intervals[name].append((start, loop.time()))

    # ------------------------------------------------------------ Phone protocol

    async def screenshot(self) -> Image.Image:
        await self._timed("screenshot", self.screenshot_delay)
        return Image.new("RGB", (1080, 2400), "white")

    async def dump_hierarchy(self) -> str:
        await self._timed("dump", self.dump_delay)
        return self.xml()

    def widget_at(self, y: int) -> Widget | None:
        index = (y - 100) // ROW
        widgets = self.screen.widgets
        return widgets[index] if 0 <= index < len(widgets) else None

    async def tap(self, x: int, y: int) -> None:
        self.commands.append(f"tap {x} {y}")
        widget = self.widget_at(y)
        if widget is None:
            return
        if widget.kind == "switch":
            widget.checked = not widget.checked
        if widget.kind in ("field", "password"):
            self.keyboard = True
        target = self.screen.taps.get(widget.label)
        if callable(target):
            target(self)
        elif target is not None:
            self.current = target

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self.commands.append(f"long_press {x} {y}")

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.commands.append(f"swipe {x1} {y1} {x2} {y2}")

    async def press_key(self, key: int | str) -> None:
        self.commands.append(f"key {key}")
        if key == "BACK":
            if self.keyboard:
                self.keyboard = False
            elif self.screen.back is not None:
                self.current = self.screen.back
        elif key == "HOME":
            self.current = "home" if "home" in self.screens else self.current
        elif key == "APP_SWITCH" and self.recents is not None:
            self.current = self.recents

    async def press_keys(self, *keys: int | str) -> None:
        self.commands.append("keys " + " ".join(map(str, keys)))

    async def type_text(self, text: str) -> None:
        self.commands.append(f"type {text}")
        self.typed.append(text)
        for widget in self.screen.widgets:
            if widget.kind in ("field", "password"):
                widget.value += text
                break

    async def launch_app(self, name_or_package: str) -> str:
        for package, label in self.apps.items():
            if name_or_package in (package, label):
                self.commands.append(f"launch {package}")
                if package in self.launch_screens:
                    self.current = self.launch_screens[package]
                return package
        raise AppNotFoundError(f"no installed app is called '{name_or_package}'")

    async def installed_apps(self, refresh: bool = False) -> list[AppInfo]:
        return [AppInfo(p, label) for p, label in self.apps.items()]

    async def current_app(self) -> CurrentApp | None:
        return CurrentApp(self.screen.package, ".Main")

    async def keyboard_shown(self) -> bool:
        return self.keyboard

    async def device_context(self) -> DeviceContext:
        return DeviceContext(self.serial, "Fake", "Relay", "14", 34, "en-US", "UTC", 1080, 2400, 420, False, None)


def counter_screens(count: int = 60, package: str = "com.example.app") -> dict[str, Screen]:
    """Screens s0 → s1 → …: each has a "Next" button to the next one, so every step changes the screen."""
    return {f"s{i}": Screen(package, [Widget(f"Page {i}", "text"), Widget("Next")], taps={"Next": f"s{i + 1}"},
                            back=f"s{i - 1}" if i else None) for i in range(count + 1)}
