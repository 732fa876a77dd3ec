"""One run per phone: a run started on a phone another run is already driving is refused, naming that run,
instead of two agents tapping over each other.

Claims are keyed by serial and hold across processes: besides this process's table, a run holds an OS file
lock on ``<data dir>/locks/<serial>.lock`` holding its id and task, so the window and ``relay-desktop run``
cannot drive one phone at once either. The OS drops the lock when a process dies, even by SIGKILL, so a
crashed run never leaves a phone claimed. The orchestrator claims the phone for the whole of a run and lets
go when the run ends, whatever ends it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

from relay_desktop import paths
from relay_desktop.llm.redaction import redact

__all__ = ["Claim", "PhoneBusy", "claim_phone", "claimed"]


@dataclass(frozen=True)
class Claim:
    serial: str
    run_id: str
    task: str
    pid: int | None = None          # set when the run is in another process


class PhoneBusy(Exception):
    """The phone is being driven by another run."""

    def __init__(self, holder: Claim) -> None:
        task = holder.task if len(holder.task) <= 60 else holder.task[:59] + "…"
        where = f" in another Relay Desktop process (pid {holder.pid})" if holder.pid else ""
        super().__init__(f"{holder.serial} is busy: run {holder.run_id} (\"{task}\"){where} is driving it. Stop "
                         "that run or wait for it to finish, then start this one again.")
        self.holder = holder


_claims: dict[str, Claim] = {}


def claimed(serial: str) -> Claim | None:
    """The run driving ``serial`` now, if any."""
    return _claims.get(serial)


def _try_lock(file: IO[str]) -> bool:
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


@contextmanager
def _process_lock(claim: Claim) -> Iterator[None]:
    """The claim between processes; a lock directory that cannot be written leaves only the in-process one."""
    with contextlib.ExitStack() as stack:
        try:
            folder = paths.data_dir() / "locks"
            folder.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^A-Za-z0-9._-]", "_", claim.serial) + ".lock"
            file: IO[str] | None = stack.enter_context(open(folder / name, "a+", encoding="utf-8"))
        except OSError:
            file = None
        if file is not None:
            if not _try_lock(file):
                file.seek(0)
                other: dict[str, object] = {}
                with contextlib.suppress(ValueError):
                    other = json.loads(file.read() or "{}")
                pid = other.get("pid")
                raise PhoneBusy(Claim(claim.serial, str(other.get("run_id", "?")), str(other.get("task", "")),
                                      pid if isinstance(pid, int) else -1))
            file.seek(0)
            file.truncate()
            holder = json.dumps({"run_id": claim.run_id, "task": redact(claim.task), "pid": os.getpid()})
            # Unbuffered, so a full disk fails here and not at close: the lock still holds, only who holds it
            # goes unsaid.
            with contextlib.suppress(OSError):
                os.write(file.fileno(), holder.encode())
        yield


@contextmanager
def claim_phone(serial: str, run_id: str, task: str) -> Iterator[Claim]:
    """Hold ``serial`` for the ``with`` block; raises :class:`PhoneBusy` when another run holds it."""
    holder = _claims.get(serial)
    if holder is not None:
        raise PhoneBusy(holder)
    claim = Claim(serial, run_id, task)
    _claims[serial] = claim
    try:
        with _process_lock(claim):
            yield claim
    finally:
        if _claims.get(serial) is claim:
            del _claims[serial]
