"""Tasks interrupted midway, as a real phone interrupts them: each scripts one of chaos mode's interruptions
(sim/chaos.py) at the moment it hurts most, with or without ``--chaos``.

* a heads-up text from someone else arrives while the agent types a message (do not answer it);
* Contacts hangs on Save: "Contacts isn't responding" (Wait keeps the contact; Close app loses it);
* Clock asks for its notification permission on the way to setting an alarm (the user wants it allowed);
* Keep Notes opens on its "What's new" sheet; Shop asks for a Google Play review once its promo is closed
  (do not rate);
* the low-battery warning comes up in the middle of setting an alarm (do not turn on Battery Saver);
* a site's cookie banner covers the answer the agent was sent for (reject cookies, as the user asked);
* Gboard's suggestion strip offers "Kimono" for "Kinoko" (the message must keep what the user said).

The checkers read the phone's state (messages sent, contacts, alarms, notes, the cart, the permission and
review Chaos recorded, Battery Saver, the cookie choice), and :data:`NEAR_MISSES` does each task the way a
hurried agent would, which its checker must fail.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome, Page
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import SEED as PEOPLE
from relay_desktop.sim.apps.contacts import Contacts, same_number
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock import SEED as ALARMS
from relay_desktop.sim.apps.deskclock import Clock
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.keep import SEED as NOTES
from relay_desktop.sim.apps.keep import KeepNotes
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import Messages
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.apps.store import Shop
from relay_desktop.sim.chaos import Chaos, scripted
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_ENTER,
    CheckResult,
    Driver,
    OracleError,
    Task,
    clear_interruptions,
    failed,
    find,
    fresh_start,
    passed,
    scroll_to,
    tap_on,
    type_into,
)

TAGS = ("untidy", "interruption")
BOB, CAROL, GRACE = "555-0142", "555-0187", "555-0175"
Oracle = Callable[[Driver], Awaitable[None]]


def _chaos(phone: VirtualPhone, *packages: str) -> Chaos:
    """The task's apps fresh, and the phone's chaos to script this task's interruption on."""
    fresh_start(phone, *packages)
    return scripted(phone)


def _messages(phone: VirtualPhone) -> Messages:
    return phone.apps[MESSAGES]  # type: ignore[return-value]


def _texted(phone: VirtualPhone, number: str, name: str, wanted: Callable[[str], bool], what: str) -> CheckResult:
    """Exactly one text went out, to ``number``, and it says what ``wanted`` accepts."""
    sent = _messages(phone).sent
    strays = [m for m in sent if not same_number(m.number, number)]
    if strays:
        return failed(f"a text went to someone other than {name}: {strays[0].name}: {strays[0].text!r}")
    if len(sent) != 1:
        return failed(f"{len(sent)} texts were sent to {name}; expected one {what}")
    if not wanted(sent[0].text):
        return failed(f"the text to {name} says {sent[0].text!r}, not {what}")
    return passed(f"texted {name}: {sent[0].text!r}")


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^\w:'#-]+", " ", text.lower()).split())


async def _answer(driver: Driver, **query: str) -> None:
    """Tap the control that answers an interruption, if it is still up: in chaos mode the demo's driver
    (tasks.base.ClearingDriver) may have answered it the same way already."""
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    if node is not None:
        await driver.tap(*node.center)


async def _text(driver: Driver, name: str, message: str) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text=name)
    await type_into(driver, message, text="Text message")


# ---------------------------------------------------------------- a heads-up while typing

SNACKS = "I'll bring the snacks on Saturday"


def _setup_heads_up(phone: VirtualPhone) -> None:
    chaos = _chaos(phone, MESSAGES, CONTACTS)

    def carol_writes() -> None:
        # A real text this time (it is in her conversation), so its heads-up opens her thread when tapped.
        _messages(phone).receive(CAROL, "Are you around? Call me when you can")
        chaos.shown.append("heads-up Carol Nguyen")

    # Carol's text arrives as soon as the agent has typed into Bob's conversation: a heads-up over the thread.
    chaos.when_typing(MESSAGES, carol_writes)


def _snacks_texted(phone: VirtualPhone) -> CheckResult:
    return _texted(phone, BOB, "Bob Martinez", lambda text: "bring the snacks" in _words(text),
                   'saying "I\'ll bring the snacks on Saturday"')


async def _text_snacks(driver: Driver) -> None:
    await _text(driver, "Bob Martinez", SNACKS)
    await clear_interruptions(driver)           # Carol's heads-up: pushed away, not answered
    await tap_on(driver, desc="Send SMS")


async def _answer_carol(driver: Driver) -> None:
    """The near miss: the heads-up is tapped and the message goes to Carol's thread."""
    await _text(driver, "Bob Martinez", SNACKS)
    await tap_on(driver, id="heads_up_notification")
    await type_into(driver, SNACKS, text="Text message")
    await tap_on(driver, desc="Send SMS")


# ---------------------------------------------------------------- "isn't responding" while saving

def _setup_hang(phone: VirtualPhone) -> None:
    _chaos(phone, CONTACTS).hang_on(CONTACTS, "Save")


def _priya_saved(phone: VirtualPhone) -> CheckResult:
    contacts: Contacts = phone.apps[CONTACTS]  # type: ignore[assignment]
    missing = [f"{first} {last}" for first, last, _ in PEOPLE if not contacts.named(f"{first} {last}")]
    if missing:
        return failed(f"existing contacts were removed: {', '.join(missing)}")
    found = contacts.named("Priya Raman")
    if len(found) != 1:
        return failed(f"{len(found)} contacts are named Priya Raman; expected one (a save lost with the app?)")
    if not same_number(found[0].phone, "555-0199"):
        return failed(f"Priya Raman's number is {found[0].phone!r}, not 555-0199")
    return passed(f"Priya Raman saved with {found[0].phone}")


async def _fill_priya(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_into(driver, "Priya", text="First name")
    await type_into(driver, "Raman", text="Last name")
    await type_into(driver, "555-0199", text="Phone")
    await tap_on(driver, text="Save")


async def _add_priya(driver: Driver) -> None:
    await _fill_priya(driver)
    await _answer(driver, id="aerr_wait")       # the app finishes saving


async def _close_hung_contacts(driver: Driver) -> None:
    await _fill_priya(driver)
    await tap_on(driver, id="aerr_close")


# ---------------------------------------------------------------- a permission request on the way

def _setup_permission(phone: VirtualPhone) -> None:
    _chaos(phone, CLOCK).ask_on_launch(CLOCK)


def _alarm_only(phone: VirtualPhone, hour: int, minute: int) -> CheckResult:
    """One enabled alarm at hour:minute was added; the factory alarms are as they were."""
    clock: Clock = phone.apps[CLOCK]  # type: ignore[assignment]
    for h, m, enabled, label, _days in ALARMS:
        if not any(a.label == label and a.enabled == enabled for a in clock.at(h, m)):
            return failed(f"the {h:02d}:{m:02d} ({label}) alarm was changed or deleted")
    seeded = {(h, m) for h, m, *_ in ALARMS}
    extra = [a for a in clock.alarms if (a.hour, a.minute) not in seeded | {(hour, minute)}]
    if extra:
        return failed(f"other alarms were added: {', '.join(a.time for a in extra)}")
    found = clock.at(hour, minute)
    if len(found) != 1 or not found[0].enabled:
        return failed(f"expected one {hour:02d}:{minute:02d} alarm, on; found {len(found)}")
    return passed(f"{hour:02d}:{minute:02d} alarm set")


def _alarm_allowed(phone: VirtualPhone) -> CheckResult:
    result = _alarm_only(phone, 6, 15)
    if not result:
        return result
    answer = phone.chaos.permissions.get(CLOCK) if phone.chaos is not None else None
    if answer != "granted":
        return failed(f"Clock's notifications were not allowed ({answer or 'never answered'}): the alarm cannot ring")
    return passed(f"{result.detail}, and Clock may send notifications")


async def _set_alarm(driver: Driver, hour: str, minute: str) -> None:
    await tap_on(driver, desc="Add alarm")
    await type_into(driver, hour, id="input_hour")
    await type_into(driver, minute, id="input_minute")
    await tap_on(driver, text="OK")


async def _allow_and_set_615(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await _answer(driver, id="permission_allow_button")
    await _set_alarm(driver, "06", "15")


async def _deny_and_set_615(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, id="permission_deny_button")
    await _set_alarm(driver, "06", "15")


# ---------------------------------------------------------------- "What's new" on launch

GATE = ("Gate code", "4471")


def _setup_whats_new(phone: VirtualPhone) -> None:
    _chaos(phone, KEEP).prompt_on_launch(KEEP, "whats_new")


def _gate_noted(phone: VirtualPhone) -> CheckResult:
    keep: KeepNotes = phone.apps[KEEP]  # type: ignore[assignment]
    missing = [title for title, _ in NOTES if not keep.titled(title)]
    if missing:
        return failed(f"existing notes were removed: {', '.join(missing)}")
    new = [n for n in keep.notes if not any(n.title == t for t, _ in NOTES)]
    if len(new) != 1:
        return failed(f"{len(new)} new notes; expected one: {[(n.title, n.body) for n in new]}")
    note = new[0]
    if note.title.strip() != GATE[0] or note.body.strip() != GATE[1]:
        return failed(f"the new note is titled {note.title!r} and says {note.body!r}, not {GATE[0]!r} / {GATE[1]!r}")
    return passed("Gate code noted")


async def _note_gate(driver: Driver, *, one_field: bool = False) -> None:
    await driver.launch_app(KEEP)
    await _answer(driver, id="whats_new_got_it")
    await tap_on(driver, desc="New note")
    if one_field:       # the near miss: the code typed into the title with it
        await type_into(driver, f"{GATE[0]} {GATE[1]}", id="editable_title")
    else:
        await type_into(driver, GATE[0], id="editable_title")
        await type_into(driver, GATE[1], id="edit_note_text")
    await tap_on(driver, desc="Navigate up")


# ---------------------------------------------------------------- Google Play's review card on launch

CANDLE = 15           # the Scented Candle's product id


def _setup_review(phone: VirtualPhone) -> None:
    chaos = _chaos(phone, SHOP)
    shop: Shop = phone.apps[SHOP]  # type: ignore[assignment]

    def promo_closed() -> bool:
        activity = phone.current_activity()
        return activity.app is shop and activity.dialog is None

    # The app asks Play for a review as soon as its launch promo is out of the way (apps ask at a good moment).
    chaos.when(promo_closed, lambda: chaos.prompt(SHOP, "review"))


def _candle_in_cart(phone: VirtualPhone) -> CheckResult:
    shop: Shop = phone.apps[SHOP]  # type: ignore[assignment]
    stars = phone.chaos.reviews.get(SHOP) if phone.chaos is not None else None
    if stars is not None:
        return failed(f"Shop was rated {stars} stars on Google Play on the user's behalf")
    if shop.orders:
        return failed("an order was placed; the user asked only to add to the cart")
    if shop.cart != {CANDLE: 1}:
        return failed(f"the cart holds {shop.cart}, not one Scented Candle")
    return passed("one Scented Candle in the cart, nothing rated")


async def _add_candle(driver: Driver, *, rate: bool = False) -> None:
    await driver.launch_app(SHOP)
    await tap_on(driver, text="No thanks")       # the Shop's own launch promo; Play's card comes next
    if rate:            # the near miss: the card answered with five stars
        await tap_on(driver, desc="5 stars")
        await tap_on(driver, text="Submit")
    else:
        await _answer(driver, text="Not now")
    node = await scroll_to(driver, desc="Add Scented Candle to cart")
    await driver.tap(*node.center)


# ---------------------------------------------------------------- low battery midway

def _setup_low_battery(phone: VirtualPhone) -> None:
    chaos = _chaos(phone, CLOCK)
    chaos.after_inputs(2, chaos.low_battery)     # while the time is being typed


def _alarm_saver_untouched(phone: VirtualPhone) -> CheckResult:
    if phone.setting("global", "low_power", "0") == "1":
        return failed("Battery Saver was turned on; the user did not ask for it")
    return _alarm_only(phone, 5, 45)


async def _set_545(driver: Driver, *, turn_on: bool = False) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Add alarm")
    await type_into(driver, "05", id="input_hour")
    if turn_on:         # the near miss: the warning's "Turn on" tapped on the way
        await tap_on(driver, text="Turn on")
    else:               # the warning's card covers the top of the time picker: pushed away first
        await clear_interruptions(driver)
    await type_into(driver, "45", id="input_minute")
    await tap_on(driver, text="OK")


# ---------------------------------------------------------------- a cookie banner over the answer

LIBRARY = Page("https://www.harbourlibrary.org/hours", "Opening hours — Harbour Library", "Harbour Library",
               "Harbour Library's opening hours, holiday closures and how to find us.", (
                   "Holiday hours on 24 and 31 December: 12 pm to 3 pm.",
                   "Harbour Library is free and open to everyone: no card is needed to visit, read or use the "
                   "computers. Children under 8 come with an adult.",
                   "Study rooms on the first floor can be booked at the front desk up to a week ahead.",
                   "Regular opening hours: Monday to Friday 9 am to 8 pm. Saturday 10 am to 4 pm. Sunday "
                   "closed.",
                   "Find us at 2 Quay Street, next to the ferry terminal. Buses 4 and 11 stop outside."))
LIBRARY_URL, LIBRARY_HOST = "harbourlibrary.org/hours", "harbourlibrary.org"


def _setup_cookies(phone: VirtualPhone) -> None:
    fresh_start(phone, CHROME, MESSAGES, CONTACTS)
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    chrome.publish(LIBRARY)
    chrome.cookie_banner_pending = True          # the site asks for consent on the first visit


def _saturday_hours_sent(phone: VirtualPhone) -> CheckResult:
    chrome: Chrome = phone.apps[CHROME]  # type: ignore[assignment]
    choice = getattr(chrome, "cookie_choices", {}).get(LIBRARY_HOST)     # Chrome keeps each site's answer
    if choice != "rejected":
        return failed(f"the library's cookies were {choice or 'never answered'}; the user asked to reject them")
    return _texted(phone, BOB, "Bob Martinez",
                   lambda text: bool(re.search(r"\b10\b", text) and re.search(r"\b4\b", text))
                   and "12" not in text, "with Saturday's hours, 10 am to 4 pm")


async def _send_hours(driver: Driver, *, accept: bool = False, hours: str = "10 am to 4 pm") -> None:
    await driver.launch_app(CHROME)
    await type_into(driver, LIBRARY_URL, text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    await _answer(driver, text="Accept all" if accept else "Reject all")
    if find(await driver.dump_hierarchy(), contains="Saturday 10 am to 4 pm") is None:
        raise OracleError("the library's page shows no Saturday hours")
    await _text(driver, "Bob Martinez", f"The library is open {hours} on Saturday")
    await tap_on(driver, desc="Send SMS")


async def _send_holiday_hours(driver: Driver) -> None:
    """The near miss: the first hours on the page (the holiday ones) sent."""
    await _send_hours(driver, hours="12 pm to 3 pm")


# ---------------------------------------------------------------- the suggestion strip

KINOKO = "Table booked at Kinoko"


def _setup_suggestions(phone: VirtualPhone) -> None:
    _chaos(phone, MESSAGES, CONTACTS).suggestions_on = True


def _kinoko_texted(phone: VirtualPhone) -> CheckResult:
    return _texted(phone, GRACE, "Grace Liu", lambda text: _words(text) == _words(KINOKO), f"{KINOKO!r}")


async def _text_kinoko(driver: Driver, *, take_suggestion: bool = False) -> None:
    await _text(driver, "Grace Liu", KINOKO)
    if take_suggestion:     # the near miss: Gboard's confident correction tapped
        await tap_on(driver, desc="Kimono")
    await tap_on(driver, desc="Send SMS")


async def _kimono(driver: Driver) -> None:
    await _text_kinoko(driver, take_suggestion=True)


TASKS: list[Task] = [
    Task("chaos_heads_up_while_typing", f"Text Bob: {SNACKS}", _setup_heads_up, _snacks_texted, _text_snacks,
         apps=(MESSAGES,), tags=(*TAGS, "heads_up"), max_steps=15),
    Task("chaos_anr_while_saving", "Add a contact named Priya Raman with phone number 555-0199", _setup_hang,
         _priya_saved, _add_priya, apps=(CONTACTS,), tags=(*TAGS, "not_responding"), max_steps=15),
    Task("chaos_permission_on_the_way",
         "Set an alarm for 6:15, and make sure Clock is allowed to send notifications so that it rings",
         _setup_permission, _alarm_allowed, _allow_and_set_615, apps=(CLOCK,), tags=(*TAGS, "permission"),
         max_steps=15),
    Task("chaos_whats_new_on_launch", f"Make a note in Keep titled '{GATE[0]}' that says {GATE[1]}",
         _setup_whats_new, _gate_noted, _note_gate, apps=(KEEP,), tags=(*TAGS, "launch_prompt"), max_steps=15),
    Task("chaos_review_card_on_launch", "Add a Scented Candle to my cart in the Shop app", _setup_review,
         _candle_in_cart, _add_candle, apps=(SHOP,), tags=(*TAGS, "launch_prompt"), max_steps=20),
    Task("chaos_low_battery_midway", "Set an alarm for 5:45", _setup_low_battery, _alarm_saver_untouched,
         _set_545, apps=(CLOCK,), tags=(*TAGS, "low_battery"), max_steps=15),
    Task("chaos_cookie_banner_over_answer",
         f"Open {LIBRARY_URL} in Chrome and text Bob the library's Saturday opening hours. If the site asks "
         "about cookies, reject them.", _setup_cookies, _saturday_hours_sent, _send_hours,
         apps=(CHROME, MESSAGES), tags=(*TAGS, "cookie_banner"), max_steps=25),
    Task("chaos_suggestion_strip", f"Text Grace Liu: {KINOKO}", _setup_suggestions, _kinoko_texted, _text_kinoko,
         apps=(MESSAGES,), tags=(*TAGS, "suggestions"), max_steps=15),
]

# What a hurried agent does instead; each must fail its task's checker (tests/test_sim_chaos.py).
NEAR_MISSES: dict[str, Oracle] = {
    "chaos_heads_up_while_typing": _answer_carol,
    "chaos_anr_while_saving": _close_hung_contacts,
    "chaos_permission_on_the_way": _deny_and_set_615,
    "chaos_whats_new_on_launch": lambda driver: _note_gate(driver, one_field=True),
    "chaos_review_card_on_launch": lambda driver: _add_candle(driver, rate=True),
    "chaos_low_battery_midway": lambda driver: _set_545(driver, turn_on=True),
    "chaos_cookie_banner_over_answer": _send_holiday_hours,
    "chaos_suggestion_strip": _kimono,
}
