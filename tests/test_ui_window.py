"""The window on the virtual phone: the demo's whole loop, and the controls' states. Qt offscreen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import qasync
from pytestqt.qtbot import QtBot

from relay_desktop.agent.events import ActionStarted, RunFinished
from relay_desktop.ui.app import start_demo
from relay_desktop.ui.history import PICK_A_RUN, RUN_ID
from relay_desktop.ui.main_window import MainWindow


def test_the_demo_runs_the_whole_loop_in_the_window(window: MainWindow, qt_loop: qasync.QEventLoop,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_download(**_: object) -> None:
        raise AssertionError("the virtual phone has its own scrcpy server: nothing to find or download")
    monkeypatch.setattr("relay_desktop.ui.session.provide_server", no_download)
    finished: list[RunFinished] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)
    drawn: list[int] = []         # boxes on screen as each action starts
    window.bus.subscribe(lambda e: drawn.append(len(window.mirror_view.boxes.boxes))
                         if isinstance(e, ActionStarted) else None)

    async def demo() -> str | None:
        await start_demo(window, pace=0)                          # full speed in the test
        while not finished:
            await asyncio.sleep(0.05)
        wifi = window.session.service.phone.setting("global", "wifi_on")
        await window.shutdown()
        return wifi

    wifi = qt_loop.run_until_complete(asyncio.wait_for(demo(), 60))
    assert finished[0].outcome == "success"
    assert wifi == "1"
    lines = window.log_view.lines()
    assert any(line.startswith("· Mirror running") for line in lines)
    order = [i for i, line in enumerate(lines) if line.startswith(("── step", "✔ success"))]
    assert order == sorted(order) and len(order) >= 3
    assert drawn and all(drawn), f"no element boxes under some actions: {drawn}"
    assert not window.mirror_view.boxes.boxes, "boxes outlived the run"
    assert window.mirror_view.cursor.position is not None, "the cursor never moved to a target"
    assert window.panel.stats["step"].text().endswith("/ 50")
    assert window.panel.start.isEnabled() and not window.panel.stop.isEnabled()
    assert window.mirror_view.sink.painted > 0
    assert window.status_device.text().startswith("Virtual phone (127.0.0.1:")


def test_buttons_follow_the_run_state(qtbot: QtBot) -> None:
    from relay_desktop.ui.task_panel import TaskPanel

    panel = TaskPanel()
    qtbot.addWidget(panel)
    started: list[str] = []
    panel.start_requested.connect(started.append)
    panel.task.setPlainText("Turn on Wi-Fi")
    panel.start.click()
    assert started == ["Turn on Wi-Fi"]
    for state, enabled in (("running", (False, True, False, True)), ("paused", (False, False, True, True)),
                           ("finished", (True, False, False, False))):
        panel.set_state(state)
        buttons = (panel.start, panel.pause, panel.resume, panel.stop)
        assert tuple(b.isEnabled() for b in buttons) == enabled, state
    assert all(b.accessibleName() for b in (panel.start, panel.pause, panel.resume, panel.stop, panel.task))


def test_inspect_click_selects_the_smallest_element_and_the_tree_follows(
        window: MainWindow, qtbot: QtBot, qt_loop: qasync.QEventLoop) -> None:
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QGuiApplication


    async def scenario() -> None:
        await window.session.start_virtual_phone()
        window.session.service.phone.launch("com.android.settings")
        window.tabs.setCurrentIndex(1)
        await window.refresh_elements()
        await asyncio.sleep(0.2)                                  # the tab's own refresh lands too
        element_map = window.inspector.element_map
        assert element_map is not None
        target = element_map.find("Connected devices")[0]
        point = window.mirror_view.to_widget(*target.tap)
        qtbot.mouseClick(window.mirror_view, Qt.MouseButton.LeftButton, pos=QPoint(int(point.x()), int(point.y())))
        await asyncio.sleep(0.05)
        assert window.inspector.current is not None and window.inspector.current.id == target.id
        assert window.inspector.tree.currentItem().text(0) == target.id
        attributes = window.inspector.attributes()
        assert attributes["label"].startswith("Connected devices") and attributes["id"] == target.id
        assert window.mirror_view.selected == target.bounds
        window.inspector.copy.click()
        assert f'"id": "{target.id}"' in QGuiApplication.clipboard().text()
        other = element_map.find("Display")[0]                   # the tree drives the mirror too
        row = window.inspector.tree.findItems(other.id, Qt.MatchFlag.MatchExactly, 0)[0]
        window.inspector.tree.setCurrentItem(row)
        assert window.mirror_view.selected == other.bounds
        window.inspector.hovered.emit(target)
        assert window.mirror_view.hovered == target.bounds
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_control_mode_drives_the_phone_and_taking_over_pauses_the_agent(
        window: MainWindow, qtbot: QtBot, qt_loop: qasync.QEventLoop) -> None:
    from PySide6.QtCore import QPoint, Qt

    from relay_desktop.agent.events import RunStateChanged

    states: list[str] = []
    window.bus.subscribe(lambda e: states.append(e.state) if isinstance(e, RunStateChanged) else None)

    async def scenario() -> None:
        phone_service = await window.session.start_virtual_phone()
        phone = window.session.service.phone
        assert phone_service is not None
        phone.launch("com.android.settings")
        await window.refresh_elements()
        window.tabs.setCurrentIndex(0)
        # A slow run: the agent paces itself, so the user's click lands mid-run.
        window.settings = window.settings.__class__(pace_s=2.0)
        window.panel.task.setPlainText("Turn on Bluetooth")
        window.panel.start.click()
        while "running" not in states:
            await asyncio.sleep(0.02)
        element_map = window.inspector.element_map
        assert element_map is not None
        target = element_map.find("Display")[0]
        point = window.mirror_view.to_widget(*target.tap)
        qtbot.mouseClick(window.mirror_view, Qt.MouseButton.LeftButton, pos=QPoint(int(point.x()), int(point.y())))
        for _ in range(200):
            if (phone.focused_activity() or ("", ""))[1].endswith("DisplaySettingsActivity"):
                break
            await asyncio.sleep(0.02)
        assert (phone.focused_activity() or ("", ""))[1].endswith("DisplaySettingsActivity")
        assert window.session.agent is not None and window.session.agent.control.state == "paused"
        assert "paused" in states and window.panel.resume.isEnabled()
        await window.session.agent.control.stop()
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_history_replays_a_finished_run_and_exports_it(window: MainWindow, qt_loop: qasync.QEventLoop,
                                                       tmp_path: Path) -> None:
    finished: list[RunFinished] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)

    async def scenario() -> None:
        await start_demo(window, pace=0)
        while not finished:
            await asyncio.sleep(0.05)
        await window.recorder.flush()
        window.tabs.setCurrentIndex(2)
        history = window.history
        assert history.picture.text() == PICK_A_RUN                 # a blank pane says what goes there
        await history.refresh()
        assert history.runs.count() == 1
        headers = history.runs.headerItem()
        assert [headers.text(i) for i in range(headers.columnCount())] == ["Started", "Outcome", "By", "Steps", "Phone",
                                                                          "Task"]
        run = history.runs.item(0)
        assert (run.text(1), run.text(2)) == ("success", "rules")  # who drove: the demo's rule-based planner
        await history.open(run.data(0, RUN_ID))
        assert history.steps.count() == finished[0].steps
        history.steps.setCurrentRow(1)
        assert history.picture.pixmap() is not None and not history.picture.pixmap().isNull()
        assert "launch_app Settings" in history.steps.item(0).text(2)
        assert not history.play_button.isEnabled()                  # nothing was recorded
        assert "Step 2" in history.details.toPlainText()
        out = await history.export(tmp_path / "report.html")
        assert out.read_text().count("<img") >= 3
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_start_with_an_empty_task_says_why_and_touches_nothing(window: MainWindow) -> None:
    window.panel.task.setPlainText("   \n ")
    window.panel.start.click()
    assert any(line.startswith("· Cannot start: the task is empty") for line in window.log_view.lines())
    assert window.session.agent is None and window.session.device is None
    assert window.panel.start.isEnabled() and not window.panel.stop.isEnabled()
    assert window.store.list_runs() == []
