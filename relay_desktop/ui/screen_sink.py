"""The mirror's frames, handed to the window: latest frame wins, a signal on the GUI thread, pixels on demand.

The decoder thread calls :meth:`ScreenSink.on_frame` for every frame; the sink only keeps the newest. The GUI
thread looks for a new one at display rate (a 16 ms timer) and emits ``frame_ready`` when there is one, so a
slow paint never builds a queue of frames. Nothing Qt is called from the decoder thread: PySide6 6.12 corrupts
reference counts when a signal is emitted from a thread Qt did not start (the interpreter aborts with
"deallocating True" after a few hundred emits), so the hand-over is a plain lock-protected slot.

A view with OpenGL takes :meth:`planes` (YUV, converted by a shader: the cheap path); one without takes
:meth:`image`, converted on the GUI thread, only for the frames that are actually painted.
"""

from __future__ import annotations

import av
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

from relay_desktop.mirror.frame_convert import BgraFrame, FrameConverter, YuvPlanes
from relay_desktop.mirror.sinks import LatestFrame

__all__ = ["ScreenSink"]

POLL_MS = 16


class ScreenSink(QObject):
    frame_ready = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._latest = LatestFrame()
        self._converter = FrameConverter()
        self._seen = 0
        self._shown: BgraFrame | None = None
        self.painted = 0
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)
        self._timer.start()

    def on_frame(self, frame: av.VideoFrame) -> None:
        self._latest.on_frame(frame)   # any thread

    def _poll(self) -> None:
        _, serial = self._latest.take()
        if serial != self._seen:
            self._seen = serial
            self.frame_ready.emit()

    def stop(self) -> None:
        self._timer.stop()

    def planes(self) -> YuvPlanes | None:
        """The newest frame's Y, U and V planes, for a view that converts to RGB on the GPU (no CPU copy)."""
        frame, _ = self._latest.take()
        if frame is None:
            return None
        self.painted += 1
        return YuvPlanes.of(frame)

    def image(self) -> QImage | None:
        """The newest frame as an image, or None before the first frame."""
        frame, _ = self._latest.take()
        if frame is None:
            return None
        shown = self._converter.to_bgra(frame)
        self._shown = shown
        self.painted += 1
        # The image owns its memory and the pixels are copied in: PySide6 does not keep a buffer that a QImage
        # is built on alive, and an image pointing into freed memory crashed the window now and then.
        image = QImage(shown.width, shown.height, QImage.Format.Format_RGB32)
        target = memoryview(image.bits()).cast("B")
        source = shown.pixels
        row = shown.width * 4
        line = image.bytesPerLine()
        if line == shown.stride:
            target[:line * shown.height] = source[:line * shown.height]
        else:
            for y in range(shown.height):
                target[y * line:y * line + row] = source[y * shown.stride:y * shown.stride + row]
        return image
