"""The local adb server: started when none runs (the demo's first step), and its death mid-answer recognised."""

from __future__ import annotations

import asyncio
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


async def test_two_commands_starting_the_server_at_once_both_get_it() -> None:
    """Two `relay-desktop` commands started together (two benches, the window and a bench) each found no server
    and ran `adb start-server`; the one whose daemon lost the race for the port crashed with "failed to start
    daemon" although a server was then running for it."""
    adb = os.path.join(os.path.dirname(adbutils.__file__), "binaries", "adb")
    port = free_port()
    first, second = (AdbServer(host="127.0.0.1", port=port, adb_path=adb) for _ in range(2))
    try:
        versions = await asyncio.gather(first.ensure_running(timeout=30), second.ensure_running(timeout=30),
                                        return_exceptions=True)
        assert all(isinstance(v, int) and v >= 40 for v in versions), versions
    finally:
        await first.kill()


def test_an_empty_answer_from_a_dying_server_counts_as_a_lost_connection() -> None:
    """adbutils reports a socket the server closed mid-answer as "Unknown data: b''"; the device layer must treat
    it as the connection lost (and wait for the phone), not as the phone misbehaving."""
    from relay_desktop.device.adb_calls import translate_error
    from relay_desktop.device.errors import DeviceDisconnectedError

    error = translate_error(adbutils.AdbError("Unknown data: b''"), "127.0.0.1:5555")
    assert isinstance(error, DeviceDisconnectedError) and "127.0.0.1:5555" in str(error)
