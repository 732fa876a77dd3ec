"""Questions (tag ``question``): tasks with an answer, not a changed phone — "Is my 6:30 alarm still on?".

As in AndroidWorld's information-retrieval tasks, the agent must find the value on the phone and give it as
``complete``'s ``answer``; the bench compares it with the task's ``expected_answer`` by meaning (answer_match).
Asking changes nothing: each checker proves the phone was left as the setup made it (settings, alarms,
contacts, notes, texts sent, the shop's cart and orders) — reading a text or opening a page is not a change.
Each oracle reads the answer off the screen, as an agent must, and returns it.
"""

from __future__ import annotations

import re
import weakref
from typing import Any

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import Contacts
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock import Clock
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.keep import KeepNotes
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import Messages
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.apps.store import Shop
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_ENTER,
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    nodes,
    passed,
    scroll_to,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.settings_tasks import SETTINGS
from relay_desktop.sim.tasks.shop_tasks import _open_shop

PARCEL_SENDER = "72726"
PARCEL_TEXT = ("ParcelPoint: your parcel is in locker 14 at Central Station. Pickup code 480316, valid for 3 days. "
               "Reply STOP to opt out.")
SMART_WATCH = "Smart Watch"

# The phone as each task's setup left it, to prove a question changed nothing (keyed by the phone object).
_BASELINES: weakref.WeakKeyDictionary[VirtualPhone, dict[str, Any]] = weakref.WeakKeyDictionary()


def _state(phone: VirtualPhone) -> dict[str, Any]:
    """What a user would call a change: settings, alarms, contacts, notes, texts, the cart and orders."""
    clock: Clock = phone.apps[CLOCK]  # type: ignore[assignment]
    contacts: Contacts = phone.apps[CONTACTS]  # type: ignore[assignment]
    keep: KeepNotes = phone.apps[KEEP]  # type: ignore[assignment]
    messages: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    shop: Shop = phone.apps[SHOP]  # type: ignore[assignment]
    return {
        "settings": {namespace: dict(values) for namespace, values in phone.settings.items()},
        "alarms": sorted((a.hour, a.minute, a.enabled, a.label, a.days) for a in clock.alarms),
        "contacts": sorted((c.first, c.last, c.phone, c.starred) for c in contacts.contacts),
        "notes": sorted((n.title, n.body, tuple(n.labels)) for n in keep.notes),
        "texts": sorted((c.number, tuple((m.text, m.outgoing) for m in c.messages)) for c in messages.conversations),
        "cart": (dict(shop.cart), len(shop.orders), shop.promo),
    }


def _setup(*packages: str, then: Any = None) -> Any:
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, CLOCK, CONTACTS, KEEP, MESSAGES, SHOP, CHROME, *packages)
        if then is not None:
            then(phone)
        _BASELINES[phone] = _state(phone)
    return setup


def _unchanged(phone: VirtualPhone) -> CheckResult:
    before = _BASELINES.get(phone)
    if before is None:
        return failed("the task's setup was not run on this phone")
    now = _state(phone)
    changed = [name for name in before if before[name] != now[name]]
    if changed:
        return failed(f"a question changed the phone: {', '.join(changed)} differ from before")
    return passed("the phone was left as it was")


# ---------------------------------------------------------------- setups that make the question's facts

def _parcel_text(phone: VirtualPhone) -> None:
    messages: Messages = phone.apps[MESSAGES]  # type: ignore[assignment]
    messages.receive(PARCEL_SENDER, PARCEL_TEXT, heads_up=0)     # it came a while ago: no card left up


def _bluetooth_off(phone: VirtualPhone) -> None:
    phone.settings["global"]["bluetooth_on"] = "0"


def _more_alarms(phone: VirtualPhone) -> None:
    clock: Clock = phone.apps[CLOCK]  # type: ignore[assignment]
    clock.add(7, 15, label="Meds")
    clock.add(9, 45, label="Dentist", enabled=False)
    clock.add(21, 0, label="Bins out")


# ---------------------------------------------------------------- oracles: read the answer off the screen

async def _gym_alarm(driver: Driver) -> str:
    await driver.launch_app(CLOCK)
    switch = find(await driver.dump_hierarchy(), id="onoff", contains="06:30")
    if switch is None:
        raise OracleError("no switch for the 06:30 alarm")
    return "yes" if switch.attrs.get("checked") == "true" else "no"


async def _alarms_on(driver: Driver) -> str:
    await driver.launch_app(CLOCK)
    seen: dict[str, bool] = {}
    for _ in range(4):                          # the list may run past the screen
        xml = await driver.dump_hierarchy()
        for node in nodes(xml):
            if node.attrs.get("resource-id", "").endswith(":id/onoff"):
                seen[node.attrs.get("content-desc", "")] = node.attrs.get("checked") == "true"
        root = nodes(xml)[0].bounds
        await driver.swipe(root[2] // 2, int(root[3] * 0.7), root[2] // 2, int(root[3] * 0.35), 400)
    return str(sum(seen.values()))


async def _pickup_code(driver: Driver) -> str:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, contains="ParcelPoint")
    bubble = find(await driver.dump_hierarchy(), contains="Pickup code")
    match = re.search(r"Pickup code (\d+)", bubble.attrs.get("text", "")) if bubble else None
    if match is None:
        raise OracleError("the ParcelPoint text shows no pickup code")
    return match[1]


async def _phone_bill(driver: Driver) -> str:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="22395")
    bubble = find(await driver.dump_hierarchy(), contains="your bill of")
    match = re.search(r"bill of (\$[\d.,]+)", bubble.attrs.get("text", "")) if bubble else None
    if match is None:
        raise OracleError("the carrier's text shows no bill")
    return match[1]


async def _market_opens(driver: Driver) -> str:
    await driver.launch_app(CHROME)
    await type_into(driver, "farmers market reopens", text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    await tap_on(driver, text="Farmers market reopens on Saturday")
    line = find(await driver.dump_hierarchy(), contains="reopens this Saturday from")
    match = re.search(r"from (\d+) am", line.attrs.get("text", "")) if line else None
    if match is None:
        raise OracleError("the article gives no opening time")
    return f"{match[1]}:00"


async def _saturday_high(driver: Driver) -> str:
    await driver.launch_app(CHROME)
    await tap_on(driver, desc="Relay Weather")
    forecast = find(await driver.dump_hierarchy(), contains="Sat:")
    match = re.search(r"Sat: \w+(?: \w+)?, (\d+)°", forecast.attrs.get("text", "")) if forecast else None
    if match is None:
        raise OracleError("the forecast shows no Saturday high")
    return match[1]


async def _watch_price(driver: Driver) -> str:
    await _open_shop(driver)
    add = await scroll_to(driver, desc=f"Add {SMART_WATCH} to cart")
    row_y = add.center[1]
    prices = [n for n in nodes(await driver.dump_hierarchy()) if n.attrs.get("resource-id", "").endswith(
        ":id/product_price") and abs(n.center[1] - row_y) < 40]
    if not prices:
        raise OracleError("no price beside the Smart Watch's Add to cart")
    return prices[0].attrs["text"]


async def _guest_password(driver: Driver) -> str:
    await driver.launch_app(KEEP)
    note = find(await driver.dump_hierarchy(), contains="Password:")
    match = re.search(r"Password: (\S+)", note.attrs.get("text", "")) if note else None
    if match is None:
        raise OracleError("no note shows a password")
    return match[1]


async def _carol_number(driver: Driver) -> str:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Carol Nguyen")
    number = next((n for n in nodes(await driver.dump_hierarchy())
                   if re.fullmatch(r"\d{3}-\d{4}", n.attrs.get("text", ""))), None)
    if number is None:
        raise OracleError("Carol's card shows no phone number")
    return number.attrs["text"]


async def _bluetooth(driver: Driver) -> str:
    await driver.launch_app(SETTINGS)
    await tap_on(driver, text="Connected devices")
    xml = await driver.dump_hierarchy()
    switch = find(xml, contains="Bluetooth", checkable=True) or find(xml, checkable=True)
    if switch is None:
        raise OracleError("no Bluetooth switch")
    return "yes" if switch.attrs.get("checked") == "true" else "no"


def _question(id: str, goal: str, answer: str, oracle: Any, apps: tuple[str, ...], then: Any = None,
              max_steps: int = 12) -> Task:
    return Task(id, goal, _setup(then=then), _unchanged, oracle, apps=apps, tags=("question",), max_steps=max_steps,
                expected_answer=answer)


TASKS = [
    _question("question_gym_alarm_on", "Is my 6:30 gym alarm still on?", "no", _gym_alarm, (CLOCK,)),
    _question("question_alarms_on_count", "How many of my alarms are switched on?", "3", _alarms_on, (CLOCK,),
              then=_more_alarms),
    _question("question_parcel_code", "What's the pickup code in the text ParcelPoint sent me?", "480316",
              _pickup_code, (MESSAGES,), then=_parcel_text),
    _question("question_phone_bill", "How much is my latest Relay Mobile phone bill?", "$35.00", _phone_bill,
              (MESSAGES,)),
    _question("question_market_opens", "What time does the riverside farmers market open this Saturday? The City "
              "Herald had an article about it.", "8:00", _market_opens, (CHROME,), max_steps=15),
    _question("question_saturday_high", "What's the high on Saturday according to relayweather.com?", "18",
              _saturday_high, (CHROME,)),
    _question("question_watch_sale_price", "The Smart Watch is on sale in the Shop. What does it cost after the "
              "discount?", "129.99", _watch_price, (SHOP,), max_steps=15),
    _question("question_guest_wifi_password", "What's the guest Wi-Fi password? I wrote it down in Keep.",
              "bluebird2024", _guest_password, (KEEP,)),
    _question("question_carol_number", "What's Carol Nguyen's phone number?", "555-0187", _carol_number,
              (CONTACTS,)),
    _question("question_bluetooth_on", "Is Bluetooth on?", "no", _bluetooth, (SETTINGS,), then=_bluetooth_off),
]
