"""A data folder the app cannot write to — a read-only mount, a full disk, a file where the folder should be —
and a settings file it cannot read: the app still does what it can, says once in a plain sentence what will
not be saved, shows everything it can still read, and never prints a traceback.

The read-only folders are real: a bind mount remounted read-only, and a full disk is a tiny tmpfs (both need
root, or at least mount rights; the tests that need them skip, saying so, where mounting is not permitted).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from relay_desktop.cli import main
from relay_desktop.crash import install_crash_handler
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
