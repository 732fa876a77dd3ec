"""Reading the video socket: exact byte counts, frame headers, and config packets merged into the next packet.

Runs on the mirror's own thread (blocking reads on the adb connection), never on the event loop. Short reads
are normal on a socket — a frame's 40 kB arrive in pieces — so every read loops until it has its count, and
a connection that ends mid-read is a :class:`StreamClosed`, not a truncated frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from relay_desktop.mirror.protocol import FRAME_HEADER, ProtocolError, device_name, parse_codec_meta, parse_frame_header

__all__ = ["ByteSource", "StreamClosed", "VideoPacket", "VideoStream", "read_exactly"]

MAX_PACKET = 32 << 20     # a 4K key frame is a few MB; anything near this is a broken stream


class ByteSource(Protocol):
    def recv(self, size: int) -> bytes: ...


class StreamClosed(Exception):
    """The server closed the stream (it stopped, crashed, or the device went away)."""


def read_exactly(source: ByteSource, size: int) -> bytes:
    chunks, missing = [], size
    while missing:
        chunk = source.recv(min(missing, 1 << 20))
        if not chunk:
            got = size - missing
            raise StreamClosed(f"the stream ended after {got} of {size} bytes" if got else "the stream ended")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


@dataclass(frozen=True)
class VideoPacket:
    data: bytes              # config merged in front when one preceded it
    key_frame: bool
    pts_us: int
    has_config: bool         # a new configuration: the size may have changed (rotation)


class VideoStream:
    """The video socket of a scrcpy 3.x server: device name (first socket only), codec meta, then packets."""

    def __init__(self, source: ByteSource, *, first_socket: bool = True) -> None:
        self.source = source
        self.device_name = device_name(read_exactly(source, 64)) if first_socket else ""
        self.codec, self.width, self.height = parse_codec_meta(read_exactly(source, 12))
        if self.codec != "h264":
            raise ProtocolError(f"the server sends {self.codec}; Relay Desktop asks for h264")

    def packets(self) -> Iterator[VideoPacket]:
        config = b""
        while True:
            header = parse_frame_header(read_exactly(self.source, FRAME_HEADER.size))
            if header.size > MAX_PACKET:
                raise ProtocolError(f"a {header.size:,}-byte packet: the stream is out of step")
            data = read_exactly(self.source, header.size)
            if header.config:
                # PyAV cannot decode parameter sets alone; scrcpy's packet merger does the same.
                config = data
                continue
            yield VideoPacket(config + data, header.key_frame, header.pts_us or 0, bool(config))
            config = b""
