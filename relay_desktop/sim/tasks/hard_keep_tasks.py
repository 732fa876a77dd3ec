"""Hard tasks that end in Keep Notes: facts gathered from Chrome, Contacts and Messages into one note, German
text typed exactly, every note under a label deleted at once, and a note that does not exist.

Some start from a labelled notebook (:data:`NOTEBOOK`, added after the factory notes): trip notes under
"Lisbon 2025", others under "Food", "Work"... and one about Lisbon that is *not* labelled "Lisbon 2025".
"""

from __future__ import annotations

import re

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
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
    nodes,
    passed,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.hard_comms_common import (
    SEEDED_NOTES,
    NearMiss,
    NoteRow,
    back_to,
    exact,
    keep_of,
    loose,
    messages_of,
    note_row,
    notes_diff,
    numbers_in,
    one_note_titled,
    open_contact,
    open_conversation,
    text_of,
    texts_of,
    write_note,
)

HARD = "hard"
LISBON = "Lisbon 2025"
NOTEBOOK: tuple[NoteRow, ...] = (
    ("Lisbon restaurants for next time", "Cervejaria Ramiro for seafood, Taberna da Rua das Flores (no bookings, "
                                         "queue at 6)", ("Travel ideas",)),
    ("Flight home", "TP 1362, 18:40 from LIS, seat 14C", (LISBON,)),
    ("Porto weekend", "Livraria Lello tickets, Ribeira walk, port cellars in Gaia", ("Porto 2026", "Travel ideas")),
    ("Tram 28", "Every 10 minutes from Martim Moniz; buy a Viva Viagem card first", (LISBON,)),
    ("Pastéis de nata", "Manteigaria in Chiado, Pastéis de Belém (go early)", (LISBON, "Food")),
    ("Sourdough starter", "Feed 1:1:1 every 12 hours, keep it at 24 °C", ("Food",)),
    ("Hotel in Alfama", "Check-in from 15:00, door code 4471", (LISBON,)),
    ("Quarterly report", "Send the figures to Tom by the 28th", ("Work",)),
    ("Souvenirs", "Azulejo tiles, sardine tins, cork coasters", (LISBON,)),
)
EMERGENCY = (("Hannah Schmidt", "555-0104"), ("Ivan Horvat", "555-0156"), ("Kenji Watanabe", "555-0181"))
# (contact, number, what they texted): the last word of Dave's changes his first offer.
BARBECUE_TEXTS = (
    ("Dave Kim", "555-0119", ("Barbecue on Saturday? Count me in, I'll bring chips",
                          "Actually, make that a watermelon instead of the chips 🍉")),
    ("Sofia Garcia", "555-0148", ("I'll bring a big bowl of potato salad!",)),
    ("Tom Becker", "555-0170", ("Burgers for the grill are on me",)),
    ("Elena Petrova", "555-0163", ("So sorry, I can't make it on Saturday. Have fun!",)),
)
BARBECUE_ITEMS = (("Dave", "watermelon"), ("Sofia", "potato salad"), ("Tom", "burger"))
GERMAN_TITLE, GERMAN_BODY = "Einkaufsliste", "Äpfel, Brötchen, Weißwurst, Käse"


def _fresh(*packages: str):  # type: ignore[no-untyped-def]
    return lambda phone: fresh_start(phone, *packages)


def _with_notebook(phone: VirtualPhone) -> None:
    fresh_start(phone, KEEP)
    keep = keep_of(phone)
    for title, body, labels in NOTEBOOK:
        keep.add(title, body, labels)


def _others_kept(phone: VirtualPhone, made: NoteRow, before: tuple[NoteRow, ...] = SEEDED_NOTES) -> str:
    diff = notes_diff(keep_of(phone), (*before, made))
    return f"other notes changed: {diff}" if diff else ""


# ---------------------------------------------------------------- a recipe's ingredients, from Chrome to Keep

def _marmalade_noted(phone: VirtualPhone) -> CheckResult:
    note, problem = one_note_titled(keep_of(phone), "Marmalade")
    if note is None:
        return failed(problem)
    words, packed = loose(note.body), loose(note.body).replace(" ", "")
    lacking = [w for w in ("orange", "lemon", "water", "sugar") if w not in words]
    lacking += [amount for amount, needle in (("1 kg", "1kg"), ("2 kg", "2kg"), ("2 litres", "2l"))
                if needle not in packed]
    if lacking:
        return failed(f"the Marmalade note lacks {', '.join(lacking)}: {note.body!r}")
    problem = _others_kept(phone, note_row(note))
    return failed(problem) if problem else passed(f"Marmalade note: {note.body!r}")


async def _note_marmalade(driver: Driver) -> None:
    await driver.launch_app(CHROME)
    await type_into(driver, "seville orange marmalade recipe", text="Search or type URL")
    await driver.press_key(KEY_ENTER)
    await tap_on(driver, text="Seville orange marmalade recipe")
    needs = await text_of(driver, contains="You need")
    found = re.fullmatch(r"You need (.+)\.", needs)
    if found is None:
        raise OracleError(f"the recipe's list of ingredients reads {needs!r}")
    items = re.split(r", | and ", found[1])
    await driver.press_key(KEY_HOME)
    await write_note(driver, "Marmalade", "\n".join(items))


# ---------------------------------------------------------------- three numbers from Contacts, in one note

def _emergency_noted(phone: VirtualPhone) -> CheckResult:
    note, problem = one_note_titled(keep_of(phone), "Emergency contacts")
    if note is None:
        return failed(problem)
    numbers = numbers_in(note.body)
    for name, number in EMERGENCY:
        first = name.split()[0]
        if first.lower() not in note.body.lower():
            return failed(f"the note does not name {first}: {note.body!r}")
        if not any(same_number(found, number) for found in numbers):
            return failed(f"the note lacks {first}'s number {number}: {note.body!r}")
    if len(numbers) > len(EMERGENCY):
        return failed(f"the note lists {len(numbers)} numbers, expected 3: {note.body!r}")
    problem = _others_kept(phone, note_row(note))
    return failed(problem) if problem else passed(f"Emergency contacts: {note.body!r}")


async def _note_emergency_numbers(driver: Driver) -> None:
    lines = []
    for name, _ in EMERGENCY:
        await open_contact(driver, name)
        lines.append(f"{name}: {await text_of(driver, id='header')}")
    await driver.press_key(KEY_HOME)
    await write_note(driver, "Emergency contacts", "\n".join(lines))


# ---------------------------------------------------------------- who brings what, from four threads

def _barbecue_texts_arrive(phone: VirtualPhone) -> None:
    fresh_start(phone, CONTACTS, MESSAGES, KEEP)
    messages = messages_of(phone)
    for _, number, texts in BARBECUE_TEXTS:
        for text in texts:
            messages.receive(number, text, heads_up=0)


def _barbecue_noted(phone: VirtualPhone) -> CheckResult:
    note, problem = one_note_titled(keep_of(phone), "Barbecue")
    if note is None:
        return failed(problem)
    body = loose(note.body)
    lacking = [f"{who} brings {item}" for who, item in BARBECUE_ITEMS
               if who.lower() not in body or item not in body]
    if lacking:
        return failed(f"the Barbecue note does not say {', '.join(lacking)}: {note.body!r}")
    if messages_of(phone).sent:
        return failed("texts were sent; the task only asked for a note")
    problem = _others_kept(phone, note_row(note))
    return failed(problem) if problem else passed(f"Barbecue note: {note.body!r}")


async def _note_barbecue(driver: Driver) -> None:
    said: dict[str, str] = {}
    for name, _, _ in BARBECUE_TEXTS:
        await open_conversation(driver, name)
        said[name.split()[0]] = loose(" ".join(await texts_of(driver, "message_text")))
        await back_to(driver, desc="Start chat")
    for who, item in BARBECUE_ITEMS:
        if item not in said[who]:
            raise OracleError(f"{who}'s texts do not mention {item}: {said[who]!r}")
    await driver.press_key(KEY_HOME)
    await write_note(driver, "Barbecue", "\n".join(f"{who}: {item}" for who, item in BARBECUE_ITEMS))


# ---------------------------------------------------------------- German, exactly

def _german_note(phone: VirtualPhone) -> CheckResult:
    keep = keep_of(phone)
    notes = [n for n in keep.notes if exact(n.title) == GERMAN_TITLE]
    if len(notes) != 1:
        new = [repr(n.title) for n in keep.notes if note_row(n) not in SEEDED_NOTES]
        return failed(f"{len(notes)} notes are titled exactly {GERMAN_TITLE!r}" + (f"; new: {', '.join(new)}"
                                                                                   if new else ""))
    if exact(notes[0].body) != GERMAN_BODY:
        return failed(f"the note says {notes[0].body!r}, expected exactly {GERMAN_BODY!r}")
    problem = _others_kept(phone, note_row(notes[0]))
    return failed(problem) if problem else passed(f"{GERMAN_TITLE}: {notes[0].body!r}")


async def _write_german_note(driver: Driver) -> None:
    await write_note(driver, GERMAN_TITLE, GERMAN_BODY)


# ---------------------------------------------------------------- infeasible: there is no gift list

def _notebook_untouched(phone: VirtualPhone) -> CheckResult:
    diff = notes_diff(keep_of(phone), (*SEEDED_NOTES, *NOTEBOOK))
    return failed(f"the notes changed: {diff}") if diff else passed("every note is as it was")


async def _search_for_gift_ideas(driver: Driver) -> None:
    await driver.launch_app(KEEP)
    for query in ("gift", "scarf"):
        await type_into(driver, query, id="open_search_bar_text_view")
        if find(await driver.dump_hierarchy(), text="No matching results") is None:
            raise OracleError(f"Keep found notes for {query!r}")
        await tap_on(driver, desc="Clear search")


async def _start_a_gift_list(driver: Driver) -> None:
    await write_note(driver, "Gift ideas", "Scarf")


# ---------------------------------------------------------------- many notes: everything under one label

def _lisbon_cleared(phone: VirtualPhone) -> CheckResult:
    keep = keep_of(phone)
    left = keep.labelled(LISBON)
    if left:
        return failed(f"{len(left)} notes are still labelled {LISBON}: {', '.join(repr(n.title) for n in left)}")
    kept = [row for row in NOTEBOOK if LISBON not in row[2]]
    diff = notes_diff(keep, (*SEEDED_NOTES, *kept))
    return failed(f"other notes changed: {diff}") if diff else passed(f"every {LISBON} note deleted, the rest kept")


async def _delete_lisbon_notes(driver: Driver) -> None:
    await driver.launch_app(KEEP)
    await tap_on(driver, desc="Open navigation drawer")
    await tap_on(driver, text=LISBON, id="title")
    xml = await driver.dump_hierarchy()
    cards = [n for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(":id/browse_note_interior_content")]
    if not cards:
        raise OracleError(f"no notes under {LISBON}")
    x, y = cards[0].center
    await driver.swipe(x, y, x, y, 800)               # a long press starts the selection
    for card in cards[1:]:
        await driver.tap(*card.center)
    if await text_of(driver, id="action_bar_title") != str(len(cards)):
        raise OracleError(f"expected {len(cards)} notes selected")
    await tap_on(driver, desc="More options")
    await tap_on(driver, text="Delete")               # the menu item
    await tap_on(driver, text="Delete", id="button1")  # the confirmation
    if find(await driver.dump_hierarchy(), text="Notes with this label appear here") is None:
        raise OracleError(f"notes are still shown under {LISBON}")


TASKS: list[Task] = [
    Task("hard_marmalade_ingredients_note",
         "Find the Seville orange marmalade recipe on the web and jot down its ingredients, with amounts, in a "
         "note titled 'Marmalade'",
         _fresh(CHROME, KEEP), _marmalade_noted, _note_marmalade, apps=(CHROME, KEEP),
         tags=(HARD, "cross_app", "collect", "paraphrase"), max_steps=30),
    Task("hard_emergency_contacts_note",
         "Create a note titled 'Emergency contacts' with the names and phone numbers of Hannah Schmidt, "
         "Ivan Horvat and Kenji Watanabe",
         _fresh(CONTACTS, KEEP), _emergency_noted, _note_emergency_numbers, apps=(CONTACTS, KEEP),
         tags=(HARD, "cross_app", "collect"), max_steps=30),
    Task("hard_barbecue_note_from_texts",
         "A few friends texted me about Saturday's barbecue. Make a note titled 'Barbecue' with who is bringing "
         "what",
         _barbecue_texts_arrive, _barbecue_noted, _note_barbecue, apps=(MESSAGES, KEEP),
         tags=(HARD, "cross_app", "collect"), max_steps=30),
    Task("hard_german_shopping_note", f"Create a note titled '{GERMAN_TITLE}' with the text '{GERMAN_BODY}'",
         _fresh(KEEP), _german_note, _write_german_note, apps=(KEEP,), tags=(HARD, "non_ascii"), max_steps=25),
    Task("hard_gift_ideas_infeasible", "Take the scarf off my 'Gift ideas' note",
         _with_notebook, _notebook_untouched, _search_for_gift_ideas, apps=(KEEP,),
         tags=(HARD, "infeasible"), max_steps=25, expected_outcome="failed"),
    Task("hard_delete_lisbon_notes",
         f"I'm back from Lisbon. Delete all my notes labelled '{LISBON}' and keep everything else",
         _with_notebook, _lisbon_cleared, _delete_lisbon_notes, apps=(KEEP,), tags=(HARD, "many_items"),
         max_steps=30),
]
DOING_IT_ANYWAY: dict[str, NearMiss] = {"hard_gift_ideas_infeasible": _start_a_gift_list}
