"""A small stand-in for VirtualPhone with exactly the surface the shell uses, for the shell's tests.

It records input calls instead of dispatching them, returns a fixed hierarchy and fixed screenshots,
and uses the real MemoryFS when it exists (a minimal in-memory stand-in otherwise).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

TZ = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 22, 23, 5, 14, tzinfo=TZ)

HIERARCHY = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
             "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
             "package=\"com.android.settings\" bounds=\"[0,0][1080,2400]\" /></hierarchy>")
PNG = b"\x89PNG\r\n\x1a\nfake-png"


class IdleStateError(RuntimeError):
    def __init__(self) -> None:
        super().__init__("ERROR: could not get idle state.")


@dataclass
class FileStat:
    mode: int
    size: int
    mtime: float


class StandInFS:
    """Just enough of MemoryFS (same method names and exceptions)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.meta: dict[str, tuple[int, float]] = {}
        self.dirs: set[str] = {"/"}
        for path in ("/sdcard/Download", "/sdcard/DCIM", "/data/local/tmp", "/system/bin", "/dev",
                     "/storage/emulated/0"):
            self.mkdir(path, parents=True)
        self.files["/dev/null"] = b""
        self.meta["/dev/null"] = (0o666, NOW.timestamp())

    @staticmethod
    def _norm(path: str) -> str:
        return posixpath.normpath("/" + path.lstrip("/"))

    def exists(self, path: str) -> bool:
        path = self._norm(path)
        return path in self.files or path in self.dirs

    def is_dir(self, path: str) -> bool:
        return self._norm(path) in self.dirs

    def stat(self, path: str) -> FileStat | None:
        path = self._norm(path)
        if path in self.dirs:
            mode, mtime = self.meta.get(path, (0o40771, NOW.timestamp()))
            return FileStat(mode, 0, mtime)
        if path in self.files:
            mode, mtime = self.meta[path]
            return FileStat(mode, len(self.files[path]), mtime)
        return None

    def listdir(self, path: str) -> list[str]:
        path = self._norm(path)
        if path in self.files:
            raise NotADirectoryError(path)
        if path not in self.dirs:
            raise FileNotFoundError(path)
        prefix = path.rstrip("/") + "/"
        names = {p[len(prefix):].split("/")[0] for p in (*self.files, *self.dirs) if p.startswith(prefix) and p != path}
        return sorted(names)

    def read(self, path: str) -> bytes:
        path = self._norm(path)
        if path in self.dirs:
            raise IsADirectoryError(path)
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path] if path != "/dev/null" else b""

    def write(self, path: str, data: bytes, mode: int = 0o644, mtime: float | None = None,
              make_parents: bool = False) -> None:
        path = self._norm(path)
        if path == "/dev/null":
            return
        parent = posixpath.dirname(path)
        if parent not in self.dirs:
            if not make_parents:
                raise FileNotFoundError(parent)
            self.mkdir(parent, parents=True)
        if path in self.dirs:
            raise IsADirectoryError(path)
        self.files[path] = bytes(data)
        self.meta[path] = (0o100000 | mode, NOW.timestamp() if mtime is None else mtime)

    def mkdir(self, path: str, parents: bool = False) -> None:
        path = self._norm(path)
        if path in self.dirs or path in self.files:
            if parents and path in self.dirs:
                return
            raise FileExistsError(path)
        parent = posixpath.dirname(path)
        if parent not in self.dirs:
            if not parents:
                raise FileNotFoundError(parent)
            self.mkdir(parent, parents=True)
        self.dirs.add(path)

    def remove(self, path: str, recursive: bool = False) -> None:
        path = self._norm(path)
        if path in self.files:
            del self.files[path]
            return
        if path not in self.dirs:
            raise FileNotFoundError(path)
        children = [p for p in (*self.files, *self.dirs) if p.startswith(path.rstrip("/") + "/")]
        if children and not recursive:
            raise OSError(39, "Directory not empty")
        for child in children:
            self.files.pop(child, None)
            self.dirs.discard(child)
        self.dirs.discard(path)


def make_fs() -> Any:
    try:
        from relay_desktop.sim.memfs import MemoryFS
    except ImportError:
        return StandInFS()
    factory = getattr(MemoryFS, "android_default", None)
    return factory() if factory is not None else MemoryFS()


@dataclass
class App:
    package: str
    label: str
    main_activity: str = ".MainActivity"
    system: bool = False
    version_name: str = "1.0"
    version_code: int = 1
    install_time: datetime = field(default_factory=lambda: datetime(2026, 1, 5, 9, 30, tzinfo=TZ))
    in_launcher: bool = True


class FakePhone:
    def __init__(self) -> None:
        self.props = {
            "ro.product.model": "Relay Virtual Phone", "ro.product.device": "relay_sim",
            "ro.product.name": "relay_sim", "ro.build.version.sdk": "34", "ro.build.version.release": "14",
            "persist.sys.locale": "en-US", "persist.sys.timezone": "America/New_York",
        }
        self.settings: dict[str, dict[str, str]] = {
            "system": {"screen_brightness": "128"}, "secure": {}, "global": {"wifi_on": "1", "bluetooth_on": "0"},
        }
        self.fs = make_fs()
        self.physical_size = (1080, 2400)
        self.size_override: tuple[int, int] | None = None
        self.physical_density = 420
        self.density_override: int | None = None
        self.rotation = 0
        self.keyboard_shown = False
        self.ime_package = "com.google.android.inputmethod.latin"
        self.clipboard = ""
        self.java_mains: dict[str, Any] = {}
        self.apps = {a.package: a for a in (
            App("com.android.launcher3", "Pixel Launcher", ".Launcher", system=True, in_launcher=False),
            App("com.android.settings", "Settings", ".Settings", system=True, version_name="14", version_code=34),
            App("com.example.notes", "Notes", ".MainActivity", version_name="2.3.1", version_code=231),
        )}
        self.focus: tuple[str, str] | None = ("com.android.settings", ".Settings")
        self.calls: list[tuple[Any, ...]] = []
        self.dump_error = False

    def now(self) -> datetime:
        return NOW

    def focused_activity(self) -> tuple[str, str] | None:
        return self.focus

    async def tap(self, x: float, y: float) -> None:
        self.calls.append(("tap", x, y))

    async def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        self.calls.append(("swipe", x1, y1, x2, y2, duration_ms))

    async def drag_and_drop(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int) -> None:
        self.calls.append(("drag", x1, y1, x2, y2, duration_ms))

    async def press_key(self, code: int, long_press: bool = False) -> None:
        self.calls.append(("key", code, long_press))

    async def input_text(self, text: str) -> None:
        self.calls.append(("text", text))

    def launch(self, package: str, activity: str | None = None) -> str:
        app = self.apps.get(package)
        if app is None:
            raise LookupError(f"package {package} is not installed")
        self.calls.append(("launch", package, activity))
        self.focus = (package, activity or app.main_activity)
        return f"{package}/{self.focus[1]}"

    def start_intent(self, action: str | None, data: str | None, component: str | None,
                     categories: list[str], extras: dict[str, str]) -> str:
        self.calls.append(("intent", action, data, component, tuple(categories), dict(extras)))
        if component:
            package, _, activity = component.partition("/")
            app = self.apps.get(package)
            if app is None or activity not in (app.main_activity, package + app.main_activity):
                raise LookupError(f"Activity class {{{component}}} does not exist.")
            self.focus = (package, app.main_activity)
            return f"{package}/{app.main_activity}"
        if action == "android.intent.action.VIEW" and data and data.startswith("http"):
            self.focus = ("com.example.notes", ".MainActivity")
            return "com.example.notes/.MainActivity"
        raise LookupError("No Activity found to handle Intent")

    def force_stop(self, package: str) -> None:
        self.calls.append(("force_stop", package))
        if self.focus and self.focus[0] == package:
            self.focus = ("com.android.launcher3", ".Launcher")

    def clear_data(self, package: str) -> None:
        self.calls.append(("clear", package))

    async def dump_hierarchy(self) -> str:
        if self.dump_error:
            raise IdleStateError()
        return HIERARCHY

    async def screencap_png(self) -> bytes:
        return PNG

    async def screencap_raw(self) -> tuple[int, int, bytes]:
        return 2, 1, bytes([255, 0, 0, 255, 0, 255, 0, 255])
