"""The uiautomator2 server on the phone: the fast way to read the screen and to type any text.

``uiautomator dump`` takes 1.5–3 s on a real phone and fails on screens that never go idle. The uiautomator2
project ships a small server (``u2.jar`` inside its Python package) that ``app_process`` starts on the phone —
no APK to install — and that answers ``dumpWindowHierarchy`` over HTTP JSON-RPC through adb in a fraction of
that, without waiting for idle. It also sets the phone's clipboard and pastes, which types text that ``adb shell
input text`` cannot (anything outside ASCII).

The uiautomator2 library does the work (pushing the jar only when its MD5 differs, starting the server, waiting
for ``/ping``); this module runs its blocking calls in threads with deadlines, translates its errors into the
device layer's, and remembers why the server could not be used so that a phone without it is asked once, not
every step. ``RELAY_DESKTOP_UI_SERVER=off`` turns it off.

Android lets one UiAutomation client connect at a time: while this server runs, ``uiautomator dump`` fails on a
real phone ("UiAutomationService … already registered"), so whoever falls back to the dump stops it first.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import adbutils

from relay_desktop.device.errors import DeviceError, DeviceTimeoutError, HierarchyDumpError

__all__ = ["UiServer", "UiServerError", "ui_server_enabled"]

log = logging.getLogger(__name__)
T = TypeVar("T")

START_TIMEOUT_S = 30.0      # pushing the jar over a slow cable, then the server's own start (~1–3 s on a phone)
CALL_TIMEOUT_S = 15.0


class UiServerError(DeviceError):
    """The uiautomator2 server could not be started or did not answer."""


def ui_server_enabled() -> bool:
    return os.environ.get("RELAY_DESKTOP_UI_SERVER", "").strip().lower() not in ("off", "0", "no", "false")


class UiServer:
    """One phone's uiautomator2 server, started on first use and stopped by :meth:`stop`."""

    def __init__(self, adb_device: adbutils.AdbDevice) -> None:
        self._adb = adb_device
        self._client: Any = None               # a uiautomator2.Device once started
        self._lock = threading.Lock()           # start and stop never overlap (they run in worker threads)
        self.error: str | None = None           # why it is not available (set once; not retried every step)

    @property
    def running(self) -> bool:
        return self._client is not None

    async def start(self, timeout: float = START_TIMEOUT_S) -> bool:
        """Start the server if it is not running; False (with :attr:`error` set) when it cannot be used."""
        if self._client is not None:
            return True
        if self.error is not None:
            return False
        if not ui_server_enabled():
            self.error = "turned off (RELAY_DESKTOP_UI_SERVER=off)"
            return False
        try:
            await self._call(self._start_blocking, timeout, "start the uiautomator2 server")
        except UiServerError as exc:
            self.error = str(exc)
            log.info("uiautomator2 server not available on %s: %s", self._adb.serial, exc)
            await self.stop()                  # a half-started process must not hold UiAutomation
            return False
        return True

    def _start_blocking(self) -> None:
        import uiautomator2  # imported here: it is only needed once a phone is read, and it imports lxml

        with self._lock:
            # Device() pushes u2.jar when the phone's copy has another MD5, launches it with app_process and
            # waits for /ping; it raises when the process exits or never answers.
            self._client = uiautomator2.Device(self._adb)

    async def dump_hierarchy(self) -> str:
        """The window hierarchy XML, as ``uiautomator dump`` writes it (every window, no idle wait)."""
        client = self._client
        if client is None:
            raise UiServerError("the uiautomator2 server is not running")

        def dump() -> str:
            return str(client.jsonrpc.dumpWindowHierarchy(False, 50))

        xml = await self._call(dump, CALL_TIMEOUT_S, "dumpWindowHierarchy")
        if "<hierarchy" not in xml:
            raise HierarchyDumpError("dumpWindowHierarchy", f"not a window hierarchy ({len(xml)} characters)", None)
        return xml

    async def paste_text(self, text: str) -> None:
        """Type ``text`` into the focused field: set the clipboard, check it took, paste."""
        client = self._client
        if client is None:
            raise UiServerError("the uiautomator2 server is not running")

        def paste() -> None:
            client.jsonrpc.setClipboard(None, text)
            if client.jsonrpc.getClipboard() != text:
                raise UiServerError("the phone's clipboard did not take the text")
            client.jsonrpc.pasteClipboard()

        await self._call(paste, CALL_TIMEOUT_S, "paste through the clipboard")

    async def stop(self) -> None:
        """Stop the server process (and let UiAutomation go). Safe to call when it never started."""
        def stop() -> None:
            with self._lock:
                client, self._client = self._client, None
                if client is not None:
                    client.stop_uiautomator(wait=False)

        try:
            await asyncio.wait_for(asyncio.to_thread(stop), 10)
        except Exception as exc:   # the phone may be gone already; nothing is left to undo then
            log.debug("stopping the uiautomator2 server on %s: %s", self._adb.serial, exc)

    async def _call(self, fn: Callable[[], T], timeout: float, what: str) -> T:
        try:
            return await asyncio.wait_for(asyncio.to_thread(fn), timeout)
        except TimeoutError as exc:
            raise DeviceTimeoutError(f"{self._adb.serial}: {what}: no answer within {timeout:g} s") from exc
        except DeviceError:
            raise
        except Exception as exc:   # uiautomator2's own errors, adbutils' and socket errors, all in one sentence
            raise UiServerError(f"{what}: {_in_words(exc)}") from exc


def _in_words(exc: BaseException) -> str:
    """uiautomator2's launch errors carry (message, the process's whole output): the message and the output's
    last line (the phone's reason, e.g. a ClassNotFoundException), not a tuple's repr."""
    parts = [str(a).strip() for a in exc.args if str(a).strip()]
    if not parts:
        return type(exc).__name__
    lines = [parts[0].splitlines()[0]]
    if len(parts) > 1:
        lines.append(parts[-1].splitlines()[-1])
    text = ": ".join(lines)
    return text if len(text) <= 300 else text[:297] + "…"
