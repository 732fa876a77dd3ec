"""Tasks in Contacts, Messages and Chrome, including one that carries information from one app to another."""

from __future__ import annotations

import re
from collections.abc import Callable

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome, search
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import SEED, Contacts, digits, same_number
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import Messages, SentMessage
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_DEL,
    KEY_ENTER,
    KEY_HOME,
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    passed,
    tap_on,
    type_into,
)

BOB, CAROL, DAVE = ("555-0142", "555-0187", "555-0119")
SEVILLE_QUERY = "seville oranges"


def _fresh(*packages: str) -> Callable[[VirtualPhone], None]:
    """Factory data in the task's apps, none of them running, the home screen in front."""

    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, *packages)

    return setup


def _contacts(phone: VirtualPhone) -> Contacts:
    return phone.apps[CONTACTS]  # type: ignore[return-value]


def _messages(phone: VirtualPhone) -> Messages:
    return phone.apps[MESSAGES]  # type: ignore[return-value]


def _missing_seeded(contacts: Contacts, *, except_name: str = "") -> list[str]:
    names = (f"{first} {last}" for first, last, _ in SEED)
    return [name for name in names if name != except_name and not contacts.named(name)]


def _said(message: SentMessage) -> str:
    return f"{message.name}: {message.text!r}"


def _texted_once(phone: VirtualPhone, number: str, name: str, wanted: Callable[[str], bool],
                 what: str) -> CheckResult:
    """Exactly one text to ``number`` satisfies ``wanted``, and nothing went to anyone else."""
    sent = _messages(phone).sent
    strays = [m for m in sent if not same_number(m.number, number)]
    if strays:
        return failed(f"a text went to someone other than {name}: {_said(strays[0])}")
    hits = [m for m in sent if wanted(m.text)]
    if not hits:
        tried = "; ".join(repr(m.text) for m in sent) or "nothing was sent"
        return failed(f"no text to {name} {what} ({tried})")
    if len(hits) > 1:
        return failed(f"{name} got {len(hits)} texts {what}; expected exactly one")
    return passed(f"texted {name}: {hits[0].text!r}")


# ---------------------------------------------------------------- add a contact

def _alice_added(phone: VirtualPhone) -> CheckResult:
    contacts = _contacts(phone)
    missing = _missing_seeded(contacts)
    if missing:
        return failed(f"existing contacts were removed: {', '.join(missing)}")
    alices = contacts.named("Alice Smith")
    if not alices:
        near = [f"{c.name} ({c.phone})" for c in contacts.contacts if c.name.lower().startswith("alice")
                or same_number(c.phone, "555-0100")]
        return failed("no contact named Alice Smith" + (f"; found {', '.join(near)}" if near else ""))
    if len(alices) > 1:
        return failed(f"{len(alices)} contacts are named Alice Smith; expected one")
    if not same_number(alices[0].phone, "555-0100"):
        return failed(f"Alice Smith's number is {alices[0].phone!r}, expected 555-0100")
    return passed(f"Alice Smith saved with {alices[0].phone}")


async def _add_alice(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_into(driver, "Alice", text="First name")
    await type_into(driver, "Smith", text="Last name")
    await type_into(driver, "555-0100", text="Phone")
    await tap_on(driver, text="Save")


# ---------------------------------------------------------------- text Bob

def _bob_running_late(phone: VirtualPhone) -> CheckResult:
    return _texted_once(phone, BOB, "Bob Martinez", lambda text: "running late" in " ".join(text.lower().split()),
                        'saying "running late"')


async def _text_bob(driver: Driver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")
    await type_into(driver, "running late", text="Text message")
    await tap_on(driver, desc="Send SMS")


# ---------------------------------------------------------------- delete a contact

def _dave_deleted(phone: VirtualPhone) -> CheckResult:
    contacts = _contacts(phone)
    if contacts.named("Dave Kim"):
        return failed("Dave Kim is still in Contacts")
    missing = _missing_seeded(contacts, except_name="Dave Kim")
    if missing:
        return failed(f"other contacts were deleted too: {', '.join(missing)}")
    return passed("Dave Kim deleted, everyone else kept")


async def _delete_dave(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Dave Kim")
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Delete")     # the menu item
    await tap_on(driver, text="Delete")     # the confirmation dialog's button, drawn on top


# ---------------------------------------------------------------- web search

def _first_seville_result_open(phone: VirtualPhone) -> CheckResult:
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    expected = search(SEVILLE_QUERY)[0]
    current = chrome.current_url
    if current is None:
        return failed("Chrome is not open")
    if current != expected.url:
        return failed(f"Chrome shows {current}, expected the first result {expected.url} ({expected.title})")
    return passed(f"opened {expected.title}")


async def _search_seville(driver: Driver) -> None:
    await driver.launch_app(CHROME)
    await type_into(driver, SEVILLE_QUERY, text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    await tap_on(driver, text=search(SEVILLE_QUERY)[0].title)


# ---------------------------------------------------------------- across apps: Carol's number to Bob

def _carol_number_sent_to_bob(phone: VirtualPhone) -> CheckResult:
    carol = digits(CAROL)
    return _texted_once(phone, BOB, "Bob Martinez", lambda text: carol in digits(text),
                        f"containing Carol's number {CAROL}")


async def _send_carol_number(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Carol Nguyen")
    number = find(await driver.dump_hierarchy(), id="header")
    if number is None:
        raise OracleError("Carol's details show no phone number")
    await driver.press_key(KEY_HOME)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")
    await type_into(driver, f"Carol's number is {number.attrs['text']}", text="Text message")
    await tap_on(driver, desc="Send SMS")


# ---------------------------------------------------------------- a new conversation

def _dave_texted(phone: VirtualPhone) -> CheckResult:
    return _texted_once(phone, DAVE, "Dave Kim", lambda text: "see you at 7" in " ".join(text.lower().split()),
                        'saying "see you at 7"')


async def _text_dave(driver: Driver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await type_into(driver, "Dave", id="recipient_text_view")
    await tap_on(driver, text="Dave Kim")
    await type_into(driver, "see you at 7", text="Text message")
    await tap_on(driver, desc="Send SMS")


# ---------------------------------------------------------------- edit a number

def _frank_renumbered(phone: VirtualPhone) -> CheckResult:
    contacts = _contacts(phone)
    franks = contacts.named("Frank Osei")
    if len(franks) != 1:
        return failed(f"expected one contact named Frank Osei, found {len(franks)}")
    if not same_number(franks[0].phone, "555-0166"):
        return failed(f"Frank Osei's number is {franks[0].phone!r}, expected 555-0166")
    changed = [f"{first} {last}" for first, last, number in SEED if first != "Frank"
               and not any(same_number(c.phone, number) for c in contacts.named(f"{first} {last}"))]
    if changed:
        return failed(f"other contacts changed too: {', '.join(changed)}")
    return passed(f"Frank Osei's number is now {franks[0].phone}")


async def _renumber_frank(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, text="Frank Osei")
    await tap_on(driver, text="Edit")
    field = await tap_on(driver, id="phone")
    for _ in field.attrs["text"]:
        await driver.press_key(KEY_DEL)
    await driver.type_text("555-0166")
    await tap_on(driver, text="Save")


# ---------------------------------------------------------------- across apps: the weather, to Carol

def _carol_told_the_weather(phone: VirtualPhone) -> CheckResult:
    return _texted_once(phone, CAROL, "Carol Nguyen", lambda text: "sunny" in text.lower(),
                        "saying Saturday will be sunny")


async def _weather_to_carol(driver: Driver) -> None:
    await driver.launch_app(CHROME)
    await tap_on(driver, desc="Relay Weather")
    forecast = find(await driver.dump_hierarchy(), contains="Sat:")
    match = re.search(r"Sat: (\w+), (\d+)", forecast.attrs["text"]) if forecast else None
    if match is None:
        raise OracleError("the forecast page shows no Saturday")
    await driver.press_key(KEY_HOME)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Carol Nguyen")
    await type_into(driver, f"Saturday looks {match[1]}, high of {match[2]}", text="Text message")
    await tap_on(driver, desc="Send SMS")


TASKS = [
    Task("contacts_add_alice", "Add a contact named Alice Smith with phone number 555-0100", _fresh(CONTACTS),
         _alice_added, _add_alice, apps=(CONTACTS,), max_steps=12),
    Task("messages_text_bob", 'Text Bob "running late"', _fresh(CONTACTS, MESSAGES), _bob_running_late, _text_bob,
         apps=(MESSAGES,), max_steps=8),
    Task("contacts_delete_dave", "Delete the contact Dave Kim", _fresh(CONTACTS), _dave_deleted, _delete_dave,
         apps=(CONTACTS,), max_steps=8),
    Task("chrome_search_seville", "Search the web for seville oranges and open the first result", _fresh(CHROME),
         _first_seville_result_open, _search_seville, apps=(CHROME,), max_steps=8),
    Task("share_carol_number_with_bob", "Look up Carol's phone number in Contacts and text it to Bob",
         _fresh(CONTACTS, MESSAGES), _carol_number_sent_to_bob, _send_carol_number, apps=(CONTACTS, MESSAGES),
         tags=("cross-app",), max_steps=14),
    Task("messages_new_chat_dave", 'Start a new conversation with Dave Kim and text him "see you at 7"',
         _fresh(CONTACTS, MESSAGES), _dave_texted, _text_dave, apps=(MESSAGES,), max_steps=10),
    Task("contacts_renumber_frank", "Change Frank Osei's phone number to 555-0166", _fresh(CONTACTS),
         _frank_renumbered, _renumber_frank, apps=(CONTACTS,), max_steps=10),
    Task("weather_to_carol", "Check Saturday's weather on relayweather.com in Chrome and text Carol what it will be",
         _fresh(CHROME, CONTACTS, MESSAGES), _carol_told_the_weather, _weather_to_carol,
         apps=(CHROME, MESSAGES), tags=("cross-app",), max_steps=14),
]
