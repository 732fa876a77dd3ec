"""Where decoded frames (and raw packets) go: the screen, the agent's screenshots, settle detection, recording.

Sinks are called on the mirror thread, so each does the least it can there — keep a reference, compare a few
hundred pixels, write a packet — and never touches the event loop directly. The latest frame always wins: a
sink that is slow to read simply sees a newer frame next time, frames never queue up.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Protocol

import av
from PIL import Image

from relay_desktop.mirror.protocol import split_nal_units
from relay_desktop.mirror.stream import VideoPacket

__all__ = ["FrameSink", "LatestFrame", "Mp4Recorder", "PacketSink", "SettleDetector"]


class FrameSink(Protocol):
    def on_frame(self, frame: av.VideoFrame) -> None: ...


class PacketSink(Protocol):
    def on_packet(self, packet: VideoPacket) -> None: ...


class LatestFrame:
    """A single slot holding the newest frame: the agent's screenshot with no device round trip, and the
    screen's source. ``on_new`` (if set) is called on the mirror thread — the window turns it into a queued
    signal; nothing heavier belongs there.

    Frames arrive late — encoding, transfer and decoding take time, and much more on a busy machine — so the
    newest frame may show the screen as it was before the last tap, while a UI dump taken now shows it after.
    Each frame carries the device's capture time (the stream's PTS); the slot keeps the smallest seen gap
    between arrival and PTS as the clock offset, which dates every frame on this computer's clock (late by at
    most the pipeline's shortest latency). :meth:`screenshot_since` waits for a frame captured after a moment.
    """

    def __init__(self, on_new: Callable[[], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._frame: av.VideoFrame | None = None
        self._serial = 0
        self._clock = clock
        self._offset: float | None = None        # arrival (host clock) minus PTS, smallest seen
        self._captured: float | None = None      # the newest frame's capture time on the host clock
        self.on_new = on_new

    def forget(self) -> None:
        """A new stream begins (the server was restarted): no frame yet, and its clock is learnt afresh."""
        with self._lock:
            self._frame = None
            self._offset = self._captured = None

    def on_frame(self, frame: av.VideoFrame) -> None:
        arrived = self._clock()
        with self._lock:
            self._frame = frame
            self._serial += 1
            pts = frame.pts
            if pts is None:
                self._captured = None
            else:
                gap = arrived - pts / 1_000_000
                self._offset = gap if self._offset is None else min(self._offset, gap)
                self._captured = pts / 1_000_000 + self._offset
        if self.on_new is not None:
            self.on_new()

    def captured_since(self, moment: float) -> bool | None:
        """Whether the newest frame was captured at or after ``moment`` (host monotonic clock); None when the
        stream carries no capture times."""
        with self._lock:
            if self._frame is None:
                return False
            return None if self._captured is None else self._captured >= moment

    async def wait_captured_since(self, moment: float, timeout: float = 2.0, poll_s: float = 0.01) -> bool:
        """Wait until the newest frame was captured at or after ``moment`` (at once when the stream carries no
        capture times); False when none came within ``timeout``."""
        deadline = self._clock() + timeout
        while True:
            fresh = self.captured_since(moment)
            if fresh is None or fresh:
                return True
            if self._clock() >= deadline:
                return False
            await asyncio.sleep(poll_s)

    async def screenshot_since(self, moment: float, timeout: float = 2.0) -> Image.Image | None:
        """The first frame captured at or after ``moment``, as a picture; None when none came within ``timeout``
        (the caller then takes a screenshot another way)."""
        return await self.screenshot() if await self.wait_captured_since(moment, timeout) else None

    def take(self) -> tuple[av.VideoFrame | None, int]:
        """The newest frame and its number (numbers only grow; the same number means nothing new)."""
        with self._lock:
            return self._frame, self._serial

    @property
    def size(self) -> tuple[int, int] | None:
        frame = self._frame
        return (frame.width, frame.height) if frame is not None else None

    async def screenshot(self) -> Image.Image:
        """The newest frame as an RGB picture (converted in a thread)."""
        frame, _ = self.take()
        if frame is None:
            raise LookupError("no frame has arrived from the mirror yet")
        return await asyncio.to_thread(frame.to_image)


class SettleDetector:
    """Knows when the screen last changed, from a coarse grid of the luma plane (64×64 samples): animations,
    scrolling and page loads change it, a blinking cursor hardly does."""

    GRID = 64
    THRESHOLD = 0.002      # share of samples that must differ (by more than a little) to count as a change

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._previous: bytes | None = None
        self.last_change = clock()
        self.last_frame = 0.0

    def _sample(self, frame: av.VideoFrame) -> bytes:
        plane = frame.planes[0]
        data = memoryview(plane)
        step_y = max(1, frame.height // self.GRID)
        step_x = max(1, frame.width // self.GRID)
        rows = (bytes(data[y * plane.line_size:y * plane.line_size + frame.width:step_x])
                for y in range(0, frame.height, step_y))
        return b"".join(rows)

    def on_frame(self, frame: av.VideoFrame) -> None:
        sample = self._sample(frame)
        now = self._clock()
        with self._lock:
            previous, self._previous = self._previous, sample
            self.last_frame = now
            if previous is None or len(previous) != len(sample):
                self.last_change = now
                return
            differing = sum(1 for a, b in zip(previous, sample, strict=True) if abs(a - b) > 12)
            if differing > self.THRESHOLD * len(sample):
                self.last_change = now

    def still_for(self) -> float:
        with self._lock:
            return self._clock() - self.last_change

    async def wait_settled(self, still_s: float = 0.25, timeout: float = 3.0, poll_s: float = 0.02) -> bool:
        """True once the screen has not changed for ``still_s``; False when ``timeout`` passes first (a video
        or an endless animation: the caller goes on anyway)."""
        deadline = self._clock() + timeout
        while self.still_for() < still_s:
            if self._clock() >= deadline:
                return False
            await asyncio.sleep(poll_s)
        return True


class Mp4Recorder:
    """Writes the stream's packets into an MP4 as they come: no re-encoding, so it costs almost nothing."""

    def __init__(self, path: Path, fps: int = 60) -> None:
        self.path = path
        self.fps = fps
        self._container: av.container.OutputContainer | None = None
        self._stream: av.video.stream.VideoStream | None = None
        self._first_pts: int | None = None
        self._last_pts: int | None = None
        self.packets = 0
        self.closed = False
        self._lock = threading.Lock()  # packets come on the mirror thread, close() from the loop

    def on_packet(self, packet: VideoPacket) -> None:
        with self._lock:
            if not self.closed:
                self._write(packet)

    def _write(self, packet: VideoPacket) -> None:
        if self._container is None:
            if not packet.key_frame:
                return  # a recording starts at a key frame, or its first seconds would not decode
            self._open(packet)
        assert self._stream is not None and self._container is not None
        if self._first_pts is None:
            self._first_pts = packet.pts_us
        out = av.Packet(packet.data)
        out.stream = self._stream
        out.pts = out.dts = packet.pts_us - self._first_pts
        out.time_base = Fraction(1, 1_000_000)
        out.is_keyframe = packet.key_frame
        self._container.mux(out)
        self._last_pts = packet.pts_us
        self.packets += 1

    @property
    def duration_s(self) -> float:
        """Seconds between the first and the last frame written."""
        with self._lock:
            if self._first_pts is None or self._last_pts is None:
                return 0.0
            return (self._last_pts - self._first_pts) / 1_000_000

    def _open(self, packet: VideoPacket) -> None:
        container = av.open(str(self.path), "w")
        stream = container.add_stream("h264", rate=self.fps)
        decoded = av.CodecContext.create("h264", "r").decode(av.Packet(packet.data))
        if decoded:
            stream.width, stream.height = decoded[0].width, decoded[0].height
        stream.time_base = Fraction(1, 1_000_000)
        stream.codec_context.extradata = b"".join(u for u in split_nal_units(packet.data) if u[4] & 0x1F in (7, 8))
        self._container, self._stream = container, stream

    def close(self) -> None:
        with self._lock:
            self.closed = True
            if self._container is not None:
                self._container.close()
                self._container = None
