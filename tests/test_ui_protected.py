"""The window says "Protected screen" over the mirror while the agent works on a screen that forbids capture (the
mirror is black there, as scrcpy's is), and takes it down once the phone shows a picture again. Qt offscreen,
the virtual phone's bank and its real mirror."""

from __future__ import annotations

import asyncio
from pathlib import Path

import qasync
from PySide6.QtGui import QColor

from relay_desktop.agent.events import ScreenCaptured
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.sim.apps.bank import PACKAGE
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.mirror_view import frame_signature

CARD = QColor(38, 50, 56)


def _near(colour: QColor, other: QColor, tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in ((colour.red(), other.red()), (colour.green(), other.green()),
                                                       (colour.blue(), other.blue())))


def test_the_mirror_says_protected_screen_while_the_agent_is_on_one(
        window: MainWindow, qt_loop: qasync.QEventLoop, tmp_path: Path) -> None:
    view = window.mirror_view

    async def wait_for(condition: object, what: str) -> None:
        for _ in range(300):
            if condition():  # type: ignore[operator]
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}")

    async def capture_into_window() -> ScreenCaptured:
        seen = await Orchestrator(window.session.device, None, settings=AgentSettings(ocr=False)).capture(None)
        event = ScreenCaptured(run_id="r", step=1, element_map=seen.element_map, screenshot=seen.screenshot,
                               app=seen.app, layout_hash=seen.layout_hash, fingerprint=seen.fingerprint,
                               capture_ms=seen.capture_ms, diff_text="", withheld=seen.withheld)
        window.bus.emit(event)
        return event

    async def scenario() -> None:
        try:
            await window.session.start_virtual_phone()
            phone = window.session.service.phone
            phone.launch(PACKAGE)
            await wait_for(lambda: view._image is not None and max(frame_signature(view._image)) == 0,
                           "a black frame")
            event = await capture_into_window()
            assert event.withheld == "protected"
            await wait_for(lambda: view.protected, "the protected notice")
            centre = view.grab().toImage().pixelColor(view.width() // 2, view.height() // 2)
            assert _near(centre, CARD), centre.name()
            window.grab().save(str(tmp_path / "protected.png"))    # to look at: pytest --basetemp=DIR
            phone.launch("com.android.settings")                    # a picture again: the notice goes
            await wait_for(lambda: not view.protected, "the notice to go with the first picture")
        finally:
            await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
