"""Desktop scrcpy's two tunnels against the virtual phone, with Google's adb and an independent client.

The client (tests/scrcpy_desktop_client.py) does what scrcpy 3.3.x does with the adb command line and plain
sockets: ``adb reverse`` by default, ``adb forward`` with connect retries as the fallback. Both must mirror
the phone: device name, codec meta, video packets, and a tap that lands on the phone.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find
from tests.conftest import AdbTestServer, free_port
from tests.scrcpy_desktop_client import DEVICE_JAR, H264, DesktopScrcpyClient
from tests.waiting import until


@pytest.fixture
def jar(tmp_path: Path) -> Path:
    path = tmp_path / "scrcpy-server"
    path.write_bytes(b"PK\x03\x04 the virtual phone runs its own server for this class")
    return path


@pytest.fixture
async def started(adb_server: AdbTestServer, sim: VirtualPhoneService, jar: Path,
                  request: pytest.FixtureRequest) -> AsyncIterator[DesktopScrcpyClient]:
    client = DesktopScrcpyClient(adb_server, sim.serial, jar, tunnel_forward=request.param, port=free_port())
    await asyncio.wait_for(asyncio.to_thread(client.start), 40)
    try:
        yield client
    finally:
        await asyncio.wait_for(asyncio.to_thread(client.stop), 20)


@pytest.mark.parametrize("started", [False, True], ids=["reverse", "forward"], indirect=True)
async def test_desktop_scrcpy_mirrors_and_taps_through_either_tunnel(started: DesktopScrcpyClient,
                                                                     sim: VirtualPhoneService) -> None:
    client = started
    assert client.device_name == sim.phone.config.model
    codec, width, height = client.codec
    assert codec == H264 and max(width, height) <= 720 and width % 8 == 0 and height % 8 == 0
    first = await asyncio.wait_for(asyncio.to_thread(client.read_packet), 15)
    assert first.config                                        # SPS/PPS come first, alone
    media = await asyncio.wait_for(asyncio.to_thread(client.read_packet), 15)
    assert not media.config and media.data.startswith(b"\x00\x00\x00\x01")

    phone = sim.phone
    phone.launch("com.android.settings")
    node = find(await phone.dump_hierarchy(), text="Network & internet")
    assert node is not None
    screen_w, screen_h = phone.display_size
    x, y = node.center
    await asyncio.wait_for(asyncio.to_thread(client.tap, round(x * width / screen_w), round(y * height / screen_h)),
                           10)
    await until(lambda: (phone.focused_activity() or ("", ""))[1].endswith("NetworkDashboardActivity"))


async def test_forward_mode_waits_for_the_server_like_desktop_scrcpy(adb_server: AdbTestServer,
                                                                     sim: VirtualPhoneService, jar: Path) -> None:
    """Connections made before the server listens close without a byte; the one after it gets the dummy byte."""
    port = free_port()
    client = DesktopScrcpyClient(adb_server, sim.serial, jar, tunnel_forward=True, port=port)
    forward = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "forward", f"tcp:{port}",
                                      f"localabstract:{client.socket_name}")
    assert forward.returncode == 0, forward

    def early_attempt() -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            return conn.recv(1)

    # Nothing listens yet: the phone refuses the OPEN and the adb server closes the connection, no byte.
    assert await asyncio.wait_for(asyncio.to_thread(early_attempt), 15) == b""
    await asyncio.wait_for(asyncio.to_thread(client.start), 40)
    try:
        assert client.device_name == sim.phone.config.model
    finally:
        await asyncio.wait_for(asyncio.to_thread(client.stop), 20)


async def test_a_forward_server_waits_for_a_slow_client_like_a_phone(adb_server: AdbTestServer,
                                                                     sim: VirtualPhoneService, jar: Path) -> None:
    """The real server blocks in accept() until its client comes (or kills it); it never gives up by itself."""
    client = DesktopScrcpyClient(adb_server, sim.serial, jar, tunnel_forward=True, port=free_port(),
                                 connect_delay_s=10.5)
    await asyncio.wait_for(asyncio.to_thread(client.start), 50)
    try:
        assert client.device_name == sim.phone.config.model
    finally:
        await asyncio.wait_for(asyncio.to_thread(client.stop), 20)


async def start_server_shell(adb_server: AdbTestServer, sim: VirtualPhoneService, jar: Path,
                             *options: str) -> asyncio.subprocess.Process:
    pushed = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "push", str(jar), DEVICE_JAR)
    assert pushed.returncode == 0, pushed
    return await asyncio.create_subprocess_exec(
        adb_server.adb_path, "-P", str(adb_server.port), "-s", sim.serial, "shell", f"CLASSPATH={DEVICE_JAR}",
        "app_process", "/", "com.genymobile.scrcpy.Server", "3.3.4", *options,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_reverse_mode_without_a_reverse_fails_as_the_real_server(adb_server: AdbTestServer,
                                                                       sim: VirtualPhoneService, jar: Path) -> None:
    shell = await start_server_shell(adb_server, sim, jar, "scid=0badcafe", "log_level=info", "audio=false")
    out, err = await asyncio.wait_for(shell.communicate(), 20)
    assert shell.returncode == 1
    assert b"INFO: Device: " in out
    assert b"[server] ERROR: Connection refused\njava.io.IOException: Connection refused" in err


async def test_reverse_mode_to_a_port_nobody_serves_ends_the_server(adb_server: AdbTestServer,
                                                                    sim: VirtualPhoneService, jar: Path) -> None:
    reverse = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "reverse", "localabstract:scrcpy_0badcafe",
                                      f"tcp:{free_port()}")
    assert reverse.returncode == 0, reverse
    try:
        shell = await start_server_shell(adb_server, sim, jar, "scid=0badcafe", "log_level=info", "audio=false")
        await asyncio.wait_for(shell.communicate(), 20)   # the host refuses: its sockets close, it ends
    finally:
        await asyncio.to_thread(adb_server.run, "-s", sim.serial, "reverse", "--remove-all")


async def test_without_a_scid_the_socket_is_plain_scrcpy(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                         jar: Path) -> None:
    shell = await start_server_shell(adb_server, sim, jar, "tunnel_forward=true", "audio=false")
    try:
        await until(lambda: "localabstract:scrcpy" in sim.phone.sockets)
    finally:
        shell.kill()
        await asyncio.wait_for(shell.wait(), 10)
    await until(lambda: "localabstract:scrcpy" not in sim.phone.sockets)   # the adb shell's end kills it
