"""The interactive shell behind ``adb shell`` with no command.

With a pty (the adb client's stdin is a terminal) the phone's terminal driver echoes what is typed,
turns output ``\\n`` into ``\\r\\n``, erases on backspace and turns Ctrl-C into SIGINT for the running
command; mksh prints ``PS1`` (``relay_sim:/ $ ``). Without a pty there is no echo and no prompt, and
each line of stdin is run as it arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from relay_desktop.sim.shell.base import ShellExit, Writer
from relay_desktop.sim.streams import BytePipe, ProcessIO

if TYPE_CHECKING:
    from relay_desktop.sim.shell.interpreter import Session, Shell

CTRL_C, CTRL_D, CTRL_U, BACKSPACE, DELETE = 0x03, 0x04, 0x15, 0x08, 0x7F
SIGINT_STATUS = 130


def _onlcr(write: Writer) -> Writer:
    async def translated(data: bytes) -> None:
        await write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    return translated


class _Terminal:
    def __init__(self, shell: Shell, io: ProcessIO, tty: bool) -> None:
        self.shell = shell
        self.io = io
        self.tty = tty
        self.session: Session = shell.new_session()
        self.out = _onlcr(io.stdout) if tty else io.stdout
        self.err = _onlcr(io.stderr) if tty else io.stderr
        self.pending = b""

    def prompt(self) -> bytes:
        host = self.session.vars.get("HOSTNAME", "localhost")
        return f"{host}:{self.session.cwd} $ ".encode()

    async def loop(self) -> int:
        line = bytearray()
        last = 0
        if self.tty:
            await self.io.stdout(self.prompt())
        while True:
            chunk, self.pending = self.pending, b""
            if not chunk:
                chunk = await self.io.stdin.read()
                if not chunk:
                    return self.session.status
            for index, byte in enumerate(chunk):
                previous, last = last, byte
                if byte == 0x0A and previous == 0x0D:
                    continue  # "\r\n" is one Enter
                if byte in (0x0A, 0x0D):
                    self.pending = chunk[index + 1:]
                    if self.tty:
                        await self.io.stdout(b"\r\n")
                    await self.execute(line.decode(errors="replace"))
                    line.clear()
                    if self.tty:
                        await self.io.stdout(self.prompt())
                    break
                if not self.tty:
                    line.append(byte)
                elif byte == CTRL_C:
                    line.clear()
                    await self.io.stdout(b"^C\r\n" + self.prompt())
                elif byte == CTRL_D:
                    if not line:
                        return self.session.status
                elif byte == CTRL_U:
                    await self.io.stdout(b"\b \b" * len(line.decode(errors="replace")))
                    line.clear()
                elif byte in (BACKSPACE, DELETE):
                    if line:
                        text = line.decode(errors="replace")[:-1]
                        line[:] = text.encode()
                        await self.io.stdout(b"\b \b")
                else:
                    line.append(byte)
                    await self.io.stdout(bytes([byte]))

    async def execute(self, source: str) -> None:
        if not source.strip():
            return
        if not self.tty:
            stdin = BytePipe()
            stdin.close()
            await self.shell.run_in(self.session, source, stdin, self.out, self.err)
            return
        stdin = BytePipe()
        job = asyncio.create_task(self.shell.run_in(self.session, source, stdin, self.out, self.err))
        pump = asyncio.create_task(self._feed(stdin, job))
        try:
            await asyncio.wait({job})
        except asyncio.CancelledError:
            job.cancel()  # the adb stream closed under us: stop the command too
            raise
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
        if job.cancelled():
            self.session.status = SIGINT_STATUS
            return
        exc = job.exception()
        if exc is not None:
            raise exc

    async def _feed(self, stdin: BytePipe, job: asyncio.Task[int]) -> None:
        """While a command runs, typed bytes go to it, echoed; Ctrl-C interrupts it."""
        while chunk := await self.io.stdin.read():
            if CTRL_C in chunk:
                await self.io.stdout(b"^C\r\n")
                job.cancel()
                return
            await self.io.stdout(chunk.replace(b"\r", b"\r\n"))
            stdin.feed(chunk.replace(b"\r", b"\n"))
        stdin.close()


async def run_interactive(shell: Shell, io: ProcessIO, tty: bool = True) -> int:
    terminal = _Terminal(shell, io, tty)
    try:
        return await terminal.loop()
    except ShellExit as exc:
        return exc.status
