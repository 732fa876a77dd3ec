"""The virtual phone: apps, back stacks, settings, focus and keyboard, and the device surface that the
ADB transport and the shell talk to.

Everything runs on one asyncio loop. Input and navigation mutate state and call :meth:`invalidate`;
the window list (and so the picture and the hierarchy dump) is rebuilt lazily from that state.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from PIL import Image

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.clipboard import ClipboardListener, PrimaryClip
from relay_desktop.sim.compose import compose_windows
from relay_desktop.sim.config import Faults, IdleStateError, PhoneConfig
from relay_desktop.sim.input_dispatch import InputDispatcher
from relay_desktop.sim.memfs import MemoryFS
from relay_desktop.sim.notifications import NotificationCenter
from relay_desktop.sim.sockets import SocketRegistry
from relay_desktop.sim.split_screen import SplitScreen
from relay_desktop.sim.streams import ProcessIO
from relay_desktop.sim.system_dialog import SystemDialog, app_keeps_stopping
from relay_desktop.sim.ui import Kit
from relay_desktop.sim.views import Rect, Window

if TYPE_CHECKING:
    from relay_desktop.sim.chaos import Chaos

log = logging.getLogger(__name__)

LAUNCHER_PACKAGE = "com.android.launcher3"
IME_PACKAGE = "com.google.android.inputmethod.latin"

__all__ = ["IME_PACKAGE", "LAUNCHER_PACKAGE", "IdleStateError", "VirtualPhone"]


class VirtualPhone:
    clipboard = PrimaryClip()        # a str; setting it tells clipboard_listeners (ClipboardManager's listeners)

    def __init__(self, config: PhoneConfig | None = None, faults: Faults | None = None) -> None:
        from relay_desktop.sim.apps import BUILTIN_APPS
        from relay_desktop.sim.shell import Shell

        self.config = config or PhoneConfig()
        self.faults = faults or Faults()
        self.tz = ZoneInfo(self.config.timezone)
        self.props = self.config.props()
        self.settings = self.factory_settings()
        self.fs = MemoryFS.android_default()
        self.sockets = SocketRegistry()
        self.shell = Shell(self)
        self.java_mains: dict[str, Callable[..., Any]] = {}
        from relay_desktop.sim import scrcpy_server  # the simulated scrcpy server is a Java main like any other

        self.scrcpy_killers: set[Callable[[], None]] = set()   # one per running scrcpy server
        scrcpy_server.install(self)
        from relay_desktop.sim import u2_server  # uiautomator2's u2.jar, likewise (kill: u2_server.kill_servers)

        u2_server.install(self)
        self.clipboard_listeners: list[ClipboardListener] = []
        self.clipboard = ""
        self.physical_size = (self.config.width, self.config.height)
        self.size_override: tuple[int, int] | None = None
        self.physical_density = self.config.density
        self.density_override: int | None = None
        self.rotation = 0
        self.screen_on = True
        self.battery_level = 100
        self.ime_package = IME_PACKAGE
        self.kit = Kit(self.config.density)
        self.notifications = NotificationCenter(self)

        self.apps: dict[str, App] = {}
        for app_class in BUILTIN_APPS:
            app = app_class(self)
            self.apps[app.package] = app
        # One back stack per app; the last key of `tasks` is the task in front.
        self.tasks: dict[str, list[Activity]] = {}
        self.focus_key: str | None = None
        self.keyboard_shown = False
        self.keyboard_shift = False
        self.keyboard_symbols = False
        self.toast: tuple[str, float] | None = None
        self.system_dialog: SystemDialog | None = None    # a dialog of the system's over every app
        self.revision = 0
        self._windows: list[Window] | None = None
        self._windows_key: tuple[Any, ...] = ()
        self._listeners: list[Callable[[], None]] = []
        self._animating_until = 0.0
        self.input = InputDispatcher(self)
        self.split = SplitScreen(self)
        # Interruptions (sim/chaos.py): None, the default, is a phone where nothing comes up unasked.
        self.chaos: Chaos | None = None
        self.go_home()

    # ------------------------------------------------------------ identity and state

    def factory_settings(self) -> dict[str, dict[str, str]]:
        """The settings as the phone leaves the factory (what ``settings put`` and the Settings app change)."""
        return {
            "global": {"wifi_on": "1", "bluetooth_on": "0", "airplane_mode_on": "0", "adb_enabled": "1",
                       "auto_time": "1", "device_name": self.config.model},
            "system": {"screen_brightness": "128", "screen_brightness_mode": "0", "time_12_24": "24",
                       "screen_off_timeout": "60000", "font_scale": "1.0"},
            "secure": {"ui_night_mode": "1", "android_id": "5ee1a7ed0c0ffee1",
                       "default_input_method": f"{IME_PACKAGE}/com.android.inputmethod.latin.LatinIME"},
        }

    @property
    def banner_props(self) -> dict[str, str]:
        return {k: self.props[k] for k in ("ro.product.name", "ro.product.model", "ro.product.device")}

    @property
    def display_size(self) -> tuple[int, int]:
        """The screen as apps see it now: the override (``wm size``) or the panel, turned with the phone."""
        width, height = self.size_override or self.physical_size
        return (height, width) if self.rotation % 2 else (width, height)

    def rotate(self, rotation: int) -> None:
        """Turn the phone: 0 portrait, 1 landscape (90°), 2 upside down, 3 landscape (270°). As on Android, the
        screenshot, the UI dump and input coordinates follow the new orientation; ``wm size`` still reports the
        panel's natural size, and ``dumpsys window displays`` / ``dumpsys display`` the turned one."""
        if rotation not in (0, 1, 2, 3):
            raise ValueError(f"rotation must be 0, 1, 2 or 3 (quarter turns), not {rotation!r}")
        if rotation != self.rotation:
            self.rotation = rotation
            self.invalidate()

    def kill_scrcpy_servers(self) -> int:
        """The scrcpy servers running on the phone die at once (the low-memory killer, ``pkill app_process``):
        their sockets close and their shells end. Returns how many there were."""
        killers = list(self.scrcpy_killers)
        for kill in killers:
            kill()
        return len(killers)

    @property
    def dark_theme(self) -> bool:
        return self.settings["secure"].get("ui_night_mode") == "2"

    def setting(self, namespace: str, key: str, default: str = "") -> str:
        return self.settings[namespace].get(key, default)

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        self.settings[namespace][key] = value
        self.invalidate()

    def now(self) -> datetime:
        return datetime.now(self.tz)

    def app(self, package: str) -> App:
        return self.apps[package]

    def add_listener(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` after every change of what the screen shows; returns a remover."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def invalidate(self) -> None:
        self.revision += 1
        self._windows = None
        for callback in list(self._listeners):
            callback()

    # ------------------------------------------------------------ screen content

    def windows(self) -> list[Window]:
        """The laid-out windows in z-order, rebuilt only when something changed."""
        toast_live = self.toast is not None and self.toast[1] > time.monotonic()
        if not toast_live:
            self.toast = None
        key = (self.revision, self.now().strftime("%H:%M"), toast_live, self.notifications.visible_key())
        if self._windows is None or key != self._windows_key:
            self._windows = compose_windows(self)
            self._windows_key = key
        return self._windows

    def current_activity(self) -> Activity:
        """The front task's top activity; in split screen the focused half's (its task is kept last)."""
        return next(reversed(self.tasks.values()))[-1]

    def window_bounds(self, package: str) -> Rect:
        """The bounds Android gives the package's task (WindowMetrics / the configuration's window bounds):
        its half in split screen, otherwise the whole display."""
        frame = self.split.frame_of(package)
        if frame is not None:
            return frame
        width, height = self.display_size
        return Rect(0, 0, width, height)

    def focused_activity(self) -> tuple[str, str] | None:
        activity = self.current_activity()
        return activity.app.package, activity.name

    @property
    def animating(self) -> bool:
        return time.monotonic() < self._animating_until

    def animate_for(self, seconds: float) -> None:
        """Keep the screen "animating" (as a video or a transition would) for ``seconds``."""
        self._animating_until = max(self._animating_until, time.monotonic() + seconds)

    async def dump_hierarchy(self) -> str:
        from relay_desktop.sim.hierarchy import dump_xml

        if self.config.realism.dump_seconds:
            await asyncio.sleep(self.config.realism.dump_seconds)
        if self.faults.dump_failures > 0:
            self.faults.dump_failures -= 1
            raise IdleStateError()
        if self.faults.dump_fails_while_animating and self.animating:
            raise IdleStateError()
        return dump_xml(self.windows(), rotation=self.rotation)

    async def screenshot(self) -> Image.Image:
        from relay_desktop.sim.render import render

        if self.config.realism.screencap_seconds:
            await asyncio.sleep(self.config.realism.screencap_seconds)
        windows = self.windows()
        if self.shows_secure_window(windows):
            # As SurfaceFlinger does for a capture that may not see secure layers: a black frame, the size of
            # the display (screencap, the scrcpy stream and uiautomator2's screenshot all come through here).
            return Image.new("RGB", self.display_size)
        # Trees are rebuilt, never mutated, after a change, so a render thread sees a consistent snapshot.
        return await asyncio.to_thread(render, windows, self.display_size, self.dark_theme)

    def shows_secure_window(self, windows: list[Window] | None = None) -> bool:
        """A window of an app with FLAG_SECURE is on screen (its own or one of its dialogs)."""
        for window in windows if windows is not None else self.windows():
            app = self.apps.get(window.package)
            if window.kind in ("app", "dialog") and app is not None and app.secure:
                return True
        return False

    async def screencap_png(self) -> bytes:
        from relay_desktop.sim.render import encode_png

        image = await self.screenshot()
        return await asyncio.to_thread(encode_png, image)

    async def screencap_raw(self) -> tuple[int, int, bytes]:
        image = await self.screenshot()
        rgba = await asyncio.to_thread(lambda: image.convert("RGBA").tobytes())
        return image.width, image.height, rgba

    def show_system_dialog(self, dialog: SystemDialog) -> None:
        self.system_dialog = dialog
        self.invalidate()

    def report_background_crash(self, package: str) -> None:
        """An app not in front crashed: "<App> keeps stopping" comes up over whatever is in front."""
        self.show_system_dialog(app_keeps_stopping(self, package))

    def show_toast(self, text: str, seconds: float = 2.0) -> None:
        self.toast = (text, time.monotonic() + seconds)
        self.invalidate()

    # ------------------------------------------------------------ shell (the ADB transport's entry point)

    async def run_shell(self, command: str, io: ProcessIO) -> int:
        hook = self.faults.before_command
        if hook is not None:
            pending = hook(command)
            if pending is not None:
                await pending
        return await self.shell.run(command, io)

    # ------------------------------------------------------------ input (delegated; see input_dispatch.py)

    async def tap(self, x: float, y: float) -> None:
        await self.input.tap(x, y)
        self._after_input()

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
        await self.input.swipe(x1, y1, x2, y2, duration_ms)
        self._after_input()

    async def drag_and_drop(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 1000) -> None:
        await self.input.swipe(x1, y1, x2, y2, max(duration_ms, 600))
        self._after_input()

    async def long_press(self, x: float, y: float, duration_ms: int = 800) -> None:
        await self.input.swipe(x, y, x, y, duration_ms)
        self._after_input()

    async def press_key(self, code: int, long_press: bool = False) -> None:
        await self.input.press_key(code, long_press)
        self._after_input()

    async def input_text(self, text: str) -> None:
        await self.input.type_text(text)
        self._after_input()

    def _after_input(self) -> None:
        if self.chaos is not None:
            self.chaos.after_input()   # the seeded interruptions come after the Nth input event

    # ------------------------------------------------------------ navigation

    def start_activity(self, activity: Activity, new_task: bool = False) -> None:
        package = activity.app.package
        stack = self.tasks.pop(package, [])
        if new_task:
            stack = []
        stack.append(activity)
        self.tasks[package] = stack
        self._navigated()

    def finish_activity(self) -> None:
        package, stack = next(reversed(self.tasks.items()))
        if package == LAUNCHER_PACKAGE and len(stack) == 1:
            return  # home stays home
        stack.pop()
        if not stack:
            del self.tasks[package]
        self._ensure_launcher()
        self._navigated()

    def go_home(self) -> None:
        launcher = self.apps[LAUNCHER_PACKAGE]
        self.tasks.pop(LAUNCHER_PACKAGE, None)
        self.tasks[LAUNCHER_PACKAGE] = [Activity(launcher, launcher.main_activity)]
        self._navigated()

    def bring_to_front(self, package: str) -> None:
        self.tasks[package] = self.tasks.pop(package)
        self._navigated()

    def recent_packages(self) -> list[str]:
        """Tasks other than the launcher, most recent first (what the Overview screen lists)."""
        return [p for p in reversed(self.tasks) if p != LAUNCHER_PACKAGE]

    def launch(self, package: str, activity: str | None = None) -> str:
        app = self.apps.get(package)
        if app is None:
            raise LookupError(f"package {package} is not installed")
        name = self._activity_name(app, activity)
        if activity is None and package in self.tasks:
            self.bring_to_front(package)  # like tapping the launcher icon of a running app
        else:
            self.start_activity(Activity(app, name), new_task=True)
        return f"{package}/{name}"

    def start_intent(self, action: str | None, data: str | None, component: str | None,
                     categories: list[str] | None = None, extras: dict[str, str] | None = None) -> str:
        if component:
            package, _, activity = component.partition("/")
            app = self.apps.get(package)
            if app is None:
                raise LookupError(f"Activity class {{{component}}} does not exist.")
            name = self._activity_name(app, activity or None)
            self.start_activity(Activity(app, name, dict(extras or {}, data=data)), new_task=True)
            return f"{package}/{name}"
        for app in self.apps.values():
            resolved = app.resolve_intent(action, data)
            if resolved is not None:
                name, params = resolved
                self.start_activity(Activity(app, name, dict(params, **(extras or {}))), new_task=True)
                return f"{app.package}/{name}"
        raise LookupError("No Activity found to handle Intent")

    def force_stop(self, package: str) -> None:
        if package in self.tasks and package != LAUNCHER_PACKAGE:
            del self.tasks[package]
            self._ensure_launcher()
            self._navigated()

    def crash(self, package: str) -> None:
        """An app threw: close it and say so, as Android's "keeps stopping" notice does."""
        app = self.apps.get(package)
        self.force_stop(package)
        if package == LAUNCHER_PACKAGE:
            self.go_home()
        self.show_toast(f"{app.label if app else package} keeps stopping")

    def clear_data(self, package: str) -> None:
        self.force_stop(package)
        self.apps[package].reset()
        if self.chaos is not None:
            self.chaos.app_cleared(package)    # its runtime permissions go with its data: it asks again
        self.invalidate()

    def _activity_name(self, app: App, activity: str | None) -> str:
        if not activity:
            return app.main_activity
        if activity in app.screens:
            return activity
        if activity.startswith(app.package + "."):
            activity = activity[len(app.package):]
        if not activity.startswith("."):
            activity = "." + activity
        if activity not in app.screens:
            raise LookupError(f"Activity class {{{app.package}/{activity}}} does not exist.")
        return activity

    def _ensure_launcher(self) -> None:
        if LAUNCHER_PACKAGE not in self.tasks:
            self.go_home()

    def refresh_after_navigation(self) -> None:
        """Tasks were reordered from outside the phone (split screen ending): focus, keyboard and picture."""
        self._navigated()

    def _navigated(self) -> None:
        self.split.sync()
        self.notifications.shade_open = False  # opening anything closes the shade
        activity = self.current_activity()
        self.focus_key = activity.app.initial_focus(activity)
        self.keyboard_shown = self.focus_key is not None
        if self.config.realism.transition_seconds:
            self.animate_for(self.config.realism.transition_seconds)
        if self.chaos is not None:
            self.chaos.navigated()     # an app coming to the front may ask for a permission, show what's new…
        self.invalidate()

    def __repr__(self) -> str:
        w, h = self.display_size
        return f"<VirtualPhone {self.config.model!r} {w}x{h} front={self.focused_activity()}>"
