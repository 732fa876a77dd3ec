"""The window's connection to a phone and its runs: device, mirror, one orchestrator run at a time.

Plain asyncio (no widgets): the window calls these coroutines and listens to the run's `EventBus`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from relay_desktop.agent import AgentSettings, EventBus, Handlers, Orchestrator, RunResult
from relay_desktop.device.adb_server import AdbServer
from relay_desktop.device.device import Device
from relay_desktop.device.errors import DeviceError
from relay_desktop.device.models import DeviceInfo
from relay_desktop.mirror.client import MirrorClient, MirrorError
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import ProvisioningError, provide_server, virtual_phone_server
from relay_desktop.mirror.screencap_mirror import ScreencapMirror
from relay_desktop.mirror.sinks import FrameSink
from relay_desktop.user_secrets import SecretStore

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
        self.display_size: tuple[int, int] | None = None   # the panel's natural size (``wm size``)
        self.mirror: MirrorClient | None = None
        self.fallback_mirror: ScreencapMirror | None = None
        self.agent: Orchestrator | None = None
        # The user's saved secrets (names for the model, values for the phone); None in tests that need none.
        self.secrets: Any = SecretStore()
        self.run_task: asyncio.Task[RunResult] | None = None
        self.on_connected: Callable[[str], None] | None = None   # a label for the status bar
        # Each stage of connecting, and how far along it is (0..1) when that is known.
        self.on_progress: Callable[[str, float | None], None] | None = None
        # The live mirror ended by itself (the phone unplugged, or its server died and would not restart), with
        # why; called on the event loop. Not called when this session lets the phone go itself.
        self.on_lost: Callable[[str], None] | None = None

    def _stage(self, text: str, fraction: float | None = None) -> None:
        if self.on_progress is not None:
            self.on_progress(text, fraction)

    @property
    def running(self) -> bool:
        return self.run_task is not None and not self.run_task.done()

    async def list_devices(self) -> list[DeviceInfo]:
        """What adb sees (starting a local server if none runs), without the built-in virtual phone."""
        await self.adb.ensure_running()
        own = self.service.serial if self.service is not None else None
        return [d for d in await self.adb.devices() if d.serial != own]

    async def start_virtual_phone(self) -> Device:
        from relay_desktop.sim.service import VirtualPhoneService

        await self.disconnect()
        self._stage("Starting the virtual phone…")
        self.say("Starting the virtual phone…")
        self.service = VirtualPhoneService(port=0, adb=self.adb)
        await self.service.start()
        return await self.connect(self.service.serial, built_in=True)

    async def connect_network(self, address: str, server: str = "") -> Device:
        """``adb connect`` a phone over the network, optionally through another computer's adb server."""
        await self.disconnect()
        if server:
            host, _, port = server.rpartition(":")
            self._stage(f"Reaching the adb server at {server}…")
            self.adb = AdbServer(host=host or server, port=int(port) if port.isdigit() else None)
        else:
            self.adb = AdbServer()
        await self.adb.ensure_running()
        if not address:                    # the remote server's own phones
            return await self.connect(None)
        self._stage(f"Connecting to {address}…")
        await self.adb.connect(address)
        serial = address if ":" in address else f"{address}:5555"
        await self.adb.wait_for_state(serial, "device", timeout=15)
        return await self.connect(serial)

    async def connect(self, serial: str | None, built_in: bool = False) -> Device:
        if not built_in:
            await self.disconnect()
        self._stage("Starting adb…")
        await self.adb.ensure_running()
        self._stage(f"Connecting to {serial or 'the phone'}…")
        self.device = await self.adb.device(serial)
        try:
            self.display_size = await self.device.screen_size()
        except DeviceError as exc:   # the picture's own size stands in: right for screenshots, not scaled frames
            log.warning("no display size from %s: %s", self.device.serial, exc)
            self.display_size = None
        if self.on_connected is not None:
            self.on_connected(f"Virtual phone ({self.device.serial})" if built_in else self.device.serial)
        self.say(f"Connected to {self.device.serial}; starting the live mirror…")
        await self._start_mirror(built_in)
        self._stage("", 1.0)
        return self.device

    async def disconnect(self) -> None:
        """Let go of the current phone (its mirror, and the virtual phone if it is the built-in one)."""
        if self.running:
            raise RuntimeError("Stop the run before switching phones.")
        await self._release()

    async def _release(self) -> None:
        mirrors = (self.mirror, self.fallback_mirror)
        self.mirror = self.fallback_mirror = None          # its end from here on is ours, not news
        for mirror in mirrors:
            if mirror is not None:
                with contextlib.suppress(Exception):
                    await mirror.stop()
        if self.device is not None:
            await self.device.close()
        if self.service is not None:
            service, self.service = self.service, None
            await service.stop()
        self.device = None
        self.display_size = None

    async def _start_mirror(self, built_in: bool) -> None:
        assert self.device is not None
        if built_in:
            server = virtual_phone_server()
        else:
            try:
                self._stage("Finding the scrcpy server…")
                server = await provide_server(progress=lambda done, total: self._stage(
                    f"Downloading the scrcpy server: {done * 100 // total}%", done / total) if total else None)
            except ProvisioningError as exc:
                await self._fallback(str(exc))
                return
        mirror = MirrorClient(self.device, server, max_size=1200, clipboard_autosync=True)  # copies come as made
        mirror.frame_sinks.append(self.screen)
        self._stage("Pushing and starting the scrcpy server…", 0.6)
        try:
            await mirror.start()
        except MirrorError as exc:
            await self._fallback(str(exc))
            return
        self.mirror = mirror
        loop = asyncio.get_running_loop()
        # The stream's end is seen on the mirror's reader thread; the news goes to the loop.
        mirror.on_end = lambda reason: loop.call_soon_threadsafe(self._mirror_ended, mirror, reason)
        self._stage("Waiting for the first frame…", 0.9)
        await mirror.first_frame()
        self.say(f"Mirroring {mirror.device_name}")

    def _mirror_ended(self, mirror: MirrorClient, reason: str | None) -> None:
        if reason and mirror is self.mirror and self.on_lost is not None:
            self.on_lost(reason)

    async def _fallback(self, reason: str) -> None:
        assert self.device is not None
        self.fallback_mirror = ScreencapMirror(self.device, reason)
        self.fallback_mirror.frame_sinks.append(self.screen)
        await self.fallback_mirror.start()
        self.say(self.fallback_mirror.notice)

    def start_run(self, task: str, models: Any, settings: AgentSettings, handlers: Handlers, routine: Any = None,
                  prepare: Callable[[Orchestrator], Awaitable[None]] | None = None) -> Orchestrator:
        """Start a run of ``task``, replaying ``routine`` (a BoundRoutine) first when given. ``prepare`` is awaited
        in the run's own task before the agent starts — the window looks there for a saved routine the task is,
        off the loop, while the run already counts as going (Stop works, a second Start cannot slip in)."""
        assert self.device is not None
        self.agent = Orchestrator(MirroredPhone(self.device, self.mirror), models, settings=settings, bus=self.bus,
                                  handlers=handlers, routine=routine, secrets=self.secrets)
        self.run_task = asyncio.get_running_loop().create_task(self._run(self.agent, task, prepare), name="agent-run")
        return self.agent

    @staticmethod
    async def _run(agent: Orchestrator, task: str,
                   prepare: Callable[[Orchestrator], Awaitable[None]] | None) -> RunResult:
        if prepare is not None:
            await prepare(agent)
        return await agent.run(task)

    async def close(self) -> None:
        if self.agent is not None and self.running:
            await self.agent.control.stop()
            await asyncio.wait({self.run_task}, timeout=5)   # type: ignore[arg-type]
            self.run_task.cancel()                          # type: ignore[union-attr]  (a no-op once it ended)
        await self._release()
