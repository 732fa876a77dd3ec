"""The ADB device transport and services, with a fake phone: through Google's real adb server and client,
through a raw protocol client (for what adb does not let us provoke), and service by service in-process.
"""

from __future__ import annotations

import asyncio
import errno
import os
import re
import stat
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import adbutils
import pytest

from relay_desktop.sim import adb_protocol as proto
from relay_desktop.sim.adb_services import SyncSession
from relay_desktop.sim.adb_transport import AdbDeviceServer, _Connection
from relay_desktop.sim.memfs import MemoryFS
from relay_desktop.sim.sockets import SocketRegistry
from relay_desktop.sim.streams import DuplexStream
from tests.conftest import AdbTestServer
from tests.sim_adb_fixtures import (
    ConnectedDevice,
    FakeDevice,
    adb,
    big_output,
    connect,
    connected_fake_phone,
    device_state,
    wait_for_state,
)

FEATURES = {"shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir"}


async def echo_upper(stream: DuplexStream) -> None:
    while data := await stream.read():
        await stream.write(data.upper())
    stream.close()


@pytest.fixture
async def fake_phone(adb_server: AdbTestServer) -> AsyncIterator[ConnectedDevice]:
    async with connected_fake_phone(adb_server) as phone:
        yield phone


# ---------------------------------------------------------------- through the adb command line


async def test_devices_lists_the_banner_and_features(fake_phone: ConnectedDevice) -> None:
    out = (await adb(fake_phone.adb, "devices", "-l")).stdout.decode()
    line = next(line for line in out.splitlines() if line.startswith(fake_phone.serial + " "))
    assert re.fullmatch(rf"{re.escape(fake_phone.serial)}\s+device product:fake_prod model:Fake_Phone "
                        r"device:fakedev transport_id:\d+", line), line
    features = (await fake_phone.run("features")).stdout.decode().split()
    assert set(features) == FEATURES
    assert (await fake_phone.run("get-serialno")).stdout == fake_phone.serial.encode() + b"\n"


async def test_shell_output_exit_codes_and_separate_stderr(fake_phone: ConnectedDevice) -> None:
    hi = await fake_phone.run("shell", "echo", "hi")
    assert (hi.returncode, hi.stdout, hi.stderr) == (0, b"hi\n", b"")
    assert (await fake_phone.run("shell", "exit", "3")).returncode == 3
    assert (await fake_phone.run("shell", "exit 300")).returncode == 300 & 0xFF
    split = await fake_phone.run("shell", "stderr oops")
    assert (split.returncode, split.stdout, split.stderr) == (2, b"to stdout\n", b"oops\n")
    # The client asked for shell v2 with raw mode (stdin is not a tty).
    assert fake_phone.device.commands[0] == "echo hi"


async def test_a_pty_merges_stderr_into_stdout(fake_phone: ConnectedDevice) -> None:
    forced = await fake_phone.run("shell", "-tt", "stderr oops")
    assert (forced.returncode, forced.stdout, forced.stderr) == (2, b"to stdout\noops\n", b"")


async def test_stdin_reaches_the_process_and_its_close_ends_it(fake_phone: ConnectedDevice) -> None:
    payload = os.urandom(300_000)  # bigger than one WRTE and than the stdin pipe's limit
    piped = await fake_phone.run("shell", "cat", input=payload)
    assert piped.returncode == 0
    assert piped.stdout == payload


async def test_interactive_shell_without_a_tty_runs_stdin_line_by_line(fake_phone: ConnectedDevice) -> None:
    session = await fake_phone.run("shell", input=b"echo one\necho two\nexit 4\necho never\n")
    assert (session.returncode, session.stdout) == (4, b"one\ntwo\n")


async def test_big_output_is_intact_and_flow_controlled(fake_phone: ConnectedDevice,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    in_flight: dict[int, int] = {}
    biggest = 0
    send, dispatch = _Connection.send, _Connection.dispatch

    async def spy_send(self: _Connection, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        nonlocal biggest
        if command == proto.A_WRTE:
            in_flight[arg0] = in_flight.get(arg0, 0) + 1
            assert in_flight[arg0] == 1, "a second WRTE before the host's OKAY"
            biggest = max(biggest, len(data))
            assert len(data) <= self.max_payload
        await send(self, command, arg0, arg1, data)

    async def spy_dispatch(self: _Connection, header: proto.Header, data: bytes) -> None:
        if header.command == proto.A_OKAY:
            in_flight[header.arg1] = 0
        await dispatch(self, header, data)

    monkeypatch.setattr(_Connection, "send", spy_send)
    monkeypatch.setattr(_Connection, "dispatch", spy_dispatch)
    framed = await fake_phone.run("shell", "big", timeout=60)
    assert (framed.returncode, len(framed.stdout)) == (0, len(big_output()))
    assert framed.stdout == big_output()
    raw = await fake_phone.run("exec-out", "big", timeout=60)
    assert raw.stdout == big_output()
    assert biggest > 4096  # the negotiated payload was actually used


async def test_push_and_pull_round_trip(fake_phone: ConnectedDevice, tmp_path: Path) -> None:
    source = tmp_path / "blob.bin"
    source.write_bytes(os.urandom(2 * 1024 * 1024 + 17))
    pushed = await fake_phone.run("push", str(source), "/sdcard/Download/blob.bin", timeout=60)
    assert pushed.returncode == 0, pushed.stderr
    fs = fake_phone.device.fs
    assert fs.read("/storage/emulated/0/Download/blob.bin") == source.read_bytes()
    assert stat.S_ISREG(fs.stat("/sdcard/Download/blob.bin").mode)  # type: ignore[union-attr]
    back = tmp_path / "back.bin"
    pulled = await fake_phone.run("pull", "/sdcard/Download/blob.bin", str(back), timeout=60)
    assert pulled.returncode == 0, pulled.stderr
    assert back.read_bytes() == source.read_bytes()


async def test_push_creates_missing_directories(fake_phone: ConnectedDevice, tmp_path: Path) -> None:
    small = tmp_path / "note.txt"
    small.write_bytes(b"hello\n")
    pushed = await fake_phone.run("push", str(small), "/data/local/tmp/a/b/c/note.txt")
    assert pushed.returncode == 0, pushed.stderr
    assert fake_phone.device.fs.read("/data/local/tmp/a/b/c/note.txt") == b"hello\n"
    assert fake_phone.device.fs.is_dir("/data/local/tmp/a/b")


async def test_pull_of_a_missing_file_fails_like_a_phone(fake_phone: ConnectedDevice, tmp_path: Path) -> None:
    missing = await fake_phone.run("pull", "/sdcard/nope.txt", str(tmp_path / "x"))
    assert missing.returncode == 1
    assert missing.stderr == b"adb: error: failed to stat remote object '/sdcard/nope.txt': No such file or directory\n"
    assert not (tmp_path / "x").exists()


async def test_unknown_service_is_refused(fake_phone: ConnectedDevice) -> None:
    root = await fake_phone.run("root")
    assert root.returncode != 0
    assert b"closed" in root.stderr


# ---------------------------------------------------------------- through adbutils


async def test_adbutils_shell_sync_and_sockets(fake_phone: ConnectedDevice) -> None:
    unregister = fake_phone.device.sockets.register("localabstract:relay_echo", echo_upper)
    fake_phone.device.sockets.register("tcp:8123", echo_upper)
    device = fake_phone.adb.client().device(fake_phone.serial)
    blob = os.urandom(200_000)

    def talk(network: adbutils.Network, address: int | str, data: bytes) -> bytes:
        conn = device.create_connection(network, address)
        try:
            conn.sendall(data)
            received = bytearray()
            while len(received) < len(data):
                chunk = conn.recv(65536)
                assert chunk, "closed early"
                received += chunk
            return bytes(received)
        finally:
            conn.close()

    def session() -> None:
        assert device.shell("echo hi") == "hi"
        result = device.shell2("stderr bad", v2=True)
        assert (result.returncode, result.stdout.strip(), result.stderr.strip()) == (2, "to stdout", "bad")
        assert device.shell2("exit 7", v2=True).returncode == 7
        device.sync.push(b"payload", "/data/local/tmp/p.txt")
        info = device.sync.stat("/data/local/tmp/p.txt")
        assert (stat.S_ISREG(info.mode), info.size) == (True, 7)
        assert device.sync.stat("/data/local/tmp/none").mode == 0
        names = [entry.path for entry in device.sync.list("/data/local/tmp")]
        assert names == [".", "..", "p.txt"]
        assert device.sync.read_bytes("/data/local/tmp/p.txt") == b"payload"
        assert talk(adbutils.Network.LOCAL_ABSTRACT, "relay_echo", blob) == blob.upper()
        assert talk(adbutils.Network.TCP, 8123, b"tcp too") == b"TCP TOO"

    await asyncio.wait_for(asyncio.to_thread(session), 40)
    unregister()
    for name in ("relay_echo", "nobody_listens"):
        with pytest.raises(adbutils.AdbError):
            await asyncio.wait_for(asyncio.to_thread(
                device.create_connection, adbutils.Network.LOCAL_ABSTRACT, name), 20)


# ---------------------------------------------------------------- authorization and faults


async def test_unauthorized_until_the_user_allows(adb_server: AdbTestServer) -> None:
    async with AdbDeviceServer(FakeDevice(), require_auth=True) as server:
        serial = f"127.0.0.1:{server.port}"
        try:
            refused = await adb(adb_server, "connect", serial)
            assert refused.stdout == f"failed to authenticate to {serial}\n".encode(), refused
            assert await wait_for_state(adb_server, serial, {"unauthorized"}) == "unauthorized"
            denied = await adb(adb_server, "-s", serial, "shell", "echo hi")
            assert denied.returncode != 0 and b"unauthorized" in denied.stderr
            await server.authorize()
            await wait_for_state(adb_server, serial, {"device"})
            assert (await adb(adb_server, "-s", serial, "shell", "echo hi")).stdout == b"hi\n"
        finally:
            await adb(adb_server, "disconnect", serial)


async def test_a_phone_that_accepts_any_key_comes_online(adb_server: AdbTestServer) -> None:
    async with AdbDeviceServer(FakeDevice(), require_auth=True, auth_accepts=True) as server:
        serial = await connect(adb_server, server)
        try:
            await wait_for_state(adb_server, serial, {"device"})
        finally:
            await adb(adb_server, "disconnect", serial)


async def test_cable_pull_fails_the_command_in_flight_and_reconnect_works(fake_phone: ConnectedDevice) -> None:
    running = asyncio.create_task(fake_phone.run("shell", "sleep-forever", timeout=30))
    await asyncio.wait_for(fake_phone.device.sleeping.wait(), 15)
    fake_phone.server.accepting = False
    fake_phone.server.drop_connections()
    result = await asyncio.wait_for(running, 15)
    assert result.returncode != 0
    assert await wait_for_state(fake_phone.adb, fake_phone.serial, {None, "offline"}, timeout=10) != "device"
    assert fake_phone.server.online_count == 0

    fake_phone.server.accepting = True
    await adb(fake_phone.adb, "disconnect", fake_phone.serial)
    assert (await adb(fake_phone.adb, "connect", fake_phone.serial)).stdout.startswith(b"connected to")
    await wait_for_state(fake_phone.adb, fake_phone.serial, {"device"})
    assert (await fake_phone.run("shell", "echo back")).stdout == b"back\n"


async def test_a_vanished_phone_cannot_be_connected(adb_server: AdbTestServer) -> None:
    async with AdbDeviceServer(FakeDevice()) as server:
        server.accepting = False
        serial = f"127.0.0.1:{server.port}"
        try:
            # adb waits 10 s for the handshake before giving up; the server then lists the address as offline.
            refused = await adb(adb_server, "connect", serial, timeout=30)
            assert refused.stdout == f"failed to connect to {serial}\n".encode(), refused
            assert await device_state(adb_server, serial) in (None, "offline")
        finally:
            await adb(adb_server, "disconnect", serial)


# ---------------------------------------------------------------- a raw protocol client


class RawHost:
    """The host side of the wire protocol, by hand: for the cases adb itself never produces."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 server: AdbDeviceServer | None = None) -> None:
        self.reader, self.writer = reader, writer
        self.server = server
        self.device: FakeDevice = server.device if server is not None else FakeDevice()  # type: ignore[assignment]

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        self.writer.write(proto.pack_message(command, arg0, arg1, data, checksum=True))

    async def receive(self) -> tuple[proto.Header, bytes]:
        raw = await asyncio.wait_for(self.reader.readexactly(24), 10)
        check = struct.unpack("<6I", raw)[4]
        header = proto.parse_header(raw)
        data = await asyncio.wait_for(self.reader.readexactly(header.length), 10)
        assert check == 0  # the device speaks 0x01000001: no checksums
        return header, data


@pytest.fixture
async def raw_host() -> AsyncIterator[RawHost]:
    async with AdbDeviceServer(FakeDevice()) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            yield RawHost(reader, writer, server)
        finally:
            writer.close()


async def test_handshake_ignores_early_packets_and_honours_a_small_maxdata(
        raw_host: RawHost) -> None:
    host = raw_host
    host.send(proto.A_OPEN, 1, 0, b"shell:echo early\0")  # before CNXN: ignored
    host.send(proto.A_CNXN, proto.A_VERSION, 4096, b"host::features=shell_v2")
    header, data = await host.receive()
    assert (header.name, header.arg0, header.arg1) == ("CNXN", 0x01000001, 4096)
    assert data == (b"device::ro.product.name=fake_prod;ro.product.model=Fake Phone;ro.product.device=fakedev;"
                    b"features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir")

    host.send(proto.A_OPEN, 5, 0, b"exec:big 20000\0")
    header, _ = await host.receive()
    assert (header.name, header.arg1) == ("OKAY", 5)
    device_id = header.arg0
    received = bytearray()
    while True:
        header, data = await host.receive()
        if header.name == "CLSE":
            break
        assert (header.name, header.arg0, header.arg1) == ("WRTE", device_id, 5)
        assert len(data) <= 4096
        received += data
        # Without our OKAY the device must not send more.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(host.reader.readexactly(1), 0.05)
        host.send(proto.A_OKAY, 5, device_id)
    assert bytes(received) == big_output(20000)


async def test_open_of_unknown_service_or_closed_socket_gets_clse(raw_host: RawHost) -> None:
    host, device = raw_host, raw_host.device
    host.send(proto.A_CNXN, proto.A_VERSION, proto.MAX_PAYLOAD, b"host::")
    await host.receive()
    for local_id, name in enumerate((b"frobnicate:\0", b"localabstract:none\0", b"tcp:9\0", b"jdwp:1\0"), 1):
        host.send(proto.A_OPEN, local_id, 0, name)
        header, _ = await host.receive()
        assert (header.name, header.arg0, header.arg1) == ("CLSE", 0, local_id)
    device.sockets.register("tcp:9", echo_upper)
    host.send(proto.A_OPEN, 9, 0, b"tcp:localhost:9\0")
    header, _ = await host.receive()
    assert header.name == "OKAY"
    host.send(proto.A_WRTE, 9, header.arg0, b"abc")
    replies = {(await host.receive())[0].name for _ in range(2)}  # OKAY for our WRTE, and the echo
    assert replies == {"OKAY", "WRTE"}


async def test_host_clse_stops_the_process(raw_host: RawHost) -> None:
    host, device = raw_host, raw_host.device
    host.send(proto.A_CNXN, proto.A_VERSION, proto.MAX_PAYLOAD, b"host::")
    await host.receive()
    host.send(proto.A_OPEN, 3, 0, b"shell,v2,raw:sleep-forever\0")
    header, _ = await host.receive()
    await asyncio.wait_for(device.sleeping.wait(), 5)
    host.send(proto.A_CLSE, 3, header.arg0)
    await host.writer.drain()
    await asyncio.sleep(0.1)
    # The process is gone: a new stream still works on the same connection.
    host.send(proto.A_OPEN, 4, 0, b"exec:echo ok\0")
    header, _ = await host.receive()
    header, data = await host.receive()
    assert (header.name, data) == ("WRTE", b"ok\n")


async def test_stop_ends_connections_and_running_services(raw_host: RawHost) -> None:
    host = raw_host
    host.send(proto.A_CNXN, proto.A_VERSION, proto.MAX_PAYLOAD, b"host::")
    await host.receive()
    host.send(proto.A_OPEN, 3, 0, b"shell,v2,raw:sleep-forever\0")
    await host.receive()
    await asyncio.wait_for(host.device.sleeping.wait(), 5)
    assert host.server is not None and host.server.connection_count == 1
    await asyncio.wait_for(host.server.stop(), 5)
    assert await asyncio.wait_for(host.reader.read(), 5) == b""
    assert host.server.connection_count == 0


async def test_auth_token_then_signature_is_refused_or_accepted() -> None:
    for accepts in (False, True):
        async with AdbDeviceServer(FakeDevice(), require_auth=True, auth_accepts=accepts) as server:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            host = RawHost(reader, writer)
            host.send(proto.A_CNXN, proto.A_VERSION, proto.MAX_PAYLOAD, b"host::")
            header, token = await host.receive()
            assert (header.name, header.arg0, len(token)) == ("AUTH", proto.AUTH_TOKEN, 20)
            host.send(proto.A_AUTH, proto.AUTH_SIGNATURE, 0, bytes(256))
            header, data = await host.receive()
            assert header.name == ("CNXN" if accepts else "AUTH")
            assert data != token  # a fresh token each time
            writer.close()


# ---------------------------------------------------------------- the sync service in-process


async def sync_exchange(fs: MemoryFS, request: bytes) -> bytes:
    stream = DuplexStream()
    stream.incoming.feed(request)
    stream.incoming.close()
    await asyncio.wait_for(SyncSession(fs, stream).run(), 10)
    return await stream.outgoing.read_all()


def req(tag: bytes, path: str | bytes) -> bytes:
    raw = path.encode() if isinstance(path, str) else path
    return tag + len(raw).to_bytes(4, "little") + raw


async def test_sync_stat_of_missing_paths() -> None:
    fs = MemoryFS.android_default()
    assert await sync_exchange(fs, req(b"STAT", "/nope") + b"QUIT\0\0\0\0") == b"STAT" + bytes(12)
    v2 = await sync_exchange(fs, req(b"STA2", "/nope"))
    assert v2[:8] == b"STA2" + errno.ENOENT.to_bytes(4, "little") and len(v2) == 72
    lst2 = await sync_exchange(fs, req(b"LST2", "/sdcard"))
    assert lst2[:8] == b"LST2\0\0\0\0" and stat.S_ISDIR(int.from_bytes(lst2[24:28], "little"))


async def test_sync_list_v1_and_v2() -> None:
    fs = MemoryFS()
    fs.write("/d/f.txt", b"12345", mtime=1_700_000_000, make_parents=True)
    v1 = await sync_exchange(fs, req(b"LIST", "/d"))
    entry = b"DENT" + struct.pack("<IIII", stat.S_IFREG | 0o644, 5, 1_700_000_000, 5) + b"f.txt"
    assert v1.endswith(entry + b"DONE" + bytes(16))
    assert v1.count(b"DENT") == 3  # ".", "..", f.txt
    v2 = await sync_exchange(fs, req(b"LIS2", "/d"))
    assert v2.count(b"DNT2") == 3 and v2.endswith(b"f.txt" + b"DONE" + bytes(72))
    assert await sync_exchange(fs, req(b"LIST", "/missing")) == b"DONE" + bytes(16)


async def test_sync_send_splits_at_the_last_comma_and_makes_parents() -> None:
    fs = MemoryFS.android_default()
    body = b"DATA" + (3).to_bytes(4, "little") + b"abc" + b"DATA" + (2).to_bytes(4, "little") + b"de"
    reply = await sync_exchange(fs, req(b"SEND", "/sdcard/x,y/new/a,b.txt,33261") + body
                                + b"DONE" + (1_600_000_000).to_bytes(4, "little"))
    assert reply == b"OKAY\0\0\0\0"
    st = fs.stat("/sdcard/x,y/new/a,b.txt")
    assert st is not None and (st.mode, st.size, st.mtime) == (stat.S_IFREG | 0o755, 5, 1_600_000_000)
    assert fs.read("/sdcard/x,y/new/a,b.txt") == b"abcde"


async def test_sync_recv_chunks_like_adbd_and_fails_for_missing_files() -> None:
    fs = MemoryFS.android_default()
    content = os.urandom(200_000)
    fs.write("/sdcard/c.bin", content)
    reply = await sync_exchange(fs, req(b"RECV", "/sdcard/c.bin"))
    sizes, offset, received = [], 0, bytearray()
    while reply[offset:offset + 4] == b"DATA":
        size = int.from_bytes(reply[offset + 4:offset + 8], "little")
        sizes.append(size)
        received += reply[offset + 8:offset + 8 + size]
        offset += 8 + size
    assert sizes == [65528, 65528, 65528, 200_000 - 3 * 65528]
    assert bytes(received) == content and reply[offset:] == b"DONE\0\0\0\0"
    message = b"open failed: No such file or directory"
    assert await sync_exchange(fs, req(b"RECV", "/sdcard/none")) == b"FAIL" + len(message).to_bytes(4, "little") \
        + message


async def test_sync_errors_end_the_session() -> None:
    fs = MemoryFS.android_default()
    unknown = await sync_exchange(fs, req(b"ABCD", "/") + req(b"STAT", "/"))
    assert unknown == proto.pack_sync_fail(f"unknown command {int.from_bytes(b'ABCD', 'little'):08x}")
    assert unknown == proto.pack_sync_fail("unknown command 44434241")
    too_long = await sync_exchange(fs, req(b"STAT", "/" + "a" * 1024) + req(b"STAT", "/"))
    assert too_long == proto.pack_sync_fail("path too long")
    no_mode = await sync_exchange(fs, req(b"SEND", "/sdcard/nomode") + b"DONE\0\0\0\0")
    assert no_mode == proto.pack_sync_fail("missing , in ID_SEND")


# ---------------------------------------------------------------- the socket registry


async def test_socket_registry_specs() -> None:
    registry = SocketRegistry()
    unregister = registry.register("tcp:8080", echo_upper)
    assert registry.lookup("tcp:8080") is echo_upper
    assert registry.lookup("tcp:localhost:8080") is echo_upper
    assert registry.lookup("tcp:127.0.0.1:08080") is echo_upper
    assert registry.lookup("localabstract:8080") is None
    with pytest.raises(OSError, match="in use"):
        registry.register("tcp:127.0.0.1:8080", echo_upper)
    unregister()
    assert registry.lookup("tcp:8080") is None
    registry.register("localabstract:scrcpy_1234", echo_upper)
    assert "localabstract:scrcpy_1234" in registry and "localabstract:scrcpy" not in registry
    assert registry.lookup("tcp:x") is None and registry.lookup("vsock:1") is None
    with pytest.raises(ValueError):
        registry.register("tcp:http", echo_upper)
