"""The window's connection to a phone and its runs: device, mirror, one orchestrator run at a time.

Plain asyncio (no widgets): the window calls these coroutines and listens to the run's `EventBus`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relay_desktop.agent import AgentSettings, EventBus, Handlers, Orchestrator, RunResult
from relay_desktop.device.adb_server import AdbServer
from relay_desktop.device.device import Device
from relay_desktop.mirror.client import MirrorClient, MirrorError
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import SERVER_VERSION, ProvisioningError, ServerFile, provide_server
from relay_desktop.mirror.screencap_mirror import ScreencapMirror
from relay_desktop.mirror.sinks import FrameSink
from relay_desktop.paths import data_dir

__all__ = ["Session"]

log = logging.getLogger(__name__)


class Session:
    def __init__(self, bus: EventBus, screen: FrameSink, say: Callable[[str], None]) -> None:
        self.bus = bus
        self.screen = screen
        self.say = say
        self.adb = AdbServer()
        self.service: Any = None                 # the built-in virtual phone, when used
        self.device: Device | None = None
        self.mirror: MirrorClient | None = None
        self.fallback_mirror: ScreencapMirror | None = None
        self.agent: Orchestrator | None = None
        self.run_task: asyncio.Task[RunResult] | None = None
        self.on_connected: Callable[[str], None] | None = None   # a label for the status bar

    async def start_virtual_phone(self) -> Device:
        from relay_desktop.sim.service import VirtualPhoneService

        self.say("Starting the virtual phone…")
        self.service = VirtualPhoneService(port=0, adb=self.adb)
        await self.service.start()
        return await self.connect(self.service.serial, built_in=True)

    async def connect(self, serial: str | None, built_in: bool = False) -> Device:
        await self.adb.ensure_running()
        self.device = await self.adb.device(serial)
        if self.on_connected is not None:
            self.on_connected(f"Virtual phone ({self.device.serial})" if built_in else self.device.serial)
        self.say(f"Connected to {self.device.serial}; starting the live mirror…")
        await self._start_mirror(built_in)
        return self.device

    async def _start_mirror(self, built_in: bool) -> None:
        assert self.device is not None
        try:
            server = await provide_server(progress=lambda done, total: self.say(
                f"Downloading the scrcpy server: {done * 100 // total}%") if total else None)
        except ProvisioningError as exc:
            if not built_in:
                await self._fallback(str(exc))
                return
            # The virtual phone has the scrcpy server built in; any file stands in for the pushed jar.
            stand_in = data_dir() / "scrcpy" / "virtual-phone-server.jar"
            stand_in.parent.mkdir(parents=True, exist_ok=True)
            stand_in.write_bytes(b"The virtual phone runs its own scrcpy server.")
            server = ServerFile(Path(stand_in), SERVER_VERSION, "virtual phone")
        mirror = MirrorClient(self.device, server, max_size=1200)
        mirror.frame_sinks.append(self.screen)
        try:
            await mirror.start()
        except MirrorError as exc:
            await self._fallback(str(exc))
            return
        self.mirror = mirror
        await mirror.first_frame()
        self.say(f"Mirroring {mirror.device_name}")

    async def _fallback(self, reason: str) -> None:
        assert self.device is not None
        self.fallback_mirror = ScreencapMirror(self.device, reason)
        self.fallback_mirror.frame_sinks.append(self.screen)
        await self.fallback_mirror.start()
        self.say(self.fallback_mirror.notice)

    def start_run(self, task: str, models: Any, settings: AgentSettings, handlers: Handlers) -> Orchestrator:
        assert self.device is not None
        self.agent = Orchestrator(MirroredPhone(self.device, self.mirror), models, settings=settings, bus=self.bus,
                                  handlers=handlers)
        self.run_task = asyncio.get_running_loop().create_task(self.agent.run(task), name="agent-run")
        return self.agent

    async def close(self) -> None:
        if self.agent is not None and self.run_task is not None and not self.run_task.done():
            await self.agent.control.stop()
        for mirror in (self.mirror, self.fallback_mirror):
            if mirror is not None:
                with contextlib.suppress(Exception):
                    await mirror.stop()
        if self.service is not None:
            await self.service.stop()
