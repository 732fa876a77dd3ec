"""The video path without a phone: a MediaCodec-shaped H.264 stream, delivered in fragments, decoded at once."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from relay_desktop.mirror.decoder import VideoDecoder
from relay_desktop.mirror.protocol import ProtocolError, codec_meta, encode_device_name, frame_header, split_nal_units
from relay_desktop.mirror.stream import StreamClosed, VideoStream, read_exactly
from relay_desktop.sim.video_encoder import H264Encoder


class Fragmented:
    """A socket that hands out at most a few hundred bytes per recv, like a busy TCP connection."""

    def __init__(self, data: bytes, seed: int = 7) -> None:
        self.data, self.pos, self.rng = data, 0, random.Random(seed)

    def recv(self, size: int) -> bytes:
        n = min(size, self.rng.randint(1, 700))
        chunk = self.data[self.pos:self.pos + n]
        self.pos += len(chunk)
        return chunk


def picture(size: tuple[int, int], n: int) -> Image.Image:
    image = Image.new("RGB", size, (30 + n * 20, 90, 160))
    ImageDraw.Draw(image).rectangle((20, 40 + n * 30, 200, 90 + n * 30), fill="white")
    return image


def stream_bytes(sizes: list[tuple[int, int]], frames_each: int = 3) -> bytes:
    out = [encode_device_name("Relay Virtual Phone"), codec_meta("h264", *sizes[0])]
    pts = 0
    for size in sizes:  # a new size = a rotation: the encoder restarts, sending new config + key frame
        encoder = H264Encoder(*size)
        for n in range(frames_each):
            for packet in encoder.encode(picture(size, n), pts):
                out.append(frame_header(len(packet.data), pts_us=packet.pts_us, config=packet.config,
                                        key_frame=packet.key_frame))
                out.append(packet.data)
            pts += 16_666
    return b"".join(out)


def test_fragmented_stream_decodes_every_frame_without_delay_and_follows_rotation() -> None:
    stream = VideoStream(Fragmented(stream_bytes([(540, 1200), (1200, 540)])))
    assert (stream.device_name, stream.codec, stream.width, stream.height) == ("Relay Virtual Phone", "h264", 540,
                                                                               1200)
    decoder = VideoDecoder()
    sizes = []
    packets = stream.packets()
    for _ in range(6):
        packet = next(packets)
        frames = decoder.decode(packet)
        assert len(frames) == 1, "a frame was held back by the decoder"
        sizes.append((frames[0].width, frames[0].height, packet.has_config))
    assert sizes == [(540, 1200, True), (540, 1200, False), (540, 1200, False),
                     (1200, 540, True), (1200, 540, False), (1200, 540, False)]
    with pytest.raises(StreamClosed, match="the stream ended"):
        next(packets)


def test_a_stream_cut_mid_packet_is_reported_not_truncated() -> None:
    data = stream_bytes([(320, 640)], frames_each=1)
    stream = VideoStream(Fragmented(data[:-100]))
    with pytest.raises(StreamClosed, match=r"ended after \d+ of \d+ bytes"):
        list(stream.packets())


def test_a_non_scrcpy_stream_is_refused() -> None:
    with pytest.raises(ProtocolError, match="unknown video codec id"):
        VideoStream(Fragmented(bytes(64) + b"HTTP/1.1 200 OK\r\n"))
    with pytest.raises(StreamClosed):
        read_exactly(Fragmented(b"abc"), 4)


def test_the_encoder_splits_parameter_sets_like_mediacodec() -> None:
    packets = H264Encoder(320, 640).encode(picture((320, 640), 0), 0)
    assert [(p.config, p.key_frame) for p in packets] == [(True, False), (False, True)]
    assert {u[4] & 0x1F for u in split_nal_units(packets[0].data)} == {7, 8}
    assert all(u[4] & 0x1F not in (7, 8) for u in split_nal_units(packets[1].data))


def test_a_corrupt_packet_is_skipped_until_the_next_key_frame() -> None:
    from relay_desktop.mirror.decoder import DecodeError
    from relay_desktop.mirror.stream import VideoPacket

    stream = VideoStream(Fragmented(stream_bytes([(320, 640)], frames_each=2)))
    good = list(_take(stream.packets(), 2))
    decoder = VideoDecoder()
    assert len(decoder.decode(good[0])) == 1
    with pytest.raises(DecodeError):
        decoder.decode(VideoPacket(b"\x00\x00\x00\x01\x65" + b"\xff" * 8, False, 1, False))
    assert decoder.decode(good[1]) == []            # a P-frame on broken references: not shown
    assert len(decoder.decode(good[0])) == 1        # the next key frame brings the picture back


def _take(iterator, n):  # type: ignore[no-untyped-def]
    for _ in range(n):
        yield next(iterator)
