"""The virtual phone's ADB endpoint: a TCP server that Google's adb server accepts as a device.

One :class:`_Connection` per TCP connection (the adb server keeps one per device). Each OPEN starts a
service on a :class:`DuplexStream`; an outbound pump turns what the service writes into WRTE packets,
one in flight per stream until the host's OKAY, as the protocol requires. The phone opens streams too: an
on-device connection to an ``adb reverse`` socket becomes an OPEN towards the host (:meth:`open_to_host`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Protocol

from relay_desktop.sim import adb_protocol as proto
from relay_desktop.sim.adb_reverse import ReverseForwards
from relay_desktop.sim.adb_services import Service, open_service
from relay_desktop.sim.streams import DuplexStream, ProcessIO

if TYPE_CHECKING:
    from relay_desktop.sim.memfs import MemoryFS
    from relay_desktop.sim.sockets import SocketRegistry

log = logging.getLogger(__name__)

__all__ = ["AdbDevice", "AdbDeviceServer"]


class AdbDevice(Protocol):
    banner_props: dict[str, str]          # ro.product.name / ro.product.model / ro.product.device
    fs: MemoryFS
    sockets: SocketRegistry

    async def run_shell(self, command: str, io: ProcessIO) -> int: ...   # returns exit code; command "" never passed


class AdbDeviceServer:
    """Listens on loopback for the adb server.

    ``require_auth`` makes the phone demand a key: by default it never accepts one (the host lists it as
    "unauthorized" until :meth:`authorize` plays the user tapping "Allow"); with ``auth_accepts`` it
    accepts whatever signature or public key the host offers after the token.
    """

    def __init__(self, device: AdbDevice, host: str = "127.0.0.1", port: int = 0, *, require_auth: bool = False,
                 auth_accepts: bool = False, max_payload: int = proto.MAX_PAYLOAD) -> None:
        self.device = device
        self.host = host
        self.requested_port = port
        self.require_auth = require_auth
        self.auth_accepts = auth_accepts
        self.max_payload = min(max_payload, proto.MAX_PAYLOAD)
        self.accepting = True  # fault hook: False = refuse new connections (the phone has vanished)
        self._server: asyncio.Server | None = None
        self._connections: set[_Connection] = set()
        self.reverses = ReverseForwards(device.sockets)   # adbd's listener list: one per phone
        # adbd names a TCP transport after its socket's fd ("host-19"); a counter plays the fd here.
        self._fds = itertools.count(19)

    @property
    def port(self) -> int:
        if self._server is None or not self._server.sockets:
            return self.requested_port
        return self._server.sockets[0].getsockname()[1]

    @property
    def connection_count(self) -> int:
        return len(self._connections)

    @property
    def online_count(self) -> int:
        """Connections past the handshake (the host lists these as "device")."""
        return sum(1 for c in self._connections if c.online)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, self.host, self.requested_port)
        log.debug("adb device endpoint on %s:%d", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self.drop_connections()
        for connection in list(self._connections):
            await connection.closed.wait()
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    def drop_connections(self) -> None:
        """Cut every connection at once, like pulling the cable."""
        for connection in list(self._connections):
            connection.abort()

    async def authorize(self) -> None:
        """The user taps "Allow": connections waiting for a key come online."""
        for connection in list(self._connections):
            if connection.awaiting_auth:
                with contextlib.suppress(ConnectionError):
                    await connection.go_online()

    async def __aenter__(self) -> AdbDeviceServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.accepting:
            writer.transport.abort()
            return
        connection = _Connection(self, reader, writer)
        self._connections.add(connection)
        try:
            await connection.run()
        finally:
            self._connections.discard(connection)


class _Stream:
    def __init__(self, local_id: int, remote_id: int, pipe: DuplexStream | None = None) -> None:
        self.local_id = local_id
        self.remote_id = remote_id        # 0 while an OPEN of ours waits for the host's answer
        self.pipe = pipe or DuplexStream()
        self.acked = asyncio.Event()
        self.acked.set()  # OPEN implies READY: the first WRTE may go out at once
        self.tasks: set[asyncio.Task[None]] = set()
        self.closed = False
        self.ended = asyncio.Event()      # CLSE sent or received: nothing more moves either way
        self.opening: asyncio.Future[bool] | None = None   # our OPEN: True on the host's OKAY, False on CLSE

    def spawn(self, coro: Coroutine[object, object, None]) -> None:
        # Finished tasks drop out, so a long-lived stream (a socket open for hours) does not accumulate them.
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


class _Connection:
    def __init__(self, server: AdbDeviceServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.online = False
        self.awaiting_auth = False
        self.max_payload = server.max_payload
        self.streams: dict[int, _Stream] = {}
        self._ids = itertools.count(1)
        self.closed = asyncio.Event()
        self.serial = f"host-{next(server._fds)}"
        self.reverses = server.reverses

    def abort(self) -> None:
        self.writer.transport.abort()

    async def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        if self.writer.is_closing():
            raise ConnectionResetError("transport closed")
        log.debug("-> %s %d %d (%d bytes)", proto.COMMAND_NAMES[command], arg0, arg1, len(data))
        self.writer.write(proto.pack_message(command, arg0, arg1, data))
        await self.writer.drain()

    async def run(self) -> None:
        try:
            while True:
                header = proto.parse_header(await self.reader.readexactly(proto.HEADER.size), proto.MAX_PAYLOAD)
                data = await self.reader.readexactly(header.length) if header.length else b""
                log.debug("<- %s %d %d (%d bytes)", header.name, header.arg0, header.arg1, len(data))
                await self.dispatch(header, data)
        except (asyncio.IncompleteReadError, ConnectionError, proto.ProtocolError) as exc:
            log.debug("connection ended: %r", exc)
        finally:
            for stream in list(self.streams.values()):
                self._discard(stream)
            # adbd runs the listeners' disconnect callbacks when the transport goes: reverses die with it.
            self.server.reverses.forget(self)
            self.writer.transport.abort()
            self.closed.set()

    async def dispatch(self, header: proto.Header, data: bytes) -> None:
        command = header.command
        if command == proto.A_CNXN:
            # Never send more than either side can take; the host drops the connection otherwise.
            self.max_payload = min(header.arg1 or proto.MAX_PAYLOAD_V1, self.server.max_payload)
            # A repeated CNXN means the host restarted its side: its old streams are gone (adbd does the same).
            for stream in list(self.streams.values()):
                self._discard(stream)
            self.online = False
            if self.server.require_auth:
                await self._send_token()
            else:
                await self.go_online()
        elif command == proto.A_AUTH:
            await self._auth(header.arg0)
        elif not self.online:
            return  # protocol.txt: ignore everything before the connection is up
        elif command == proto.A_OPEN:
            await self._open(header.arg0, data.rstrip(b"\0").decode(errors="replace"))
        elif command == proto.A_WRTE:
            stream = self.streams.get(header.arg1)
            if stream is not None and stream.remote_id == header.arg0:
                # Written synchronously so data keeps its order; the OKAY waits for room in the pipe.
                try:
                    stream.pipe.incoming.feed(data)
                except BrokenPipeError:
                    return
                stream.spawn(self._ack_when_drained(stream))
        elif command == proto.A_OKAY:
            stream = self.streams.get(header.arg1)
            if stream is not None and stream.opening is not None and not stream.opening.done():
                stream.remote_id = header.arg0    # the host accepted our OPEN: now we know its id
                stream.opening.set_result(True)
            elif stream is not None:
                stream.acked.set()
        elif command == proto.A_CLSE:
            stream = self.streams.get(header.arg1)
            if stream is not None and stream.remote_id == header.arg0:
                self._discard(stream)

    # ------------------------------------------------------------ connection set-up

    async def go_online(self) -> None:
        self.online = True
        self.awaiting_auth = False
        payload = proto.banner(self.server.device.banner_props)
        await self.send(proto.A_CNXN, proto.A_VERSION, self.max_payload, payload)

    async def _send_token(self) -> None:
        self.awaiting_auth = True
        await self.send(proto.A_AUTH, proto.AUTH_TOKEN, 0, os.urandom(proto.AUTH_TOKEN_SIZE))

    async def _auth(self, kind: int) -> None:
        if self.online or not self.awaiting_auth:
            return  # an AUTH we never asked for
        if self.server.auth_accepts and kind in (proto.AUTH_SIGNATURE, proto.AUTH_RSAPUBLICKEY):
            await self.go_online()
        elif kind == proto.AUTH_SIGNATURE:
            await self._send_token()  # "try your next key"; after the last one the host offers its public key
        # AUTH_RSAPUBLICKEY without acceptance: the dialog is on screen and nobody taps "Allow".

    # ------------------------------------------------------------ streams

    async def _open(self, remote_id: int, name: str) -> None:
        service = open_service(self.server.device, name, self)
        log.debug("OPEN %r from host stream %d: %s", name, remote_id, "refused" if service is None else "accepted")
        if service is None:
            await self.send(proto.A_CLSE, 0, remote_id)
            return
        stream = _Stream(next(self._ids), remote_id)
        self.streams[stream.local_id] = stream
        await self.send(proto.A_OKAY, stream.local_id, remote_id)
        stream.spawn(self._serve(stream, service, name))
        stream.spawn(self._pump(stream))

    async def _serve(self, stream: _Stream, service: Service, name: str) -> None:
        try:
            await service(stream.pipe)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("service %r failed", name)
        finally:
            stream.pipe.close()

    async def open_to_host(self, destination: str, pipe: DuplexStream) -> None:
        """adbd's ``connect_to_remote()``: OPEN ``destination`` on the host and carry ``pipe`` until the stream ends.

        A refused OPEN (the host's CLSE: nothing listens on its port) or a dead connection closes ``pipe``
        both ways, so the on-device client reads EOF and its writes fail, as its socket would.
        """
        stream = _Stream(next(self._ids), 0, pipe)
        stream.opening = asyncio.get_running_loop().create_future()
        self.streams[stream.local_id] = stream
        try:
            if not self.online:
                raise ConnectionResetError("the host is not connected")
            # arg1 0: no delayed-ack send buffer (this phone does not offer the feature).
            await self.send(proto.A_OPEN, stream.local_id, 0, destination.encode() + b"\0")
            if not await stream.opening:
                return
            stream.spawn(self._pump(stream))
            await stream.ended.wait()
        except ConnectionError:
            pass
        finally:
            if not stream.closed:
                self._discard(stream)
            # ADB has no half-close: once either side sent CLSE, the device-side socket is gone both ways.
            pipe.incoming.close()
            pipe.outgoing.close()

    async def _pump(self, stream: _Stream) -> None:
        """Send what the service writes, one WRTE at a time, then CLSE when it is done."""
        try:
            while chunk := await stream.pipe.outgoing.read(self.max_payload):
                await stream.acked.wait()
                if stream.closed:
                    return
                stream.acked.clear()
                await self.send(proto.A_WRTE, stream.local_id, stream.remote_id, chunk)
            # Let the last WRTE be acknowledged first: the host then has all the data before it sees CLSE.
            await stream.acked.wait()
            if not stream.closed:
                stream.closed = True
                self.streams.pop(stream.local_id, None)
                await self.send(proto.A_CLSE, stream.local_id, stream.remote_id)
        except ConnectionError:
            pass
        finally:
            stream.ended.set()

    async def _ack_when_drained(self, stream: _Stream) -> None:
        # The OKAY goes out only once the service has room for more: that is the back-pressure to the host.
        with contextlib.suppress(ConnectionError, BrokenPipeError):
            await stream.pipe.incoming.write(b"")  # adds nothing; returns once the pipe is below its limit
            if not stream.closed:
                await self.send(proto.A_OKAY, stream.local_id, stream.remote_id)

    def _discard(self, stream: _Stream) -> None:
        """The host closed the stream (or the connection died): stop its service."""
        stream.closed = True
        self.streams.pop(stream.local_id, None)
        stream.acked.set()
        stream.pipe.incoming.close()
        # Closed both ways, as a socket whose peer is gone: a process still writing gets EPIPE, not a stall.
        stream.pipe.outgoing.close()
        stream.ended.set()
        if stream.opening is not None and not stream.opening.done():
            stream.opening.set_result(False)
        current = asyncio.current_task()
        for task in list(stream.tasks):
            if task is not current:
                task.cancel()
