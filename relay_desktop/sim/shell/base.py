"""What a simulated command sees (:class:`CommandContext`), the command registry, and shared helpers.

A command is ``async def cmd(ctx: CommandContext) -> int``. It writes through ``ctx.out``/``ctx.err``
(already redirected or piped by the interpreter) and returns its exit status. Commands register with
:func:`command`; the interpreter imports the command modules, which fills :data:`COMMANDS`.
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from relay_desktop.sim.streams import BytePipe

if TYPE_CHECKING:
    from relay_desktop.sim.shell.interpreter import Session, Shell

Writer = Callable[[bytes], Awaitable[None]]
CommandFunc = Callable[["CommandContext"], Awaitable[int]]

COMMANDS: dict[str, CommandFunc] = {}
"""Every command the shell can run, by name (``"ls"``, ``"input"``, ``"["``...)."""

SH = "/system/bin/sh"
BIN_DIRS = ("/system/bin", "/system/xbin", "/bin", "/vendor/bin", "/product/bin", "/system_ext/bin")


class ShellExit(Exception):
    """Raised by the ``exit`` builtin; ends the current shell (not just the command)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def command(*names: str) -> Callable[[CommandFunc], CommandFunc]:
    """Register a command under one or more names."""

    def register(func: CommandFunc) -> CommandFunc:
        for name in names:
            COMMANDS[name] = func
        return func

    return register


@dataclass
class CommandContext:
    argv: list[str]
    env: dict[str, str]
    phone: Any  # VirtualPhone or a test fake with the same surface
    stdin: BytePipe
    out: Writer
    err: Writer
    shell: Shell
    session: Session
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return posixpath.basename(self.argv[0])

    @property
    def cwd(self) -> str:
        return self.session.cwd

    @property
    def fs(self) -> Any:
        return self.phone.fs

    def path(self, name: str) -> str:
        """An absolute, normalised path for a name relative to the shell's working directory."""
        return normpath(posixpath.join(self.session.cwd, name))

    async def print(self, text: str = "", end: str = "\n") -> None:
        await self.out((text + end).encode())

    async def eprint(self, text: str, end: str = "\n") -> None:
        await self.err((text + end).encode())

    async def fail(self, text: str, status: int = 1) -> int:
        """Print ``text`` to stderr and return ``status`` (``return await ctx.fail(...)``)."""
        await self.eprint(text)
        return status

    async def read_stdin(self) -> bytes:
        return await self.stdin.read_all()

    async def stdin_lines(self) -> AsyncIterator[bytes]:
        """Lines of stdin as they arrive (with their newline, except perhaps the last)."""
        pending = b""
        while chunk := await self.stdin.read():
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line + b"\n"
        if pending:
            yield pending


def normpath(path: str) -> str:
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("/") else path


def hexid(*parts: object) -> str:
    """A stable stand-in for Java's ``System.identityHashCode`` as dumpsys prints it."""
    return format(zlib.crc32("/".join(map(str, parts)).encode()) & 0xFFFFFFF | 0x1000000, "x")


def fake_pid(package: str) -> int:
    """A stable process id for an app, in the range Android gives app processes."""
    return 2000 + zlib.crc32(package.encode()) % 28000


def full_class(package: str, activity: str) -> str:
    return package + activity if activity.startswith(".") else activity


def short_component(package: str, cls: str) -> str:
    """``ComponentName.flattenToShortString``: ``pkg/.Act`` when the class lives in the package."""
    cls = full_class(package, cls)
    if cls.startswith(package + "."):
        cls = cls[len(package):]
    return f"{package}/{cls}"


def put_setting(phone: Any, namespace: str, key: str, value: str) -> None:
    """Change a setting the way the phone's own Settings app does (so the screen follows)."""
    setter = getattr(phone, "put_setting", None)
    if setter is not None:
        setter(namespace, key, value)
    else:
        phone.settings.setdefault(namespace, {})[key] = value


def invalidate(phone: Any) -> None:
    """Tell the phone its screen may have changed, if it wants to know."""
    refresh = getattr(phone, "invalidate", None)
    if refresh is not None:
        refresh()


def to_datetime(value: float | datetime | None, tz: Any) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(tz) if value.tzinfo else value.replace(tzinfo=tz)
    return datetime.fromtimestamp(value or 0.0, tz)


# Paths the shell user (uid 2000) may write on a real phone; elsewhere it gets EROFS or EACCES.
_WRITABLE = ("/sdcard", "/storage/emulated", "/storage/self", "/data/local/tmp", "/dev/null", "/dev/tty")
_READ_ONLY = ("/system", "/vendor", "/product", "/apex", "/system_ext", "/odm")
_UNREADABLE = ("/data/data", "/data/user", "/data/app", "/data/system", "/data/misc")


def write_error(path: str) -> str | None:
    """The strerror text a write to ``path`` fails with for the shell user, or None if allowed."""
    if any(path == p or path.startswith(p + "/") for p in _WRITABLE):
        return None
    if path == "/" or any(path == p or path.startswith(p + "/") for p in _READ_ONLY):
        return "Read-only file system"
    return "Permission denied"


def read_error(path: str) -> str | None:
    if any(path == p or path.startswith(p + "/") for p in _UNREADABLE):
        return "Permission denied"
    return None


def os_error_text(exc: OSError) -> str:
    """The strerror text for the exceptions MemoryFS raises."""
    if isinstance(exc, FileNotFoundError):
        return "No such file or directory"
    if isinstance(exc, IsADirectoryError):
        return "Is a directory"
    if isinstance(exc, NotADirectoryError):
        return "Not a directory"
    if isinstance(exc, FileExistsError):
        return "File exists"
    if isinstance(exc, PermissionError):
        return "Permission denied"
    return exc.strerror or str(exc)


# Java side of ``cmd`` services: BasicShellCommandHandler prints this when a command throws.
_JAVA_FRAMES = {
    "input": ("com.android.server.input.InputShellCommand", "InputShellCommand.java",
              "com.android.server.input.InputManagerService", "android.hardware.input.IInputManager"),
    "activity": ("com.android.server.am.ActivityManagerShellCommand", "ActivityManagerShellCommand.java",
                 "com.android.server.am.ActivityManagerService", "android.app.IActivityManager"),
    "package": ("com.android.server.pm.PackageManagerShellCommand", "PackageManagerShellCommand.java",
                "com.android.server.pm.PackageManagerService", "android.content.pm.IPackageManager"),
}


def java_exception(service: str, cmd: str, exception: str, message: str,
                   methods: tuple[str, ...] = ("onCommand",)) -> str:
    """The stderr text of a ``cmd SERVICE`` whose handler threw (exit status 255).

    ``methods`` are the handler's own frames, innermost first.
    """
    cls, source, owner, stub = _JAVA_FRAMES[service]
    lines = ["", f"Exception occurred while executing '{cmd}':", f"{exception}: {message}"]
    lines += [f"\tat {method}" if "(" in method else f"\tat {cls}.{method}({source}:{371 - 41 * i})"
              for i, method in enumerate(methods)]
    lines += [
        "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)",
        "\tat android.os.ShellCommand.exec(ShellCommand.java:38)",
        f"\tat {owner}.onShellCommand({owner.rsplit('.', 1)[1]}.java:2884)",
        "\tat android.os.Binder.shellCommand(Binder.java:1107)",
        "\tat android.os.Binder.onTransact(Binder.java:921)",
        f"\tat {stub}$Stub.onTransact({stub.rsplit('.', 1)[1]}.java:1286)",
        "\tat android.os.Binder.execTransactInternal(Binder.java:1392)",
        "\tat android.os.Binder.execTransact(Binder.java:1299)",
    ]
    return "\n".join(lines) + "\n"


def apk_path(app: Any) -> str:
    """Where ``pm path`` says the app's base APK lives (stable per package, realistic shape)."""
    if getattr(app, "system", False):
        name = "".join(ch for ch in app.label if ch.isalnum()) or app.package.rsplit(".", 1)[-1]
        return f"/system/priv-app/{name}/{name}.apk"
    digest = hashlib.md5(app.package.encode()).digest()
    first = base64.urlsafe_b64encode(digest).decode()
    second = base64.urlsafe_b64encode(hashlib.md5(digest).digest()).decode()
    return f"/data/app/~~{first}/{app.package}-{second}/base.apk"
