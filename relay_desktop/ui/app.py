"""Starting the window on a qasync event loop (asyncio on Qt's loop), with or without the demo."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable
from pathlib import Path

import qasync
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from relay_desktop.crash import install_crash_handler, loop_exception_handler
from relay_desktop.resources import app_icon_path
from relay_desktop.ui.main_window import MainWindow

__all__ = ["DEMO_TASK", "freeze_startup_objects", "report_crashes_in", "run_window", "start_demo"]

DEMO_TASK = "Turn on Wi-Fi"


async def start_demo(window: MainWindow, pace: float = 1.0) -> None:
    """The virtual phone, its mirror, and a sample task run by the rule-based planner — no phone, no key."""
    from relay_desktop.sim.tasks import TASKS_BY_ID
    from relay_desktop.ui.device_picker import VIRTUAL

    if not await window.connect_device(VIRTUAL):
        return
    TASKS_BY_ID["wifi_on"].setup(window.session.service.phone)
    window.panel.task.setPlainText(DEMO_TASK)
    await window.choose_models()          # the key notice, and the user's models for the tasks after the demo
    own_models, window.models = window.models, None
    own_settings, window.settings = window.settings, window.app_settings.agent_settings(pace_s=0.9 * pace)
    window.panel.start.click()            # the demo: the rule-based planner (never a paid model), slow enough
    window.models, window.settings = own_models, own_settings     # to follow the cursor


def freeze_startup_objects() -> None:
    """Keep what start-up built (Qt bindings, the SDKs, the window) out of later full garbage collections.

    A full collection walks every tracked object; with the SDKs and Qt loaded that took ~35 ms on the GUI
    thread — the window's longest stall (benchmarks/window_stall.py). Frozen objects are not walked again.
    """
    gc.collect()
    gc.freeze()


def report_crashes_in(window: MainWindow, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """A crash anywhere (any thread, a task nobody awaited) is written up, redacted, and said in the window's log
    and status bar; returns the function that undoes it."""
    def announce(summary: str, path: Path | None) -> None:
        text = f"Something went wrong: {summary}" + (f" (report: {path})" if path else "")
        loop.call_soon_threadsafe(window.say, text)       # from any thread, onto the GUI thread
    uninstall = install_crash_handler(announce=announce)
    loop.set_exception_handler(loop_exception_handler)
    return uninstall


def run_window(demo: bool = False) -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Relay Desktop")
    app.setDesktopFileName("relay-desktop")       # Wayland and GNOME match the window to its .desktop entry
    icon = app_icon_path()
    if icon is not None:
        app.setWindowIcon(QIcon(str(icon)))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    # The app ends when ``main`` has shut down, not when the last window closes: Qt quitting on its own stopped
    # the loop while the run and the mirror were still being closed ("Event loop stopped before Future
    # completed").
    app.setQuitOnLastWindowClosed(False)
    window = MainWindow()
    window.show()
    freeze_startup_objects()
    uninstall = report_crashes_in(window, loop)
    closed = asyncio.Event()
    window.closing.connect(closed.set)

    async def main() -> None:
        starting = asyncio.ensure_future(start_demo(window) if demo else window.startup())
        starting.add_done_callback(lambda task: task.cancelled() or task.exception() is None or
                                   loop.call_exception_handler({"message": "Starting failed",
                                                                "exception": task.exception(), "task": task}))
        await asyncio.wait({starting, asyncio.ensure_future(closed.wait())}, return_when=asyncio.FIRST_COMPLETED)
        await closed.wait()
        if not starting.done():          # closed while still connecting: connecting stops here
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
        await window.shutdown()
        leftover = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        for task in leftover:
            task.cancel()
        await asyncio.gather(*leftover, return_exceptions=True)

    try:
        with loop:
            loop.run_until_complete(main())
    finally:
        uninstall()
    return 0
