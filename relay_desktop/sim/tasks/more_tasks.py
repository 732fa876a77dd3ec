"""More everyday tasks across the apps: a settings switch, a note edit, a website, an alarm, a call, a cart."""

from __future__ import annotations

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import Contacts, same_number
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock import Clock
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.keep import KeepNotes
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_ENTER,
    CheckResult,
    Driver,
    Task,
    failed,
    fresh_start,
    passed,
    scroll_to,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.settings_tasks import SETTINGS
from relay_desktop.sim.tasks.shop_tasks import _describe, _open_shop, _shop

YOGA_MAT, PHONE_CASE = 3, 8


def _fresh(*packages: str):  # type: ignore[no-untyped-def]
    return lambda phone: fresh_start(phone, *packages)


# ---------------------------------------------------------------- airplane mode

def _airplane_off(phone: VirtualPhone) -> None:
    phone.settings["global"]["airplane_mode_on"] = "0"
    fresh_start(phone, SETTINGS)


def _airplane_is_on(phone: VirtualPhone) -> CheckResult:
    value = phone.setting("global", "airplane_mode_on")
    return passed("airplane mode is on") if value == "1" else failed(f"airplane_mode_on is {value!r}")


async def _turn_on_airplane(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Network & internet")
    await tap_on(driver, text="Airplane mode")


# ---------------------------------------------------------------- add to a note

def _camera_added(phone: VirtualPhone) -> CheckResult:
    keep: KeepNotes = phone.apps[KEEP]  # type: ignore[assignment]
    notes = keep.titled("Packing list")
    if len(notes) != 1:
        return failed(f"{len(notes)} notes are titled 'Packing list'")
    body = notes[0].body.lower()
    lost = [item for item in ("passport", "sunscreen", "rain jacket") if item not in body]
    if lost:
        return failed(f"the note lost {', '.join(lost)}: {notes[0].body!r}")
    return passed("Camera is on the packing list") if "camera" in body else failed(f"no camera in {notes[0].body!r}")


async def _add_camera(driver: Driver) -> None:
    await driver.launch_app(KEEP)
    await tap_on(driver, text="Packing list")
    await type_into(driver, " Camera", id="edit_note_text")
    await tap_on(driver, desc="Navigate up")


# ---------------------------------------------------------------- open a website

def _on_weather_site(phone: VirtualPhone) -> CheckResult:
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    url = chrome.current_url or ""
    return passed(f"Chrome shows {url}") if "relayweather.com" in url else failed(f"Chrome shows {url or 'nothing'}")


async def _open_weather(driver: Driver) -> None:
    await driver.launch_app(CHROME)
    await type_into(driver, "relayweather.com", text="Search or type URL")
    await driver.press_key(KEY_ENTER)


# ---------------------------------------------------------------- switch an alarm on

def _gym_on(phone: VirtualPhone) -> CheckResult:
    clock: Clock = phone.apps[CLOCK]  # type: ignore[assignment]
    gym = clock.at(6, 30)
    others = [a for a in clock.alarms if (a.hour, a.minute) != (6, 30)]
    if len(clock.alarms) != 2 or not gym:
        return failed(f"alarms changed: {[a.time for a in clock.alarms]}")
    if not all(a.enabled for a in others if (a.hour, a.minute) == (8, 0)):
        return failed("the 08:00 alarm was turned off")
    return passed("the 06:30 Gym alarm is on") if gym[0].enabled else failed("the 06:30 alarm is still off")


async def _turn_on_gym(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Turn on 06:30 alarm")


# ---------------------------------------------------------------- call someone

def _called_grace(phone: VirtualPhone) -> CheckResult:
    contacts: Contacts = phone.apps[CONTACTS]  # type: ignore[assignment]
    if len(contacts.calls) == 1 and same_number(contacts.calls[0], "555-0175"):
        return passed("called Grace Liu")
    return failed(f"calls made: {contacts.calls or 'none'}; expected one call to Grace Liu (555-0175)")


async def _call_grace(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    node = await scroll_to(driver, text="Grace Liu")
    await driver.tap(*node.center)
    await tap_on(driver, text="Call")


# ---------------------------------------------------------------- two items in the cart

def _two_in_cart(phone: VirtualPhone) -> CheckResult:
    shop = _shop(phone)
    if shop.cart == {YOGA_MAT: 1, PHONE_CASE: 1}:
        return passed("a Yoga Mat and a Phone Case are in the cart")
    return failed(f"the cart holds {_describe(shop, shop.cart)}; expected one Yoga Mat and one Phone Case")


async def _add_two(driver: Driver) -> None:
    await _open_shop(driver)
    for name in ("Yoga Mat", "Phone Case"):
        node = await scroll_to(driver, desc=f"Add {name} to cart")
        await driver.tap(*node.center)


TASKS: list[Task] = [
    Task("airplane_on", "Turn on airplane mode", _airplane_off, _airplane_is_on, _turn_on_airplane,
         apps=(SETTINGS,), tags=("settings", "toggle"), max_steps=8),
    Task("notes_add_camera", "Add Camera to my packing list note", _fresh(KEEP), _camera_added, _add_camera,
         apps=(KEEP,), tags=("notes", "edit"), max_steps=10),
    Task("chrome_open_weather", "Open relayweather.com in Chrome", _fresh(CHROME), _on_weather_site, _open_weather,
         apps=(CHROME,), tags=("chrome",), max_steps=8),
    Task("clock_gym_on", "Turn on my gym alarm", _fresh(CLOCK), _gym_on, _turn_on_gym, apps=(CLOCK,),
         tags=("clock", "toggle"), max_steps=8),
    Task("contacts_call_grace", "Call Grace Liu", _fresh(CONTACTS), _called_grace, _call_grace, apps=(CONTACTS,),
         tags=("contacts",), max_steps=10),
    Task("shop_two_items", "Put a Yoga Mat and a Phone Case in my cart", _fresh(SHOP), _two_in_cart, _add_two,
         apps=(SHOP,), tags=("shop", "popup"), max_steps=14),
]
