"""Crash reports: an exception nobody caught is written down, redacted, and the user is told where.

:func:`install_crash_handler` replaces ``sys.excepthook`` and ``threading.excepthook``; :func:`loop_exception_handler`
is for ``loop.set_exception_handler`` (a task that failed with nobody awaiting it). Each writes one plain-text
report to ``data_dir()/crashes/`` — what failed, the traceback, the app's version, Python and the platform — and
says on stderr (or through the ``announce`` callback the window passes) where it is, so it can be attached to a
bug report. Everything in a report goes through :func:`relay_desktop.llm.redaction.redact` first: a key in an
exception message, a request header in a traceback or a key pasted into a task never reaches the file, and the
raw traceback is not printed either. Only the newest :data:`KEEP` reports are kept.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import sys
import threading
import time
import traceback
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from relay_desktop import __version__
from relay_desktop.llm.redaction import redact
from relay_desktop.paths import data_dir, error_problem

__all__ = ["KEEP", "crash_dir", "install_crash_handler", "loop_exception_handler", "with_crash_reports",
           "write_crash_report"]

log = logging.getLogger(__name__)

KEEP = 20
Announce = Callable[[str, Path | None], None]   # (a short redacted summary, the report or None if unwritten)
T = TypeVar("T")

_announce: Announce | None = None


def crash_dir() -> Path:
    return data_dir() / "crashes"


def _register_environment_keys() -> None:
    """Keys that only sit in the environment are registered once a request used them; a crash may come first."""
    import keyring.backends.fail

    from relay_desktop.llm.keys import ENV_VARS, KeyStore

    store = KeyStore(backend=keyring.backends.fail.Keyring())   # the environment only: no keyring in a crash
    for provider in ENV_VARS:
        store.keys(provider)    # each ApiKey registers its secret


def _traceback_text(error: BaseException, tb: TracebackType | None) -> str:
    return redact("".join(traceback.format_exception(type(error), error, tb)))


def _report_text(error: BaseException, tb: TracebackType | None, where: str) -> str:
    header = [
        "Relay Desktop crash report",
        f"Time: {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
        f"Version: relay-desktop {__version__}",
        f"Python: {platform.python_implementation()} {platform.python_version()}",
        f"Platform: {platform.platform()}",
        f"Where: {where}",
        f"Command: {' '.join(sys.argv)}",
    ]
    return redact("\n".join(header)) + "\n\n" + _traceback_text(error, tb)


def write_crash_report(error: BaseException, tb: TracebackType | None = None, *, where: str = "main thread",
                       folder: Path | None = None) -> Path | None:
    """Write a redacted report of ``error`` and return its path (None when it could not be written, which is
    said on stderr in one sentence naming the folder it tried)."""
    written = _write_report(error, tb, where, folder)
    if isinstance(written, str):
        print(f"relay-desktop: {written}", file=sys.stderr)
        return None
    return written


def _write_report(error: BaseException, tb: TracebackType | None, where: str, folder: Path | None) -> Path | str:
    """The report's path, or the sentence that says where it could not be written and why."""
    _register_environment_keys()
    text = _report_text(error, tb if tb is not None else error.__traceback__, where)
    folder = folder or crash_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for attempt in range(100):
            path = folder / f"crash-{stamp}-{os.getpid()}{f'-{attempt}' if attempt else ''}.txt"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)   # a traceback is private
            except FileExistsError:
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            _prune(folder)
            return path
        problem = "too many reports this second"
    except OSError as exc:
        problem = f"the folder {error_problem(folder, exc)}"
    return f"No crash report could be written to {folder} ({problem})."


def _prune(folder: Path) -> None:
    reports = sorted(folder.glob("crash-*.txt"), key=lambda p: p.stat().st_mtime)
    for old in reports[:-KEEP]:
        old.unlink(missing_ok=True)


def _summary(error: BaseException) -> str:
    try:
        message = str(error)
    except Exception:
        message = ""
    return redact(f"{type(error).__name__}: {message}" if message else type(error).__name__)


def _tell(error: BaseException, written: Path | str, *, fatal: bool) -> None:
    """Say what failed and where its report is (or, in one sentence, where it could not be written)."""
    summary = _summary(error)
    path = written if isinstance(written, Path) else None
    if _announce is not None:
        try:
            _announce(summary, path)
            return
        except Exception:  # the window may be gone; the terminal still works
            pass
    what = "crashed" if fatal else "hit an unexpected error"
    where = (f"A crash report was written to {path}; please attach it when you report the problem." if path
             else str(written))
    print(f"relay-desktop {what}: {summary}\n{where}", file=sys.stderr, flush=True)


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt | SystemExit):
        sys.__excepthook__(kind, error, tb)
        return
    path = _write_report(error, tb, "main thread", None)
    if _announce is None:   # the redacted traceback, instead of Python's raw one, for whoever watches stderr
        print(_traceback_text(error, tb), file=sys.stderr, end="")
    _tell(error, path, fatal=True)


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    name = args.thread.name if args.thread is not None else "a thread"
    path = _write_report(args.exc_value, args.exc_traceback, f"thread {name}", None)
    _tell(args.exc_value, path, fatal=False)


def install_crash_handler(announce: Announce | None = None) -> Callable[[], None]:
    """Write a report for every uncaught exception, in the main thread and in other threads. ``announce`` is
    called with (a redacted one-line summary, the report's path or None) instead of printing to stderr: the
    window passes a function that shows a dialog (it may be called from any thread). Returns the function that
    puts the previous hooks back."""
    global _announce
    previous = (_announce, sys.excepthook, threading.excepthook)
    _announce = announce
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook

    def uninstall() -> None:
        global _announce
        _announce, sys.excepthook, threading.excepthook = previous

    return uninstall


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """For ``loop.set_exception_handler``: an exception nobody awaited gets a report (and a redacted log line);
    other loop complaints are logged, redacted, as asyncio would."""
    error = context.get("exception")
    message = redact(str(context.get("message", "")))
    if not isinstance(error, BaseException):
        log.error("asyncio: %s", message)
        return
    path = _write_report(error, None, f"asyncio: {message or 'a task'}", None)
    log.error("asyncio: %s: %s (report: %s)", message, _summary(error), path)
    _tell(error, path, fatal=False)


async def with_crash_reports(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` with :func:`loop_exception_handler` on the running loop (for ``asyncio.run``)."""
    asyncio.get_running_loop().set_exception_handler(loop_exception_handler)
    return await coro
