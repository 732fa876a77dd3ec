"""The window's Record button: the phone's screen into an MP4 while the user wants it, with a red "● REC 0:12"
in the status bar the whole time, and a link from each run it covered to the file.

The mirror's own H.264 packets are written as they come (no re-encoding, so recording costs almost nothing);
without the live mirror there is nothing to record and the button is off. Password fields must not show in the
video: while it records, every screen the window reads (the agent's captures, the Inspect tab's dumps) tells it
when and where one was on screen, and if any was, the file is masked (decoded, painted, encoded again) in a
worker thread once the recording stops, before it is announced or linked (mirror/recording_mask.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from relay_desktop.mirror.recording_mask import MaskingFailed, PasswordTimeline, mask_recording
from relay_desktop.paths import data_dir
from relay_desktop.perception.privacy import password_regions
from relay_desktop.perception.tree import UITree
from relay_desktop.runs import RunStore
from relay_desktop.ui.tasks import spawn

__all__ = ["ScreenRecording", "recordings_dir"]

RECORD = "● &Record"
STOP = "■ Stop &recording"
MASKING = "Masking password fields in the recording…"
_RED = "color: #e53935; font-weight: bold"


def recordings_dir() -> Path:
    return data_dir() / "recordings"


class ScreenRecording(QObject):
    def __init__(self, parent: QWidget, mirror: Callable[[], Any], store: RunStore, say: Callable[[str], None],
                 current_run: Callable[[], str | None] = lambda: None,
                 flush_history: Callable[[], Awaitable[Any]] | None = None) -> None:
        super().__init__(parent)
        self._mirror = mirror                  # the session's live mirror now, or None
        self._current_run = current_run        # the id of the run going on now, if any
        self._flush_history = flush_history    # the history written so far (a run's row exists to link to)
        self.store = store
        self.say = say
        self.button = QPushButton(RECORD, parent)
        self.button.setAccessibleName("Record the phone's screen")
        self.button.setToolTip("Record the phone's screen to a video (MP4); runs during it link to the file")
        self.button.setEnabled(False)
        self.button.clicked.connect(self.toggle)
        self.status = QLabel("", parent)
        self.status.setAccessibleName("Recording")
        self.status.setStyleSheet(_RED)
        self.status.hide()
        self.recorder: Any = None              # the Mp4Recorder while recording
        self.last_path: Path | None = None     # the last finished recording
        self._started = 0.0
        self._runs: set[str] = set()           # runs the recording covered, linked once it is saved
        self._busy = False
        self._timeline: PasswordTimeline | None = None       # where password fields were while recording
        self._stopping: asyncio.Task[Any] | None = None      # the stop under way (its masking can take a while)
        self._clock = QTimer(self)
        self._clock.setInterval(500)
        self._clock.timeout.connect(lambda: self._show_time())   # as the window's clock: a bound slot missed ticks
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def active(self) -> bool:
        return self.recorder is not None

    def available(self, yes: bool) -> None:
        """Whether there is a live mirror to record (the button follows)."""
        self.button.setEnabled(yes or self.active)

    def covers(self, run_id: str) -> None:
        """A run started or is going on: link it to the recording."""
        if self.active:
            self._runs.add(run_id)

    def saw(self, began: float, ended: float, tree: UITree, display: tuple[int, int] | None) -> None:
        """The screen was read between ``began`` and ``ended`` (wall clock, ``time.time()``) as ``tree``, on a
        display of that size in device pixels as turned now (None or zeros: unknown, the dump's own screen is
        used). While recording, its password fields are remembered, to be masked in the video."""
        if self._timeline is None:
            return
        if not display or not all(display):
            display = (tree.screen.right, tree.screen.bottom)
        self._timeline.saw(began, ended, password_regions(tree), display)

    def toggle(self) -> None:
        if not self._busy:
            spawn(self.stop() if self.active else self.start(), self._tasks)

    async def start(self) -> Path | None:
        mirror = self._mirror()
        if mirror is None:
            self.say("Recording needs the live mirror, which is not running for this phone.")
            return None
        self._busy = True
        try:
            folder = recordings_dir()
            await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
            path = folder / time.strftime("recording-%Y%m%d-%H%M%S.mp4")
            origin = time.time()                   # before the first frame is asked for: see PasswordTimeline
            self.recorder = await mirror.start_recording(path)
            self._timeline = PasswordTimeline(origin)
        finally:
            self._busy = False
        self._started = time.monotonic()
        run_id = self._current_run()
        self._runs = {run_id} if run_id else set()
        self.button.setText(STOP)
        self.button.setAccessibleName("Stop recording the phone's screen")
        self._show_time()
        self.status.show()
        self._clock.start()
        self.say(f"Recording the screen to {path}")
        return path

    async def stop(self) -> Path | None:
        recorder, self.recorder = self.recorder, None
        timeline, self._timeline = self._timeline, None
        if recorder is None:
            stopping = self._stopping              # closing while the last recording is masked: it ends first
            if stopping is not None and stopping is not asyncio.current_task() and not stopping.done():
                await asyncio.gather(asyncio.shield(stopping), return_exceptions=True)
            return None
        self._stopping = asyncio.current_task()
        self._busy = True
        masked = 0
        self._clock.stop()
        self.status.hide()
        self.button.setText(RECORD)
        self.button.setAccessibleName("Record the phone's screen")
        try:
            mirror = self._mirror()
            if mirror is not None:
                await mirror.finish_recording(recorder)
            else:                                  # the phone went away: keep what was written
                await asyncio.to_thread(recorder.close)
            if recorder.packets and timeline:
                count = await self._mask(recorder.path, timeline)
                if count is None:
                    return None
                masked = count
        finally:
            self._busy = False
            self.button.setEnabled(self._mirror() is not None)
        if not recorder.packets:
            self.say("Nothing was recorded: the mirror sent no picture.")
            return None
        self.last_path = recorder.path
        extra = f"; password fields masked in {masked} frame{'s' if masked != 1 else ''}" if timeline else ""
        self.say(f"Recording saved: {recorder.path} ({recorder.duration_s:.1f} s{extra})")
        if self._runs and self._flush_history is not None:
            await self._flush_history()
        for run_id in sorted(self._runs):
            try:
                await self.store.alink_recording(run_id, recorder.path)
            except Exception as exc:  # the video is there; only the history's link to it is missing
                self.say(f"The history could not link the recording to run {run_id}: {exc}")
        return recorder.path

    async def _mask(self, path: Path, timeline: PasswordTimeline) -> int | None:
        """Mask the password fields in the finished recording (a worker thread: the window stays live), with the
        progress in the status bar: the frames masked, or None when it failed and the file is gone."""
        self.button.setEnabled(False)              # one recording at a time, masking included
        self.status.setStyleSheet("")
        self._show_masking(0)
        self.status.show()
        self.say(MASKING)
        loop = asyncio.get_running_loop()
        shown = [-1]

        def progress(share: float) -> None:        # on the worker thread: the label is the loop's to change
            percent = int(share * 100)
            if percent != shown[0]:
                shown[0] = percent
                # The window may be closing: the masking goes on (a failure would delete the recording).
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._show_masking, percent)

        try:
            return await asyncio.to_thread(mask_recording, path, timeline.spans(), progress)
        except MaskingFailed as exc:
            self.say(f"{exc}.")
            return None
        finally:
            self.status.hide()
            self.status.setStyleSheet(_RED)

    def _show_masking(self, percent: int) -> None:
        self.status.setText(f"{MASKING} {percent}%")

    def _show_time(self) -> None:
        seconds = int(time.monotonic() - self._started)
        self.status.setText(f"● REC {seconds // 60}:{seconds % 60:02d}")
