"""The services a host can OPEN on the virtual phone: shell (v1 and v2), exec, sync, reverse and device sockets.

Each service is a coroutine over a :class:`DuplexStream`; the transport moves the bytes. Returning
``None`` from :func:`open_service` refuses the OPEN, which the host reports as "closed".
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import stat as statmod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from relay_desktop.sim import adb_protocol as proto
from relay_desktop.sim.adb_reverse import reverse_service
from relay_desktop.sim.streams import BytePipe, DuplexStream, ProcessIO

if TYPE_CHECKING:
    from relay_desktop.sim.adb_reverse import HostLink
    from relay_desktop.sim.adb_transport import AdbDevice
    from relay_desktop.sim.memfs import MemoryFS

log = logging.getLogger(__name__)

Service = Callable[[DuplexStream], Awaitable[None]]
# The shell user may only write here (as adbd's `shell` uid on a real phone).
WRITABLE_PREFIXES = ("/storage/emulated/0", "/data/local/tmp")
SOCKET_PREFIXES = ("localabstract:", "tcp:", "localreserved:", "localfilesystem:", "local:")


def open_service(device: AdbDevice, name: str, link: HostLink | None = None) -> Service | None:
    """``link`` is the ADB connection the OPEN came on: ``reverse:`` needs it (reverses die with it)."""
    name = name.rstrip("\0")
    shell = proto.parse_shell_service(name)
    if shell is not None:
        if shell.v2:
            return lambda stream: _shell_v2(device, stream, shell.command, shell.tty)
        return lambda stream: _shell_v1(device, stream, shell.command, shell.tty)
    if name.startswith("exec:"):
        return lambda stream: _exec(device, stream, name[len("exec:"):])
    if name == "sync:":
        return lambda stream: SyncSession(device.fs, stream).run()
    if name.startswith("reverse:") and link is not None:
        return reverse_service(link, name[len("reverse:"):])
    if name.startswith(SOCKET_PREFIXES):
        # Nothing listening is a refused OPEN, as a real phone answers a connect() that gets ECONNREFUSED.
        return device.sockets.lookup(name)
    return None


async def _run(device: AdbDevice, command: str, io: ProcessIO, tty: bool = False) -> int:
    if command.strip():
        return await device.run_shell(command, io)
    # A device with a real interactive shell (prompt, pty echo) offers it as `device.shell.interactive`.
    interactive = getattr(getattr(device, "shell", None), "interactive", None)
    if interactive is not None:
        return await interactive(io, tty=tty)
    return await _line_by_line(device, io)


async def _line_by_line(device: AdbDevice, io: ProcessIO) -> int:
    """Interactive shell for devices without one: run each line of stdin as it arrives, until EOF."""
    status = 0
    pending = b""
    while chunk := await io.stdin.read():
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").strip()
            if not line:
                continue
            words = line.split()
            # Without this a host whose stdin is a terminal could never end the session.
            if words[0] == "exit":
                return int(words[1]) & 0xFF if len(words) > 1 and words[1].isdigit() else status
            status = await device.run_shell(line, ProcessIO(_empty_pipe(), io.stdout, io.stderr))
    if pending.strip():
        status = await device.run_shell(pending.decode(errors="replace").strip(),
                                        ProcessIO(_empty_pipe(), io.stdout, io.stderr))
    return status


def _empty_pipe() -> BytePipe:
    pipe = BytePipe()
    pipe.close()
    return pipe


async def _shell_v1(device: AdbDevice, stream: DuplexStream, command: str, tty: bool) -> None:
    # Without the shell protocol, stdout and stderr share the stream and the exit code is lost.
    io = ProcessIO(stream.incoming, stream.write, stream.write)
    try:
        await _run(device, command, io, tty)
    finally:
        stream.close()


async def _exec(device: AdbDevice, stream: DuplexStream, command: str) -> None:
    async def discard(_data: bytes) -> None:
        return None

    try:
        if command.strip():
            await device.run_shell(command, ProcessIO(stream.incoming, stream.write, discard))
    finally:
        stream.close()


async def _shell_v2(device: AdbDevice, stream: DuplexStream, command: str, tty: bool) -> None:
    stdin = BytePipe()

    async def pump_stdin() -> None:
        reader = proto.ShellPacketReader()
        while data := await stream.read():
            for packet_id, payload in reader.feed(data):
                if packet_id == proto.SHELL_STDIN:
                    # stdin after close-stdin is dropped, as adbd drops writes to a closed pipe.
                    with contextlib.suppress(BrokenPipeError):
                        await stdin.write(payload)
                elif packet_id == proto.SHELL_CLOSE_STDIN:
                    stdin.close()
                # SHELL_WINDOW_SIZE: the simulated terminal has no size to change.
        stdin.close()

    async def out(data: bytes) -> None:
        if data:
            await stream.write(proto.pack_shell(proto.SHELL_STDOUT, data))

    # On a pty, stdout and stderr are the same terminal: adbd sends everything as stdout packets.
    err_id = proto.SHELL_STDOUT if tty else proto.SHELL_STDERR

    async def err(data: bytes) -> None:
        if data:
            await stream.write(proto.pack_shell(err_id, data))

    feeder = asyncio.create_task(pump_stdin())
    try:
        code = await _run(device, command, ProcessIO(stdin, out, err), tty)
        await stream.write(proto.pack_shell_exit(code))
    finally:
        feeder.cancel()
        stream.close()


class SyncSession:
    """``sync:``: file transfer requests until QUIT or an error."""

    def __init__(self, fs: MemoryFS, stream: DuplexStream) -> None:
        self.fs = fs
        self.stream = stream

    async def _header(self) -> tuple[bytes, int]:
        return proto.parse_sync_request(await self.stream.read_exactly(proto.SYNC_REQUEST.size))

    async def run(self) -> None:
        handlers = {b"STAT": self._stat_v1, b"STA2": self._stat_v2, b"LST2": self._stat_v2,
                    b"LIST": self._list, b"LIS2": self._list, b"SEND": self._send, b"RECV": self._recv}
        try:
            while True:
                tag, length = await self._header()
                if tag == b"QUIT":
                    return
                if length > proto.SYNC_PATH_MAX:
                    await self.stream.write(proto.pack_sync_fail("path too long"))
                    return
                path = (await self.stream.read_exactly(length)).decode(errors="replace")
                log.debug("sync %s %r", tag.decode(errors="replace"), path)
                handler = handlers.get(tag)
                if handler is None:
                    code = int.from_bytes(tag, "little")
                    await self.stream.write(proto.pack_sync_fail(f"unknown command {code:08x}"))
                    return
                if not await handler(tag, path):
                    return
        except asyncio.IncompleteReadError:
            return  # the host hung up
        finally:
            self.stream.close()

    def _sync_stat(self, path: str) -> proto.SyncStat | None:
        st = self.fs.stat(path)
        if st is None:
            return None
        return proto.SyncStat(mode=st.mode, size=st.size, mtime=int(st.mtime), ino=st.ino, nlink=st.nlink,
                              uid=st.uid, gid=st.gid)

    async def _stat_v1(self, _tag: bytes, path: str) -> bool:
        await self.stream.write(proto.pack_stat_v1(self._sync_stat(path) or proto.SyncStat()))
        return True

    async def _stat_v2(self, tag: bytes, path: str) -> bool:
        st = self._sync_stat(path) or proto.SyncStat(error=errno.ENOENT)
        await self.stream.write(proto.pack_stat_v2(tag, st))
        return True

    async def _list(self, tag: bytes, path: str) -> bool:
        v2 = tag == b"LIS2"
        pack = proto.pack_dent_v2 if v2 else proto.pack_dent_v1
        own = self._sync_stat(path)
        # Like adbd's opendir(): a missing path or a file lists nothing, without an error.
        if own is not None and statmod.S_ISDIR(own.mode):
            entries = [(".", own), ("..", own)]
            base = path.rstrip("/")
            entries += [(name, self._sync_stat(f"{base}/{name}") or proto.SyncStat())
                        for name in self.fs.listdir(path)]
            await self.stream.write(b"".join(pack(name, st) for name, st in entries))
        await self.stream.write(proto.pack_list_done(v2))
        return True

    async def _send(self, _tag: bytes, spec: str) -> bool:
        try:
            path, mode = proto.parse_send_spec(spec)
        except ValueError as exc:
            await self.stream.write(proto.pack_sync_fail(str(exc)))
            return False
        data = bytearray()
        while True:
            tag, length = await self._header()
            if tag == b"DATA":
                if length > proto.SYNC_DATA_MAX:
                    await self.stream.write(proto.pack_sync_fail("data chunk too large"))
                    return False
                data += await self.stream.read_exactly(length)
            elif tag == b"DONE":
                mtime = length
                break
            else:
                await self.stream.write(proto.pack_sync_fail(f"unexpected {tag!r} in SEND"))
                return False
        # The data is read before failing so that the session stays in step with the host.
        normalized = self.fs.normalize(path)
        if not normalized.startswith(WRITABLE_PREFIXES):
            await self.stream.write(proto.pack_sync_fail("couldn't create file: Read-only file system"))
            return True
        try:
            # fixed_push_mkdir: the host relies on the device to create missing parent directories.
            self.fs.write(normalized, bytes(data), mode=mode & 0o7777, mtime=mtime or None, make_parents=True)
        except OSError as exc:
            await self.stream.write(proto.pack_sync_fail(f"couldn't create file: {exc.strerror or exc}"))
            return True
        await self.stream.write(proto.pack_sync_okay())
        return True

    async def _recv(self, _tag: bytes, path: str) -> bool:
        try:
            content = self.fs.read(path)
        except FileNotFoundError:
            await self.stream.write(proto.pack_sync_fail("open failed: No such file or directory"))
            return True
        except IsADirectoryError:
            await self.stream.write(proto.pack_sync_fail("read failed: Is a directory"))
            return True
        except NotADirectoryError:
            await self.stream.write(proto.pack_sync_fail("open failed: Not a directory"))
            return True
        for start in range(0, len(content), proto.SYNC_RECV_CHUNK):
            await self.stream.write(proto.pack_sync_data(content[start:start + proto.SYNC_RECV_CHUNK]))
        await self.stream.write(proto.pack_sync_done())
        return True
