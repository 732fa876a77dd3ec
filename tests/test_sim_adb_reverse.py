"""``adb reverse`` on the virtual phone, through Google's adb: replies as adbd's, tunnels that carry bytes both
ways, and reverses that die with the connection that made them."""

from __future__ import annotations

import asyncio
import re
import subprocess
from collections.abc import AsyncIterator

import pytest

from relay_desktop.sim.adb_reverse import ReverseForwards, handle_request
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.sockets import SocketRegistry
from relay_desktop.sim.streams import DuplexStream
from tests.conftest import AdbTestServer, free_port
from tests.sim_adb_fixtures import wait_for_state


async def adb(adb_server: AdbTestServer, sim: VirtualPhoneService, *args: str) -> subprocess.CompletedProcess[str]:
    result = await asyncio.to_thread(adb_server.run, "-s", sim.serial, *args)
    return subprocess.CompletedProcess(result.args, result.returncode, result.stdout.decode(), result.stderr.decode())


@pytest.fixture
async def echo_port() -> AsyncIterator[int]:
    """A host port whose server echoes what it reads, upper-cased (the far end of a reverse tunnel)."""
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data.upper())
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def read_until_eof(stream: DuplexStream, timeout: float = 10) -> bytes:
    return await asyncio.wait_for(stream.incoming.read_all(), timeout)


# ---------------------------------------------------------------- the command line


async def test_reverse_list_remove_and_no_rebind_answer_as_a_phone(adb_server: AdbTestServer,
                                                                   sim: VirtualPhoneService) -> None:
    made = await adb(adb_server, sim, "reverse", "localabstract:relay_a", "tcp:27183")
    assert (made.returncode, made.stdout, made.stderr) == (0, "", "")
    picked = await adb(adb_server, sim, "reverse", "tcp:0", "tcp:27184")
    assert picked.returncode == 0 and re.fullmatch(r"\d+\n", picked.stdout)     # the port the phone bound
    port = int(picked.stdout)
    listed = await adb(adb_server, sim, "reverse", "--list")
    # adbd names its TCP transport host-<fd>; adb prints the list and a newline of its own.
    lines = listed.stdout.split("\n")
    assert listed.returncode == 0 and lines[2:] == ["", ""]
    assert re.fullmatch(r"host-\d+ localabstract:relay_a tcp:27183", lines[0])
    assert lines[1].endswith(f" tcp:{port} tcp:27184")

    refused = await adb(adb_server, sim, "reverse", "--no-rebind", "localabstract:relay_a", "tcp:27185")
    assert (refused.returncode, refused.stderr) == (1, "adb: error: cannot rebind existing socket\n")
    rebound = await adb(adb_server, sim, "reverse", "localabstract:relay_a", "tcp:27185")
    assert rebound.returncode == 0
    assert " localabstract:relay_a tcp:27185\n" in (await adb(adb_server, sim, "reverse", "--list")).stdout

    removed = await adb(adb_server, sim, "reverse", "--remove", "localabstract:relay_a")
    assert (removed.returncode, removed.stdout, removed.stderr) == (0, "", "")
    again = await adb(adb_server, sim, "reverse", "--remove", "localabstract:relay_a")
    assert (again.returncode, again.stderr) == (1, "adb: error: listener 'localabstract:relay_a' not found\n")
    assert "localabstract:relay_a" not in sim.phone.sockets

    assert (await adb(adb_server, sim, "reverse", "--remove-all")).returncode == 0
    assert (await adb(adb_server, sim, "reverse", "--list")).stdout == "\n"
    assert f"tcp:{port}" not in sim.phone.sockets


async def test_reverse_bind_errors_are_adbd_s(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    async def error(*args: str) -> str:
        result = await adb(adb_server, sim, "reverse", *args)
        assert result.returncode == 1
        return result.stderr

    assert await error("tcp:99999", "tcp:1") == "adb: error: cannot bind listener: bad port number '99999'\n"
    assert await error("localreserved:relay", "tcp:1") == "adb: error: cannot bind listener: Permission denied\n"
    # A device socket a process already listens on cannot be bound twice.
    unregister = sim.phone.sockets.register("localabstract:relay_taken", lambda stream: asyncio.sleep(0))
    try:
        assert await error("localabstract:relay_taken", "tcp:1") == \
            "adb: error: cannot bind listener: Address already in use\n"
    finally:
        unregister()
    assert (await adb(adb_server, sim, "reverse", "--list")).stdout == "\n"


# ---------------------------------------------------------------- the tunnel


async def test_an_on_device_connection_reaches_the_host_port(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                             echo_port: int) -> None:
    assert (await adb(adb_server, sim, "reverse", "localabstract:relay_echo", f"tcp:{echo_port}")).returncode == 0
    stream = sim.phone.sockets.connect("localabstract:relay_echo")
    blob = bytes(range(256)) * 1000           # several WRTEs each way
    await stream.write(blob)
    echoed = await asyncio.wait_for(stream.incoming.read_exactly(len(blob)), 15)
    assert echoed == blob.upper()
    stream.close()                            # the phone closes its socket: the host's connection ends
    assert await read_until_eof(stream) == b""
    # The tunnel's listener outlives one connection: a second one goes through as well.
    second = sim.phone.sockets.connect("localabstract:relay_echo")
    await second.write(b"again")
    assert await asyncio.wait_for(second.incoming.read_exactly(5), 10) == b"AGAIN"
    second.close()
    assert (await adb(adb_server, sim, "reverse", "--remove-all")).returncode == 0


async def test_a_reverse_to_a_closed_host_port_gives_the_device_a_closed_socket(adb_server: AdbTestServer,
                                                                                sim: VirtualPhoneService) -> None:
    # The connect on the phone succeeds (adbd accepts at once); the host refuses, so the socket just closes.
    assert (await adb(adb_server, sim, "reverse", "localabstract:relay_nowhere", f"tcp:{free_port()}")).returncode == 0
    stream = sim.phone.sockets.connect("localabstract:relay_nowhere")
    assert await read_until_eof(stream) == b""
    with pytest.raises(BrokenPipeError):
        await stream.write(b"anyone?")
    assert (await adb(adb_server, sim, "reverse", "--remove-all")).returncode == 0


async def test_reverses_die_with_the_connection_that_made_them(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                               echo_port: int) -> None:
    assert (await adb(adb_server, sim, "reverse", "localabstract:relay_gone", f"tcp:{echo_port}")).returncode == 0
    stream = sim.phone.sockets.connect("localabstract:relay_gone")
    await stream.write(b"x")
    assert await asyncio.wait_for(stream.incoming.read_exactly(1), 10) == b"X"

    sim.unplug()                               # the cable is pulled: the connection is gone
    assert await read_until_eof(stream) == b""                # a tunnelled socket ends with it
    assert "localabstract:relay_gone" not in sim.phone.sockets
    with pytest.raises(ConnectionRefusedError):
        sim.phone.sockets.connect("localabstract:relay_gone")
    sim.replug()
    await wait_for_state(adb_server, sim.serial, {"device"})
    assert (await adb(adb_server, sim, "reverse", "--list")).stdout == "\n"


# ---------------------------------------------------------------- requests the command line never sends


class _Link:
    serial = "host-7"

    def __init__(self) -> None:
        self.reverses = ReverseForwards(SocketRegistry())

    async def open_to_host(self, destination: str, stream: DuplexStream) -> None:
        stream.close()


@pytest.mark.parametrize(("command", "reply"), [
    ("forward:localabstract:a", b"FAIL001cbad forward: localabstract:a"),
    ("forward:norebind:;tcp:1", b"FAIL0013bad forward: ;tcp:1"),
    ("forward:localabstract:a;*smartsocket*", b"FAIL002abad forward: localabstract:a;*smartsocket*"),
    ("killforward:", b"FAIL0011bad killforward: "),
    ("killforward:a;b", b"FAIL0014bad killforward: a;b"),
    ("reboot", b"FAIL0020not a reverse forwarding command"),
    ("list-forward", b"0000"),
    ("killforward-all", b"OKAY"),
    ("forward:localabstract:a;tcp:1", b"OKAY"),
])
def test_reverse_requests_malformed_or_bare(command: str, reply: bytes) -> None:
    assert handle_request(_Link(), command) == reply
