"""Run history on disk: one SQLite database, with each step's screenshot as a JPEG file beside it.

``runs.sqlite3`` holds a row per run (task, settings, outcome, totals) and a row per step (element map,
prompt, response, plan, actions, verifications, timings); the screenshots are ``<run id>/step-<n>.jpg``.
Each step is its own transaction, written when the step ends, so a crash or a kill loses at most the step in
progress. WAL mode lets the window read history while a run writes it. Every text passes through the
redaction filter on its way in: no API key reaches the disk, whatever a prompt or a log line held.

The methods are blocking (SQLite and files); async callers use the ``a``-prefixed twins, which run them in a
thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relay_desktop.agent.loop.observation import PRIVATE_APP, PROTECTED
from relay_desktop.llm.redaction import redact
from relay_desktop.paths import FolderProblem, data_dir, write_problem

__all__ = ["SCHEMA_VERSION", "RunNotFound", "RunRecord", "RunStore", "RunSummary", "StepRecord", "withheld_text"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3      # 2: steps.withheld; 3: runs.answer

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, task TEXT NOT NULL, serial TEXT, settings TEXT, started_at REAL NOT NULL,
    finished_at REAL, outcome TEXT, reason TEXT, steps INTEGER DEFAULT 0, elapsed_s REAL DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cost_usd REAL DEFAULT 0, answer TEXT);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL, started_at REAL,
    ended_at REAL, screenshot TEXT, screen_size TEXT, app TEXT, layout_hash TEXT, element_map TEXT, prompt TEXT,
    response TEXT, thinking TEXT, plan TEXT, source TEXT, model TEXT, latency_ms REAL, input_tokens INTEGER,
    output_tokens INTEGER, cost_usd REAL, guidance TEXT, actions TEXT, verifications TEXT, withheld TEXT,
    PRIMARY KEY (run_id, step));
CREATE TABLE IF NOT EXISTS log (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, time REAL, step INTEGER, level TEXT,
    message TEXT);
CREATE INDEX IF NOT EXISTS log_run ON log(run_id);
"""


def withheld_text(withheld: str) -> str:
    """What a step without a picture says instead, in the history and its exports."""
    if withheld == PROTECTED:
        return "Protected screen: the app forbids screenshots, so no picture was kept or sent (elements only)."
    if withheld == PRIVATE_APP:
        return "Private app (Settings): no picture was kept or sent; the agent worked from the elements."
    return "(no screenshot for this step)"


class RunNotFound(LookupError):
    """No run has that id (or the prefix matches none, or several)."""


@dataclass(frozen=True)
class RunSummary:
    id: str
    task: str
    serial: str
    started_at: float
    finished_at: float | None
    outcome: str               # success, failed, stopped, max_steps, error — or "interrupted" (never finished)
    reason: str
    steps: int
    elapsed_s: float
    input_tokens: int
    output_tokens: int
    cost_usd: float
    # Who planned the steps: "model", "rule-based planner", "model, then the rule-based planner from step N",
    # "routine" (a replay), "routine, then the model from step N", or "" when no step was planned. Read from the
    # steps themselves, so older histories say it too.
    driver: str = ""
    answer: str = ""           # the value a question task asked for (complete's answer), "" when none

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class StepRecord:
    step: int
    started_at: float = 0.0
    ended_at: float = 0.0
    screenshot: str | None = None          # file name relative to the store's folder
    screen_size: tuple[int, int, int, int] | None = None   # sent width, height, device width, height
    app: str = ""
    layout_hash: str = ""
    element_map: dict[str, Any] | None = None
    prompt: str = ""
    response: str = ""
    thinking: str = ""
    plan: dict[str, Any] | None = None
    source: str = ""
    model: str = ""
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    guidance: str = ""
    actions: list[dict[str, Any]] = field(default_factory=list)
    verifications: list[dict[str, Any]] = field(default_factory=list)
    withheld: str = ""                     # why no picture was kept: "protected" (FLAG_SECURE), "private app"


@dataclass(frozen=True)
class RunRecord:
    summary: RunSummary
    settings: dict[str, Any]
    steps: list[StepRecord]
    log: list[dict[str, Any]]


def _json(value: Any) -> str | None:
    return None if value is None else redact(json.dumps(value, ensure_ascii=False, default=str))


class RunStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else data_dir() / "runs"
        self.path = self.root / "runs.sqlite3"
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.read_only = False      # opened for reading only: the folder or its disk takes no writes

    def __repr__(self) -> str:
        return f"RunStore({str(self.root)!r})"

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            try:
                self._db = self._open_writable()
            except (OSError, sqlite3.OperationalError) as exc:
                # A read-only folder or a full disk: what is saved can still be read, and nothing is migrated.
                log.info("run history opened read-only (%s): %s", self.path, exc)
                self._db = self._open_read_only()
        return self._db

    def _open_writable(self) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            self._check_version(db)
            db.executescript(_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(steps)")}
            if "withheld" not in columns:      # a history written before format 2
                db.execute("ALTER TABLE steps ADD COLUMN withheld TEXT")
            if "answer" not in {row[1] for row in db.execute("PRAGMA table_info(runs)")}:   # before format 3
                db.execute("ALTER TABLE runs ADD COLUMN answer TEXT")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            db.close()
            raise
        self.read_only = False
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        """The history as it is on disk, for reading: ``mode=ro``, or ``immutable=1`` when not even the -wal and
        -shm files beside it can be made (a read-only mount); an empty history when there is no file."""
        self.read_only = True
        if not self.path.is_file():
            db = sqlite3.connect("file::memory:?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
        else:
            for query in ("mode=ro", "mode=ro&immutable=1"):
                db = sqlite3.connect(f"{self.path.as_uri()}?{query}", uri=True, check_same_thread=False,
                                     isolation_level=None, timeout=10)
                try:
                    self._check_version(db)
                    db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                    break
                except sqlite3.OperationalError:
                    db.close()
                    if query.endswith("immutable=1"):
                        raise
                except BaseException:
                    db.close()
                    raise
        self.prepare(db, _SCHEMA)
        return db

    def _check_version(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"{self.path} was written by a newer Relay Desktop "
                                        f"(history format {version}, this one reads {SCHEMA_VERSION})")

    def prepare(self, db: sqlite3.Connection, schema: str) -> None:
        """Make the tables of ``schema`` (``CREATE TABLE IF NOT EXISTS`` statements; other modules keep tables
        in this database too). Read-only, a table the file lacks is made empty for this connection only (a TEMP
        table), so reading it finds nothing instead of failing; indexes are left out."""
        if not self.read_only:
            db.executescript(schema)
            return
        existing = {row[0] for row in db.execute("SELECT name FROM main.sqlite_master WHERE type = 'table'")}
        for statement in schema.split(";"):
            made = re.match(r"\s*CREATE TABLE IF NOT EXISTS (\w+)\s*\((.*)\)\s*$", statement, re.S)
            if made is None:
                continue
            table = made[1]
            if table not in existing:
                db.execute(statement.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
                continue
            # An older history (a column added since) cannot be migrated here: a TEMP view of the same name,
            # which unqualified names find first, reads it with the missing columns empty.
            have = {row[1] for row in db.execute(f"PRAGMA main.table_info({table})")}
            wanted = [column.split()[0] for column in re.split(r",\s*(?![^()]*\))", made[2]) if column.strip()]
            missing = [c for c in wanted if c not in have and c.upper() not in ("PRIMARY", "FOREIGN", "UNIQUE")]
            if missing:
                extra = ", ".join(f"NULL AS {c}" for c in missing)
                db.execute(f"CREATE TEMP VIEW IF NOT EXISTS {table} AS SELECT *, {extra} FROM main.{table}")

    def write_problem(self) -> FolderProblem | None:
        """What keeps runs from being saved here (read-only, disk full, …), or None (blocking: a real write)."""
        if self.root == data_dir() / "runs":     # said of the data folder, which the user knows of
            problem = write_problem(self.root.parent)
            return FolderProblem(self.root.parent, problem) if problem is not None else self._folder_problem()
        return self._folder_problem()

    def _folder_problem(self) -> FolderProblem | None:
        problem = write_problem(self.root)
        return FolderProblem(self.root, problem, "history folder") if problem is not None else None

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The database for one piece of work, held against every other thread's (other modules keep tables of
        their own in it: routines)."""
        with self._lock:
            yield self._connect()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # ------------------------------------------------------------ writing

    def begin_run(self, run_id: str, task: str, serial: str, settings: dict[str, Any], started_at: float) -> None:
        with self._lock:
            self._connect().execute(
                "INSERT OR REPLACE INTO runs (id, task, serial, settings, started_at) VALUES (?, ?, ?, ?, ?)",
                (run_id, redact(task), serial, _json(settings), started_at))

    def save_step(self, run_id: str, record: StepRecord, jpeg: bytes | None = None) -> None:
        """One step, screenshot file first: a step row never points at a missing file."""
        if jpeg is not None:
            folder = self.root / run_id
            folder.mkdir(parents=True, exist_ok=True)
            name = f"step-{record.step:03d}.jpg"
            (folder / name).write_bytes(jpeg)
            record.screenshot = f"{run_id}/{name}"
        r = record
        with self._lock:
            db = self._connect()
            db.execute("BEGIN")
            try:
                self._insert_step(db, run_id, r)
                db.execute("UPDATE runs SET steps = max(steps, ?) WHERE id = ?", (r.step, run_id))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    @staticmethod
    def _insert_step(db: sqlite3.Connection, run_id: str, r: StepRecord) -> None:
        db.execute(
            f"INSERT OR REPLACE INTO steps VALUES ({', '.join('?' * 23)})",
            (run_id, r.step, r.started_at, r.ended_at, r.screenshot, _json(r.screen_size), r.app, r.layout_hash,
             _json(r.element_map), redact(r.prompt), redact(r.response), redact(r.thinking), _json(r.plan),
             r.source, r.model, r.latency_ms, r.input_tokens, r.output_tokens, r.cost_usd, redact(r.guidance),
             _json(r.actions), _json(r.verifications), r.withheld))

    def add_log(self, run_id: str, time: float, step: int | None, level: str, message: str) -> None:
        with self._lock:
            self._connect().execute("INSERT INTO log VALUES (?, ?, ?, ?, ?)",
                                    (run_id, time, step, level, redact(message)))

    def finish_run(self, run_id: str, *, outcome: str, reason: str, steps: int, elapsed_s: float,
                   input_tokens: int, output_tokens: int, cost_usd: float, finished_at: float,
                   answer: str = "") -> None:
        with self._lock:
            self._connect().execute(
                "UPDATE runs SET outcome=?, reason=?, steps=?, elapsed_s=?, input_tokens=?, output_tokens=?, "
                "cost_usd=?, finished_at=?, answer=? WHERE id=?",
                (outcome, redact(reason), steps, elapsed_s, input_tokens, output_tokens, cost_usd, finished_at,
                 redact(answer), run_id))

    # ------------------------------------------------------------ reading

    def list_runs(self, limit: int = 50, offset: int = 0) -> list[RunSummary]:
        with self._lock:
            rows = self._connect().execute(
                "SELECT id, task, serial, started_at, finished_at, outcome, reason, steps, elapsed_s, input_tokens, "
                f"output_tokens, cost_usd, {_DRIVER_COLUMNS}, answer FROM runs "
                "ORDER BY started_at DESC LIMIT ? OFFSET ?",
                (limit, offset)).fetchall()
        return [_summary(row) for row in rows]

    def resolve(self, prefix: str) -> str:
        """The full id of the one run whose id starts with ``prefix`` (like a short git hash)."""
        prefix = prefix.strip()
        with self._lock:
            ids = [r[0] for r in self._connect().execute(
                "SELECT id FROM runs WHERE substr(id, 1, ?) = ? ORDER BY started_at DESC LIMIT 6",
                (len(prefix), prefix)).fetchall()] if prefix else []
        if not ids:
            raise RunNotFound(f"no run has an id starting with {prefix!r} (see `relay-desktop runs list`)")
        if len(ids) > 1 and prefix not in ids:
            raise RunNotFound(f"{prefix!r} matches several runs: {', '.join(ids[:5])}; give more of the id")
        return prefix if prefix in ids else ids[0]

    def get_run(self, run_id: str) -> RunRecord:
        run_id = self.resolve(run_id)
        with self._lock:
            db = self._connect()
            row = db.execute("SELECT id, task, serial, started_at, finished_at, outcome, reason, steps, elapsed_s, "
                             f"input_tokens, output_tokens, cost_usd, {_DRIVER_COLUMNS}, answer, settings FROM runs "
                             "WHERE id=?", (run_id,)).fetchone()
            steps = db.execute("SELECT * FROM steps WHERE run_id=? ORDER BY step", (run_id,)).fetchall()
            log = db.execute("SELECT time, step, level, message FROM log WHERE run_id=? ORDER BY rowid",
                             (run_id,)).fetchall()
        return RunRecord(_summary(row[:_SUMMARY_COLUMNS]), json.loads(row[_SUMMARY_COLUMNS] or "{}"),
                         [_step(s) for s in steps],
                         [{"time": t, "step": s, "level": lv, "message": m} for t, s, lv, m in log])

    def link_recording(self, run_id: str, path: Path) -> None:
        """The screen recording made during this run (a video file, kept where the user saved it)."""
        with self._lock:
            db = self._connect()
            row = db.execute("SELECT settings FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None:
                raise RunNotFound(f"no run has the id {run_id!r}")
            settings = json.loads(row[0] or "{}")
            settings["recording"] = str(path.resolve())
            db.execute("UPDATE runs SET settings=? WHERE id=?", (_json(settings), run_id))

    async def alink_recording(self, run_id: str, path: Path) -> None:
        await asyncio.to_thread(self.link_recording, run_id, path)

    def screenshot_path(self, record: StepRecord) -> Path | None:
        return self.root / record.screenshot if record.screenshot else None

    def delete_run(self, run_id: str) -> None:
        run_id = self.resolve(run_id)
        with self._lock:
            self._connect().execute("DELETE FROM runs WHERE id=?", (run_id,))
        shutil.rmtree(self.root / run_id, ignore_errors=True)

    # ------------------------------------------------------------ async twins

    async def alist_runs(self, limit: int = 50, offset: int = 0) -> list[RunSummary]:
        return await asyncio.to_thread(self.list_runs, limit, offset)

    async def aget_run(self, run_id: str) -> RunRecord:
        return await asyncio.to_thread(self.get_run, run_id)

    async def adelete_run(self, run_id: str) -> None:
        await asyncio.to_thread(self.delete_run, run_id)

    async def awrite_problem(self) -> FolderProblem | None:
        return await asyncio.to_thread(self.write_problem)


_DRIVER_COLUMNS = ("(SELECT COUNT(*) FROM steps s WHERE s.run_id = runs.id AND s.source = 'model'), "
                   "(SELECT MIN(step) FROM steps s WHERE s.run_id = runs.id AND s.source = 'fallback'), "
                   "(SELECT COUNT(*) FROM steps s WHERE s.run_id = runs.id AND s.source = 'routine'), "
                   "(SELECT MIN(step) FROM steps s WHERE s.run_id = runs.id AND s.source = 'model')")
_SUMMARY_COLUMNS = 17


def _driver(model_steps: int, fallback_from: int | None, routine_steps: int = 0, model_from: int | None = None) -> str:
    """Who planned the steps: the model, the rule-based planner, a replayed routine, or one after another."""
    if routine_steps:
        if model_steps and model_from is not None:
            return f"routine, then the model from step {model_from}"
        if fallback_from is not None:
            return f"routine, then the rule-based planner from step {fallback_from}"
        return "routine"
    if fallback_from is None:
        return "model" if model_steps else ""
    if not model_steps:
        return "rule-based planner"
    return f"model, then the rule-based planner from step {fallback_from}"


def _summary(row: tuple[Any, ...]) -> RunSummary:
    (rid, task, serial, started, finished, outcome, reason, steps, elapsed, tin, tout, cost, models, rules,
     replayed, model_from, answer) = row
    return RunSummary(rid, task, serial or "", started, finished, outcome or "interrupted",
                      reason or ("the app stopped before the run finished" if outcome is None else ""),
                      steps or 0, elapsed or 0.0, tin or 0, tout or 0, cost or 0.0,
                      _driver(models or 0, rules, replayed or 0, model_from), answer or "")


def _step(row: tuple[Any, ...]) -> StepRecord:
    (_, step, started, ended, shot, size, app, layout, element_map, prompt, response, thinking, plan, source, model,
     latency, tin, tout, cost, guidance, actions, verifications, withheld) = row
    return StepRecord(step, started or 0.0, ended or 0.0, shot, tuple(json.loads(size)) if size else None,
                      app or "", layout or "", json.loads(element_map) if element_map else None, prompt or "",
                      response or "", thinking or "", json.loads(plan) if plan else None, source or "", model or "",
                      latency or 0.0, tin or 0, tout or 0, cost or 0.0, guidance or "",
                      json.loads(actions) if actions else [], json.loads(verifications) if verifications else [],
                      withheld or "")
