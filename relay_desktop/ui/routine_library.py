"""The window's saved routines: the routine store beside the run history (one database file), every call made
off the event loop, and one signal for every change so each phone's Routines tab can show the list as it is.

The store blocks (SQLite, files); each method here runs it with ``asyncio.to_thread``. Errors are the store's own
``RoutineError`` (a sentence for the user) or ``OSError``/``sqlite3.Error``, which ``problem`` turns into one.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from relay_desktop.routines.matching import RoutineMatch
from relay_desktop.routines.model import Routine, RoutineError
from relay_desktop.routines.service import find_routine
from relay_desktop.routines.store import RoutineStore, RoutineSummary, VersionSummary
from relay_desktop.routines.yaml_format import from_yaml, to_yaml
from relay_desktop.runs import RunStore

__all__ = ["RoutineLibrary", "problem"]


def problem(exc: BaseException, capital: bool = True) -> str:
    """One sentence for what went wrong with a routine (never a traceback); ``capital``: it starts a sentence."""
    if isinstance(exc, RoutineError):
        text = str(exc)
    elif isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        text = f"the file could not be used{where}: {exc.strerror or exc}"
    elif isinstance(exc, sqlite3.Error):
        text = f"the routines could not be read or written: {exc}"
    elif isinstance(exc, UnicodeDecodeError):
        text = "the file is not text (UTF-8)"
    else:
        text = f"{type(exc).__name__}: {exc}"
    text = text.strip() or "it failed without saying why"
    first = text[0].upper() if capital else text[0]
    return first + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


class RoutineLibrary(QObject):
    changed = Signal()          # a routine was saved, renamed, deleted, imported or run

    def __init__(self, runs: RunStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = RoutineStore(runs)

    async def list(self) -> list[RoutineSummary]:
        return await asyncio.to_thread(self.store.list)

    async def get(self, name: str, version: int | None = None) -> Routine:
        return await asyncio.to_thread(self.store.get, name, version)

    async def versions(self, name: str) -> list[VersionSummary]:
        return await asyncio.to_thread(self.store.versions, name)

    async def find(self, task: str) -> RoutineMatch | None:
        """The saved routine a typed task is, with the values it gives; None when it is none of them."""
        return await asyncio.to_thread(find_routine, self.store, task)

    async def save(self, routine: Routine) -> Routine:
        saved = await asyncio.to_thread(self.store.save, routine)
        self.changed.emit()
        return saved

    async def rename(self, old: str, new: str) -> str:
        name = await asyncio.to_thread(self.store.rename, old, new)
        self.changed.emit()
        return name

    async def delete(self, name: str) -> str:
        name = await asyncio.to_thread(self.store.delete, name)
        self.changed.emit()
        return name

    async def export(self, name: str, path: Path) -> Path:
        """The routine's current version written to ``path`` as YAML a person can read and edit."""
        def write() -> Path:
            path.write_text(to_yaml(self.store.get(name)), encoding="utf-8")
            return path
        return await asyncio.to_thread(write)

    async def import_file(self, path: Path) -> Routine:
        """A routine read from a YAML file and saved (a new routine, or the next version of one by its name)."""
        routine = await asyncio.to_thread(lambda: from_yaml(path.read_text(encoding="utf-8")))
        return await self.save(routine)

    def ran(self) -> None:
        """A routine's run was noted (its count and last outcome changed)."""
        self.changed.emit()
