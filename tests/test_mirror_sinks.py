"""Frame sinks: the newest frame as a screenshot, knowing when the screen is still, recording without re-encoding."""

from __future__ import annotations

import asyncio
from pathlib import Path

import av
import pytest
from PIL import Image, ImageDraw

from relay_desktop.mirror.decoder import VideoDecoder
from relay_desktop.mirror.sinks import LatestFrame, Mp4Recorder, SettleDetector
from relay_desktop.mirror.stream import VideoStream
from tests.test_mirror_stream import Fragmented, stream_bytes


def frame_of(image: Image.Image) -> av.VideoFrame:
    return av.VideoFrame.from_image(image).reformat(format="yuv420p")


def screen(offset: int, text: str = "") -> Image.Image:
    image = Image.new("RGB", (320, 640), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, offset, 320, offset + 120), fill=(30, 60, 200))
    if text:
        draw.text((10, 600), text, fill="black")
    return image


async def test_the_latest_frame_wins_and_becomes_a_screenshot() -> None:
    news: list[int] = []
    latest = LatestFrame(on_new=lambda: news.append(1))
    with pytest.raises(LookupError, match="no frame has arrived"):
        await latest.screenshot()
    for offset in (0, 100, 200):
        latest.on_frame(frame_of(screen(offset)))
    _, serial = latest.take()
    assert serial == 3 and len(news) == 3 and latest.size == (320, 640)
    shot = await latest.screenshot()
    assert shot.size == (320, 640)
    r, _, b = shot.getpixel((160, 250))           # the newest frame's bar is at 200-320
    assert b > 150 and r < 90


async def test_settle_detection_follows_real_changes_not_tiny_ones() -> None:
    now = [0.0]
    settle = SettleDetector(clock=lambda: now[0])
    settle.on_frame(frame_of(screen(0)))
    now[0] = 0.1
    settle.on_frame(frame_of(screen(120)))        # the list scrolled: a change
    assert settle.last_change == 0.1
    now[0] = 0.2
    settle.on_frame(frame_of(screen(120, ".")))   # a cursor-sized difference: not a change
    assert settle.last_change == 0.1
    now[0] = 0.5
    assert settle.still_for() == pytest.approx(0.4)
    assert await asyncio.wait_for(settle.wait_settled(0.3, timeout=1), 2) is True


async def test_waiting_for_a_screen_that_never_settles_gives_up() -> None:
    settle = SettleDetector()
    offset = 0

    async def animate() -> None:
        nonlocal offset
        while True:
            offset = (offset + 40) % 500
            settle.on_frame(frame_of(screen(offset)))
            await asyncio.sleep(0.01)

    animation = asyncio.ensure_future(animate())
    try:
        assert await asyncio.wait_for(settle.wait_settled(0.2, timeout=0.3), 2) is False
    finally:
        animation.cancel()


def test_recording_remuxes_the_stream_into_a_playable_mp4(tmp_path: Path) -> None:
    stream = VideoStream(Fragmented(stream_bytes([(320, 640)], frames_each=8)))
    recorder = Mp4Recorder(tmp_path / "run.mp4")
    decoder = VideoDecoder()
    for _, packet in zip(range(8), stream.packets(), strict=False):
        recorder.on_packet(packet)
        decoder.decode(packet)
    recorder.close()
    with av.open(str(tmp_path / "run.mp4")) as container:
        video = container.streams.video[0]
        frames = list(container.decode(video))
    assert len(frames) == 8 and (video.width, video.height) == (320, 640)
    assert recorder.packets == 8


def test_frames_convert_to_bgra_rows_with_their_stride() -> None:
    from relay_desktop.mirror.frame_convert import FrameConverter

    converter = FrameConverter()
    bgra = converter.to_bgra(frame_of(screen(0)))
    assert (bgra.width, bgra.height) == (320, 640) and bgra.stride >= 320 * 4
    b, _, r, _ = bgra.pixels[10 * bgra.stride + 40:10 * bgra.stride + 44]    # inside the blue bar
    assert b > 150 and r < 90
    assert converter.to_bgra(frame_of(screen(300))).width == 320            # the same scaler, reused


def test_yuv_planes_hand_over_the_decoder_s_buffers() -> None:
    from relay_desktop.mirror.frame_convert import YuvPlanes

    planes = YuvPlanes.of(frame_of(screen(0))).planes()
    (y, y_stride), (u, u_stride), (v, _) = planes
    assert y_stride >= 320 and u_stride >= 160
    assert len(y) >= 320 * 640 and len(u) >= 160 * 320 and len(v) == len(u)
    assert y[5 * y_stride + 5] < 100                       # the blue bar is dark in luma
    with pytest.raises(ValueError, match="expected yuv420p"):
        YuvPlanes.of(av.VideoFrame.from_image(screen(0)))
