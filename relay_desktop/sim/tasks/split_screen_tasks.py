"""Tasks meant for split screen: copying something from one app into another with both on screen at once.

Each task's initial state has exactly the two apps in Recents (the source app opened first, so both cards
are in Overview) and the data to copy set up by the task, so the checker can demand the exact text. The
oracles go the way a user does on a Pixel: Overview → the source app's icon above its card → "Split
screen" → the destination app's card, then read in the top half and type in the bottom one.

Why the source on top and the destination below: the keyboard rises over the bottom half, and the app in
it makes room for the keyboard the way an ``adjustResize`` activity does, so the field being typed into
stays visible. (The virtual phone reserves that room in whichever half has a field; in the top half it would
squeeze the screen for a keyboard that does not cover it.) The bottom half is short, so with the keyboard
up a list under a field (Start chat's contacts) has no room, and a note shows its title alone: the oracles
hide the keyboard with BACK, or scroll the note to its text field, as a person would.

The checkers judge the result, not the route: an agent that copies the text by switching between the apps
full screen has still done what the user asked.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Page
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.store import CART, Shop, money
from relay_desktop.sim.apps.store import PACKAGE as SHOP
from relay_desktop.sim.phone import IME_PACKAGE, VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_BACK,
    CheckResult,
    Driver,
    Node,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    nodes,
    passed,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.hard_comms_common import (
    SEEDED_CONTACTS,
    SEEDED_NOTES,
    chrome_of,
    contacts_diff,
    contacts_of,
    exact,
    keep_of,
    notes_diff,
    one_note_titled,
    said,
    stray_texts,
    text_of,
    texts_to,
)

KEY_APP_SWITCH = 187
SPLIT_SCREEN = "split_screen"
GRACE, TOM = "555-0175", "555-0170"

# ---------------------------------------------------------------- the data each task copies

CABIN_TITLE = "Cabin weekend"
CABIN_PASSWORD = "heron-Quartz-4471"
HOME_GUEST_PASSWORD = "bluebird2024"     # the seeded "Wi-Fi password for guests" note: the wrong network
CABIN_BODY = ("Address: 9 Larch Road, Fernbrook\nWi-Fi network: Larch-Cabin\nWi-Fi password: "
              f"{CABIN_PASSWORD}\nKey box code: 2580\nCheckout by 11am Sunday")

DENTIST_TITLE = "Dentist"
DENTIST_ADDRESS = "27 Quay Street, Portsmouth PO1 2JX"
DENTIST = Page(
    "https://www.harbourdental.com/contact", "Contact us — Harbour Dental", "Harbour Dental",
    "Harbour Dental, family dentistry by the old harbour: opening hours, our address and how to book.",
    ("Opening hours: Monday to Friday 8am to 6pm, Saturday 9am to 1pm.",
     f"Address: {DENTIST_ADDRESS}",
     "Phone: 555-0168. For emergencies after hours call 555-0199.",
     "Parking: the Gunwharf car park is a five-minute walk away."),
    picture="house")

# Product id -> quantity (ids are catalogue positions): a Yoga Mat and two Scented Candles, $59.97 in all.
ORDER_ITEMS = {3: 1, 15: 2}
ORDER_NUMBER = "SH-10421"                # the first order placed after a reset


def _shop(phone: VirtualPhone) -> Shop:
    return phone.apps[SHOP]  # type: ignore[return-value]


def _order_total(phone: VirtualPhone) -> str:
    """The total the confirmation shows, without the dollar sign ("59.97"), read from the Shop's order."""
    orders = _shop(phone).orders
    return money(orders[0].total_cents).lstrip("$") if orders else ""


# ---------------------------------------------------------------- initial states

def _only_in_recents(phone: VirtualPhone, *packages: str) -> None:
    """Close every other app, so Overview shows exactly the task's two cards (the second within reach
    without scrolling), and go home."""
    for package in phone.recent_packages():
        if package not in packages:
            phone.force_stop(package)
    phone.go_home()


def _cabin_note_and_messages(phone: VirtualPhone) -> None:
    fresh_start(phone, KEEP, CONTACTS, MESSAGES)
    keep_of(phone).add(CABIN_TITLE, CABIN_BODY)
    phone.launch(KEEP)
    phone.launch(MESSAGES)
    _only_in_recents(phone, KEEP, MESSAGES)


def _dentist_page_and_keep(phone: VirtualPhone) -> None:
    fresh_start(phone, CHROME, KEEP)
    chrome = chrome_of(phone)
    chrome.publish(DENTIST)
    chrome.navigate(DENTIST.url)           # the page the user was just reading
    phone.launch(KEEP)
    _only_in_recents(phone, CHROME, KEEP)


def _order_placed_and_messages(phone: VirtualPhone) -> None:
    fresh_start(phone, SHOP, CONTACTS, MESSAGES)
    shop = _shop(phone)
    phone.launch(SHOP)
    shop.open(CART)
    shop.cart = dict(ORDER_ITEMS)
    shop.checkout()                        # the cart gives way to "Order confirmed", where Shop is left
    phone.launch(MESSAGES)
    _only_in_recents(phone, SHOP, MESSAGES)


# ---------------------------------------------------------------- checkers

def _others_unchanged(phone: VirtualPhone, *, texted: tuple[str, ...] | None = None,
                      notes: tuple[tuple[str, str, tuple[str, ...]], ...] | None = None) -> str:
    """'' when the apps a task's setup reset are otherwise as it left them, else what changed: with ``texted``
    (Messages and Contacts reset) no text went to anyone else and Contacts is as seeded; with ``notes`` (Keep
    reset) Keep holds exactly the seeded notes plus these. Apps the task did not reset may hold what earlier
    tasks did, so they are not judged."""
    if texted is not None:
        strays = stray_texts(phone, *texted)
        if strays:
            return f"a text went to someone else: {said(strays)}"
        diff = contacts_diff(contacts_of(phone), SEEDED_CONTACTS)
        if diff:
            return f"Contacts changed: {diff}"
    if notes is not None:
        diff = notes_diff(keep_of(phone), (*SEEDED_NOTES, *notes))
        if diff:
            return f"Keep's notes changed: {diff}"
    return ""


def _one_text_to(phone: VirtualPhone, name: str, number: str) -> tuple[str, str]:
    """The single text sent to ``number`` or, as the second value, why there is not exactly one."""
    texts = texts_to(phone, number)
    if len(texts) != 1:
        got = "; ".join(map(repr, texts)) or "nothing"
        return "", f"{name} got {len(texts)} texts, expected one (got {got})"
    return exact(texts[0]), ""


def _cabin_password_sent(phone: VirtualPhone) -> CheckResult:
    problem = _others_unchanged(phone, texted=(GRACE,), notes=((CABIN_TITLE, CABIN_BODY, ()),))
    if problem:
        return failed(problem)
    text, problem = _one_text_to(phone, "Grace", GRACE)
    if problem:
        return failed(problem)
    # Passwords are case-sensitive: the copy must be exact.
    if CABIN_PASSWORD not in text:
        return failed(f"Grace's text {text!r} does not contain the cabin's password {CABIN_PASSWORD!r} exactly")
    if HOME_GUEST_PASSWORD in text:
        return failed(f"Grace's text {text!r} also gives away the home guest network's password")
    return passed(f"Grace got {text!r}")


def _squashed(text: str) -> str:
    """An address as compared: commas dropped and spacing collapsed (a line break for ", " is still a copy);
    letters keep their case, so a retyped postcode must match."""
    return " ".join(exact(text).replace(",", " ").split())


def _dentist_noted(phone: VirtualPhone) -> CheckResult:
    note, problem = one_note_titled(keep_of(phone), DENTIST_TITLE)
    if note is None:
        return failed(problem)
    if _squashed(DENTIST_ADDRESS) not in _squashed(note.body):
        return failed(f"the {DENTIST_TITLE!r} note says {note.body!r}, not the address {DENTIST_ADDRESS!r}")
    problem = _others_unchanged(phone, notes=((note.title, note.body, tuple(note.labels)),))
    return failed(problem) if problem else passed(f"the {note.title!r} note says {note.body!r}")


def _order_sent_to_tom(phone: VirtualPhone) -> CheckResult:
    orders = _shop(phone).orders
    if [(o.number, o.items) for o in orders] != [(ORDER_NUMBER, ORDER_ITEMS)] or _shop(phone).cart:
        return failed(f"Shop's orders or cart changed: {len(orders)} orders, cart {_shop(phone).cart}")
    problem = _others_unchanged(phone, texted=(TOM,))
    if problem:
        return failed(problem)
    text, problem = _one_text_to(phone, "Tom", TOM)
    if problem:
        return failed(problem)
    total = _order_total(phone)
    lacking = [what for what, there in ((f"the order number {ORDER_NUMBER}", ORDER_NUMBER in text.upper()),
                                        (f"the total ${total}", re.search(rf"(?<![\d.]){re.escape(total)}(?!\d)",
                                                                          text) is not None)) if not there]
    if lacking:
        return failed(f"Tom's text {text!r} lacks {' and '.join(lacking)}")
    return passed(f"Tom got {text!r}")


# ---------------------------------------------------------------- oracle moves

async def enter_split_screen(driver: Driver, top: str, bottom: str) -> None:
    """Overview → ``top``'s icon above its card → "Split screen" → ``bottom``'s card (app labels)."""
    await driver.press_key(KEY_APP_SWITCH)
    await tap_on(driver, desc=top, id="icon")          # the card itself has no description; its icon does
    await tap_on(driver, text="Split screen")
    await tap_on(driver, text=bottom)                  # the other card's title, in Overview's picker
    if find(await driver.dump_hierarchy(), id="docked_divider_handle") is None:
        raise OracleError(f"no split-screen divider after picking {bottom}")


def _half_of(xml: str, package: str) -> tuple[int, int, int, int]:
    """The bounds of ``package``'s app window (its first node: the window's root)."""
    root = next((n for n in nodes(xml) if n.attrs.get("package") == package), None)
    if root is None:
        raise OracleError(f"{package} is not on screen")
    return root.bounds


async def scroll_half_to(driver: Driver, package: str, *, max_swipes: int = 6, **query: str) -> Node:
    """Swipe up inside ``package``'s half until a node matching ``query`` is fully in it."""
    for _ in range(max_swipes + 1):
        xml = await driver.dump_hierarchy()
        left, top, right, bottom = _half_of(xml, package)
        node = find(xml, **query)  # type: ignore[arg-type]
        if node is not None and top <= node.bounds[1] and node.bounds[3] <= bottom:
            return node
        x, height = (left + right) // 2, bottom - top
        await driver.swipe(x, top + height * 3 // 4, x, top + height // 3, 400)
    raise OracleError(f"scrolled {package}'s half {max_swipes} times and never saw {query}")


async def scroll_up_in(driver: Driver, **query: str) -> None:
    """One swipe up inside the scrolling view matching ``query``, from its bottom edge."""
    view = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    if view is None:
        raise OracleError(f"nothing on screen matches {query}")
    x, top, bottom = view.center[0], view.bounds[1], view.bounds[3]
    await driver.swipe(x, bottom - 5, x, top - 150, 400)


async def hide_keyboard(driver: Driver) -> None:
    """BACK closes the keyboard, if it is up (and only then: with it down BACK would leave the screen)."""
    if any(n.attrs.get("package") == IME_PACKAGE for n in nodes(await driver.dump_hierarchy())):
        await driver.press_key(KEY_BACK)


# ---------------------------------------------------------------- oracles

async def _copy_cabin_password(driver: Driver) -> None:
    await enter_split_screen(driver, "Keep Notes", "Messages")
    await tap_on(driver, text=CABIN_TITLE, id="index_note_title")           # top half: open the note
    note = await text_of(driver, id="edit_note_text")
    found = re.search(r"Wi-Fi password: (\S+)", note)
    if found is None:
        raise OracleError(f"the cabin note gives no Wi-Fi password: {note!r}")
    await tap_on(driver, text="Grace Liu", id="conversation_name")          # bottom half: her thread
    await type_into(driver, f"The cabin Wi-Fi password is {found[1]}", id="compose_message_text")
    await tap_on(driver, desc="Send SMS")


async def _note_dentist_address(driver: Driver) -> None:
    await enter_split_screen(driver, "Chrome", "Keep Notes")
    line = await scroll_half_to(driver, CHROME, contains="Address:")        # top half: the page
    address = line.attrs.get("text", "").split("Address:", 1)[-1].strip()
    if not address:
        raise OracleError(f"no address in {line.attrs!r}")
    await tap_on(driver, desc="New note")                                   # bottom half: a new note
    await type_into(driver, DENTIST_TITLE, id="editable_title")
    # Above the keyboard the half has room for the title alone: scroll the note to reach its text field.
    await scroll_up_in(driver, id="editor_content")
    await type_into(driver, address, id="edit_note_text")
    await tap_on(driver, desc="Navigate up")


async def _text_tom_the_order(driver: Driver) -> None:
    await enter_split_screen(driver, "Shop", "Messages")
    number = await text_of(driver, id="order_number")                       # top half: the confirmation
    total = await text_of(driver, id="order_total")
    found_number, found_total = re.search(r"SH-\d+", number), re.search(r"\$[\d,]+\.\d\d", total)
    if found_number is None or found_total is None:
        raise OracleError(f"the confirmation shows no order number or total: {number!r}, {total!r}")
    await tap_on(driver, desc="Start chat")                                 # bottom half: a new thread
    await driver.type_text("Tom")                # the To field has focus as the screen opens
    await hide_keyboard(driver)              # the matching contacts show under the field once it is down
    await tap_on(driver, text="Tom Becker", id="contact_name")
    await type_into(driver, f"Order {found_number[0]}, total {found_total[0]}. Half each?",
                  id="compose_message_text")
    await tap_on(driver, desc="Send SMS")


def _task(id: str, goal: str, setup: Callable[[VirtualPhone], None], check: Callable[[VirtualPhone], CheckResult],
          oracle: Callable[[Driver], Awaitable[None]], apps: tuple[str, ...]) -> Task:
    return Task(id, goal, setup, check, oracle, apps=apps, tags=(SPLIT_SCREEN, "cross_app"), max_steps=25)


TASKS: list[Task] = [
    _task("split_cabin_wifi_to_grace",
          f"Grace is staying at the cabin this weekend. Put Keep Notes and Messages side by side in split screen "
          f"and text her the Wi-Fi password from my '{CABIN_TITLE}' note",
          _cabin_note_and_messages, _cabin_password_sent, _copy_cabin_password, (KEEP, MESSAGES)),
    _task("split_dentist_address_note",
          f"Using split screen with Chrome and Keep Notes, copy the street address from the dentist's page open "
          f"in Chrome into a new note titled '{DENTIST_TITLE}'",
          _dentist_page_and_keep, _dentist_noted, _note_dentist_address, (CHROME, KEEP)),
    _task("split_order_total_to_tom",
          "Tom is splitting the Shop order I just placed. With Shop and Messages in split screen, text him the "
          "order number and the total I paid",
          _order_placed_and_messages, _order_sent_to_tom, _text_tom_the_order, (SHOP, MESSAGES)),
]
