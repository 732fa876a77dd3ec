"""Closing the window with a phone connected — no run, a run going, paused or finished — shuts down cleanly: a
real close event on the app's own loop (``run_window``), exit code 0, no traceback, no crash report."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent('''
    import asyncio, sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox
    from relay_desktop.sim.tasks import TASKS_BY_ID
    from relay_desktop.ui import app, main_window
    from tests.agent_fakes import ScriptedModels
    from tests.agent_scripts import wifi_agent

    STATE = sys.argv[1]

    async def startup(self):
        for _ in range(2 if STATE == "two running" else 1):      # the second phone in a pane of its own
            assert await self.connect_device("virtual")
            TASKS_BY_ID["wifi_on"].setup(self.session.service.phone)
            if STATE == "none":
                continue
            self.models = ScriptedModels(wifi_agent)
            self.settings = self.settings.__class__(pace_s=1.0 if STATE != "finished" else 0.0)
            self.panel.task.setPlainText("Turn on Wi-Fi")
            self.panel.start.click()
            while self.session.agent is None or self.session.agent.control.state != "running":
                await asyncio.sleep(0.02)
        if STATE == "two running":
            assert len(self.panes) == 2 and all(pane.session.running for pane in self.panes)
        if STATE != "none":
            if STATE == "paused":
                self.session.agent.control.pause()
            if STATE == "finished":
                await asyncio.wait_for(self.session.run_task, 30)
        print("closing", flush=True)
        QTimer.singleShot(0, self.close)             # the user's close: a real QCloseEvent on the window
        if STATE in ("running", "paused", "two running"):     # it asks first; the user agrees to stop and quit
            box = None
            while box is None:
                await asyncio.sleep(0.02)
                box = next((w for w in QApplication.topLevelWidgets()
                            if isinstance(w, QMessageBox) and w.isVisible()), None)
            assert box.text() == "A run is going on. Stop it and quit?", box.text()
            box.button(QMessageBox.StandardButton.Yes).click()

    main_window.MainWindow.startup = startup
    sys.exit(app.run_window())
''')


@pytest.mark.parametrize("state", ["none", "running", "paused", "finished", "two running"])
def test_closing_the_window_with_a_phone_connected_exits_cleanly(tmp_path: Path, state: str) -> None:
    env = {**os.environ, "RELAY_DESKTOP_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen",
           "RELAY_SCRCPY_SERVER_URL": "http://127.0.0.1:9/none", "PYTHONPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", SCRIPT, state], env=env, capture_output=True, text=True,
                          timeout=90, cwd=tmp_path)
    output = done.stdout + done.stderr
    assert "closing" in done.stdout, output
    assert done.returncode == 0, output
    for trouble in ("Traceback", "Event loop stopped", "Task was destroyed", "RuntimeError", "Something went wrong"):
        assert trouble not in output, output
    crashes = [p for p in tmp_path.rglob("*") if "crash" in p.name.lower() and p.is_file()]
    assert not crashes, crashes


def test_shutting_down_ends_a_screen_read_in_flight(window, qt_loop) -> None:  # type: ignore[no-untyped-def]
    """Inspect was reading the screen when the window closed: the read went on against a phone already let go
    (waiting for it to come back), outliving the window."""
    import asyncio
    import time

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        device = window.session.device
        slow = asyncio.Event()

        async def stuck_dump(*args: object, **kwargs: object) -> str:
            slow.set()
            await asyncio.sleep(30)
            return ""
        device.dump_hierarchy = stuck_dump
        window.tabs.setCurrentIndex(1)                     # Inspect reads the screen
        await asyncio.wait_for(slow.wait(), 5)
        started = time.monotonic()
        await asyncio.wait_for(window.shutdown(), 10)
        assert time.monotonic() - started < 5
        assert not [t for t in window.pane._tasks | window._tasks if not t.done()], window.pane._tasks

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 30))


def test_closing_the_window_during_a_run_asks_first_as_closing_a_tab_does(window, qt_loop) -> None:  # type: ignore[no-untyped-def]
    """Alt+F4 during a run closed the window at once, though closing the tab asks: a real close event asks
    "Stop it and quit?"; No keeps the window, the run and the phone; Yes stops the run and closes."""
    import asyncio

    from PySide6.QtWidgets import QApplication, QMessageBox

    from relay_desktop.agent.events import RunFinished
    from relay_desktop.sim.tasks import TASKS_BY_ID
    from tests.agent_fakes import ScriptedModels
    from tests.agent_scripts import wifi_agent
    from tests.waiting import until

    def open_boxes() -> list[QMessageBox]:
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]

    app = QApplication.instance()
    app.setQuitOnLastWindowClosed(False)      # as the app's own loop (``run_window``): the loop ends after shutdown
    closing: list[bool] = []
    window.closing.connect(lambda: closing.append(True))
    finished: list[RunFinished] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        TASKS_BY_ID["wifi_on"].setup(window.session.service.phone)
        window.models = ScriptedModels(wifi_agent)
        window.settings = window.settings.__class__(pace_s=2.0)     # slow enough to be going on throughout
        window.panel.task.setPlainText("Turn on Wi-Fi")
        window.panel.start.click()
        await until(lambda: window.session.running, 20)
        assert window.close() is False                 # a real QCloseEvent, ignored while the user is asked
        await until(lambda: bool(open_boxes()), 10)
        window.close()                                 # Alt+F4 pressed twice: still one question
        await asyncio.sleep(0.2)
        boxes = open_boxes()
        assert len(boxes) == 1 and boxes[0].text() == "A run is going on. Stop it and quit?"
        boxes[0].button(QMessageBox.StandardButton.No).click()       # changed their mind: nothing happens
        await asyncio.sleep(0.3)
        assert window.isVisible() and not closing and window.session.running and not finished
        window.close()
        await until(lambda: bool(open_boxes()), 10)
        open_boxes()[0].button(QMessageBox.StandardButton.Yes).click()
        await until(lambda: bool(closing), 10)
        assert not window.isVisible()
        await window.shutdown()                         # what the app's loop does once the window closed
        assert finished and finished[0].outcome == "stopped"
        assert not window.session.running

    try:
        qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    finally:
        app.setQuitOnLastWindowClosed(True)
