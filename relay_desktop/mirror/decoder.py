"""H.264 packets → frames with PyAV, with no frames held back.

Low-delay flag on, no frame threading (frame threads buffer one frame per thread) and no ``parse()`` (it lags
one frame): each packet the server sends is one access unit, so each ``decode`` returns its frame at once.
PyAV releases the GIL while decoding, so the mirror thread does not stall the window.
"""

from __future__ import annotations

import av
from av.codec.context import Flags

from relay_desktop.mirror.stream import VideoPacket

__all__ = ["DecodeError", "VideoDecoder"]


class DecodeError(Exception):
    """A packet the decoder refused (a corrupt stream); the caller waits for the next key frame."""


class VideoDecoder:
    def __init__(self, codec: str = "h264") -> None:
        self._ctx = av.CodecContext.create(codec, "r")
        self._ctx.flags |= Flags.low_delay
        self._ctx.thread_type = "SLICE"
        self.frames = 0
        self.size: tuple[int, int] | None = None
        self._waiting_for_key = False

    def decode(self, packet: VideoPacket) -> list[av.VideoFrame]:
        if self._waiting_for_key and not packet.key_frame:
            return []
        try:
            raw = av.Packet(packet.data)
            raw.pts = packet.pts_us   # the device's capture time, carried to the frame (LatestFrame dates it)
            frames = self._ctx.decode(raw)
        except av.error.InvalidDataError as exc:
            # Reference frames are now wrong: skip until the next key frame instead of showing garbage.
            self._waiting_for_key = True
            raise DecodeError(f"the video stream could not be decoded: {exc}") from exc
        self._waiting_for_key = False
        for frame in frames:
            self.frames += 1
            self.size = (frame.width, frame.height)
        return frames
