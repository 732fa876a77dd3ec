"""Device context for every prompt, fetched no more often than it changes.

What never changes during a run (model, Android version, locale, time zone, screen size) is read once;
the installed apps are cached for five minutes (the spec's DeviceContextCache); what changes every step
(the app in front, the keyboard) is read with each capture, concurrently with the screenshot and the dump.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace

from relay_desktop.agent.ports import Phone
from relay_desktop.device.models import AppInfo, DeviceContext

__all__ = ["APPS_TTL_SECONDS", "DeviceContextCache"]

APPS_TTL_SECONDS = 300.0


class DeviceContextCache:
    def __init__(self, phone: Phone, *, ttl: float = APPS_TTL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.phone = phone
        self.ttl = ttl
        self._clock = clock
        self._static: DeviceContext | None = None
        self._apps: tuple[float, list[AppInfo]] | None = None
        self._apps_lock = asyncio.Lock()
        self._static_lock = asyncio.Lock()

    async def static(self) -> DeviceContext:
        async with self._static_lock:  # concurrent first callers share one read
            if self._static is None:
                self._static = await self.phone.device_context()
            return self._static

    async def current(self) -> DeviceContext:
        """The static context with this moment's app in front and keyboard state."""
        base, app, keyboard = await asyncio.gather(self.static(), self.phone.current_app(),
                                                   self.phone.keyboard_shown())
        return replace(base, current_app=app, keyboard_shown=keyboard)

    async def installed_apps(self) -> list[AppInfo]:
        async with self._apps_lock:
            now = self._clock()
            if self._apps is not None and now - self._apps[0] < self.ttl:
                return self._apps[1]
            # The phone's own cache would hand back the same list; a lapsed TTL here means "ask again".
            apps = await self.phone.installed_apps(refresh=True)
            self._apps = (now, apps)
            return apps

    def invalidate_apps(self) -> None:
        self._apps = None
