"""The device context cache: static facts read once, installed apps kept for five minutes, and the app in
front and the keyboard read afresh every time."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from relay_desktop.agent.loop.context import APPS_TTL_SECONDS, DeviceContextCache
from relay_desktop.device.models import AppInfo, CurrentApp, DeviceContext

TIMEOUT = 5.0
STATIC = DeviceContext(serial="counted", model="Pixel 8", manufacturer="Google", android_release="14", sdk=34,
                       locale="en-US", timezone="Europe/Berlin", screen_width=1080, screen_height=2400, density=420,
                       keyboard_shown=False, current_app=None)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingPhone:
    """Only what the cache asks for, each call counted; installed_apps can be held back on an event."""

    serial = "counted"

    def __init__(self) -> None:
        self.calls: dict[str, int] = {"device_context": 0, "installed_apps": 0, "current_app": 0, "keyboard_shown": 0}
        self.refresh_args: list[bool] = []
        self.app: CurrentApp | None = CurrentApp("com.android.settings", ".Settings")
        self.keyboard = False
        self.apps_gate: asyncio.Event | None = None
        self.apps_entered = asyncio.Event()

    async def device_context(self) -> DeviceContext:
        self.calls["device_context"] += 1
        return STATIC

    async def installed_apps(self, refresh: bool = False) -> list[AppInfo]:
        self.calls["installed_apps"] += 1
        self.refresh_args.append(refresh)
        self.apps_entered.set()
        if self.apps_gate is not None:
            await self.apps_gate.wait()
        return [AppInfo("com.google.android.deskclock", f"Clock #{self.calls['installed_apps']}")]

    async def current_app(self) -> CurrentApp | None:
        self.calls["current_app"] += 1
        return self.app

    async def keyboard_shown(self) -> bool:
        self.calls["keyboard_shown"] += 1
        return self.keyboard


def _cache() -> tuple[DeviceContextCache, CountingPhone, Clock]:
    phone, clock = CountingPhone(), Clock()
    return DeviceContextCache(phone, clock=clock), phone, clock  # type: ignore[arg-type]


async def test_installed_apps_are_fetched_once_within_the_ttl_and_again_after() -> None:
    cache, phone, clock = _cache()
    assert APPS_TTL_SECONDS == 300
    first = await cache.installed_apps()
    assert first[0].label == "Clock #1"
    clock.now += 299.9
    assert await cache.installed_apps() is first
    assert phone.calls["installed_apps"] == 1
    clock.now += 0.1                                   # 300 s after the fetch
    second = await cache.installed_apps()
    assert second[0].label == "Clock #2" and phone.calls["installed_apps"] == 2
    clock.now += 100
    assert await cache.installed_apps() is second       # the new fetch restarted the clock
    assert phone.refresh_args == [True, True]            # a lapsed TTL bypasses the phone's own cache


async def test_invalidate_apps_fetches_again_at_once() -> None:
    cache, phone, _ = _cache()
    await cache.installed_apps()
    cache.invalidate_apps()
    assert (await cache.installed_apps())[0].label == "Clock #2"
    assert phone.calls["installed_apps"] == 2


async def test_concurrent_callers_share_one_fetch() -> None:
    cache, phone, _ = _cache()
    phone.apps_gate = asyncio.Event()
    callers = asyncio.gather(cache.installed_apps(), cache.installed_apps(), cache.installed_apps())
    await asyncio.wait_for(phone.apps_entered.wait(), TIMEOUT)
    for _ in range(3):      # the other callers get their turns while the first fetch is held
        await asyncio.sleep(0)
    phone.apps_gate.set()
    results = await asyncio.wait_for(callers, TIMEOUT)
    assert phone.calls["installed_apps"] == 1
    assert results[0] is results[1] is results[2]


async def test_static_context_is_fetched_once() -> None:
    cache, phone, clock = _cache()
    assert await cache.static() is STATIC
    for _ in range(3):
        clock.now += 10_000
        await cache.static()
        await cache.current()
    assert phone.calls["device_context"] == 1


async def test_current_reads_the_app_in_front_and_the_keyboard_every_time() -> None:
    cache, phone, _ = _cache()
    assert await cache.current() == replace(STATIC, current_app=CurrentApp("com.android.settings", ".Settings"),
                                            keyboard_shown=False)
    phone.app = CurrentApp("com.google.android.keep", ".activities.BrowseActivity")
    phone.keyboard = True
    now = await cache.current()
    assert now.current_app == phone.app and now.keyboard_shown is True
    assert (now.model, now.timezone, now.screen_width) == ("Pixel 8", "Europe/Berlin", 1080)
    phone.app = None
    assert (await cache.current()).current_app is None
    assert phone.calls["current_app"] == phone.calls["keyboard_shown"] == 3
    assert phone.calls["device_context"] == 1
