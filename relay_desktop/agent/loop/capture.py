"""One look at the phone — screenshot, UI dump and the app in front, all at once — and what of its picture may
leave the machine. Every look goes through here (a run's loop, a split screen's two loops, a routine's replay,
the MCP server), so these decisions are made in one place:

- a protected screen (FLAG_SECURE: the picture is black while the dump lists elements) keeps no picture and no
  text read off it; the observation says ``withheld=PROTECTED`` and the model is told in plain words;
- an app the user listed as private (Settings → Private apps) keeps no picture either (``PRIVATE_APP``);
- a password field's pixels are painted over before the picture is encoded, and text read inside one is dropped,
  so neither reaches a prompt, the history, an export or the window's recording of the run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from relay_desktop.agent.loop.context import DeviceContextCache
from relay_desktop.agent.loop.observation import PRIVATE_APP, PROTECTED, Observation
from relay_desktop.agent.ports import Phone, screenshot_at
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.perception import (
    ElementMap,
    PreparedScreenshot,
    build_element_map,
    parse_hierarchy,
    prepare_screenshot_async,
)
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.ocr import OcrEngine, OcrText, OcrUnavailableError, scale_to_screen
from relay_desktop.perception.pixels import pixel_signature, pixels_same
from relay_desktop.perception.privacy import is_blank_frame, mask_regions, outside_regions, password_regions
from relay_desktop.perception.screenshot import integer_side
from relay_desktop.perception.tree import UITree

__all__ = ["PRIVATE_APP", "PROTECTED", "ScreenCapture"]

# A black frame's thumbnail averages at most ~10 grey levels (perception.privacy.is_blank_frame allows 0.5% of
# bright pixels); above this mean a picture cannot be one.
_DARK_MEAN = 12


class ScreenCapture:
    """Looks at one phone for one loop; keeps the OCR engine and the last picture it read."""

    def __init__(self, phone: Phone, context: DeviceContextCache, settings: AgentSettings,
                 log: Callable[[str, str], None]) -> None:
        self.phone = phone
        self.context = context
        self.settings = settings
        self.log = log
        self.ocr: OcrEngine | None = OcrEngine.load() if settings.ocr and settings.screenshots else None
        self._ocr_last: tuple[bytes, tuple[int, int], list[OcrText]] | None = None  # picture, size, lines

    async def capture(self, previous: ElementMap | None, read_text: bool = True,
                      since: float | None = None) -> Observation:
        """The screen now. The screenshot's JPEG is prepared as soon as it arrives, while the (slower) dump is
        still running, and text is read off it (OCR) at the same time, for what the dump never holds: toasts,
        canvases, web content. ``read_text=False`` skips the OCR (a routine's replay looks for dump elements
        only). ``since``: a moment after which the screen is known not to have changed (the mirror saw it
        settle since then), so a frame from then on is as good as a new one."""
        started = time.perf_counter()
        # The picture must show the screen as it is from now on, like the dump.
        moment = since if since is not None else time.monotonic()
        shot_task = asyncio.ensure_future(self._picture(moment, read_text)) if self.settings.screenshots else None
        try:
            xml, context = await asyncio.gather(self.phone.dump_hierarchy(), self.context.current())
            blank, image, prepared, pixels, texts = (await shot_task if shot_task is not None
                                                     else (False, None, None, None, []))
            tree = parse_hierarchy(xml)
            # The whole display (a mirror frame may be scaled down; the dump's root can be shorter: no navigation
            # bar), turned as the dump says.
            display = (context.screen_width, context.screen_height)
            if tree.rotation % 2:
                display = display[::-1]
            withheld = self._withheld(tree, context, blank)
            if withheld:
                prepared, pixels, texts = None, None, []
            elif image is not None:
                texts = _screen_lines(texts, image.size, display, secret := password_regions(tree))
                if secret:
                    prepared = await self._masked(image, secret, display)
            element_map = await asyncio.to_thread(build_element_map, tree, previous, ocr=texts)
        except BaseException:
            if shot_task is not None:
                shot_task.cancel()
            raise
        if element_map.tree.rotation % 2:  # `wm size` gives the panel's natural size; the dump says how it is turned
            context = replace(context, screen_width=context.screen_height, screen_height=context.screen_width)
        capture_ms = (time.perf_counter() - started) * 1000
        return Observation.of(element_map, prepared, context, time.monotonic(), capture_ms, pixels,
                              withheld=withheld)

    async def _picture(self, moment: float, read_text: bool
                       ) -> tuple[bool, Any, PreparedScreenshot | None, bytes | None, list[OcrText]]:
        """(black, the picture, its JPEG, its thumbnail, the text in it). A black frame is neither encoded nor
        read: it is a protected screen's, or the screen is off, and shows a model nothing."""
        image = await screenshot_at(self.phone, moment)
        pixels = await asyncio.to_thread(pixel_signature, image)
        # Only a picture whose thumbnail is dark can be a black frame: the full check is not paid on every look.
        if sum(pixels) <= _DARK_MEAN * len(pixels) and await asyncio.to_thread(is_blank_frame, image):
            return True, image, None, None, []
        prepared, texts = await asyncio.gather(
            prepare_screenshot_async(image, max_bytes=self.settings.screenshot_max_bytes,
                                     max_side=integer_side(*image.size)),
            self.read_text(image, pixels) if read_text else _no_text())
        return False, image, prepared, pixels, texts

    def _withheld(self, tree: UITree, context: Any, blank: bool) -> str:
        """Why this screen's picture must not be sent, or ""."""
        shown = set(tree.packages)
        if context.current_app is not None:
            shown.add(context.current_app.package)
        if shown & set(self.settings.private_apps):
            return PRIVATE_APP
        # Black, yet the dump lists what is on screen: the window forbids capture (a screen that is off has no
        # elements to list).
        if blank and any(n.visible and not n.bounds.empty for n in tree.nodes):
            return PROTECTED
        return ""

    async def _masked(self, image: Any, regions: list[Bounds], display: tuple[int, int]) -> PreparedScreenshot:
        """The picture encoded again with the password fields (``regions``, in the display's pixels) painted
        over."""
        covered = await asyncio.to_thread(mask_regions, image, regions, display)
        return await prepare_screenshot_async(covered, max_bytes=self.settings.screenshot_max_bytes,
                                              max_side=integer_side(*covered.size))

    async def text_on_screen(self, image: Any, pixels: bytes, tree: UITree, display: tuple[int, int]
                             ) -> list[OcrText]:
        """The text read off a picture taken outside :meth:`capture` (a quick second look before acting), in
        screen pixels, none inside a password field (read again only if the picture changed)."""
        return _screen_lines(await self.read_text(image, pixels), image.size, display, password_regions(tree))

    async def read_text(self, image: Any, pixels: bytes) -> list[OcrText]:
        """Lines of text in the picture (the optional OCR pass); none when it is off or unavailable. The same
        picture as last time is not read again: on a still screen the dump is the only cost of a look."""
        if self.ocr is None:
            return []
        last = self._ocr_last
        if last is not None and last[1] == image.size and pixels_same(last[0], pixels):
            return last[2]
        try:
            texts = await self.ocr.read(image)
        except OcrUnavailableError as exc:
            self.ocr = None
            self.log(f"OCR stopped for this run: {exc}", "warning")
            return []
        self._ocr_last = (pixels, image.size, texts)
        return texts


async def _no_text() -> list[OcrText]:
    return []


def _screen_lines(texts: list[OcrText], size: tuple[int, int], display: tuple[int, int],
                  secret: list[Bounds]) -> list[OcrText]:
    """Lines read off a picture of ``size`` in the display's pixels (the picture shows the whole display, a
    mirror frame perhaps scaled down), without those inside a password field (``secret``)."""
    on_screen = scale_to_screen(texts, size, display) if texts else []
    return outside_regions(on_screen, secret) if secret and on_screen else on_screen
