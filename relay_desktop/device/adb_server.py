"""The adb server: find the adb binary, start the server, list and connect devices.

Honours the same environment as Google's tools: ``ADB`` (path of the adb binary),
``ANDROID_ADB_SERVER_ADDRESS`` / ``ANDROID_ADB_SERVER_PORT`` (a local or remote server) and
``ANDROID_SERIAL`` (the default device). adbutils is blocking, so every call runs in a thread.

A server is started only by :meth:`AdbServer.ensure_running`, with its own port: adbutils' habit of running a
plain ``adb start-server`` when it cannot connect would start a second server on the default port (or on
whatever ``$ANDROID_ADB_SERVER_PORT`` says) instead of restarting the one this handle talks to.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from typing import Any, TypeVar

import adbutils

from relay_desktop.device.adb_calls import call
from relay_desktop.device.device import Device
from relay_desktop.device.errors import (
    AdbServerError,
    DeviceError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceUnauthorizedError,
)
from relay_desktop.device.models import DeviceInfo

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_PORT = 5037
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
SERVER_RACE_GRACE_S = 5.0      # how long a server another command started may take to answer


def find_adb() -> str:
    """The adb binary: $ADB, then the one in adbutils' wheel, then PATH."""
    explicit = os.environ.get("ADB")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise AdbServerError(f"ADB={explicit} is not an executable file")
        return explicit
    try:
        return adbutils.adb_path()
    except Exception:  # adbutils raises a bare Exception subclass when nothing is found
        found = shutil.which("adb")
        if found:
            return found
    raise AdbServerError("no adb binary found: reinstall relay-desktop (its adbutils wheel ships adb) or set ADB")


class _Connection(adbutils.AdbConnection):
    def _safe_connect(self) -> Any:
        return self._create_socket()  # no `adb start-server` on the default port behind our back


class _Client(adbutils.AdbClient):
    """An adbutils client that never starts a server itself (see the module notes)."""

    def __init__(self, host: str, port: int, socket_timeout: float) -> None:
        super().__init__(host=host, port=port, socket_timeout=socket_timeout)
        self._timeout = socket_timeout

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        try:
            conn = _Connection(self.host, self.port)
        except TimeoutError as exc:
            raise adbutils.AdbTimeout("connect to adb server timeout") from exc
        if timeout or self._timeout:
            conn.conn.settimeout(timeout or self._timeout)
        return conn


class AdbServer:
    """A handle on one adb server (local by default; remote with host/port)."""

    def __init__(self, host: str | None = None, port: int | None = None, adb_path: str | None = None,
                 socket_timeout: float = 20.0) -> None:
        env_host = os.environ.get("ANDROID_ADB_SERVER_ADDRESS") or os.environ.get("ANDROID_ADB_SERVER_HOST")
        self.host = host or env_host or "127.0.0.1"
        self.port = int(port or os.environ.get("ANDROID_ADB_SERVER_PORT") or DEFAULT_PORT)
        self._adb_path = adb_path
        self.client: adbutils.AdbClient = _Client(self.host, self.port, socket_timeout)

    def __repr__(self) -> str:
        return f"AdbServer({self.host}:{self.port})"

    @property
    def is_local(self) -> bool:
        return self.host in LOCAL_HOSTS

    @property
    def adb_path(self) -> str:
        if self._adb_path is None:
            self._adb_path = find_adb()
        return self._adb_path

    async def run_adb(self, *args: str, timeout: float = 30.0) -> str:
        """Run the adb command line against this server; returns stdout, raises AdbServerError."""
        # adb refuses to start a server for an explicit -H ("cannot start server on remote host"), even
        # 127.0.0.1: name the host only when it is another computer.
        where = ("-P", str(self.port)) if self.is_local else ("-H", self.host, "-P", str(self.port))
        proc = await asyncio.create_subprocess_exec(
            self.adb_path, *where, *args,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except TimeoutError as exc:
            proc.kill()
            await proc.wait()
            raise AdbServerError(f"'adb {' '.join(args)}' did not finish in {timeout:g} s") from exc
        if proc.returncode != 0:
            raise AdbServerError(f"'adb {' '.join(args)}' failed: {(err or out).decode(errors='replace').strip()}")
        return out.decode(errors="replace")

    async def version(self) -> int:
        return await call(self.client.server_version, timeout=5)

    async def ensure_running(self, timeout: float = 30.0) -> int:
        """Start the server if it is local and not running; returns its protocol version (41 for adb 1.0.41)."""
        try:
            return await self.version()
        except DeviceError:
            if not self.is_local:
                raise AdbServerError(f"no adb server answers at {self.host}:{self.port}") from None
        log.info("starting adb server on port %d", self.port)
        try:
            await self.run_adb("start-server", timeout=timeout)
        except AdbServerError:
            # Another command (a second bench, the window) may have started one at the same moment: its daemon
            # won the port and ours gave up. That server is as good as ours once it answers.
            version = await self._answer_within(SERVER_RACE_GRACE_S)
            if version is None:
                raise
            return version
        return await self.version()

    async def _answer_within(self, seconds: float) -> int | None:
        """The server's version once it answers within ``seconds``; None if it never does."""
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            try:
                return await self.version()
            except DeviceError:
                if asyncio.get_running_loop().time() >= deadline:
                    return None
                await asyncio.sleep(0.2)

    async def kill(self) -> None:
        await call(self.client.server_kill, timeout=10)

    async def devices(self) -> list[DeviceInfo]:
        infos = await call(lambda: self.client.list(extended=True), timeout=10)
        return [DeviceInfo(serial=i.serial, state=i.state, product=i.tags.get("product", ""),
                           model=i.tags.get("model", ""), device=i.tags.get("device", ""),
                           transport_id=i.transport_id) for i in infos]

    async def connect(self, address: str, timeout: float = 15.0) -> str:
        """``adb connect HOST:PORT``; returns adb's message, raises on failure."""
        if ":" not in address:
            address = f"{address}:5555"
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise DeviceNotFoundError(f"'{address}' is not HOST:PORT")
        message = await call(lambda: self.client.connect(address, timeout=timeout), timeout=timeout + 5)
        if message.startswith(("connected to", "already connected")):
            return message
        if "authenticate" in message:
            raise DeviceUnauthorizedError(address)
        raise DeviceNotFoundError(message.strip() or f"failed to connect to {address}")

    async def disconnect(self, address: str) -> None:
        await call(lambda: self.client.disconnect(address), timeout=10)

    async def wait_for_state(self, serial: str, state: str = "device", timeout: float = 10.0) -> DeviceInfo:
        """Poll ``devices`` until ``serial`` is in ``state``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            found = {d.serial: d for d in await self.devices()}
            if serial in found and found[serial].state == state:
                return found[serial]
            if asyncio.get_running_loop().time() > deadline:
                seen = found[serial].state if serial in found else "absent"
                raise DeviceNotFoundError(f"{serial} did not become '{state}' within {timeout:g} s (it is {seen})")
            await asyncio.sleep(0.1)

    async def pick_serial(self, serial: str | None = None) -> str:
        """The serial to use: the given one, $ANDROID_SERIAL, or the only ready device."""
        serial = serial or os.environ.get("ANDROID_SERIAL")
        devices = await self.devices()
        if serial:
            match = next((d for d in devices if d.serial == serial), None)
            if match is None:
                raise DeviceNotFoundError(f"device '{serial}' not found (attached: "
                                          f"{', '.join(d.serial for d in devices) or 'none'})")
            _raise_for_state(match)
            return serial
        ready = [d for d in devices if d.ready]
        if len(ready) == 1:
            return ready[0].serial
        if not ready:
            for d in devices:
                _raise_for_state(d)
            raise DeviceNotFoundError("no device attached: plug in a phone with USB debugging on, "
                                      "or start the virtual phone ('relay-desktop sim')")
        raise DeviceNotFoundError(f"several devices attached ({', '.join(d.serial for d in ready)}): "
                                  "choose one by serial or set ANDROID_SERIAL")

    async def device(self, serial: str | None = None) -> Device:
        return Device(self, await self.pick_serial(serial))


def _raise_for_state(info: DeviceInfo) -> None:
    if info.state == "unauthorized":
        raise DeviceUnauthorizedError(info.serial)
    if info.state == "offline":
        raise DeviceOfflineError(f"{info.serial} is offline: reconnect it or run 'adb reconnect'")
    if info.state != "device":
        raise DeviceOfflineError(f"{info.serial} is not ready (state '{info.state}')")
