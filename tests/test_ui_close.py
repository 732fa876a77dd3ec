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
