"""Runs parsed command lines: expansion, redirections, pipelines, ``&&``/``||``, background jobs.

Each ``adb shell CMD`` is a fresh ``sh -c CMD`` on a real phone, so :meth:`Shell.run` starts a fresh
:class:`Session` (variables, working directory, ``$?``); the interactive shell keeps one session for
its whole life. Pipeline stages run as concurrent tasks joined by :class:`BytePipe`; a stage that
ends closes its input, so an upstream writer gets ``BrokenPipeError`` — our SIGPIPE (status 141).
"""

from __future__ import annotations

import asyncio
import logging
import posixpath
from dataclasses import dataclass, field, replace
from typing import Any

from relay_desktop.sim.shell import (  # noqa: F401  (imported to register their commands)
    commands_android,
    commands_basic,
    commands_dumpsys,
    commands_files,
    commands_input,
    commands_pm,
    commands_text,
)
from relay_desktop.sim.shell.base import (
    BIN_DIRS,
    COMMANDS,
    SH,
    CommandContext,
    CommandFunc,
    ShellExit,
    Writer,
    normpath,
    os_error_text,
    write_error,
)
from relay_desktop.sim.shell.expansion import IFS, Expander, closed_stdin
from relay_desktop.sim.shell.parser import (
    AndOr,
    Command,
    Pipeline,
    Redirect,
    ShellSyntaxError,
    parse,
)
from relay_desktop.sim.streams import BytePipe, ProcessIO

log = logging.getLogger(__name__)

__all__ = ["Session", "Shell", "ShellExit"]

SIGPIPE_STATUS = 141


@dataclass
class Session:
    """One shell process's state: variables, working directory and the last exit status."""

    vars: dict[str, str]
    exported: set[str]
    cwd: str = "/"
    status: int = 0
    pid: int = 0
    last_background_pid: int | None = None
    positional: list[str] = field(default_factory=list)

    def subshell(self) -> Session:
        return replace(self, vars=dict(self.vars), exported=set(self.exported), positional=list(self.positional))

    def environment(self) -> dict[str, str]:
        return {k: v for k, v in self.vars.items() if k in self.exported}


@dataclass
class _Fds:
    stdin: BytePipe
    out: Writer
    err: Writer


async def _discard(data: bytes) -> None:
    """/dev/null, and a closed descriptor."""


class _FileWriter:
    """Appends to a MemoryFS file on every write, so the file grows while a command streams."""

    def __init__(self, fs: Any, path: str) -> None:
        self.fs = fs
        self.path = path

    async def __call__(self, data: bytes) -> None:
        if data:
            self.fs.write(self.path, self.fs.read(self.path) + data)


class Shell:
    """The phone's ``/system/bin/sh``."""

    def __init__(self, phone: Any) -> None:
        self.phone = phone
        self._background: set[asyncio.Task[int]] = set()
        self._next_pid = 5120
        self.expander = Expander(self)
        # Where `input motionevent DOWN` put the finger, until UP or CANCEL (x, y, t).
        self.touch_down: dict[str, float] = {}

    # ------------------------------------------------------------------ entry points

    def new_session(self) -> Session:
        props = getattr(self.phone, "props", {})
        env = {
            "PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:"
                    "/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
            "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system", "ANDROID_STORAGE": "/storage",
            "EXTERNAL_STORAGE": "/sdcard", "ANDROID_ASSETS": "/system/app", "HOME": "/",
            "HOSTNAME": props.get("ro.product.device", "localhost"), "LOGNAME": "shell", "USER": "shell",
            "SHELL": "/bin/sh", "TMPDIR": "/data/local/tmp",
        }
        return Session(vars=dict(env, IFS=IFS), exported=set(env), pid=self.allocate_pid())

    def allocate_pid(self) -> int:
        self._next_pid += 7
        return self._next_pid

    async def run(self, command: str, io: ProcessIO) -> int:
        """Run one command line as ``sh -c`` would; returns the exit status of the last command."""
        session = self.new_session()
        try:
            return await self.run_in(session, command, io.stdin, io.stdout, io.stderr)
        except ShellExit as exc:
            return exc.status

    async def run_in(self, session: Session, source: str, stdin: BytePipe, out: Writer, err: Writer) -> int:
        """Run a command line in an existing session (``exit`` propagates as :class:`ShellExit`)."""
        try:
            script = parse(source)
        except ShellSyntaxError as exc:
            await err(f"{SH}: {exc}\n".encode())
            session.status = 1
            return 1
        fds = _Fds(stdin, out, err)
        for item in script.items:
            if item.background:
                self._spawn(item.body, session, fds)
                session.status = 0
            else:
                session.status = await self._and_or(item.body, session, fds)
        return session.status

    async def interactive(self, io: ProcessIO, tty: bool = True) -> int:
        """``adb shell`` with no command: a prompt, one command per line, until ``exit`` or EOF.

        ``tty`` says whether the client asked for a pty (echo, prompt, ``\\r\\n``, Ctrl-C).
        """
        from relay_desktop.sim.shell.interactive import run_interactive

        return await run_interactive(self, io, tty)

    async def aclose(self) -> None:
        """Cancel background jobs (servers started with ``&``)."""
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    @property
    def background_jobs(self) -> int:
        return len(self._background)

    # ------------------------------------------------------------------ execution

    def _spawn(self, body: AndOr, session: Session, fds: _Fds) -> None:
        # An asynchronous list of a non-interactive shell reads /dev/null, like mksh arranges.
        child = session.subshell()
        child.pid = self.allocate_pid()
        session.last_background_pid = child.pid
        task = asyncio.create_task(self._background_job(body, child, replace(fds, stdin=closed_stdin())))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _background_job(self, body: AndOr, session: Session, fds: _Fds) -> int:
        try:
            return await self._and_or(body, session, fds)
        except ShellExit as exc:
            return exc.status
        except (BrokenPipeError, ConnectionError):
            return SIGPIPE_STATUS  # the adb stream that started us is gone; nobody is listening
        except Exception:
            # Nobody awaits a background job, so its failure would otherwise vanish.
            log.exception("background job failed: %s", body)
            return 1

    async def _and_or(self, node: AndOr, session: Session, fds: _Fds) -> int:
        status = await self._pipeline(node.first, session, fds)
        session.status = status
        for op, pipeline in node.rest:
            if (op == "&&") == (status == 0):
                status = await self._pipeline(pipeline, session, fds)
                session.status = status
        return status

    async def _pipeline(self, pipeline: Pipeline, session: Session, fds: _Fds) -> int:
        if len(pipeline.commands) == 1:
            status = await self._command(pipeline.commands[0], session, fds)
        else:
            status = await self._run_stages(pipeline.commands, session, fds)
        if pipeline.negate:
            status = 0 if status else 1
        return status

    async def _run_stages(self, commands: tuple[Command, ...], session: Session, fds: _Fds) -> int:
        pipes = [BytePipe() for _ in commands[1:]]

        async def stage(index: int) -> int:
            stdin = fds.stdin if index == 0 else pipes[index - 1]
            out = fds.out if index == len(commands) - 1 else pipes[index].write
            try:
                # Every stage of a multi-command pipeline is a subshell: `exit` ends only the stage.
                return await self._command(commands[index], session.subshell(), _Fds(stdin, out, fds.err))
            except ShellExit as exc:
                return exc.status
            finally:
                if index < len(pipes):
                    pipes[index].close()
                if index > 0:
                    pipes[index - 1].close()  # the reader is gone: the writer now gets EPIPE

        statuses = await asyncio.gather(*(stage(i) for i in range(len(commands))))
        return statuses[-1]

    async def _command(self, command: Command, session: Session, fds: _Fds) -> int:
        subst_status: list[int] = []
        argv: list[str] = []
        for word in command.words:
            argv += await self.expander.words(word, session, fds.err, subst_status)
        assigned = {name: await self.expander.one(value, session, fds.err, subst_status)
                    for name, value in command.assignments}
        redirected = await self._redirect(command.redirects, session, fds, subst_status)
        if redirected is None:
            return 1
        if not argv:
            session.vars.update(assigned)
            return subst_status[-1] if subst_status else 0
        func, failure = self._lookup(argv[0], session)
        if func is None:
            message, status = failure
            await redirected.err(f"{SH}: {argv[0]}: {message}\n".encode())
            return status
        ctx = CommandContext(argv=argv, env=session.environment() | assigned, phone=self.phone,
                             stdin=redirected.stdin, out=redirected.out, err=redirected.err, shell=self,
                             session=session)
        try:
            return await func(ctx)
        except BrokenPipeError:
            return SIGPIPE_STATUS

    def _lookup(self, name: str, session: Session) -> tuple[CommandFunc | None, tuple[str, int]]:
        if "/" not in name:
            func = COMMANDS.get(name)
            return func, ("inaccessible or not found", 127)
        path = normpath(posixpath.join(session.cwd, name))
        directory, base = posixpath.split(path)
        if directory in BIN_DIRS and base in COMMANDS:
            return COMMANDS[base], ("", 0)
        fs = self.phone.fs
        if fs.exists(path):
            return None, ("can't execute: " + ("Is a directory" if fs.is_dir(path) else "Permission denied"), 126)
        return None, ("inaccessible or not found", 127)

    async def _redirect(self, redirects: tuple[Redirect, ...], session: Session, fds: _Fds,
                        subst_status: list[int]) -> _Fds | None:
        result = replace(fds)
        for r in redirects:
            target = await self.expander.one(r.target, session, fds.err, subst_status)
            if r.op in (">&", "<&"):
                if target == "-":
                    source: Any = _discard if r.fd != 0 else closed_stdin()
                elif target in ("0", "1", "2"):
                    source = (result.stdin, result.out, result.err)[int(target)]
                else:
                    await fds.err(f"{SH}: {target}: illegal file descriptor name\n".encode())
                    return None
                if r.fd == 0 and isinstance(source, BytePipe):
                    result.stdin = source
                elif r.fd in (1, 2) and not isinstance(source, BytePipe):
                    setattr(result, "out" if r.fd == 1 else "err", source)
                continue
            path = normpath(posixpath.join(session.cwd, target))
            if r.op == "<":
                try:
                    pipe = BytePipe(limit=1 << 62)
                    pipe.feed(self.phone.fs.read(path))
                    pipe.close()
                except OSError as exc:
                    await fds.err(f"{SH}: can't open {target}: {os_error_text(exc)}\n".encode())
                    return None
                if r.fd == 0:
                    result.stdin = pipe
                continue
            # /dev/tty and friends are the terminal this shell was started on, not files.
            terminal = {"/dev/tty": fds.out, "/dev/stdout": fds.out, "/dev/stderr": fds.err}
            writer = terminal.get(path) or await self._open_for_write(path, target, r.op == ">>", fds.err)
            if writer is None:
                return None
            if r.fd in (1, 2):
                setattr(result, "out" if r.fd == 1 else "err", writer)
        return result

    async def _open_for_write(self, path: str, shown: str, append: bool, err: Writer) -> Writer | None:
        if path == "/dev/null":
            return _discard
        fs = self.phone.fs
        problem = write_error(path)
        if problem is None:
            try:
                if fs.is_dir(path):
                    raise IsADirectoryError(path)
                if not (append and fs.exists(path)):
                    fs.write(path, b"")
                return _FileWriter(fs, path)
            except OSError as exc:
                problem = os_error_text(exc)
        await err(f"{SH}: can't create {shown}: {problem}\n".encode())
        return None
