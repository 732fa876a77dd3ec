"""A data folder the app cannot write to — a read-only mount, a full disk, a file where the folder should be —
and a settings file it cannot read: the app still does what it can, says once in a plain sentence what will
not be saved, shows everything it can still read, and never prints a traceback.

The read-only folders are real: a bind mount remounted read-only, and a full disk is a tiny tmpfs (both need
root, or at least mount rights; the tests that need them skip, saying so, where mounting is not permitted).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from relay_desktop.cli import main
from relay_desktop.crash import install_crash_handler
from relay_desktop.runs import RunStore
from tests.conftest import AdbTestServer


def _mount(*args: str) -> None:
    result = subprocess.run(["mount", *args], capture_output=True, timeout=20)
    if result.returncode != 0:
        pytest.skip(f"mounting is not permitted here ({result.stderr.decode().strip() or result.returncode}): "
                    "a real read-only folder or full disk needs `mount`")


def _umount(path: Path) -> None:
    subprocess.run(["umount", str(path)], capture_output=True, timeout=20)


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(a folder to fill first, the same folder read-only): write through the first, point the app at the
    second."""
    source, target = tmp_path / "source", tmp_path / "read-only"
    source.mkdir()
    target.mkdir()
    _mount("--bind", str(source), str(target))
    try:
        _mount("-o", "remount,ro,bind", str(target))
        yield source, target
    finally:
        _umount(target)


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, adb_server: AdbTestServer) -> None:
    """No keys (the rule-based planner drives), the private adb server from the fixture."""
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("relay_desktop.llm.keys.KeyStore.keys", lambda self, provider: [])


def test_a_run_on_the_virtual_phone_with_a_read_only_data_folder_works_and_says_what_is_not_saved(
        read_only: tuple[Path, Path], cli_env: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, home = read_only
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(home))
    code = main(["run", "--sim", "--fallback", "Turn on Wi-Fi"])
    out, err = capsys.readouterr()
    both = out + err
    assert code == 0, both
    assert "Traceback" not in both and "crash" not in both.lower()
    sentence = f"The data folder {home / 'data'} is read-only, so run history and routines will not be saved"
    assert both.count(sentence) == 1, both
    assert "Virtual phone check: passed" in out
    assert "History not saved" in out and "Saved as run" not in out
    assert "OperationalError" not in both and "Errno" not in both       # the plain sentence, not the exception


def test_a_crash_report_that_cannot_be_written_says_where_it_tried_in_one_sentence(
        read_only: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, home = read_only
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(home))
    uninstall = install_crash_handler()
    try:
        try:
            raise RuntimeError("something broke")
        except RuntimeError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
    finally:
        uninstall()
    err = capsys.readouterr().err
    assert f"No crash report could be written to {home / 'data' / 'crashes'} (the folder is read-only)." in err
    assert "please attach it" not in err and err.count("crash report") == 1, err


def _save_runs(home: Path, count: int) -> RunStore:
    """``count`` finished runs in ``home``'s history; the store is returned open (its -wal and -shm exist)."""
    store = RunStore(home / "data" / "runs")
    for number in range(count):
        run_id = f"20260101-0000{number:02d}-abcdef"
        store.begin_run(run_id, f"Task number {number}", "emulator-5554", {}, 1_700_000_000.0 + number)
        store.finish_run(run_id, outcome="success", reason="done", steps=3, elapsed_s=1.0, input_tokens=0,
                         output_tokens=0, cost_usd=0.0, finished_at=1_700_000_001.0 + number)
    return store


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


@pytest.mark.parametrize("writer_open", [False, True], ids=["closed-cleanly", "wal-still-open"])
def test_runs_list_on_a_read_only_folder_shows_every_run_it_can_read(
        read_only: tuple[Path, Path], writer_open: bool, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    source, home = read_only
    writer = _save_runs(source, 58)
    if not writer_open:
        writer.close()         # the last connection folds the -wal in and removes it: only immutable=1 opens it
    before = _files(source)
    try:
        monkeypatch.setenv("RELAY_DESKTOP_HOME", str(home))
        assert main(["runs", "list", "--json", "--limit", "100"]) == 0
        listed = json.loads(capsys.readouterr().out)
        assert len(listed) == 58 and listed[0]["task"] == "Task number 57"
        assert main(["runs", "show", "20260101-000003"]) == 0
        assert "Task number 3" in capsys.readouterr().out
    finally:
        writer.close()
    if not writer_open:
        assert _files(source) == before          # nothing migrated, nothing written


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A tiny disk of its own (tmpfs), for the test to fill."""
    disk = tmp_path / "disk"
    disk.mkdir()
    _mount("-t", "tmpfs", "-o", "size=256k", "tmpfs", str(disk))
    try:
        yield disk
    finally:
        _umount(disk)


def _fill(disk: Path) -> None:
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)


def test_a_full_disk_says_so_plainly_and_loses_nothing_already_saved(
        full_disk: Path, cli_env: None, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _save_runs(full_disk, 3).close()
    _fill(full_disk)
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(full_disk))
    assert main(["runs", "list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3
    code = main(["run", "--sim", "--fallback", "--no-routines", "Turn on Wi-Fi"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    sentence = (f"The data folder {full_disk / 'data'} cannot be written: the disk is full, so run history and "
                "routines will not be saved")
    assert (out + err).count(sentence) == 1, out + err
    assert "Traceback" not in out + err and "Saved as run" not in out
    assert main(["runs", "list", "--json"]) == 0
    assert [r["task"] for r in json.loads(capsys.readouterr().out)] == [f"Task number {n}" for n in (2, 1, 0)]


def test_a_corrupt_settings_file_is_kept_aside_and_said_once_on_the_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    settings = tmp_path / "config" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark", "max_steps": ', encoding="utf-8")     # cut off mid-write
    assert main(["tasks"]) == 0
    err = capsys.readouterr().err
    backup = tmp_path / "config" / "settings.json.unreadable"
    assert backup.read_text(encoding="utf-8").startswith('{"theme": "dark"')       # nothing lost
    assert err.count(f"Settings file was unreadable (kept as {backup}); using defaults") == 1, err
    assert len(err.strip().splitlines()) == 1, err
    assert main(["tasks"]) == 0
    assert "Settings file" not in capsys.readouterr().err                           # once, not every time


def test_a_data_folder_that_is_a_file_is_one_sentence_and_the_run_goes_on(
        tmp_path: Path, cli_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "data").write_text("not a folder")
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    code = main(["run", "--sim", "--fallback", "Turn on Wi-Fi"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    sentence = f"The data folder {tmp_path / 'data'} is a file, not a folder, so run history and routines will not be"
    assert (out + err).count(sentence) == 1, out + err
    assert "Traceback" not in out + err and "Errno" not in out + err and "Saved as run" not in out
    assert main(["runs", "list"]) == 0                          # nothing to list, and no error either
    assert "Traceback" not in capsys.readouterr().err


def test_an_older_history_on_a_read_only_folder_is_shown_too(
        read_only: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A history written before format 3 (no answer column; before 2, no steps.withheld) cannot be migrated on
    a read-only folder: it is read as it is, the missing columns empty."""
    import sqlite3

    source, home = read_only
    writer = _save_runs(source, 3)
    writer.close()
    db = sqlite3.connect(source / "data" / "runs" / "runs.sqlite3")
    db.execute("ALTER TABLE runs DROP COLUMN answer")
    db.execute("ALTER TABLE steps DROP COLUMN withheld")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(home))
    assert main(["runs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["task"] for r in listed] == ["Task number 2", "Task number 1", "Task number 0"]
    assert main(["runs", "show", "20260101-000001"]) == 0
    assert "Task number 1" in capsys.readouterr().out
