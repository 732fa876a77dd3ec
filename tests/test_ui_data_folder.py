"""The window on a data folder it cannot write to: History shows every run it can read and says why new ones
are not saved (the command line's side, and the fixtures, are in test_data_folder.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import qasync
from pytestqt.qtbot import QtBot

from relay_desktop.runs import RunStore
from relay_desktop.ui.history import HistoryPanel
from relay_desktop.ui.main_window import MainWindow
from tests.test_data_folder import _save_runs, read_only  # noqa: F401  (a fixture)


def test_history_on_a_read_only_data_folder_shows_its_runs_and_says_it_is_read_only(
        read_only: tuple[Path, Path], qtbot: QtBot, qt_loop: qasync.QEventLoop,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    source, home = read_only
    _save_runs(source, 58).close()
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(home))
    store = RunStore()
    panel = HistoryPanel(store=store)
    qtbot.addWidget(panel)
    try:
        qt_loop.run_until_complete(asyncio.wait_for(panel.refresh(), 20))
        assert panel.runs.count() == 58
        assert f"The data folder {home / 'data'} is read-only" in panel.status.text()
        assert "58 runs" in panel.status.text()
    finally:
        store.close()


@pytest.fixture
def corrupt_settings(tmp_path: Path) -> Path:
    """A settings file cut off mid-write, where the window fixture's home will look for it; its backup's path."""
    settings = tmp_path / "config" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "dark", "max_steps": ', encoding="utf-8")
    return settings.with_name("settings.json.unreadable")


def test_a_corrupt_settings_file_is_said_in_the_status_bar_and_the_log(
        corrupt_settings: Path, window: MainWindow, qtbot: QtBot) -> None:
    notice = f"Settings file was unreadable (kept as {corrupt_settings}); using defaults"
    assert corrupt_settings.exists()
    # A sentence this long is cut off in the status line itself, whole in its tooltip (status_line.py).
    qtbot.waitUntil(lambda: notice in window.statusBar().toolTip()
                    and window.statusBar().currentMessage().startswith("Settings file"), timeout=5000)
    assert sum(notice in line for line in window.pane.log_view.lines()) == 1
    assert window.settings_notice.isVisible() and notice in window.settings_notice.text()   # stays in view
