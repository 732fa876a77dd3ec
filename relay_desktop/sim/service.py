"""Run a virtual phone: the phone, its ADB endpoint on loopback, and (optionally) its adb connection.

This is the one place tests, the demo and ``relay-desktop sim`` start a virtual phone from::

    async with VirtualPhoneService(adb=AdbServer()) as service:
        device = await service.adb.device(service.serial)
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import TYPE_CHECKING

from relay_desktop.sim.adb_transport import AdbDeviceServer
from relay_desktop.sim.config import Faults, PhoneConfig
from relay_desktop.sim.phone import VirtualPhone

if TYPE_CHECKING:
    from relay_desktop.device.adb_server import AdbServer

log = logging.getLogger(__name__)


class VirtualPhoneService:
    def __init__(self, config: PhoneConfig | None = None, *, port: int = 0, host: str = "127.0.0.1",
                 adb: AdbServer | None = None, require_auth: bool = False, faults: Faults | None = None) -> None:
        self.phone = VirtualPhone(config, faults)
        self.adb = adb
        self.transport = AdbDeviceServer(self.phone, host=host, port=port, require_auth=require_auth)
        self._connected = False

    @property
    def port(self) -> int:
        return self.transport.port

    @property
    def serial(self) -> str:
        """The serial the adb server gives this phone (``adb -s SERIAL``)."""
        return f"127.0.0.1:{self.port}"

    async def start(self, wait_ready: bool = True) -> None:
        await self.transport.start()
        log.info("virtual phone listening on %s", self.serial)
        if self.adb is not None:
            await self.adb.ensure_running()
            try:
                await self.adb.connect(self.serial)
            except Exception:
                if wait_ready:
                    raise
                # An unauthorized phone still shows up in `adb devices`; the caller asked not to wait.
            self._connected = True
            if wait_ready:
                await self.adb.wait_for_state(self.serial, "device", timeout=15)

    def unplug(self) -> None:
        """Pull the cable: every connection to the adb server drops at once and new ones are refused, so adb
        lists the phone as offline (a network phone: it keeps trying to reconnect)."""
        self.transport.accepting = False
        self.transport.drop_connections()

    def replug(self) -> None:
        """Put the cable back: adb's next reconnect attempt finds the phone again (within about a second)."""
        self.transport.accepting = True

    async def stop(self) -> None:
        if self.adb is not None and self._connected:
            try:
                await self.adb.disconnect(self.serial)
            except Exception as exc:  # the adb server may already be gone; stopping must not fail
                log.debug("adb disconnect %s: %s", self.serial, exc)
            self._connected = False
        await self.transport.stop()

    async def __aenter__(self) -> VirtualPhoneService:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()
