"""Routines on disk: two tables in the run history's SQLite database.

``routines`` has a row per routine (its name, current version, whether it asks before sensitive steps, how often
it ran); ``routine_versions`` keeps every version it had as JSON (codec.py), so a repair never loses the routine
it replaced. Names are unique regardless of case. Every text passes through the redaction filter on its way in,
as the run history's do: no key or secret the user gave reaches the disk.

The methods block (SQLite); async callers run them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, replace
from typing import Any

from relay_desktop.llm.redaction import redact
from relay_desktop.routines.codec import routine_from_dict, routine_to_dict
from relay_desktop.routines.model import Parameter, Routine, RoutineError, check_name
from relay_desktop.runs.store import RunStore

__all__ = ["RoutineNotFound", "RoutineStore", "RoutineSummary", "VersionSummary"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS routines (
    name TEXT PRIMARY KEY COLLATE NOCASE, version INTEGER NOT NULL, confirm INTEGER NOT NULL DEFAULT 1,
    created_at REAL, updated_at REAL, runs INTEGER NOT NULL DEFAULT 0, last_run_at REAL, last_outcome TEXT);
CREATE TABLE IF NOT EXISTS routine_versions (
    name TEXT NOT NULL COLLATE NOCASE, version INTEGER NOT NULL, created_at REAL, source_run TEXT, note TEXT,
    data TEXT NOT NULL, PRIMARY KEY (name, version));
"""


class RoutineNotFound(RoutineError, LookupError):
    """No routine (or no such version of it) by that name."""


@dataclass(frozen=True)
class RoutineSummary:
    name: str
    version: int
    task: str
    parameters: tuple[Parameter, ...]
    steps: int
    confirm: bool
    created_at: float
    updated_at: float
    runs: int
    last_run_at: float | None
    last_outcome: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "task": self.task,
                "parameters": [{"name": p.name, "default": p.default} for p in self.parameters],
                "steps": self.steps, "confirm": self.confirm, "created_at": self.created_at,
                "updated_at": self.updated_at, "runs": self.runs, "last_run_at": self.last_run_at,
                "last_outcome": self.last_outcome}


@dataclass(frozen=True)
class VersionSummary:
    version: int
    created_at: float
    source_run: str
    note: str
    steps: int
    current: bool

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


class RoutineStore:
    def __init__(self, runs: RunStore | None = None) -> None:
        self.runs = runs if runs is not None else RunStore()
        self._ready = False

    def __repr__(self) -> str:
        return f"RoutineStore({str(self.runs.root)!r})"

    def _db(self) -> Any:
        return self.runs.connection()

    def _prepare(self, db: sqlite3.Connection) -> None:
        if not self._ready:
            self.runs.prepare(db, _SCHEMA)    # read-only, missing tables are empty for this connection only
            self._ready = True

    def close(self) -> None:
        self.runs.close()

    # ------------------------------------------------------------ writing

    def save(self, routine: Routine) -> Routine:
        """Save as a new routine, or as the next version of the one with that name (the old versions stay, and
        a routine that asks no more before sensitive steps keeps not asking)."""
        now = time.time()
        with self._db() as db:
            self._prepare(db)
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT name, version, confirm FROM routines WHERE name = ?",
                                 (routine.name,)).fetchone()
                if row is None:
                    version, name, confirm = 1, routine.name, routine.confirm
                    db.execute("INSERT INTO routines (name, version, confirm, created_at, updated_at) "
                               "VALUES (?, ?, ?, ?, ?)", (name, version, int(confirm), now, now))
                else:
                    name = row[0]
                    top = db.execute("SELECT MAX(version) FROM routine_versions WHERE name = ?", (name,)).fetchone()
                    version = int(top[0] or row[1]) + 1
                    confirm = bool(row[2]) and routine.confirm
                    db.execute("UPDATE routines SET version = ?, confirm = ?, updated_at = ? WHERE name = ?",
                               (version, int(confirm), now, name))
                saved = replace(routine, name=name, version=version, confirm=confirm, created_at=now)
                db.execute("INSERT INTO routine_versions VALUES (?, ?, ?, ?, ?, ?)",
                           (name, version, now, saved.source_run, redact(saved.note),
                            redact(json.dumps(routine_to_dict(saved), ensure_ascii=False))))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return saved

    def rename(self, old: str, new: str) -> str:
        new = check_name(new)
        with self._db() as db:
            self._prepare(db)
            row = db.execute("SELECT name FROM routines WHERE name = ?", (old.strip(),)).fetchone()
            if row is None:
                raise RoutineNotFound(_not_found(old))
            clash = db.execute("SELECT name FROM routines WHERE name = ?", (new,)).fetchone()
            if clash is not None and clash[0].casefold() != row[0].casefold():
                raise RoutineError(f"there is already a routine called {clash[0]!r}")
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("UPDATE routines SET name = ? WHERE name = ?", (new, row[0]))
                db.execute("UPDATE routine_versions SET name = ? WHERE name = ?", (new, row[0]))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return new

    def delete(self, name: str) -> str:
        with self._db() as db:
            self._prepare(db)
            row = db.execute("SELECT name FROM routines WHERE name = ?", (name.strip(),)).fetchone()
            if row is None:
                raise RoutineNotFound(_not_found(name))
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM routine_versions WHERE name = ?", (row[0],))
                db.execute("DELETE FROM routines WHERE name = ?", (row[0],))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return str(row[0])

    def set_confirm(self, name: str, confirm: bool) -> None:
        """Whether the routine asks before send, pay, delete and install (False: "don't ask again")."""
        with self._db() as db:
            self._prepare(db)
            if db.execute("UPDATE routines SET confirm = ? WHERE name = ?", (int(confirm), name.strip())).rowcount == 0:
                raise RoutineNotFound(_not_found(name))

    def note_run(self, name: str, outcome: str) -> None:
        with self._db() as db:
            self._prepare(db)
            db.execute("UPDATE routines SET runs = runs + 1, last_run_at = ?, last_outcome = ? WHERE name = ?",
                       (time.time(), outcome, name))

    # ------------------------------------------------------------ reading

    def get(self, name: str, version: int | None = None) -> Routine:
        with self._db() as db:
            self._prepare(db)
            row = db.execute("SELECT name, version, confirm FROM routines WHERE name = ?", (name.strip(),)).fetchone()
            if row is None:
                raise RoutineNotFound(_not_found(name))
            wanted = version or row[1]
            data = db.execute("SELECT data FROM routine_versions WHERE name = ? AND version = ?",
                              (row[0], wanted)).fetchone()
        if data is None:
            raise RoutineNotFound(f"the routine {row[0]!r} has no version {wanted} (see `relay-desktop routines "
                                  f"versions {row[0]!r}`)")
        routine = routine_from_dict(json.loads(data[0]), name=row[0])
        return replace(routine, version=wanted, confirm=bool(row[2]))

    def list(self) -> list[RoutineSummary]:
        with self._db() as db:
            self._prepare(db)
            rows = db.execute(
                "SELECT r.name, r.version, r.confirm, r.created_at, r.updated_at, r.runs, r.last_run_at, "
                "r.last_outcome, v.data FROM routines r JOIN routine_versions v ON v.name = r.name AND "
                "v.version = r.version ORDER BY r.name COLLATE NOCASE").fetchall()
        out = []
        for name, version, confirm, created, updated, runs, last_run, last_outcome, data in rows:
            try:
                routine = routine_from_dict(json.loads(data), name=name)
            except (RoutineError, ValueError):   # a version this build cannot read is listed, not hidden
                out.append(RoutineSummary(name, version, "(written by a newer Relay Desktop)", (), 0, bool(confirm),
                                          created or 0.0, updated or 0.0, runs, last_run, last_outcome or ""))
                continue
            out.append(RoutineSummary(name, version, routine.task, routine.parameters, len(routine.steps),
                                      bool(confirm), created or 0.0, updated or 0.0, runs, last_run,
                                      last_outcome or ""))
        return out

    def all(self) -> list[Routine]:
        """Every routine's current version (what a typed task is matched against)."""
        out = []
        for summary in self.list():
            try:
                out.append(self.get(summary.name))
            except (RoutineError, ValueError):
                continue
        return out

    def versions(self, name: str) -> list[VersionSummary]:
        with self._db() as db:
            self._prepare(db)
            row = db.execute("SELECT name, version FROM routines WHERE name = ?", (name.strip(),)).fetchone()
            if row is None:
                raise RoutineNotFound(_not_found(name))
            rows = db.execute("SELECT version, created_at, source_run, note, data FROM routine_versions "
                              "WHERE name = ? ORDER BY version", (row[0],)).fetchall()
        out = []
        for version, created, source, note, data in rows:
            try:
                steps = len(json.loads(data).get("steps") or [])
            except ValueError:
                steps = 0
            out.append(VersionSummary(version, created or 0.0, source or "", note or "", steps, version == row[1]))
        return out


def _not_found(name: str) -> str:
    return f"no routine is called {name.strip()!r} (see `relay-desktop routines list`)"
