"""H.264 for the virtual phone's scrcpy server, shaped like Android's MediaCodec output.

libx264 with zero-latency settings (no B-frames, no lookahead: a frame in, its packet out). MediaCodec hands
the parameter sets (SPS/PPS) over as a separate "codec config" buffer before the first key frame, and scrcpy
sends that buffer as its own config packet; libx264 puts them in front of the IDR frame instead, so they are
split off here to give the client exactly what a phone's stream looks like.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import av
from PIL import Image

from relay_desktop.mirror.protocol import split_nal_units

__all__ = ["EncodedPacket", "H264Encoder"]

_PARAMETER_SETS = (7, 8)   # SPS, PPS


@dataclass(frozen=True)
class EncodedPacket:
    data: bytes
    config: bool
    key_frame: bool
    pts_us: int


class H264Encoder:
    def __init__(self, width: int, height: int, *, fps: int = 60, bit_rate: int = 8_000_000,
                 key_interval_s: float = 10.0) -> None:
        # Even sizes only: 4:2:0 chroma is subsampled by two in both directions.
        self.width, self.height = width - width % 2, height - height % 2
        self._ctx = av.CodecContext.create("libx264", "w")
        ctx = self._ctx
        ctx.width, ctx.height, ctx.pix_fmt = self.width, self.height, "yuv420p"
        ctx.time_base = Fraction(1, 1_000_000)
        ctx.framerate = Fraction(fps, 1)
        ctx.bit_rate = bit_rate
        ctx.gop_size = max(1, int(fps * key_interval_s))
        ctx.options = {"preset": "ultrafast", "tune": "zerolatency", "bframes": "0", "repeat-headers": "0"}
        self._force_key = True

    def request_key_frame(self) -> None:
        self._force_key = True

    def encode(self, image: Image.Image, pts_us: int) -> list[EncodedPacket]:
        if image.size != (self.width, self.height):
            image = image.crop((0, 0, self.width, self.height))
        frame = av.VideoFrame.from_image(image.convert("RGB")).reformat(format="yuv420p")
        frame.pts = pts_us
        if self._force_key:
            frame.pict_type = av.video.frame.PictureType.I
            self._force_key = False
        out: list[EncodedPacket] = []
        for packet in self._ctx.encode(frame):
            data = bytes(packet)
            key = bool(packet.is_keyframe)
            if key:
                units = split_nal_units(data)
                config = b"".join(u for u in units if u[4] & 0x1F in _PARAMETER_SETS)
                rest = b"".join(u for u in units if u[4] & 0x1F not in _PARAMETER_SETS)
                if config:
                    out.append(EncodedPacket(config, True, False, 0))
                data = rest
            out.append(EncodedPacket(data, False, key, pts_us))
        return out
