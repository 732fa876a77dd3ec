"""A fresh machine has no adb server running: the app starts one itself (the demo's first step)."""

from __future__ import annotations

import os

import adbutils

from relay_desktop.device.adb_server import AdbServer
from tests.conftest import free_port


async def test_a_local_server_that_is_not_running_is_started() -> None:
    adb = os.path.join(os.path.dirname(adbutils.__file__), "binaries", "adb")
    server = AdbServer(host="127.0.0.1", port=free_port(), adb_path=adb)
    try:
        assert await server.ensure_running(timeout=30) >= 40       # adb 1.0.40 and later
        assert await server.devices() == []
    finally:
        await server.kill()
