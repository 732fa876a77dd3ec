"""The mirror's frames, handed to the window: latest frame wins, one queued signal, pixels on demand.

The decoder thread calls :meth:`ScreenSink.on_frame` for every frame; the sink keeps only the newest and emits
``frame_ready`` once until the window has taken it, so a slow paint never builds a queue of frames. The
conversion to pixels happens in :meth:`image`, on the GUI thread, for the frames that are actually painted.
"""

from __future__ import annotations

import threading

import av
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from relay_desktop.mirror.frame_convert import BgraFrame, FrameConverter, YuvPlanes
from relay_desktop.mirror.sinks import LatestFrame

__all__ = ["ScreenSink"]


class ScreenSink(QObject):
    frame_ready = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._latest = LatestFrame(on_new=self._notify)
        self._converter = FrameConverter()
        self._lock = threading.Lock()
        self._signalled = False
        self._shown: BgraFrame | None = None   # keeps the pixels of the image last handed out alive
        self.painted = 0

    def on_frame(self, frame: av.VideoFrame) -> None:
        self._latest.on_frame(frame)

    def _notify(self) -> None:
        with self._lock:
            if self._signalled:
                return
            self._signalled = True
        self.frame_ready.emit()  # from the decoder thread: a queued connection to the GUI thread

    def planes(self) -> YuvPlanes | None:
        """The newest frame's Y, U and V planes, for a view that converts to RGB on the GPU (no CPU copy)."""
        with self._lock:
            self._signalled = False
        frame, _ = self._latest.take()
        if frame is None:
            return None
        self.painted += 1
        return YuvPlanes.of(frame)

    def image(self) -> QImage | None:
        """The newest frame as an image (valid until the next call), or None before the first frame."""
        with self._lock:
            self._signalled = False
        frame, _ = self._latest.take()
        if frame is None:
            return None
        self._shown = self._converter.to_bgra(frame)
        shown = self._shown
        self.painted += 1
        return QImage(shown.pixels, shown.width, shown.height, shown.stride, QImage.Format.Format_RGB32)
