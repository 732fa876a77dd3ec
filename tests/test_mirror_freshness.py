"""A mirror frame shows the screen as it was when the device captured it, which on a busy machine can be a
second before it arrives. A model read such a frame (the contact list) beside a current UI dump (the contact
card) and took its own tap for a failure. Screenshots for the agent come from frames captured after the moment
the agent looks, dated by the stream's presentation timestamps."""

from __future__ import annotations

import asyncio
import time

import av

from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.mirror.sinks import LatestFrame
from relay_desktop.perception.pixels import pixel_signature, pixels_changed
from relay_desktop.sim.service import VirtualPhoneService
from tests.conftest import AdbTestServer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _frame(pts_s: float) -> av.VideoFrame:
    frame = av.VideoFrame(16, 16, "yuv420p")
    frame.pts = int(pts_s * 1_000_000)
    return frame


def test_frames_are_dated_by_their_capture_time_not_their_arrival() -> None:
    clock = Clock()
    latest = LatestFrame(clock=clock)
    clock.now = 100.05
    latest.on_frame(_frame(1.0))        # a prompt frame: the clocks differ by 99.05 s (plus the shortest latency)
    assert latest.captured_since(100.0) is True
    clock.now = 101.0
    latest.on_frame(_frame(1.2))        # arrives at 101.0 but was captured at ~100.25: 0.75 s late
    assert latest.captured_since(100.5) is False
    clock.now = 101.1
    latest.on_frame(_frame(1.5))        # captured at ~100.55
    assert latest.captured_since(100.5) is True


def test_a_stream_without_timestamps_is_taken_as_it_is() -> None:
    latest = LatestFrame()
    assert latest.captured_since(0.0) is False           # no frame yet
    frame = av.VideoFrame(16, 16, "yuv420p")
    latest.on_frame(frame)
    assert latest.captured_since(time.monotonic() + 60) is None


async def test_a_lagging_mirror_still_gives_the_agent_a_current_picture(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import relay_desktop.sim.scrcpy_server as server

    encode = server._scale_and_encode
    busy = False

    def slow_encode(*args):  # type: ignore[no-untyped-def]
        if busy:
            time.sleep(0.4)   # a busy moment: every frame arrives late
        return encode(*args)

    monkeypatch.setattr(server, "_scale_and_encode", slow_encode)
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"server")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    try:
        phone = MirroredPhone(device, mirror)
        assert await asyncio.wait_for(mirror.first_frame(10), 15)
        await asyncio.sleep(1.0)
        busy = True
        await asyncio.sleep(1.0)
        home = pixel_signature(await phone.screenshot())
        sim.phone.launch("com.android.settings")
        now = pixel_signature(await sim.phone.screenshot())
        moment = time.monotonic()
        stale = pixel_signature(await phone.screenshot())
        fresh = pixel_signature(await asyncio.wait_for(phone.screenshot_since(moment), 10))
    finally:
        await mirror.stop()
    assert pixels_changed(home, now)                  # the screen did change
    assert not pixels_changed(home, stale)            # the newest frame still showed the home screen ...
    assert not pixels_changed(now, fresh)             # ... the agent's picture shows Settings


async def test_the_first_picture_of_a_run_shows_the_screen_as_the_run_starts(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A reader saw the previous task's cart in the first picture of a run beside the launcher's element list: a
    frame captured just before the screen changed was still on its way and was dated after the run started."""
    import io

    from PIL import Image

    import relay_desktop.sim.scrcpy_server as server
    from relay_desktop.agent.events import ScreenCaptured
    from tests.agent_harness import Script, complete, run_task

    encode = server._scale_and_encode

    def steady_latency(*args):  # type: ignore[no-untyped-def]
        time.sleep(0.3)          # every frame takes 0.3 s to encode: the shortest latency is 0.3 s
        return encode(*args)

    monkeypatch.setattr(server, "_scale_and_encode", steady_latency)
    monkeypatch.setenv("RELAY_DESKTOP_OCR", "off")
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"server")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    stale_runs = 0
    try:
        assert await asyncio.wait_for(mirror.first_frame(10), 15)
        for app in ("com.android.settings", "com.google.android.contacts", "com.android.settings"):
            await asyncio.sleep(1.0)
            sim.phone.launch(app)                  # the screen changes just as a run starts
            run = await run_task(MirroredPhone(device, mirror), Script(lambda n, r: complete()), timeout=30)
            first = run.of(ScreenCaptured)[0]
            assert first.screenshot is not None
            seen = pixel_signature(Image.open(io.BytesIO(first.screenshot.jpeg)))
            truth = pixel_signature(await sim.phone.screenshot())
            stale_runs += pixels_changed(seen, truth)
    finally:
        await mirror.stop()
    assert stale_runs == 0, f"{stale_runs} of 3 runs began with a picture of the screen before the run"
