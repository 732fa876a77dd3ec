"""The History tab: Play recording says so when no player opens the file (with a Show in folder alternative),
and the list of runs fills its room and names the phone each run used. Real widgets, a real SQLite store."""

from __future__ import annotations

import asyncio
import stat
import time
from pathlib import Path

import pytest
import qasync
from pytestqt.qtbot import QtBot

from relay_desktop.runs import RunStore
from relay_desktop.ui.history import RUN_ID, HistoryPanel
from tests.waiting import until


def _store_with_runs(tmp_path: Path, count: int, recording: Path | None = None) -> tuple[RunStore, str]:
    store = RunStore(tmp_path / "runs")
    run_id = ""
    for n in range(count):
        run_id = f"20260101-0000{n:02d}-abc{n:03d}"
        serial = "127.0.0.1:15555" if n % 2 else "R5CT1234ABC"
        store.begin_run(run_id, f"Task number {n}", serial, {}, time.time() - 60 * (count - n))
        store.finish_run(run_id, outcome="success", reason="done", steps=2, elapsed_s=3.0, input_tokens=0,
                         output_tokens=0, cost_usd=0.0, finished_at=time.time())
    if recording is not None:
        store.link_recording(run_id, recording)
    return store, run_id


def _opener(folder: Path, exit_code: int) -> Path:
    """An ``xdg-open`` on PATH that answers as the real one does when no application opens a file (exit 3: no
    method, 4: the action failed)."""
    folder.mkdir(exist_ok=True)
    script = folder / "xdg-open"
    script.write_text(f'#!/bin/sh\necho "$1" >> "{folder}/opened"\nexit {exit_code}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.mark.qt_log_ignore("does not support QPlatformServices")   # Qt offscreen: no desktop to open it with
@pytest.mark.parametrize("opener", ["none", "fails"])
def test_play_recording_says_so_when_no_player_opens_it_and_offers_the_folder(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        opener: str) -> None:
    video = tmp_path / "recordings" / "recording-20260101-000000.mp4"
    video.parent.mkdir()
    video.write_bytes(b"\0\0\0\x18ftypmp42")
    bin_dir = tmp_path / "bin"
    if opener == "fails":
        _opener(bin_dir, 3)
    else:
        bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))        # no xdg-open at all, or one that finds no player
    store, run_id = _store_with_runs(tmp_path, 1, video)
    panel = HistoryPanel(None, store)
    qtbot.addWidget(panel)
    panel.show()

    async def scenario() -> None:
        await panel.open(run_id)
        assert panel.play_button.isEnabled() and not panel.show_folder_button.isVisible()
        panel.play_button.click()
        await until(lambda: "No video player" in panel.status.text(), 10)
        text = panel.status.text()
        assert str(video) in text and "\n" not in text, text                 # one line, with the file's path
        assert panel.show_folder_button.isVisible()
        if opener == "fails":
            panel.show_folder_button.click()
            await until(lambda: len((bin_dir / "opened").read_text().split("\n")) > 2, 10)
            assert (bin_dir / "opened").read_text().split("\n")[1] == str(video.parent)
        await panel.open(run_id)                       # chosen again: the notice is for the last try only
        assert not panel.show_folder_button.isVisible()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))


def test_the_runs_list_fills_its_room_and_names_each_runs_phone(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path) -> None:
    """It showed four rows in a tall tab, and nothing said which phone a run used."""
    store, _ = _store_with_runs(tmp_path, 30)
    panel = HistoryPanel(None, store)
    qtbot.addWidget(panel)
    panel.resize(700, 800)
    panel.show()
    qt_loop.run_until_complete(asyncio.wait_for(panel.refresh(), 10))
    qtbot.wait(50)
    headers = [panel.runs.headerItem().text(i) for i in range(panel.runs.columnCount())]
    assert "Phone" in headers
    phone = headers.index("Phone")
    shown = {panel.runs.item(row).text(phone) for row in range(panel.runs.count())}
    assert shown == {"127.0.0.1:15555", "R5CT1234ABC"}
    # Before a run is chosen the list is what there is to look at: most of the tab, a dozen rows or more.
    row_height = panel.runs.visualItemRect(panel.runs.item(0)).height()
    rows = panel.runs.viewport().height() // row_height
    assert rows >= 12, (rows, panel.runs.height(), panel.height())
    # A run chosen: its steps and screen come in below; the list keeps a useful share.
    qt_loop.run_until_complete(asyncio.wait_for(panel.open(panel.runs.item(3).data(0, RUN_ID)), 10))
    qtbot.wait(50)
    assert panel.steps.isVisible() and panel.picture.isVisible()
    rows = panel.runs.viewport().height() // row_height
    assert rows >= 5, rows
