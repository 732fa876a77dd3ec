"""What the mirror costs: CPU per frame of reader → decoder → screen conversion, against decoding alone; and
memory over a long session.

Run: .venv/bin/python benchmarks/mirror_pipeline.py [--frames 300] [--minutes 0]

The stream is recorded once (cached under the data folder): the virtual phone's shop catalogue at 1080×2400
scrolling a few pixels per frame and Settings pages — real UI content (text, cards, icons) — encoded at
60 fps by the same encoder the virtual phone's scrcpy server uses, framed as scrcpy 3.x sends it.
``--minutes N`` then plays it in a loop at 60 fps through the whole pipeline and prints resident memory.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relay_desktop.mirror.decoder import VideoDecoder
from relay_desktop.mirror.frame_convert import FrameConverter, YuvPlanes
from relay_desktop.mirror.protocol import codec_meta, encode_device_name, frame_header
from relay_desktop.mirror.stream import VideoPacket, VideoStream
from relay_desktop.paths import data_dir
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import find
from relay_desktop.sim.video_encoder import H264Encoder


class Memory:
    """An in-memory socket: ``recv`` hands out what was recorded, in TCP-sized pieces."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = memoryview(data), 0

    def recv(self, size: int) -> bytes:
        chunk = bytes(self.data[self.pos:self.pos + min(size, 65536)])
        self.pos += len(chunk)
        return chunk


async def record(frames: int) -> bytes:
    phone = VirtualPhone()
    phone.launch("com.relay.shop")
    promo = find(await phone.dump_hierarchy(), text="No thanks")
    if promo is not None:
        await phone.tap(*promo.center)
    encoder = H264Encoder(1080, 2400)
    out = [encode_device_name("Relay Virtual Phone"), codec_meta("h264", 1080, 2400)]
    for n in range(frames):
        if n == frames // 2:
            phone.launch("com.google.android.contacts")
        # A steady scroll, 60 px a frame (3600 px/s, a brisk fling), turning back every 40 frames.
        step = 60 if (n // 40) % 2 == 0 else -60
        await phone.swipe(540, 1600, 540, 1600 - step, 16)
        image = await phone.screenshot()
        for packet in encoder.encode(image, n * 16_667):
            out.append(frame_header(len(packet.data), pts_us=packet.pts_us, config=packet.config,
                                    key_frame=packet.key_frame))
            out.append(packet.data)
    return b"".join(out)


def packets_of(data: bytes) -> list[VideoPacket]:
    stream = VideoStream(Memory(data))
    packets = []
    try:
        for packet in stream.packets():
            packets.append(packet)
    except Exception:  # the recording's end
        pass
    return packets


def decode_only(packets: list[VideoPacket]) -> float:
    decoder = VideoDecoder()
    started = time.process_time()
    for packet in packets:
        decoder.decode(packet)
    return time.process_time() - started


def whole_pipeline(data: bytes, bgra: bool) -> tuple[float, float, int]:
    decoder, converter = VideoDecoder(), FrameConverter()
    started_cpu, started_wall = time.process_time(), time.perf_counter()
    count = 0
    stream = VideoStream(Memory(data))
    try:
        for packet in stream.packets():
            for frame in decoder.decode(packet):
                if bgra:
                    converter.to_bgra(frame)
                else:
                    YuvPlanes.of(frame).planes()
                count += 1
    except Exception:  # the recording's end
        pass
    return time.process_time() - started_cpu, time.perf_counter() - started_wall, count


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def soak(data: bytes, minutes: float) -> None:
    packets = packets_of(data)
    decoder, converter = VideoDecoder(), FrameConverter()
    interval = 1 / 60
    start = time.perf_counter()
    baseline = None
    samples = []
    n = 0
    while time.perf_counter() - start < minutes * 60:
        packet = packets[n % len(packets)]
        for frame in decoder.decode(packet):
            converter.to_bgra(frame)
        n += 1
        if n == 600:
            baseline = rss_mb()
        if baseline is not None and n % 3600 == 0:
            samples.append(rss_mb() - baseline)
        delay = start + n * interval - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    growth = rss_mb() - (baseline or rss_mb())
    print(f"memory over {minutes:g} min at 60 fps ({n:,} frames): grew {growth:+.1f} MB after the first 10 s "
          f"(per-minute samples: {', '.join(f'{s:+.1f}' for s in samples) or '-'})")


def main(frames: int, runs: int, minutes: float) -> None:
    cache = data_dir() / "benchmarks" / f"mirror-stream-{frames}.h264s"
    if not cache.exists():
        print(f"recording {frames} frames of 1080x2400 UI (once; cached at {cache}) …", flush=True)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(asyncio.run(record(frames)))
    data = cache.read_bytes()
    packets = packets_of(data)
    decode, planes, bgra, walls = [], [], [], []
    for _ in range(runs):
        decode.append(decode_only(packets) / len(packets) * 1000)
        cpu, wall, count = whole_pipeline(data, bgra=False)
        planes.append(cpu / count * 1000)
        walls.append(count / wall)
        cpu, _, count = whole_pipeline(data, bgra=True)
        bgra.append(cpu / count * 1000)
    d, y, b = statistics.median(decode), statistics.median(planes), statistics.median(bgra)
    print(f"{len(packets)} frames of 1080x2400 H.264 ({len(data) / len(packets) / 1024:.0f} kB/frame), "
          f"median of {runs} runs")
    print(f"  decode only                        {d:6.2f} ms CPU/frame")
    print(f"  reader+decoder+YUV planes (screen) {y:6.2f} ms CPU/frame   = {y / d:.2f}× decode only")
    print(f"  reader+decoder+BGRA (no OpenGL)    {b:6.2f} ms CPU/frame   = {b / d:.2f}× decode only")
    print(f"  sustained, YUV path                {statistics.median(walls):6.0f} frames/s (wall)")
    if minutes:
        soak(data, minutes)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--minutes", type=float, default=0.0, help="also play the stream this long and print memory")
    arguments = parser.parse_args()
    main(arguments.frames, arguments.runs, arguments.minutes)
