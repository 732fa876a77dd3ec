"""Tasks that need recovering from something in the way: a pop-up, a long list, a keyboard covering the button,
the wrong app in front. Tagged so `relay-desktop bench --tag keyboard` can run one kind at a time."""

from __future__ import annotations

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import Contacts, same_number
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import Messages
from relay_desktop.sim.apps.store import CATALOGUE
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_BACK,
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    passed,
    scroll_to,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.clock_tasks import _8am_off, _turn_off_8am
from relay_desktop.sim.tasks.settings_tasks import SETTINGS, _bluetooth_is_off, _turn_off_bluetooth
from relay_desktop.sim.tasks.shop_tasks import _cart_holds_one, _open_shop

BOB = "555-0142"
STUDIO = "Studio Phone"
LAST_PRODUCT = 24   # Plant Pot Set: the second-to-last card, well over two screens down


# ---------------------------------------------------------------- pop-up: Messages' chat-features prompt

def _prompt_then_text(phone: VirtualPhone) -> None:
    fresh_start(phone, CONTACTS, MESSAGES)
    messages: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    messages.chat_features_prompt = True


def _bob_see_you_soon(phone: VirtualPhone) -> CheckResult:
    messages: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    if messages.chat_features_prompt:
        return failed("the chat features prompt was never answered")
    strays = [m for m in messages.sent if not same_number(m.number, BOB)]
    if strays:
        return failed(f"a text went to {strays[0].name}: {strays[0].text!r}")
    hits = [m for m in messages.sent if "see you soon" in m.text.lower()]
    if len(hits) != 1:
        return failed(f"expected one text to Bob saying 'see you soon', got {[m.text for m in messages.sent]}")
    return passed(f"texted Bob {hits[0].text!r} after the prompt")


async def _dismiss_then_text(driver: Driver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Not now")
    await tap_on(driver, text="Bob Martinez")
    await type_into(driver, "see you soon", text="Text message")
    await tap_on(driver, desc="Send SMS")


# ---------------------------------------------------------------- long list: the last card of the shop

async def _add_plant_pots(driver: Driver) -> None:
    await _open_shop(driver)
    node = await scroll_to(driver, desc=f"Add {CATALOGUE[LAST_PRODUCT - 1][0]} to cart", max_swipes=20)
    await driver.tap(*node.center)


def _zoe_starred(phone: VirtualPhone) -> CheckResult:
    contacts: Contacts = phone.apps[CONTACTS]  # type: ignore[assignment]
    starred = [c.name for c in contacts.contacts if c.starred]
    if starred == ["Zoe Adams"]:
        return passed("Zoe Adams is a favourite")
    return failed(f"favourites are {starred or 'none'}; expected only Zoe Adams")


async def _star_zoe(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    node = await scroll_to(driver, text="Zoe Adams")
    await driver.tap(*node.center)
    await tap_on(driver, desc="Add to favourites")


# ---------------------------------------------------------------- keyboard covering the Save button

def _rename_setup(phone: VirtualPhone) -> None:
    phone.settings["global"]["device_name"] = phone.config.model
    fresh_start(phone, SETTINGS)


def _renamed(phone: VirtualPhone) -> CheckResult:
    name = phone.setting("global", "device_name")
    if name == STUDIO:
        return passed(f"the phone is called {name!r}")
    return failed(f"the device name is {name!r}, not {STUDIO!r}")


async def _rename(driver: Driver) -> None:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="About phone")
    await tap_on(driver, text="Device name")
    field = find(await driver.dump_hierarchy(), id="edit_device_name")
    if field is None:
        raise OracleError("no device name field")
    await driver.tap(*field.center)
    for _ in range(40):  # clear the old name: the cursor sits at its end
        await driver.press_key(67)
    await driver.type_text(STUDIO)
    # While the keyboard is up it covers Save; BACK hides the keyboard first.
    await driver.press_key(KEY_BACK)
    await tap_on(driver, text="Save")


# ---------------------------------------------------------------- the wrong app in front

def _chrome_in_front(*packages: str):  # type: ignore[no-untyped-def]
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, CHROME, *packages)
        phone.launch(CHROME)
        chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
        chrome.navigate("https://relayweather.com")
    return setup


def _keep_in_front(phone: VirtualPhone) -> None:
    phone.settings["global"]["bluetooth_on"] = "1"
    fresh_start(phone, KEEP, SETTINGS)
    phone.launch(KEEP)


TASKS: list[Task] = [
    Task("messages_prompt_text_bob", 'Text Bob "see you soon"', _prompt_then_text, _bob_see_you_soon,
         _dismiss_then_text, apps=(MESSAGES,), tags=("popup", "messages"), max_steps=12),
    Task("shop_long_list_plant_pots", f"Add the {CATALOGUE[LAST_PRODUCT - 1][0]} to the cart",
         lambda phone: fresh_start(phone, SHOP), lambda phone: _cart_holds_one(phone, LAST_PRODUCT), _add_plant_pots,
         apps=(SHOP,), tags=("long_list", "popup", "shop"), max_steps=24),
    Task("contacts_favourite_zoe", "Add Zoe Adams to my favourite contacts", lambda phone: fresh_start(phone, CONTACTS),
         _zoe_starred, _star_zoe, apps=(CONTACTS,), tags=("long_list", "contacts"), max_steps=12),
    Task("settings_rename_phone", f"Rename this phone to {STUDIO}", _rename_setup, _renamed, _rename,
         apps=(SETTINGS,), tags=("keyboard", "settings"), max_steps=14),
    Task("wrong_app_alarm_off", "Switch off my 8 o'clock alarm", _chrome_in_front(CLOCK), _8am_off, _turn_off_8am,
         apps=(CLOCK,), tags=("wrong_app", "clock"), max_steps=8),
    Task("wrong_app_bluetooth_off", "Switch Bluetooth off", _keep_in_front, _bluetooth_is_off, _turn_off_bluetooth,
         apps=(SETTINGS,), tags=("wrong_app", "settings"), max_steps=8),
]
