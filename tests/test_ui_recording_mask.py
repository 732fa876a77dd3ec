"""The window's screen recording keeps no password field's pixels: a PIN field the agent (or the Inspect tab) saw
while the Record button was on is painted over in the saved video — masked in a worker thread after the
recording stops, with its progress in the status bar, and the file announced only then — while the screens
without one are untouched. Qt offscreen, the virtual phone (its bank without FLAG_SECURE, so its PIN field is in
the picture) and its real mirror."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import av
import numpy as np
import pytest
import qasync
from PySide6.QtWidgets import QWidget

from relay_desktop.agent.events import ScreenCaptured
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.perception.parse import parse_hierarchy
from relay_desktop.perception.privacy import MASK_COLOUR, password_regions, region_boxes
from relay_desktop.perception.tree import UITree
from relay_desktop.sim.apps.bank import PACKAGE, NorthwindBank
from relay_desktop.sim.apps.bank_transfer import NAVY
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.mirror_view import frame_signature
from relay_desktop.ui.screen_recording import MASKING, ScreenRecording


def _near(pixel: np.ndarray, colour: tuple[int, int, int], tolerance: int = 12) -> bool:
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel, colour, strict=True))


def _is_mask(pixel: np.ndarray) -> bool:
    return _near(pixel, MASK_COLOUR)


async def _wait_for(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def _masked_frames(path: Path, tree: UITree, display: tuple[int, int]
                   ) -> tuple[list[float], list[float], list[float]]:
    """(every frame's time, the times of those with the PIN field painted over, the times of the bank's frames:
    its navy Sign in button is there)."""
    with av.open(str(path)) as container:
        frames = [(float(f.time), f.to_ndarray(format="rgb24")) for f in container.decode(video=0)]
    height, width = frames[0][1].shape[:2]
    left, top, right, bottom = region_boxes(password_regions(tree), (width, height), display)[0]
    x, y = (left + right) // 2, (top + bottom) // 2
    button = next(n for n in tree.nodes if n.text == "Sign in").bounds
    bx = (button.left + button.width // 8) * width // display[0]          # left of its words
    by = button.center[1] * height // display[1]
    return ([t for t, _ in frames], [t for t, picture in frames if _is_mask(picture[y, x])],
            [t for t, picture in frames if _near(picture[by, bx], NAVY)])


def test_a_password_field_seen_while_recording_is_masked_in_the_saved_video(
        window: MainWindow, qt_loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NorthwindBank, "secure", False)      # its PIN field is in the picture, as in most apps
    view = window.mirror_view
    recording = window.screen_recording
    progress: list[str] = []
    show_masking = recording._show_masking

    def shown(percent: int) -> None:                       # every progress the status bar showed
        show_masking(percent)
        progress.append(recording.status.text())

    monkeypatch.setattr(recording, "_show_masking", shown)

    async def capture_into_window() -> ScreenCaptured:
        """What a run's step does: read the screen and tell the window."""
        began = time.time()
        seen = await Orchestrator(window.session.device, None, settings=AgentSettings(ocr=False)).capture(None)
        event = ScreenCaptured(run_id="r", step=1, element_map=seen.element_map, screenshot=seen.screenshot,
                               app=seen.app, layout_hash=seen.layout_hash, fingerprint=seen.fingerprint,
                               capture_ms=(time.time() - began) * 1000, diff_text="",
                               display=(seen.context.screen_width, seen.context.screen_height))
        window.bus.emit(event)
        return event

    async def scenario() -> tuple[Path, ScreenCaptured]:
        try:
            assert await window.connect_device("virtual")
            phone = window.session.service.phone
            phone.launch("com.android.settings")
            window.record_button.click()
            await _wait_for(lambda: window.recording is not None and window.recording.packets > 0,
                            "the recording to start")
            await asyncio.sleep(2.0)                          # Settings, with no password field, for a while
            assert not password_regions((await capture_into_window()).element_map.tree)
            before = view._image
            phone.launch(PACKAGE)                             # the bank's sign-in: a PIN field
            await _wait_for(lambda: view._image is not before and max(frame_signature(view._image)) > 0,
                            "the bank's screen in the mirror")
            bank = await capture_into_window()
            assert password_regions(bank.element_map.tree)
            await asyncio.sleep(1.0)
            before = view._image
            phone.launch("com.android.settings")              # gone again
            await _wait_for(lambda: view._image is not before, "Settings in the mirror")
            assert not password_regions((await capture_into_window()).element_map.tree)
            await asyncio.sleep(2.5)                          # Settings again, beyond the mask's end
            window.record_button.click()
            await _wait_for(lambda: window.recording is None and window.last_recording is not None,
                            "the masked recording", timeout=60)
            return window.last_recording, bank
        finally:
            await window.shutdown()

    path, bank = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 120))
    lines = window.log_view.lines()
    masking = lines.index(f"· {MASKING}")
    saved = next(i for i, line in enumerate(lines) if line.startswith(f"· Recording saved: {path}"))
    assert masking < saved and "password fields masked in" in lines[saved], lines[saved]
    assert progress and progress[0] == f"{MASKING} 0%" and progress[-1] == f"{MASKING} 100%", progress
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]      # no unmasked copy beside it

    times, masked, of_bank = _masked_frames(path, bank.element_map.tree, bank.display)
    assert of_bank and set(of_bank) <= set(masked), (of_bank, masked)      # every frame of the bank
    assert times[0] not in masked and times[-1] not in masked               # Settings, before and after
    first, last = min(masked), max(masked)
    assert masked == [t for t in times if first <= t <= last]               # one span, whole
    assert first > 1.0 and last < times[-1] - 1.0, (first, last, times[-1])


def test_a_password_field_seen_in_the_inspect_tab_while_recording_is_masked_too(
        window: MainWindow, qt_loop: qasync.QEventLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NorthwindBank, "secure", False)
    view, pane = window.mirror_view, window.pane

    async def scenario() -> tuple[Path, tuple[int, int]]:
        try:
            assert await window.connect_device("virtual")
            phone = window.session.service.phone
            window.record_button.click()
            await _wait_for(lambda: window.recording is not None and window.recording.packets > 0,
                            "the recording to start")
            before = view._image
            phone.launch(PACKAGE)
            await _wait_for(lambda: view._image is not before and max(frame_signature(view._image)) > 0,
                            "the bank's screen in the mirror")
            pane.tabs.setCurrentIndex(1)                      # Inspect: the screen is dumped now
            await _wait_for(lambda: pane.inspector.element_map is not None
                            and password_regions(pane.inspector.element_map.tree), "the PIN field in Inspect")
            await asyncio.sleep(0.5)
            window.record_button.click()
            await _wait_for(lambda: window.recording is None and window.last_recording is not None,
                            "the masked recording", timeout=60)
            assert window.session.display_size is not None
            return window.last_recording, window.session.display_size    # not turned: the bank is upright
        finally:
            await window.shutdown()

    path, display = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 120))
    assert any(line.startswith(f"· Recording saved: {path}") and "password fields masked in" in line
               for line in window.log_view.lines())
    _, masked, of_bank = _masked_frames(path, pane.inspector.element_map.tree, display)
    assert of_bank and set(of_bank) <= set(masked), (of_bank, masked)


# ----------------------------------------------------------------- the Record button's choices, on a stand-in mirror

_DUMP = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc=""
 clickable="false" enabled="true" focusable="false" focused="false" password="false" bounds="[0,0][640,1280]">
<node index="0" text="{text}" resource-id="com.example:id/pw" class="android.widget.EditText" package="com.example"
 content-desc="" clickable="true" enabled="true" focusable="true" focused="true" password="{password}"
 bounds="[100,200][500,300]" /></node></hierarchy>"""


class _Recorder:
    def __init__(self, path: Path) -> None:
        self.path, self.packets, self.duration_s = path, 12, 1.0

    def close(self) -> None:
        pass


class _Mirror:
    """Writes bytes no decoder reads: a recording that is masked fails, one left as it is stays as it was."""

    async def start_recording(self, path: Path) -> _Recorder:
        path.write_bytes(b"\x00\x00\x00\x18ftypmp42 not a video" * 40)
        return _Recorder(path)

    async def finish_recording(self, recorder: _Recorder) -> _Recorder:
        return recorder


class _Store:
    def __init__(self) -> None:
        self.links: list[tuple[str, Path]] = []

    async def alink_recording(self, run_id: str, path: Path) -> None:
        self.links.append((run_id, path))


@pytest.mark.parametrize("password", [False, True])
def test_a_recording_is_kept_untouched_without_password_fields_and_deleted_when_they_cannot_be_masked(
        password: bool, qtbot: Any, qt_loop: qasync.QEventLoop, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    parent = QWidget()
    qtbot.addWidget(parent)
    said: list[str] = []
    store = _Store()
    recording = ScreenRecording(parent, _Mirror, cast(Any, store), said.append, lambda: "run-1")
    tree = parse_hierarchy(_DUMP.format(text="••••" if password else "Sam", password=str(password).lower()))
    assert bool(password_regions(tree)) == password

    async def scenario() -> tuple[Path | None, Path | None]:
        started = await recording.start()
        recording.saw(time.time() - 0.2, time.time(), tree, (640, 1280))
        return started, await asyncio.wait_for(recording.stop(), 30)

    started, saved = qt_loop.run_until_complete(scenario())
    assert started is not None
    if not password:                      # nothing to mask: the file as the mirror wrote it, at no cost
        assert saved == started and recording.last_path == started
        assert started.read_bytes().startswith(b"\x00\x00\x00\x18ftypmp42 not a video")
        assert MASKING not in said and said[-1].startswith(f"Recording saved: {started}")
        assert store.links == [("run-1", started)]
    else:                                 # it could not be masked: no file at all, said plainly, nothing linked
        assert saved is None and recording.last_path is None
        assert said[-2] == MASKING
        assert said[-1].startswith("Recording deleted: its password fields could not be masked"), said[-1]
        assert list(started.parent.iterdir()) == [] and store.links == []
    assert recording.button.isEnabled() and not recording.status.isVisible()
