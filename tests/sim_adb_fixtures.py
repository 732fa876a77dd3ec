"""A minimal fake phone for the ADB transport tests, and fixtures that connect it to the real adb server.

The session-wide ``adb_server`` fixture (Google's adb on a private port) lives in ``conftest.py``; the
fake here only implements what the transport needs, so these tests do not depend on the shell or apps.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from relay_desktop.sim.adb_transport import AdbDeviceServer
from relay_desktop.sim.memfs import MemoryFS
from relay_desktop.sim.sockets import SocketRegistry
from relay_desktop.sim.streams import ProcessIO
from tests.conftest import AdbTestServer

BIG_OUTPUT_SIZE = 3 * 1024 * 1024


def big_output(size: int = BIG_OUTPUT_SIZE) -> bytes:
    """Seeded random bytes: any loss, duplication or reordering of a chunk shows up in a comparison."""
    return random.Random(1234).randbytes(size)


class FakeDevice:
    """Just enough of a phone: a few commands, a file system and a socket registry."""

    banner_props = {"ro.product.name": "fake_prod", "ro.product.model": "Fake Phone", "ro.product.device": "fakedev"}

    def __init__(self) -> None:
        self.fs = MemoryFS.android_default()
        self.sockets = SocketRegistry()
        self.commands: list[str] = []
        self.sleeping = asyncio.Event()

    async def run_shell(self, command: str, io: ProcessIO) -> int:
        self.commands.append(command)
        name, _, rest = command.strip().partition(" ")
        if name == "echo":
            await io.stdout(rest.encode() + b"\n")
            return 0
        if name == "exit":
            return int(rest or 0)
        if name == "cat":  # stdin to stdout until the host closes stdin
            while data := await io.stdin.read():
                await io.stdout(data)
            return 0
        if name == "stderr":
            await io.stdout(b"to stdout\n")
            await io.stderr(rest.encode() + b"\n")
            return 2
        if name == "big":
            data = big_output(int(rest) if rest else BIG_OUTPUT_SIZE)
            for start in range(0, len(data), 100_000):
                await io.stdout(data[start:start + 100_000])
            return 0
        if name == "sleep-forever":
            self.sleeping.set()
            await asyncio.Event().wait()
        await io.stderr(f"/system/bin/sh: {name}: inaccessible or not found\n".encode())
        return 127


async def adb(server: AdbTestServer, *args: str, input: bytes | None = None,
              timeout: float = 20) -> subprocess.CompletedProcess[bytes]:
    """The adb command line, off the event loop so the device keeps answering."""
    return await asyncio.to_thread(server.run, *args, input=input, timeout=timeout)


async def device_state(server: AdbTestServer, serial: str) -> str | None:
    """The state ``adb devices`` lists for ``serial`` ("device", "unauthorized", "offline", ...), or None."""
    out = (await adb(server, "devices")).stdout.decode()
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) == 2 and fields[0] == serial:
            return fields[1]
    return None


async def wait_for_state(server: AdbTestServer, serial: str, wanted: set[str | None],
                         timeout: float = 15) -> str | None:
    deadline = time.monotonic() + timeout
    while True:
        state = await device_state(server, serial)
        if state in wanted:
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"{serial} stayed {state!r}, wanted one of {wanted}")
        await asyncio.sleep(0.2)


@dataclass
class ConnectedDevice:
    device: FakeDevice
    server: AdbDeviceServer
    adb: AdbTestServer

    @property
    def serial(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    async def run(self, *args: str, input: bytes | None = None,
                  timeout: float = 20) -> subprocess.CompletedProcess[bytes]:
        return await adb(self.adb, "-s", self.serial, *args, input=input, timeout=timeout)


async def connect(adb_server: AdbTestServer, server: AdbDeviceServer) -> str:
    serial = f"127.0.0.1:{server.port}"
    result = await adb(adb_server, "connect", serial)
    # `adb connect` exits 0 even when it fails; only its message tells.
    assert result.stdout.startswith(b"connected to " + serial.encode()), result
    return serial


@contextlib.asynccontextmanager
async def connected_fake_phone(adb_server: AdbTestServer) -> AsyncIterator[ConnectedDevice]:
    """A fake phone on its own port, connected to the private adb server and online ("device").

    Test modules wrap this in a fixture (importing a fixture by name trips the linter's F811).
    """
    device = FakeDevice()
    async with AdbDeviceServer(device) as server:
        phone = ConnectedDevice(device, server, adb_server)
        try:
            assert (await connect(adb_server, server)) == phone.serial
            await wait_for_state(adb_server, phone.serial, {"device"})
            yield phone
        finally:
            # Otherwise the adb server keeps redialling the closed port for the rest of the session.
            await adb(adb_server, "disconnect", phone.serial)
