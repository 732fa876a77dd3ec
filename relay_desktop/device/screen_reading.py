"""How a phone's screen is read: uiautomator2's server where it runs, ``uiautomator dump`` otherwise.

Part of :class:`relay_desktop.device.device.Device` (a mixin, so the device's one ``shell`` with its recovery and
its notices serve both paths); kept apart because which path reads the screen, and falling from one to the
other, is its own decision.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from relay_desktop.device.errors import DeviceError, HierarchyDumpError

if TYPE_CHECKING:
    from relay_desktop.device.models import ShellResult
    from relay_desktop.device.ui_server import UiServer

log = logging.getLogger(__name__)

DUMP_PATH = "/data/local/tmp/relay_window_dump.xml"


class ScreenReading:
    serial: str
    command_timeout: float
    ui_server: UiServer
    _notify: Callable[[str], None]

    if TYPE_CHECKING:   # Device's, with its recovery when the phone drops off the bus
        async def shell(self, command: str, **kwargs: Any) -> ShellResult: ...

    async def start_reading(self) -> str:
        """Start the uiautomator2 server if this phone can run it; one line for the run's log saying how the
        screen will be read."""
        if await self.ui_server.start():
            return "Screen read by the uiautomator2 server on the phone (fast, no wait for an idle screen)"
        return f"Screen read with `uiautomator dump` (the uiautomator2 server is not available: {self.ui_server.error})"

    async def dump_hierarchy(self, retries: int = 3, backoff: float = 0.3) -> str:
        """The window hierarchy XML: from the uiautomator2 server where it runs, else ``uiautomator dump``."""
        if await self.ui_server.start():         # at once False once it failed: asked once, not every step
            try:
                return await self.ui_server.dump_hierarchy()
            except DeviceError as exc:
                # uiautomator2 already restarted its server once inside the call; give it up for this phone.
                # It is stopped first: while it holds UiAutomation, `uiautomator dump` fails on a real phone.
                self.ui_server.error = f"it stopped answering ({exc})"
                await self.ui_server.stop()
                self._notify(f"The uiautomator2 server on {self.serial} stopped answering ({exc}); the screen is "
                             "read with `uiautomator dump` from now on (slower).")
        return await self._uiautomator_dump(retries, backoff)

    async def _uiautomator_dump(self, retries: int, backoff: float) -> str:
        """The ``uiautomator dump`` XML, retried while the screen is busy animating."""
        command = f"uiautomator dump {DUMP_PATH} && cat {DUMP_PATH}"
        output = ""
        for attempt in range(retries + 1):
            result = await self.shell(command, timeout=max(self.command_timeout, 20), idempotent=True)
            output = result.output
            start, end = result.stdout.find("<?xml"), result.stdout.rfind("</hierarchy>")
            if "ERROR" not in output and start != -1 and end != -1:
                return result.stdout[start:end + len("</hierarchy>")]
            if attempt < retries:
                log.debug("uiautomator dump failed (%s), retry %d", output.strip(), attempt + 1)
                await asyncio.sleep(backoff * 2 ** attempt)
        # uiautomator says why on a line of its own ("ERROR: could not get idle state."); `cat` then fails too.
        reasons = [line for line in output.splitlines() if "ERROR" in line]
        raise HierarchyDumpError(f"uiautomator dump {DUMP_PATH}", reasons[-1] if reasons else output or "no output",
                                 None)

    async def close(self) -> None:
        """Let go of what runs on the phone for this app (the uiautomator2 server)."""
        await self.ui_server.stop()
