"""Byte pipes between the ADB transport and the simulated device's processes and sockets.

The transport turns every ADB stream into a :class:`DuplexStream`; simulated processes (shell commands,
an on-device server listening on a ``localabstract`` socket) only ever see these objects, so they can be
tested without a transport at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


class BytePipe:
    """A one-way, bounded byte pipe with an end-of-file marker.

    ``write`` waits while more than ``limit`` bytes are unread, which is how back-pressure from a slow
    ADB peer (one WRTE in flight per stream) reaches the producing process.
    """

    def __init__(self, limit: int = 256 * 1024) -> None:
        self._buffer = bytearray()
        self._limit = limit
        self._eof = False
        self._readable = asyncio.Event()
        self._writable = asyncio.Event()
        self._writable.set()

    @property
    def at_eof(self) -> bool:
        return self._eof and not self._buffer

    def feed(self, data: bytes) -> None:
        """Append without waiting (for the transport side, which has its own flow control)."""
        if self._eof:
            raise BrokenPipeError("write after end of file")
        if data:
            self._buffer += data
            self._readable.set()
            if len(self._buffer) >= self._limit:
                self._writable.clear()

    async def write(self, data: bytes) -> None:
        self.feed(data)
        await self._writable.wait()

    def close(self) -> None:
        """Mark end of file; readers get what is buffered, then ``b""``."""
        self._eof = True
        self._readable.set()
        self._writable.set()

    async def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes (all buffered bytes if ``n < 0``); ``b""`` only at end of file."""
        while not self._buffer and not self._eof:
            self._readable.clear()
            await self._readable.wait()
        if n < 0 or n >= len(self._buffer):
            data = bytes(self._buffer)
            self._buffer.clear()
        else:
            data = bytes(self._buffer[:n])
            del self._buffer[:n]
        if not self._buffer and not self._eof:
            self._readable.clear()
        if len(self._buffer) < self._limit:
            self._writable.set()
        return data

    async def read_exactly(self, n: int) -> bytes:
        """Exactly ``n`` bytes; raises :class:`asyncio.IncompleteReadError` on early end of file."""
        chunks = bytearray()
        while len(chunks) < n:
            chunk = await self.read(n - len(chunks))
            if not chunk:
                raise asyncio.IncompleteReadError(bytes(chunks), n)
            chunks += chunk
        return bytes(chunks)

    async def read_all(self) -> bytes:
        chunks = bytearray()
        while chunk := await self.read():
            chunks += chunk
        return bytes(chunks)


@dataclass
class DuplexStream:
    """Both directions of one connection, as seen by the device-side endpoint.

    ``incoming`` carries bytes from the host; the endpoint writes its replies to ``outgoing``.
    ``on_close`` lets the owner of the connection learn that the endpoint is done with it.
    """

    incoming: BytePipe = field(default_factory=BytePipe)
    outgoing: BytePipe = field(default_factory=BytePipe)

    async def read(self, n: int = -1) -> bytes:
        return await self.incoming.read(n)

    async def read_exactly(self, n: int) -> bytes:
        return await self.incoming.read_exactly(n)

    async def write(self, data: bytes) -> None:
        await self.outgoing.write(data)

    def close(self) -> None:
        self.outgoing.close()

    def other_end(self) -> DuplexStream:
        """The same connection seen from the peer: its incoming is our outgoing and the other way round."""
        return DuplexStream(incoming=self.outgoing, outgoing=self.incoming)


@dataclass
class ProcessIO:
    """What a simulated process gets: stdin, and separate stdout and stderr.

    The shell service decides how these reach the host (merged for ``shell:``, framed for ``shell,v2``,
    stdout only for ``exec:``).
    """

    stdin: BytePipe
    stdout: Callable[[bytes], Awaitable[None]]
    stderr: Callable[[bytes], Awaitable[None]]

    @classmethod
    def collecting(cls, stdin: bytes = b"") -> tuple[ProcessIO, bytearray, bytearray]:
        """A ProcessIO that records output in memory (for tests and in-process callers)."""
        pipe = BytePipe()
        if stdin:
            pipe.feed(stdin)
        pipe.close()
        out, err = bytearray(), bytearray()

        async def write_out(data: bytes) -> None:
            out.extend(data)

        async def write_err(data: bytes) -> None:
            err.extend(data)

        return cls(pipe, write_out, write_err), out, err


SocketHandler = Callable[[DuplexStream], Awaitable[None]]
"""A device-side socket server: called once per accepted connection, owns the stream until it returns."""
