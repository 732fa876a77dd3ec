"""The mirror of last resort: a screenshot every half second when no scrcpy server can be had or the phone
refuses it, so the window still shows the phone — with a notice saying why it is slow."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import av
from PIL import Image

from relay_desktop.device.device import Device
from relay_desktop.device.errors import DeviceError
from relay_desktop.mirror.sinks import FrameSink, LatestFrame

__all__ = ["ScreencapMirror"]

log = logging.getLogger(__name__)


class ScreencapMirror:
    def __init__(self, device: Device, reason: str, interval_s: float = 0.5) -> None:
        self.device = device
        self.interval_s = interval_s
        self.latest = LatestFrame()
        self.frame_sinks: list[FrameSink] = [self.latest]
        self.notice = f"Live mirror unavailable ({reason}): showing a screenshot every {interval_s:g} s"
        self.error: str | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._poll(), name="screencap-mirror")

    async def _poll(self) -> None:
        while True:
            try:
                image = await self.device.screenshot()
            except DeviceError as exc:
                self.error = f"the phone stopped answering: {exc}"
                log.warning("screencap mirror: %s", exc)
                return
            frame = await asyncio.to_thread(_to_frame, image)
            for sink in self.frame_sinks:
                sink.on_frame(frame)
            await asyncio.sleep(self.interval_s)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def _to_frame(image: Image.Image) -> av.VideoFrame:
    return av.VideoFrame.from_image(image).reformat(format="yuv420p")
