"""One phone, as the rest of the app sees it: intent verbs, async, with typed results and errors.

Shell commands go over the shell v2 protocol, so exit codes are real and a connection that drops
mid-command is noticed (no exit packet) instead of looking like a short, successful output.

A phone that drops off the bus for a moment (a cable wiggle, Wi-Fi roaming, the adb server killed and
restarted) does not end what is running: a command that fails because the phone is unreachable waits up to
``reconnect_timeout`` for it to come back — restarting a local adb server that died and reconnecting a network
phone the new server does not know — and is then sent again. Only commands that read are sent again after a
drop *during* the command; one that changes the phone (a tap, typed text) may already have happened, so it
fails with :class:`CommandInterruptedError` instead. Subscribers (:meth:`Device.subscribe_notices`) are told
in words when the connection was lost and found again.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

import adbutils
from PIL import Image, UnidentifiedImageError

from relay_desktop.device import app_labels
from relay_desktop.device.adb_calls import call
from relay_desktop.device.errors import (
    AdbServerError,
    AppNotFoundError,
    CommandFailedError,
    CommandInterruptedError,
    DeviceDisconnectedError,
    DeviceError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceUnauthorizedError,
    UnsupportedTextError,
)
from relay_desktop.device.models import AppInfo, CurrentApp, DeviceContext, ShellResult
from relay_desktop.device.notices import tell
from relay_desktop.device.screen_reading import ScreenReading
from relay_desktop.device.text_input import shell_quote, type_steps, untypable
from relay_desktop.device.ui_server import UiServer
from relay_desktop.keycodes import keycode

if TYPE_CHECKING:
    from relay_desktop.device.adb_server import AdbServer

log = logging.getLogger(__name__)
T = TypeVar("T")

RECONNECT_TIMEOUT_S = 8.0
APPS_TTL_SECONDS = 300.0
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ \S+ (?P<pkg>[^\s/}]+)/(?P<act>[^\s}]+)\}")
_FOCUSED_APP = re.compile(r"mFocusedApp=\S*ActivityRecord\{\S+ \S+ (?P<pkg>[^\s/}]+)/(?P<act>[^\s}]+)")
_RESUMED = re.compile(r"(?:mResumedActivity|topResumedActivity)[:=] ?ActivityRecord\{\S+ \S+ "
                      r"(?P<pkg>[^\s/}]+)/(?P<act>[^\s}]+)")
_PROP = re.compile(r"^\[(?P<key>[^\]]+)\]: \[(?P<value>.*)\]$", re.M)
_COMPONENT = re.compile(r"^\s*(?P<pkg>[A-Za-z][\w.]*)/(?P<act>[\w.$]+)\s*$", re.M)


class Device(ScreenReading):
    def __init__(self, server: AdbServer, serial: str, command_timeout: float = 30.0,
                 reconnect_timeout: float = RECONNECT_TIMEOUT_S) -> None:
        self.server = server
        self.serial = serial
        self.command_timeout = command_timeout
        self.reconnect_timeout = reconnect_timeout   # 0: fail at once when the phone is unreachable
        self._adb = server.client.device(serial)
        self._apps: tuple[float, list[AppInfo]] | None = None
        self._size: tuple[int, int] | None = None
        self._recovering: asyncio.Lock | None = None
        self._recovered_at = float("-inf")
        self._listeners: list[Callable[[str], None]] = []
        self.ui_server = UiServer(self._adb)

    def __repr__(self) -> str:
        return f"Device({self.serial!r})"

    # ------------------------------------------------------------ connection

    def subscribe_notices(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback`` (on the event loop) with a sentence whenever the connection was lost and recovered;
        returns the function that unsubscribes it."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _notify(self, message: str) -> None:
        tell(self._listeners, message, log)

    async def _run(self, fn: Callable[[], T], *, timeout: float, command: str, replay: bool) -> T:
        """``call`` with the recovery described in the module notes; ``replay``: safe to send twice."""
        try:
            return await call(fn, serial=self.serial, timeout=timeout)
        except DeviceUnauthorizedError:
            raise
        except (AdbServerError, DeviceNotFoundError, DeviceOfflineError, DeviceDisconnectedError) as exc:
            if not self.reconnect_timeout:
                raise
            if isinstance(exc, DeviceDisconnectedError) and not replay:
                raise CommandInterruptedError(command, self.serial) from exc
            await self.wait_until_back(exc)
        return await call(fn, serial=self.serial, timeout=timeout)

    async def wait_until_back(self, cause: DeviceError | None = None) -> None:
        """Wait (up to ``reconnect_timeout``) until adb lists the phone as ready again: restart a local adb
        server that is gone, and ``adb connect`` a network phone the server no longer lists. Raises
        :class:`DeviceDisconnectedError` naming the phone when it does not come back."""
        if self._recovering is None:
            self._recovering = asyncio.Lock()
        loop = asyncio.get_running_loop()
        asked = loop.time()
        async with self._recovering:
            if self._recovered_at >= asked:
                return  # commands that failed together share one recovery: another one just did it
            started = loop.time()
            checks = 0
            deadline = started + max(self.reconnect_timeout, 0.0)
            done: list[str] = []
            server_error: DeviceError | None = None
            next_connect = started
            while True:
                state: str | None = None
                try:
                    state = next((d.state for d in await self.server.devices() if d.serial == self.serial), None)
                    server_error = None
                except DeviceError as exc:
                    server_error = exc
                    if self.server.is_local and "restarted the adb server" not in done:
                        try:
                            await self.server.ensure_running(timeout=max(1.0, deadline - loop.time()))
                            done.append("restarted the adb server")
                            checks += 1
                            continue
                        except DeviceError as start_error:
                            server_error = start_error
                checks += 1
                if state == "device":
                    self._recovered_at = loop.time()
                    if checks > 1:
                        how = f" ({', '.join(done)})" if done else ""
                        self._notify(f"The connection to {self.serial} was lost ({_what_happened(cause)}); it is "
                                     f"back after {loop.time() - started:.1f} s{how}.")
                    return
                if state == "unauthorized":
                    raise DeviceUnauthorizedError(self.serial)
                if state is None and server_error is None and _network_serial(self.serial) and \
                        loop.time() >= next_connect:
                    next_connect = loop.time() + 1.0
                    try:
                        await self.server.connect(self.serial, timeout=max(0.5, min(3.0, deadline - loop.time())))
                        if "reconnected over the network" not in done:
                            done.append("reconnected over the network")
                    except DeviceError as exc:
                        log.debug("adb connect %s: %s", self.serial, exc)
                if loop.time() >= deadline:
                    if server_error is not None:
                        what = "stopped and could not be restarted" if self.server.is_local else \
                            f"at {self.server.host}:{self.server.port} does not answer"
                        raise DeviceDisconnectedError(
                            f"{self.serial} is unreachable: the adb server {what} ({server_error})") from cause
                    seen = f"it is {state}" if state else "adb does not list it"
                    raise DeviceDisconnectedError(
                        f"{self.serial} was disconnected and did not come back within {self.reconnect_timeout:g} s "
                        f"({seen}): check the USB cable or Wi-Fi connection, then start again") from cause
                await asyncio.sleep(0.2)

    # ------------------------------------------------------------ shell

    async def shell(self, command: str, *, timeout: float | None = None, check: bool = False,
                    idempotent: bool = False) -> ShellResult:
        """Run a shell command. ``idempotent``: it only reads, so it may be sent again after the connection
        dropped while it ran (otherwise that is a :class:`CommandInterruptedError`)."""
        limit = timeout or self.command_timeout

        def run() -> ShellResult:
            raw = self._adb.shell2(command, timeout=limit, encoding=None, v2=True)
            return ShellResult(command, raw.returncode, raw.stdout.decode(errors="replace"),
                               raw.stderr.decode(errors="replace"))

        result = await self._run(run, timeout=limit + 2, command=command, replay=idempotent)
        if check and result.exit_code != 0:
            raise CommandFailedError(command, result.output, result.exit_code)
        return result

    async def exec_out(self, command: str, *, timeout: float | None = None) -> bytes:
        """Raw stdout of ``exec:`` (binary-safe, no shell protocol), like ``adb exec-out``. Only for commands
        that read (they are sent again after a dropped connection)."""
        limit = timeout or self.command_timeout

        def run() -> bytes:
            with self._adb.open_transport(timeout=limit) as conn:
                conn.send_command(f"exec:{command}")
                conn.check_okay()
                return conn.read_until_close(encoding=None)  # type: ignore[return-value]

        return await self._run(run, timeout=limit + 2, command=command, replay=True)

    async def open_socket(self, name: str, timeout: float = 10.0) -> Any:
        """A blocking connection to the device's ``localabstract:NAME`` socket, straight through adbd (no port
        forwarding). Read it from a thread: it has ``recv``, ``send`` and ``close``."""
        def connect() -> Any:
            conn = self._adb.create_connection(adbutils.Network.LOCAL_ABSTRACT, name)
            conn.settimeout(None)  # a mirror's video socket is quiet for as long as the screen is still
            return conn
        return await call(connect, serial=self.serial, timeout=timeout)

    async def start_process(self, command: str) -> Any:
        """Start a long-running shell command; returns its blocking output connection (close it to end it)."""
        def start() -> Any:
            conn = self._adb.shell(command, stream=True)
            conn.conn.settimeout(None)
            return conn
        return await call(start, serial=self.serial, timeout=self.command_timeout)

    async def push(self, local: str | BinaryIO, remote: str) -> None:
        """``local``: a path, or a file object read to its end (to follow the progress)."""
        await self._run(lambda: self._adb.sync.push(local, remote), timeout=120, command=f"push {remote}",
                        replay=True)

    async def pull(self, remote: str, local: str) -> None:
        await self._run(lambda: self._adb.sync.pull(remote, local), timeout=120, command=f"pull {remote}",
                        replay=True)

    # ------------------------------------------------------------ screen

    async def screen_size(self) -> tuple[int, int]:
        result = await self.shell("wm size", check=True, idempotent=True)
        match = re.search(r"Override size: (\d+)x(\d+)", result.stdout) or \
            re.search(r"Physical size: (\d+)x(\d+)", result.stdout)
        if not match:
            raise CommandFailedError("wm size", result.output)
        self._size = int(match.group(1)), int(match.group(2))
        return self._size

    async def screenshot(self, retry: bool = True) -> Image.Image:
        data = await self.exec_out("screencap -p")
        try:
            image = await asyncio.to_thread(_decode_png, data)
        except (UnidentifiedImageError, OSError) as exc:
            # A PNG cut short means the device went away mid-transfer; anything else is a device problem.
            state = await self._state_or_none()
            if state != "device":
                lost = DeviceDisconnectedError(f"{self.serial} disconnected during screencap")
                if not (retry and self.reconnect_timeout):
                    raise lost from exc
                await self.wait_until_back(lost)
                return await self.screenshot(retry=False)
            raise CommandFailedError("screencap -p", f"not a PNG ({len(data)} bytes)") from exc
        return image

    # ------------------------------------------------------------ input

    async def tap(self, x: int, y: int) -> None:
        await self.shell(f"input tap {int(x)} {int(y)}", check=True)

    async def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        await self.shell(f"input swipe {int(x)} {int(y)} {int(x)} {int(y)} {int(duration_ms)}", check=True)

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        await self.shell(f"input swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(duration_ms)}", check=True)

    async def press_key(self, key: int | str) -> None:
        """Press a key by code (4), name ("back", "BACK") or full name ("KEYCODE_BACK")."""
        code = keycode(key.strip().upper() if isinstance(key, str) else key)
        if code == 0:
            raise ValueError(f"unknown key {key!r}: use an Android key name like BACK, HOME, ENTER or a key code")
        await self.shell(f"input keyevent {code}", check=True)

    async def press_keys(self, *keys: int | str) -> None:
        """Several key presses in one round trip (``input keyevent A B C``), e.g. End then Delete × n."""
        codes = [keycode(k.strip().upper() if isinstance(k, str) else k) for k in keys]
        if 0 in codes:
            raise ValueError(f"unknown key in {keys!r}: use Android key names like BACK, ENTER, DEL or key codes")
        if codes:
            await self.shell("input keyevent " + " ".join(map(str, codes)), check=True)

    async def type_text(self, text: str) -> None:
        """Type into the focused field: ASCII with ``input text``, anything else by a paste through the
        uiautomator2 server's clipboard (UnsupportedTextError, saying what to enable, when it cannot run)."""
        bad = untypable(text)
        if bad:
            if await self.ui_server.start():
                await self.ui_server.paste_text(text)
                return
            shown = ", ".join(repr(c) for c in bad[:5])
            raise UnsupportedTextError(
                f"cannot type {shown}: `adb shell input text` types only ASCII, and a clipboard paste needs the "
                f"live mirror or the uiautomator2 server on the phone ({self.ui_server.error}). Start the mirror "
                "(the scrcpy server), or let the uiautomator2 server run (unset RELAY_DESKTOP_UI_SERVER=off), "
                "or type ASCII only.")
        steps = type_steps(text)
        # One shell round trip for the whole text; `&&` stops at the first failure.
        if steps:
            await self.shell(" && ".join(step.command() for step in steps), check=True)

    # ------------------------------------------------------------ apps

    async def installed_apps(self, refresh: bool = False) -> list[AppInfo]:
        """Apps with a launcher icon, with readable names; cached for five minutes."""
        if not refresh and self._apps is not None and time.monotonic() - self._apps[0] < APPS_TTL_SECONDS:
            return self._apps[1]
        result = await self.shell("cmd package query-activities --brief -a android.intent.action.MAIN "
                                  "-c android.intent.category.LAUNCHER", idempotent=True)
        packages = sorted({m.group("pkg") for m in _COMPONENT.finditer(result.stdout)})
        if not packages:  # older Androids lack query-activities: fall back to every package
            listed = await self.shell("pm list packages", check=True, idempotent=True)
            packages = sorted(line.removeprefix("package:").strip()
                              for line in listed.stdout.splitlines() if line.startswith("package:"))
        apps = [AppInfo(p, app_labels.label_for(p)) for p in packages]
        self._apps = (time.monotonic(), apps)
        return apps

    async def resolve_app(self, name_or_package: str) -> str:
        """A package name for an app named like the user would name it ("chrome", "Keep Notes")."""
        query = name_or_package.strip()
        matches = app_labels.matching_apps(await self.installed_apps(), query)
        if len(matches) == 1:
            return matches[0].package
        if matches:
            names = ", ".join(f"{a.label} ({a.package})" for a in matches[:5])
            raise AppNotFoundError(f"'{query}' matches several apps: {names}")
        if "." in query and " " not in query:
            check = await self.shell(f"pm path {shell_quote(query)}", idempotent=True)
            if check.exit_code == 0 and "package:" in check.stdout:
                return query
        raise AppNotFoundError(f"no installed app is called '{query}'")

    async def launch_app(self, name_or_package: str) -> str:
        package = await self.resolve_app(name_or_package)
        # Idempotent: starting the app in front again only brings it to the front.
        result = await self.shell(f"monkey -p {shell_quote(package)} -c android.intent.category.LAUNCHER 1",
                                  idempotent=True)
        if result.exit_code != 0 or "No activities found" in result.output:
            raise AppNotFoundError(f"{package} has no launcher activity")
        return package

    async def current_app(self) -> CurrentApp | None:
        result = await self.shell("dumpsys window windows", idempotent=True)
        match = _FOCUS.search(result.stdout) or _FOCUSED_APP.search(result.stdout)
        if match is None:
            result = await self.shell("dumpsys activity activities", idempotent=True)
            match = _RESUMED.search(result.stdout)
        if match is None:
            return None
        return CurrentApp(match.group("pkg"), match.group("act"))

    # ------------------------------------------------------------ context

    async def properties(self) -> dict[str, str]:
        result = await self.shell("getprop", check=True, idempotent=True)
        return {m.group("key"): m.group("value") for m in _PROP.finditer(result.stdout)}

    async def keyboard_shown(self) -> bool:
        result = await self.shell("dumpsys input_method", idempotent=True)
        return "mInputShown=true" in result.stdout or "mIsInputViewShown=true" in result.stdout

    async def device_context(self) -> DeviceContext:
        props, size, density, keyboard, app = await asyncio.gather(
            self.properties(), self.screen_size(), self.shell("wm density", idempotent=True), self.keyboard_shown(),
            self.current_app())
        dpi = re.search(r"(?:Override|Physical) density: (\d+)", density.stdout)
        sdk = props.get("ro.build.version.sdk", "0")
        return DeviceContext(
            serial=self.serial,
            model=props.get("ro.product.model", ""),
            manufacturer=props.get("ro.product.manufacturer", ""),
            android_release=props.get("ro.build.version.release", ""),
            sdk=int(sdk) if sdk.isdigit() else 0,
            locale=props.get("persist.sys.locale") or props.get("ro.product.locale", ""),
            timezone=props.get("persist.sys.timezone", ""),
            screen_width=size[0], screen_height=size[1],
            density=int(dpi.group(1)) if dpi else 0,
            keyboard_shown=keyboard,
            current_app=app,
        )

    async def _state_or_none(self) -> str | None:
        try:
            devices = await self.server.devices()
        except DeviceError:
            return None
        return next((d.state for d in devices if d.serial == self.serial), None)


def _what_happened(cause: DeviceError | None) -> str:
    if isinstance(cause, AdbServerError):
        return "the adb server stopped"
    if isinstance(cause, DeviceOfflineError):
        return "the phone went offline"
    if isinstance(cause, DeviceNotFoundError):
        return "adb no longer listed the phone"
    return "the connection dropped"


def _network_serial(serial: str) -> bool:
    """``HOST:PORT`` (a phone reached with ``adb connect``), not a USB serial or ``emulator-5554``."""
    host, _, port = serial.rpartition(":")
    return bool(host) and port.isdigit()


def _decode_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")
