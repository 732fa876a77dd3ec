"""Tasks in Settings."""

from __future__ import annotations

from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import CheckResult, Driver, Task, failed, find, fresh_start, passed, tap_on

SETTINGS = "com.android.settings"


def _wifi_off(phone: VirtualPhone) -> None:
    phone.settings["global"]["wifi_on"] = "0"
    fresh_start(phone, SETTINGS)


def _wifi_is_on(phone: VirtualPhone) -> CheckResult:
    value = phone.setting("global", "wifi_on")
    return passed("Wi-Fi is on") if value == "1" else failed(f"wifi_on is {value!r}")


async def _turn_on_wifi(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Network & internet")
    await tap_on(driver, text="Wi-Fi")


def _bluetooth_on(phone: VirtualPhone) -> None:
    phone.settings["global"]["bluetooth_on"] = "1"
    fresh_start(phone, SETTINGS)


def _bluetooth_is_off(phone: VirtualPhone) -> CheckResult:
    value = phone.setting("global", "bluetooth_on")
    return passed("Bluetooth is off") if value == "0" else failed(f"bluetooth_on is {value!r}")


async def _turn_off_bluetooth(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Connected devices")
    await tap_on(driver, text="Bluetooth")


def _light_theme(phone: VirtualPhone) -> None:
    phone.settings["secure"]["ui_night_mode"] = "1"
    phone.settings["system"]["screen_brightness"] = "128"
    fresh_start(phone, SETTINGS)


def _dark_and_dim(phone: VirtualPhone) -> CheckResult:
    dark = phone.setting("secure", "ui_night_mode") == "2"
    brightness = int(phone.setting("system", "screen_brightness"))
    if not dark:
        return failed("dark theme is off")
    if brightness > 64:
        return failed(f"brightness is {brightness}/255, expected at most 25%")
    return passed(f"dark theme on, brightness {brightness}/255")


async def _dark_theme_low_brightness(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Display")
    await tap_on(driver, text="Dark theme")
    xml = await driver.dump_hierarchy()
    bar = find(xml, id="brightness_seekbar")
    if bar is None:
        raise AssertionError("no brightness slider")
    left, top, right, bottom = bar.bounds
    await driver.tap(left + (right - left) // 10, (top + bottom) // 2)


def _android_version_unknown(phone: VirtualPhone) -> None:
    fresh_start(phone, SETTINGS)


def _about_phone_open(phone: VirtualPhone) -> CheckResult:
    focused = phone.focused_activity()
    if focused == (SETTINGS, ".DeviceInfoActivity"):
        return passed("About phone is open")
    return failed(f"front activity is {focused}")


async def _open_about_phone(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="About phone")


TASKS = [
    Task("wifi_on", "Turn on Wi-Fi", _wifi_off, _wifi_is_on, _turn_on_wifi, apps=(SETTINGS,), max_steps=6),
    Task("bluetooth_off", "Turn off Bluetooth", _bluetooth_on, _bluetooth_is_off, _turn_off_bluetooth,
         apps=(SETTINGS,), max_steps=6),
    Task("dark_theme_dim", "Switch on dark theme and turn the brightness down to 10%", _light_theme, _dark_and_dim,
         _dark_theme_low_brightness, apps=(SETTINGS,), max_steps=8),
    Task("about_phone", "Show me which Android version this phone runs (open About phone)",
         _android_version_unknown, _about_phone_open, _open_about_phone, apps=(SETTINGS,), max_steps=5),
]
