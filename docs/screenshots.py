"""Take the README's screenshots: the window idle, during a run, inspecting, the settings and the history.

    ../shared/tools/xshot /tmp/screen.png 40 .venv/bin/python docs/screenshots.py docs/images

Runs the demo on the built-in virtual phone with a temporary data folder and saves each state as a PNG of
the window (or dialog) itself, so the pictures do not depend on a window manager.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path

import qasync
from PySide6.QtWidgets import QApplication, QWidget

from relay_desktop.agent.events import ActionStarted, Event, RunFinished


def save(widget: QWidget, out: Path, name: str) -> None:
    path = out / f"{name}.png"
    widget.grab().save(str(path))
    print("saved", path, flush=True)


async def take(out: Path) -> None:
    from relay_desktop.ui.app import start_demo
    from relay_desktop.ui.history import RUN_ID
    from relay_desktop.ui.main_window import MainWindow

    window = MainWindow()
    window.resize(1280, 860)
    window.show()
    await window.choose_models()
    await asyncio.sleep(0.6)
    save(window, out, "window-idle")
    actions: list[ActionStarted] = []
    finished = asyncio.Event()

    def watch(event: Event) -> None:
        if isinstance(event, ActionStarted):
            actions.append(event)
        elif isinstance(event, RunFinished):
            finished.set()
    window.bus.subscribe(watch)
    await start_demo(window)
    if window.session.device is None:
        raise SystemExit("could not start the virtual phone:\n" + "\n".join(window.log_view.lines()))
    # The cursor on its way to a tap's target, with the boxes of the screen the agent read: taken at each tap
    # until one is caught before the tap's effect takes the boxes down (they belong to the screen before it).
    taken = 0
    while not finished.is_set() and taken < 3:
        if len(actions) > taken:
            taken = len(actions)
            await asyncio.sleep(0.08)
            if window.mirror_view.boxes.boxes and taken >= 2:
                save(window, out, "demo-window")
                break
        await asyncio.sleep(0.01)
    await asyncio.wait_for(finished.wait(), 60)
    await asyncio.sleep(0.5)
    window.tabs.setCurrentIndex(1)
    await window.refresh_elements()
    element_map = window.inspector.element_map
    if element_map is not None and element_map.find("Wi-Fi"):
        window.inspector.select(element_map.find("Wi-Fi")[0])
    await asyncio.sleep(0.3)
    save(window, out, "window-inspecting")
    dialog = window.open_settings()
    await asyncio.sleep(0.8)
    save(dialog, out, "window-settings")
    dialog.reject()
    await window.recorder.flush()
    window.tabs.setCurrentIndex(2)
    await window.history.refresh()
    await window.history.open(window.history.runs.item(0).data(0, RUN_ID))
    window.history.steps.setCurrentRow(2)
    await asyncio.sleep(0.5)
    save(window, out, "window-history")
    if window.theme is not None:
        window.theme.apply("dark")
        window.tabs.setCurrentIndex(0)
        await asyncio.sleep(0.5)
        save(window, out, "window-dark")
    await window.shutdown()
    window.close()


def shoot(take: Callable[[Path], Awaitable[None]], timeout: float) -> int:
    """Run ``take(out)`` on a Qt loop, with a private home; ``out`` is argv[1] or docs/images."""
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images").resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("RELAY_DESKTOP_HOME", tempfile.mkdtemp(prefix="relay-shots-"))
    app = QApplication.instance() or QApplication(sys.argv)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(asyncio.wait_for(take(out), timeout))
    return 0


def main() -> int:
    return shoot(take, 120)


if __name__ == "__main__":
    raise SystemExit(main())
