"""Where Relay Desktop keeps its files (settings and prices in the config folder, runs in the data folder), and
what keeps a folder from taking them (read-only, a full disk, a file in its place), said in plain words.

`RELAY_DESKTOP_HOME` puts both under one folder, which is how tests and portable installs keep away from the
user's real files.
"""

from __future__ import annotations

import errno
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "relay-desktop"


def _home() -> Path | None:
    home = os.environ.get("RELAY_DESKTOP_HOME")
    return Path(home) if home else None


def config_dir() -> Path:
    home = _home()
    return home / "config" if home else platformdirs.user_config_path(APP_NAME)


def data_dir() -> Path:
    home = _home()
    return home / "data" if home else platformdirs.user_data_path(APP_NAME)



@dataclass(frozen=True)
class FolderProblem:
    """Why nothing can be saved in one of the app's folders."""
    folder: Path
    problem: str          # the end of a sentence that starts with the folder: "is read-only", "cannot be written: …"
    name: str = "data folder"

    @property
    def short(self) -> str:
        return f"the {self.name} {self.folder} {self.problem}"

    @property
    def sentence(self) -> str:
        """The one sentence the user is told: what is wrong and what will not be saved."""
        return (f"The {self.name} {self.folder} {self.problem}, so run history and routines will not be saved "
                "(what is already saved is kept and can be read).")


def write_problem(folder: Path) -> str | None:
    """Why files cannot be saved in ``folder`` (creating it if need be), as the end of a sentence that starts
    with the folder's name — "is read-only", "cannot be written: the disk is full" — or None when they can.

    A real write is tried rather than ``os.access``: a read-only mount, a full disk or a quota only show when
    bytes go down (``os.access`` says yes to root on a read-only bind mount)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=folder)
        try:
            # One byte, flushed: an empty file needs no data block, so a full disk would let it through.
            os.write(fd, b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        return error_problem(folder, exc)
    return None


def error_problem(folder: Path, exc: OSError) -> str:
    """What an error met while saving in ``folder`` means, as the end of a sentence that starts with it."""
    if exc.errno == errno.EROFS:
        return "is read-only"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "cannot be written: the disk is full"
    blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None)
    if blocker == folder:
        return "is a file, not a folder"
    if exc.errno in (errno.ENOTDIR, errno.EEXIST) or blocker is not None:
        return f"cannot be made: {blocker or exc.filename} is a file, not a folder"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"cannot be written: permission denied on {exc.filename or folder}"
    return f"cannot be written: {exc.strerror or exc}"


def data_folder_problem() -> FolderProblem | None:
    """What keeps the data folder from taking history and routines, or None when nothing does."""
    folder = data_dir()
    problem = write_problem(folder)
    return FolderProblem(folder, problem) if problem is not None else None
