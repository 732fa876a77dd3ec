"""The agent's phone, with a mirror behind it when one is running.

It has the agent's `Phone` shape and passes everything to the device over adb, except what the stream does
better: a screenshot is the latest decoded frame (no device round trip), "wait until the screen is still"
watches the frames instead of sleeping a fixed time, and text that adb cannot type (anything not ASCII) goes
through the clipboard and a paste. When the mirror stops, each of these falls back to adb on its own, and
subscribers to :meth:`MirroredPhone.subscribe_notices` (the run's log) are told once, with the reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from PIL import Image

from relay_desktop.device.device import Device
from relay_desktop.device.notices import tell
from relay_desktop.mirror.client import MirrorClient, MirrorError

__all__ = ["MirroredPhone"]

log = logging.getLogger(__name__)


class MirroredPhone:
    def __init__(self, device: Device, mirror: MirrorClient | None) -> None:
        self.device = device
        self.mirror = mirror
        self.serial = device.serial
        self._listeners: list[Callable[[str], None]] = []
        self._told_mirror_lost = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.device, name)

    @property
    def mirroring(self) -> bool:
        mirror = self.mirror
        return mirror is not None and mirror.live and mirror.latest.take()[0] is not None

    def subscribe_notices(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """The device's notices (connection lost and found) and this one: the mirror stopped, adb took over."""
        remove_device = self.device.subscribe_notices(callback)
        self._listeners.append(callback)
        if self.mirror is not None:
            self.mirror.notices.append(callback)        # it stopped and is restarting; it is back

        def unsubscribe() -> None:
            remove_device()
            if callback in self._listeners:
                self._listeners.remove(callback)
            if self.mirror is not None and callback in self.mirror.notices:
                self.mirror.notices.remove(callback)
        return unsubscribe

    def _notice_mirror_lost(self) -> None:
        mirror = self.mirror
        if mirror is None or mirror.error is None or self._told_mirror_lost:
            return
        self._told_mirror_lost = True
        message = (f"The live mirror stopped ({mirror.error}); screenshots now come over adb (slower), with a fixed "
                   "pause after each action.")
        tell(self._listeners, message, log)

    def describe(self) -> str:
        """One line for the run log: where screenshots and settling come from."""
        if self.mirroring:
            return "Mirror running: screenshots come from the video stream, and the agent waits for the screen " \
                   "to settle instead of sleeping"
        return "No mirror: screenshots over adb (screencap), fixed pause after actions"

    async def screenshot(self) -> Image.Image:
        self._notice_mirror_lost()
        if self.mirroring:
            assert self.mirror is not None
            try:
                return await self.mirror.latest.screenshot()
            except LookupError:
                pass
        return await self.device.screenshot()

    async def screenshot_since(self, moment: float, timeout: float = 2.0) -> Image.Image:
        """A picture of the screen as it was at ``moment`` (monotonic clock) or later: the first mirror frame
        captured since then; over adb when the mirror is too far behind (a screencap is always current)."""
        self._notice_mirror_lost()
        if self.mirroring:
            assert self.mirror is not None
            image = await self.mirror.latest.screenshot_since(moment, timeout)
            if image is not None:
                return image
            log.warning("the mirror is more than %.1f s behind the phone: this screenshot comes over adb", timeout)
        return await self.device.screenshot()

    async def wait_settled(self, still_s: float = 0.25, timeout: float = 2.0) -> bool:
        """True when the screen has been still for ``still_s`` (False: gave up after ``timeout``)."""
        self._notice_mirror_lost()
        if not self.mirroring:
            return False
        assert self.mirror is not None
        # First a frame captured after the action (the stream repeats every 100 ms even on a still screen), so
        # a screen that has not started to change yet, or frames still on their way, are not taken for a
        # settled screen.
        started = time.monotonic()
        latest = self.mirror.latest
        if latest.captured_since(started) is None:   # no capture times: at least a frame that arrived since
            _, serial = latest.take()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(timeout, 0.5)
            while latest.take()[1] == serial and loop.time() < deadline:
                await asyncio.sleep(0.01)
        elif not await latest.wait_captured_since(started, timeout):
            return False
        return await self.mirror.settle.wait_settled(still_s, max(0.0, timeout - (time.monotonic() - started)))

    async def type_text(self, text: str) -> None:
        if text.isascii() or not self.mirroring:
            await self.device.type_text(text)  # raises UnsupportedTextError for non-ASCII: a clear step error
            return
        assert self.mirror is not None
        try:
            await self.mirror.type_text(text)
        except MirrorError as exc:
            log.warning("typing through the mirror failed (%s); trying adb", exc)
            await self.device.type_text(text)
