"""Decoded frames in the two forms the screen can take them.

* :class:`YuvPlanes` — the three planes as they come out of the decoder, no copy and no conversion: the window
  uploads them as textures and converts YUV→RGB in a shader. This is the mirror's normal path: at 1080×2400 a
  CPU conversion costs about as much as decoding the frame (see ``benchmarks/mirror_pipeline.py``).
* :class:`BgraFrame` — 32-bit pixels for painting without OpenGL. BGRA bytes are exactly Qt's
  ``QImage.Format_RGB32`` on little-endian machines. PyAV 18.1 keeps ~15 MB of buffers per scaler; making one
  per frame (what ``frame.reformat()`` does) grows memory for minutes, so the converter keeps a single one.
"""

from __future__ import annotations

from dataclasses import dataclass

import av
from av.video.reformatter import VideoReformatter

__all__ = ["BgraFrame", "FrameConverter", "YuvPlanes"]


@dataclass(frozen=True)
class BgraFrame:
    frame: av.VideoFrame     # keeps the pixel buffer alive while anything looks at ``pixels``
    width: int
    height: int
    stride: int              # bytes per row: may exceed width × 4 (alignment)

    @property
    def pixels(self) -> memoryview:
        return memoryview(self.frame.planes[0])


@dataclass(frozen=True)
class YuvPlanes:
    frame: av.VideoFrame     # keeps the planes alive
    width: int
    height: int

    @classmethod
    def of(cls, frame: av.VideoFrame) -> YuvPlanes:
        if frame.format.name != "yuv420p":
            raise ValueError(f"expected yuv420p frames, got {frame.format.name}")
        return cls(frame, frame.width, frame.height)

    def planes(self) -> list[tuple[memoryview, int]]:
        """(bytes, bytes per row) of Y, U and V; U and V are half the width and height."""
        return [(memoryview(plane), plane.line_size) for plane in self.frame.planes]


class FrameConverter:
    def __init__(self) -> None:
        self._reformatter = VideoReformatter()

    def to_bgra(self, frame: av.VideoFrame) -> BgraFrame:
        converted = self._reformatter.reformat(frame, format="bgra")
        return BgraFrame(converted, converted.width, converted.height, converted.planes[0].line_size)
