"""Crash reports: a deliberate crash of the command line (a subprocess), a task nobody awaited, a thread that
died — each writes a redacted report to the data folder and says where it is; no key is in the report, nor in
what the crash printed."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from relay_desktop import __version__
from relay_desktop.crash import KEEP, crash_dir, install_crash_handler, with_crash_reports, write_crash_report
from tests.test_llm_leak_scan import forms

ENV_KEY = "sk-ant-api03-CRASHcanary1111aaaa2222BBBB3333"       # in the environment, never used by a request
PLAIN_KEY = "plain-CRASHcanary-0000-key"                       # shaped like nothing: only registration masks it
HEADER = "Authorization: Bearer CRASHtoken0123456789abcdef"    # a header in a message: masked by its shape


def _no_key(*texts: str | bytes) -> None:
    data = b"\n".join(t.encode() if isinstance(t, str) else t for t in texts)
    assert [f for key in (ENV_KEY, PLAIN_KEY, HEADER.split()[-1]) for f in forms(key) if f in data] == []


def test_a_crash_of_the_command_line_writes_a_redacted_report_and_says_where(tmp_path: Path) -> None:
    script = ("import os, sys\n"
              "import relay_desktop.cli.tasks as tasks\nimport relay_desktop.cli as cli\n"
              "async def boom(args):\n"
              "    raise RuntimeError(f\"upstream said: bad key {os.environ['GEMINI_API_KEY']}; \"\n"
              f"                       f\"{HEADER}; env key {{os.environ['ANTHROPIC_API_KEY']}}\")\n"
              "tasks.run = boom\n"
              "sys.exit(cli.main(['-v', 'tasks']))\n")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "RELAY_DESKTOP_HOME": str(tmp_path),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", "ANTHROPIC_API_KEY": ENV_KEY,
           "GEMINI_API_KEY": PLAIN_KEY}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, env=env,
                            stdin=subprocess.DEVNULL, cwd=Path(__file__).parent.parent)
    stderr = result.stderr.decode()
    assert result.returncode == 1, stderr
    reports = list((tmp_path / "data" / "crashes").glob("crash-*.txt"))
    assert len(reports) == 1
    report = reports[0].read_text(encoding="utf-8")
    assert f"A crash report was written to {reports[0]}" in stderr
    assert "relay-desktop crashed: RuntimeError: upstream said: bad key [REDACTED]" in stderr
    assert "Traceback (most recent call last)" in stderr       # the redacted traceback, not Python's raw one
    assert report.startswith("Relay Desktop crash report\n")
    assert f"Version: relay-desktop {__version__}" in report and re.search(r"^Python: \w+ 3\.\d+", report, re.M)
    assert re.search(r"^Platform: \S+", report, re.M) and "Where: main thread" in report
    assert "in boom" in report and "RuntimeError: upstream said: bad key [REDACTED]; Authorization: Bearer [REDACTED]" \
        in report and "env key [REDACTED]" in report
    assert oct(reports[0].stat().st_mode & 0o777) == "0o600"
    _no_key(report, result.stdout, result.stderr)


def test_a_task_nobody_awaited_gets_a_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    monkeypatch.setenv("GEMINI_API_KEY", PLAIN_KEY)

    async def forgotten() -> None:
        async def fail() -> None:
            raise ValueError(f"the key {PLAIN_KEY} was refused")

        task = asyncio.ensure_future(fail())
        await asyncio.sleep(0.01)
        del task
        gc.collect()   # the task is gone with its exception never retrieved: the loop's handler hears of it

    asyncio.run(with_crash_reports(forgotten()))
    [report] = crash_dir().glob("crash-*.txt")
    text = report.read_text(encoding="utf-8")
    assert "Where: asyncio: Task exception was never retrieved" in text
    assert "ValueError: the key [REDACTED] was refused" in text
    err = capsys.readouterr().err
    assert "relay-desktop hit an unexpected error: ValueError" in err and str(report) in err
    _no_key(text, err)


def test_a_thread_that_dies_is_reported_through_the_window_s_announce(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    told: list[tuple[str, Path | None]] = []
    before = (sys.excepthook, threading.excepthook)
    uninstall = install_crash_handler(announce=lambda summary, path: told.append((summary, path)))
    try:
        def work() -> None:
            raise OSError(f"lost the connection using {ENV_KEY}")

        thread = threading.Thread(target=work, name="decoder")
        thread.start()
        thread.join(10)
    finally:
        uninstall()
    assert (sys.excepthook, threading.excepthook) == before
    [(summary, path)] = told
    assert summary == "OSError: lost the connection using [REDACTED]"
    assert path is not None and "Where: thread decoder" in path.read_text(encoding="utf-8")
    _no_key(summary, path.read_bytes())


def test_old_reports_are_pruned_and_an_unwritable_folder_is_said(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "crashes"
    for number in range(KEEP + 3):
        path = write_crash_report(RuntimeError(f"crash {number}"), folder=folder)
        assert path is not None
        os.utime(path, (number, number))
    kept = sorted(folder.glob("crash-*.txt"))
    assert len(kept) == KEEP
    assert not any("RuntimeError: crash 0\n" in p.read_text(encoding="utf-8") for p in kept)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert write_crash_report(RuntimeError("no room"), folder=blocked / "crashes") is None
    said = capsys.readouterr().err
    assert f"No crash report could be written to {blocked / 'crashes'} (the folder cannot be made: {blocked} is a " \
        "file, not a folder)." in said
