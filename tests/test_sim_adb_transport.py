"""The virtual phone through Google's real adb server and command line."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import adbutils
import pytest
from PIL import Image

from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.streams import DuplexStream
from tests.conftest import AdbTestServer


async def adb(server: AdbTestServer, *args: str, input: bytes | None = None, timeout: float = 20):
    return await asyncio.to_thread(server.run, *args, input=input, timeout=timeout)


async def test_devices_lists_the_phone_with_its_banner(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    out = (await adb(adb_server, "devices", "-l")).stdout.decode()
    line = next(line for line in out.splitlines() if line.startswith(sim.serial))
    assert re.search(r"\bdevice product:relay_sim model:Relay_Virtual_Phone device:relay_sim transport_id:\d+",
                     line), line
    features = (await adb(adb_server, "-s", sim.serial, "features")).stdout.decode().split()
    assert set(features) == {"shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir"}


async def test_shell_exit_codes_stdout_stderr_and_stdin(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    s = sim.serial
    done = await adb(adb_server, "-s", s, "shell", "echo out; echo err >&2; exit 3")
    assert (done.returncode, done.stdout, done.stderr) == (3, b"out\n", b"err\n")
    missing = await adb(adb_server, "-s", s, "shell", "frobnicate")
    assert missing.returncode == 127
    assert missing.stderr == b"/system/bin/sh: frobnicate: inaccessible or not found\n"
    piped = await adb(adb_server, "-s", s, "shell", "cat", input=b"line one\nline two\n")
    assert (piped.returncode, piped.stdout) == (0, b"line one\nline two\n")


async def test_big_output_arrives_intact(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    payload = os.urandom(3 * 1024 * 1024)
    sim.phone.fs.write("/sdcard/big.bin", payload)
    out = await adb(adb_server, "-s", sim.serial, "exec-out", "cat /sdcard/big.bin", timeout=60)
    assert out.returncode == 0
    assert out.stdout == payload


async def test_push_and_pull_round_trip(adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path: Path) -> None:
    s = sim.serial
    source = tmp_path / "blob.bin"
    source.write_bytes(os.urandom(2 * 1024 * 1024 + 17))
    pushed = await adb(adb_server, "-s", s, "push", str(source), "/sdcard/Download/new/dir/blob.bin")
    assert pushed.returncode == 0, pushed.stderr
    assert sim.phone.fs.read("/sdcard/Download/new/dir/blob.bin") == source.read_bytes()
    back = tmp_path / "back.bin"
    pulled = await adb(adb_server, "-s", s, "pull", "/sdcard/Download/new/dir/blob.bin", str(back))
    assert pulled.returncode == 0, pulled.stderr
    assert back.read_bytes() == source.read_bytes()
    listing = (await adb(adb_server, "-s", s, "shell", "ls /sdcard/Download/new/dir")).stdout
    assert listing == b"blob.bin\n"


async def test_pull_missing_and_push_read_only_fail_like_a_phone(adb_server: AdbTestServer,
                                                                 sim: VirtualPhoneService, tmp_path: Path) -> None:
    missing = await adb(adb_server, "-s", sim.serial, "pull", "/sdcard/nope.txt", str(tmp_path / "x"))
    assert missing.returncode == 1
    assert b"'/sdcard/nope.txt': No such file or directory" in missing.stderr
    (tmp_path / "f").write_text("x")
    denied = await adb(adb_server, "-s", sim.serial, "push", str(tmp_path / "f"), "/system/f")
    assert denied.returncode == 1
    assert b"Read-only file system" in denied.stderr


async def test_exec_out_screencap_is_the_screen(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                tmp_path: Path) -> None:
    shot = await adb(adb_server, "-s", sim.serial, "exec-out", "screencap", "-p")
    assert shot.stdout[:8] == b"\x89PNG\r\n\x1a\n"
    path = tmp_path / "shot.png"
    path.write_bytes(shot.stdout)
    with Image.open(path) as image:
        assert image.size == (1080, 2400)


async def test_uiautomator_dump_writes_the_real_line_and_file(adb_server: AdbTestServer,
                                                              sim: VirtualPhoneService) -> None:
    out = await adb(adb_server, "-s", sim.serial, "shell", "uiautomator dump && cat /sdcard/window_dump.xml")
    text = out.stdout.decode()
    assert text.startswith("UI hierchary dumped to: /sdcard/window_dump.xml\n<?xml version='1.0'")
    assert 'package="com.android.launcher3"' in text and text.endswith("</hierarchy>")


async def test_adbutils_shell_sync_and_local_abstract_socket(adb_server: AdbTestServer,
                                                             sim: VirtualPhoneService) -> None:
    async def echo(stream: DuplexStream) -> None:
        while data := await stream.read():
            await stream.write(data.upper())
        stream.close()

    sim.phone.sockets.register("localabstract:relay_echo", echo)
    device = adb_server.client().device(sim.serial)

    def talk() -> bytes:
        assert device.shell("echo hi") == "hi"
        assert device.shell2("exit 7", v2=True).returncode == 7
        device.sync.push(b"payload", "/data/local/tmp/p.txt")
        assert device.sync.read_bytes("/data/local/tmp/p.txt") == b"payload"
        assert "p.txt" in [entry.path for entry in device.sync.list("/data/local/tmp")]
        conn = device.create_connection(adbutils.Network.LOCAL_ABSTRACT, "relay_echo")
        try:
            conn.sendall(b"ping")
            received = b""
            while len(received) < 4:
                received += conn.recv(4 - len(received))
            return received
        finally:
            conn.close()

    assert await asyncio.wait_for(asyncio.to_thread(talk), 30) == b"PING"
    with pytest.raises(adbutils.AdbError):
        await asyncio.wait_for(asyncio.to_thread(
            device.create_connection, adbutils.Network.LOCAL_ABSTRACT, "nobody_listens"), 20)


async def test_unauthorized_phone_is_reported_by_adb(adb_server: AdbTestServer) -> None:
    service = VirtualPhoneService(PhoneConfig(), adb=adb_server.server(), require_auth=True)
    await service.start(wait_ready=False)
    try:
        info = await service.adb.wait_for_state(service.serial, "unauthorized", timeout=15)  # type: ignore[union-attr]
        assert info.state == "unauthorized"
        denied = await adb(adb_server, "-s", service.serial, "shell", "echo hi")
        assert denied.returncode != 0
        assert b"unauthorized" in denied.stderr
    finally:
        await service.stop()


async def test_dropped_connection_fails_the_command_in_flight(adb_server: AdbTestServer,
                                                              sim: VirtualPhoneService) -> None:
    running = asyncio.create_task(adb(adb_server, "-s", sim.serial, "shell", "sleep 30; echo never"))
    await asyncio.sleep(1.0)
    sim.transport.accepting = False
    sim.transport.drop_connections()
    result = await asyncio.wait_for(running, 15)
    assert result.returncode != 0
    assert b"never" not in result.stdout
    states = (await adb(adb_server, "devices")).stdout.decode()
    assert f"{sim.serial}\tdevice" not in states
    # Plugged back in: adb connects again.
    sim.transport.accepting = True
    await adb(adb_server, "disconnect", sim.serial)
    assert (await adb(adb_server, "connect", sim.serial)).stdout.startswith(b"connected to")
    await sim.adb.wait_for_state(sim.serial, "device", timeout=15)  # type: ignore[union-attr]
    assert (await adb(adb_server, "-s", sim.serial, "shell", "echo back")).stdout == b"back\n"


async def test_interactive_shell_reads_commands_from_stdin(adb_server: AdbTestServer,
                                                           sim: VirtualPhoneService) -> None:
    session = await adb(adb_server, "-s", sim.serial, "shell", input=b"echo one\ngetprop ro.product.device\nexit 4\n")
    assert session.stdout == b"one\nrelay_sim\n"
    assert session.returncode == 4
