"""Hard tasks in Contacts, Messages, Chrome and Keep: facts carried across apps, several goals at once,
non-ASCII text, infeasible and ambiguous requests. The Keep-centred ones are in :mod:`hard_keep_tasks`;
this module lists them all.

``DOING_IT_ANYWAY`` maps each infeasible task (``expected_outcome="failed"``) to a scripted near miss — what
an agent that does not stop would do — which its checker must reject (tests/test_sim_tasks.py runs it).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Page
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import same_number
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
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
from relay_desktop.sim.tasks.hard_comms_common import (
    SEEDED_CONTACTS,
    NearMiss,
    back_to,
    chrome_of,
    contacts_diff,
    contacts_of,
    exact,
    keep_of,
    loose,
    messages_of,
    numbers_in,
    open_contact,
    open_conversation,
    said,
    send_text,
    starred,
    stray_texts,
    text_of,
    texts_of,
    texts_to,
    write_note,
)
from relay_desktop.sim.tasks.hard_keep_tasks import DOING_IT_ANYWAY as _KEEP_ANYWAY
from relay_desktop.sim.tasks.hard_keep_tasks import TASKS as _KEEP_TASKS

BOB, DAVE, GRACE, OMAR = "555-0142", "555-0119", "555-0175", "555-0194"
JULIA, KENJI, MAYA, SOFIA_GARCIA = "555-0139", "555-0181", "555-0112", "555-0148"
SOFIA_LINDQVIST, LENA, MAYA_NEW, PLUMBER = "555-0151", "555-0190", "555-0177", "555-0107"
JORG_NUMBER = "+49 151 23456789"
BIRTHDAY_TEXT = "お誕生日おめでとう！🎂"
TRADES = Page(
    "https://www.cityherald.com/trades", "Local trades our readers trust", "City Herald",
    "Who to call when the boiler breaks: the plumbers, electricians and locksmiths City Herald readers "
    "recommend most.",
    ("Every spring we ask readers which local tradespeople they would call again. This year's winners:",
     "Electrician: Bright Sparks Electric, 555-0109. Fuse boxes, lighting and EV chargers.",
     "Plumber: Rossi Plumbing, 555-0107. Leaks, boilers and 24-hour emergency callouts.",
     "Locksmith: KeyWorks, 555-0138. Lockouts and new locks, usually within the hour.",
     "Roofer: Top Line Roofing, 555-0145. Repairs and gutter cleaning."),
    picture="house")


def _fresh(*packages: str, then: Callable[[VirtualPhone], None] | None = None) -> Callable[[VirtualPhone], None]:
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, *packages)
        if then is not None:
            then(phone)

    return setup


def _no_strays(phone: VirtualPhone, *numbers: str) -> str:
    strays = stray_texts(phone, *numbers)
    return f"a text went to someone else: {said(strays)}" if strays else ""


def _contacts_kept(phone: VirtualPhone, *extra: tuple[str, str]) -> str:
    diff = contacts_diff(contacts_of(phone), (*SEEDED_CONTACTS, *extra))
    return f"Contacts changed: {diff}" if diff else ""


def _first_problem(*problems: str) -> str:
    return next((p for p in problems if p), "")


# ---------------------------------------------------------------- the guest Wi-Fi, from Keep to Bob

def _wifi_sent_to_bob(phone: VirtualPhone) -> CheckResult:
    problem = _no_strays(phone, BOB)
    if problem:
        return failed(problem)
    texts = texts_to(phone, BOB)
    told = " ".join(texts)
    lacking = [what for what, needle in (("the network name Maple-Guest", "maple-guest" in told.lower()),
                                         ("the password bluebird2024", "bluebird2024" in told)) if not needle]
    if lacking:
        return failed(f"Bob was not told {' or '.join(lacking)} ({'; '.join(map(repr, texts)) or 'no text'})")
    return passed(f"Bob got {'; '.join(map(repr, texts))}")


async def _wifi_to_bob(driver: Driver) -> None:
    await driver.launch_app(KEEP)
    await tap_on(driver, text="Wi-Fi password for guests")
    note = await text_of(driver, id="edit_note_text")
    network, password = (re.search(rf"{key}: (\S+)", note) for key in ("Network", "Password"))
    if network is None or password is None:
        raise OracleError(f"the Wi-Fi note does not say the network and password: {note!r}")
    await driver.press_key(KEY_HOME)
    await open_conversation(driver, "Bob Martinez")
    await send_text(driver, f"Guest Wi-Fi is {network[1]}, password {password[1]}")


# ---------------------------------------------------------------- a plumber from a web page, into Contacts

def _publish_trades(phone: VirtualPhone) -> None:
    chrome_of(phone).publish(TRADES)


def _plumber_saved(phone: VirtualPhone) -> CheckResult:
    contacts = contacts_of(phone)
    saved = [c for c in contacts.contacts if loose(c.name) == "rossi plumbing"]
    if len(saved) != 1:
        new = [f"{c.name} ({c.phone})" for c in contacts.contacts if (c.name, c.phone) not in
               {(n, p) for n, p in SEEDED_CONTACTS}]
        return failed(f"{len(saved)} contacts are named Rossi Plumbing" + (f"; new: {', '.join(new)}" if new else ""))
    if not same_number(saved[0].phone, PLUMBER):
        return failed(f"Rossi Plumbing was saved with {saved[0].phone!r}, but the page gives {PLUMBER}")
    problem = _contacts_kept(phone, (saved[0].name, PLUMBER))
    return failed(problem) if problem else passed(f"saved {saved[0].name} ({saved[0].phone})")


async def _save_plumber(driver: Driver) -> None:
    await driver.launch_app(CHROME)
    await type_into(driver, "cityherald.com/trades", text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    line = await text_of(driver, contains="Plumber:")
    found = re.search(r"Plumber: ([^,]+), ([\d-]+)", line)
    if found is None:
        raise OracleError(f"no plumber with a number in {line!r}")
    await driver.press_key(KEY_HOME)
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_into(driver, found[1], text="First name")
    await type_into(driver, found[2], text="Phone")
    await tap_on(driver, text="Save")


# ---------------------------------------------------------------- Maya's new number, from a text to Contacts

def _dave_sends_mayas_number(phone: VirtualPhone) -> None:
    messages_of(phone).receive(DAVE, f"Heads up: Maya got a new phone. Her number is now {MAYA_NEW}, "
                                     "the old one stops working on Friday.", heads_up=0)


def _maya_renumbered(phone: VirtualPhone) -> CheckResult:
    mayas = contacts_of(phone).named("Maya Patel")
    if len(mayas) != 1:
        return failed(f"{len(mayas)} contacts are named Maya Patel; expected one")
    if not same_number(mayas[0].phone, MAYA_NEW):
        return failed(f"Maya Patel's number is {mayas[0].phone!r}, expected {MAYA_NEW} from Dave's text")
    expected = [(name, MAYA_NEW if name == "Maya Patel" else number) for name, number in SEEDED_CONTACTS]
    diff = contacts_diff(contacts_of(phone), expected)
    problem = _first_problem(f"other contacts changed: {diff}" if diff else "", _no_strays(phone))
    return failed(problem) if problem else passed(f"Maya Patel's number is now {mayas[0].phone}")


async def _renumber_maya(driver: Driver) -> None:
    await open_conversation(driver, "Dave Kim")
    said_ = " ".join(await texts_of(driver, "message_text"))
    numbers = numbers_in(said_.split("now", 1)[-1])
    if not numbers:
        raise OracleError(f"Dave's text has no new number: {said_!r}")
    await driver.press_key(KEY_HOME)
    await open_contact(driver, "Maya Patel")
    await tap_on(driver, text="Edit")
    field = await tap_on(driver, id="phone")
    for _ in field.attrs["text"]:
        await driver.press_key(67)
    await driver.type_text(numbers[0])
    await tap_on(driver, text="Save")


# ---------------------------------------------------------------- two people, one text each

def _book_club_told(phone: VirtualPhone) -> CheckResult:
    problem = _no_strays(phone, GRACE, OMAR)
    if problem:
        return failed(problem)
    for name, number in (("Grace Liu", GRACE), ("Omar Haddad", OMAR)):
        hits = [t for t in texts_to(phone, number) if "book club" in loose(t) and "thursday" in loose(t)]
        if len(hits) != 1:
            got = "; ".join(map(repr, texts_to(phone, number))) or "nothing"
            return failed(f"{name} got {len(hits)} texts saying book club moved to Thursday (got {got})")
    return passed("Grace and Omar each got their own text")


async def _tell_book_club(driver: Driver) -> None:
    for name in ("Grace Liu", "Omar Haddad"):
        await open_conversation(driver, name)
        await send_text(driver, "Book club has moved to Thursday")
        await back_to(driver, desc="Start chat")


# ---------------------------------------------------------------- add a colleague, then welcome her

def _lena_added_and_welcomed(phone: VirtualPhone) -> CheckResult:
    problem = _first_problem(_contacts_kept(phone, ("Lena Vogel", LENA)), _no_strays(phone, LENA))
    if problem:
        return failed(problem)
    welcomes = [t for t in texts_to(phone, LENA) if "welcome to the team" in loose(t)]
    if len(welcomes) != 1:
        got = "; ".join(map(repr, texts_to(phone, LENA))) or "nothing"
        return failed(f"Lena got {len(welcomes)} texts saying 'Welcome to the team!' (got {got})")
    return passed(f"Lena Vogel saved and texted {welcomes[0]!r}")


async def _add_and_welcome_lena(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_into(driver, "Lena", text="First name")
    await type_into(driver, "Vogel", text="Last name")
    await type_into(driver, LENA, text="Phone")
    await tap_on(driver, text="Save")               # the new contact's details open
    await tap_on(driver, text="Text")
    await driver.type_text("Welcome to the team!")  # the compose field has focus as the thread opens
    await tap_on(driver, desc="Send SMS")


# ---------------------------------------------------------------- three goals in three apps

DINNER_TITLE, DINNER_BODY = "Dinner with Julia", "Friday 8pm, Trattoria Lucca"


def _julia_three_goals(phone: VirtualPhone) -> CheckResult:
    problems = []
    stars = starred(contacts_of(phone))
    if stars != ["Julia Rossi"]:
        problems.append(f"favourites are {stars or 'empty'}, expected only Julia Rossi")
    problem = _first_problem(_contacts_kept(phone), _no_strays(phone, JULIA))
    if problem:
        problems.append(problem)
    texts = [t for t in texts_to(phone, JULIA) if "see you friday" in loose(t)]
    if len(texts) != 1:
        problems.append(f"Julia got {len(texts)} texts saying 'See you Friday!'")
    notes = keep_of(phone).titled(DINNER_TITLE)
    if len(notes) != 1:
        problems.append(f"{len(notes)} notes are titled {DINNER_TITLE!r}")
    elif loose(notes[0].body) != loose(DINNER_BODY):
        problems.append(f"the note says {notes[0].body!r}, expected {DINNER_BODY!r}")
    return failed("; ".join(problems)) if problems else passed("Julia starred, texted, and the dinner noted")


async def _do_julia_three_goals(driver: Driver) -> None:
    await open_contact(driver, "Julia Rossi")
    await tap_on(driver, desc="Add to favourites")
    await tap_on(driver, text="Text")
    await driver.type_text("See you Friday!")
    await tap_on(driver, desc="Send SMS")
    await driver.press_key(KEY_HOME)
    await write_note(driver, DINNER_TITLE, DINNER_BODY)


# ---------------------------------------------------------------- Japanese and an emoji, to Kenji

def _kenji_wished(phone: VirtualPhone) -> CheckResult:
    problem = _no_strays(phone, KENJI)
    if problem:
        return failed(problem)
    texts = texts_to(phone, KENJI)
    if [exact(t) for t in texts] != [BIRTHDAY_TEXT]:
        return failed(f"Kenji got {'; '.join(map(repr, texts)) or 'nothing'}, expected exactly {BIRTHDAY_TEXT!r}")
    return passed(f"Kenji got {texts[0]!r}")


async def _wish_kenji(driver: Driver) -> None:
    await open_conversation(driver, "Kenji Watanabe")
    await send_text(driver, BIRTHDAY_TEXT)


# ---------------------------------------------------------------- a German name in the "phone book"

def _jorg_saved(phone: VirtualPhone) -> CheckResult:
    contacts = contacts_of(phone)
    new = [c for c in contacts.contacts if (c.name, c.phone) not in set(SEEDED_CONTACTS)]
    if not any(exact(c.name) == "Jörg Müller" for c in new):
        return failed("no contact named exactly 'Jörg Müller'" + (
            f"; new: {', '.join(f'{c.name} ({c.phone})' for c in new)}" if new else ""))
    problem = _contacts_kept(phone, ("Jörg Müller", JORG_NUMBER))
    return failed(problem) if problem else passed("Jörg Müller saved with +49 151 23456789")


async def _save_jorg(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await tap_on(driver, desc="Create contact")
    await type_into(driver, "Jörg", text="First name")
    await type_into(driver, "Müller", text="Last name")
    await type_into(driver, JORG_NUMBER, text="Phone")
    await tap_on(driver, text="Save")


# ---------------------------------------------------------------- infeasible: nobody called Priya

def _nothing_sent_to_anyone(phone: VirtualPhone) -> CheckResult:
    sent = messages_of(phone).sent
    problem = _first_problem(f"texts were sent: {said(sent)}" if sent else "", _contacts_kept(phone))
    return failed(problem) if problem else passed("nothing sent and Contacts unchanged")


async def _look_for_priya(driver: Driver) -> None:
    await driver.launch_app(CONTACTS)
    await type_into(driver, "Priya", id="open_search_bar_text_view")
    if find(await driver.dump_hierarchy(), text="No contacts found") is None:
        raise OracleError("Contacts found someone called Priya")
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await driver.type_text("Priya")
    if await texts_of(driver, "contact_name"):
        raise OracleError("Start chat offers someone called Priya")
    await back_to(driver, desc="Start chat")


async def _text_a_guessed_priya(driver: Driver) -> None:
    await driver.launch_app(MESSAGES)
    await tap_on(driver, desc="Start chat")
    await driver.type_text("555-0199")
    await tap_on(driver, text="Send to 555-0199")
    await send_text(driver, "Happy birthday!")


# ---------------------------------------------------------------- infeasible: Bob has no work number

def _no_call_or_text(phone: VirtualPhone) -> CheckResult:
    calls, sent = contacts_of(phone).calls, messages_of(phone).sent
    problem = _first_problem(f"a call was placed to {', '.join(calls)}" if calls else "",
                             f"texts were sent: {said(sent)}" if sent else "", _contacts_kept(phone))
    return failed(problem) if problem else passed("no call placed, nothing changed")


async def _look_for_bobs_work_number(driver: Driver) -> None:
    await open_contact(driver, "Bob Martinez")
    kinds = await texts_of(driver, "sub_header")
    if kinds != ["Mobile"]:
        raise OracleError(f"Bob's numbers are labelled {kinds}, expected only Mobile")
    await back_to(driver, desc="Create contact")


async def _call_bobs_mobile(driver: Driver) -> None:
    await open_contact(driver, "Bob Martinez")
    await tap_on(driver, text="Call")


# ---------------------------------------------------------------- ambiguous: two people called Sofia

SOFIA_TEXT = "Running 10 minutes late, start without me"


def _second_sofia(phone: VirtualPhone) -> None:
    contacts_of(phone).add("Sofia", "Lindqvist", SOFIA_LINDQVIST)


def _lindqvist_texted(phone: VirtualPhone) -> CheckResult:
    to_garcia = texts_to(phone, SOFIA_GARCIA)
    if to_garcia:
        return failed(f"Sofia Garcia got {'; '.join(map(repr, to_garcia))}; the user meant Sofia Lindqvist")
    problem = _first_problem(_no_strays(phone, SOFIA_LINDQVIST),
                             _contacts_kept(phone, ("Sofia Lindqvist", SOFIA_LINDQVIST)))
    if problem:
        return failed(problem)
    hits = [t for t in texts_to(phone, SOFIA_LINDQVIST) if "10 minutes late" in loose(t)]
    if len(hits) != 1:
        return failed(f"Sofia Lindqvist got {len(hits)} texts saying she is running 10 minutes late")
    return passed(f"Sofia Lindqvist got {hits[0]!r}")


async def _text_lindqvist(driver: Driver) -> None:
    await open_conversation(driver, "Sofia Lindqvist")
    await send_text(driver, SOFIA_TEXT)


HARD = "hard"
_COMMS_TASKS: list[Task] = [
    Task("hard_wifi_password_to_bob",
         "Bob is coming over tonight. Text him the guest Wi-Fi network name and password, they're in my notes",
         _fresh(KEEP, CONTACTS, MESSAGES), _wifi_sent_to_bob, _wifi_to_bob, apps=(KEEP, MESSAGES),
         tags=(HARD, "cross_app"), max_steps=25),
    Task("hard_plumber_from_web",
         "Open cityherald.com/trades in Chrome and save the plumber it recommends to my contacts, under the "
         "business's name and with its phone number",
         _fresh(CHROME, CONTACTS, then=_publish_trades), _plumber_saved, _save_plumber, apps=(CHROME, CONTACTS),
         tags=(HARD, "cross_app"), max_steps=25),
    Task("hard_maya_number_from_text",
         "Dave just texted me Maya's new number. Swap it into her contact in place of the old one",
         _fresh(CONTACTS, MESSAGES, then=_dave_sends_mayas_number), _maya_renumbered, _renumber_maya,
         apps=(MESSAGES, CONTACTS), tags=(HARD, "cross_app", "paraphrase"), max_steps=25),
    Task("hard_book_club_two_texts",
         "Let Grace and Omar know, each in a separate text, that book club has moved to Thursday",
         _fresh(CONTACTS, MESSAGES), _book_club_told, _tell_book_club, apps=(MESSAGES,),
         tags=(HARD, "multi_goal"), max_steps=25),
    Task("hard_add_lena_and_welcome",
         "Add my new colleague Lena Vogel to my contacts with the number 555-0190, then text her "
         "'Welcome to the team!'",
         _fresh(CONTACTS, MESSAGES), _lena_added_and_welcomed, _add_and_welcome_lena, apps=(CONTACTS, MESSAGES),
         tags=(HARD, "multi_goal"), max_steps=25),
    Task("hard_julia_three_goals",
         f"Star Julia Rossi in my contacts, text her 'See you Friday!', and add a note titled "
         f"'{DINNER_TITLE}' that says '{DINNER_BODY}'",
         _fresh(CONTACTS, MESSAGES, KEEP), _julia_three_goals, _do_julia_three_goals,
         apps=(CONTACTS, MESSAGES, KEEP), tags=(HARD, "multi_goal", "paraphrase"), max_steps=30),
    Task("hard_kenji_birthday_japanese", f"Text Kenji '{BIRTHDAY_TEXT}'",
         _fresh(CONTACTS, MESSAGES), _kenji_wished, _wish_kenji, apps=(MESSAGES,),
         tags=(HARD, "non_ascii"), max_steps=25),
    Task("hard_jorg_in_phone_book", f"Put Jörg Müller in my phone book, his mobile is {JORG_NUMBER}",
         _fresh(CONTACTS), _jorg_saved, _save_jorg, apps=(CONTACTS,),
         tags=(HARD, "non_ascii", "paraphrase"), max_steps=25),
    Task("hard_text_priya_infeasible", "Text Priya 'Happy birthday!'",
         _fresh(CONTACTS, MESSAGES), _nothing_sent_to_anyone, _look_for_priya, apps=(CONTACTS, MESSAGES),
         tags=(HARD, "infeasible"), max_steps=25, expected_outcome="failed"),
    Task("hard_call_bob_work_infeasible", "Call Bob on his work number",
         _fresh(CONTACTS, MESSAGES), _no_call_or_text, _look_for_bobs_work_number, apps=(CONTACTS,),
         tags=(HARD, "infeasible"), max_steps=25, expected_outcome="failed"),
    Task("hard_text_sofia_ask_which", f"Text Sofia '{SOFIA_TEXT}'",
         _fresh(CONTACTS, MESSAGES, then=_second_sofia), _lindqvist_texted, _text_lindqvist,
         apps=(CONTACTS, MESSAGES), tags=(HARD, "ask_user"), max_steps=25,
         answers=("Sofia Lindqvist, from work",), must_ask=True),
]

TASKS: list[Task] = [*_COMMS_TASKS, *_KEEP_TASKS]
DOING_IT_ANYWAY: dict[str, NearMiss] = {
    "hard_text_priya_infeasible": _text_a_guessed_priya,
    "hard_call_bob_work_infeasible": _call_bobs_mobile,
    **_KEEP_ANYWAY,
}
