"""What the hard Contacts / Messages / Chrome / Keep tasks share: readers of the apps' state that say exactly
what differs from what was expected (so a near miss fails with a reason), and the oracle's everyday moves.

A task's initial state may add data to the factory state (a second Sofia, a page on the phone's web, a
labelled notebook); its checker then compares against that same data, never against the screen.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable

from relay_desktop.sim.apps.browser import PACKAGE as CHROME
from relay_desktop.sim.apps.browser import Chrome
from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import SEED as CONTACT_SEED
from relay_desktop.sim.apps.contacts import Contacts, same_number
from relay_desktop.sim.apps.keep import PACKAGE as KEEP
from relay_desktop.sim.apps.keep import SEED as NOTE_SEED
from relay_desktop.sim.apps.keep import KeepNotes, Note
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import Messages, SentMessage
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import KEY_BACK, Driver, OracleError, find, nodes, tap_on, type_into

# What an over-eager agent does on an infeasible task: a scripted near miss the checker must reject.
NearMiss = Callable[[Driver], Awaitable[None]]

SEEDED_CONTACTS: tuple[tuple[str, str], ...] = tuple((f"{first} {last}", number)
                                                     for first, last, number in CONTACT_SEED)
NoteRow = tuple[str, str, tuple[str, ...]]
SEEDED_NOTES: tuple[NoteRow, ...] = tuple((title, body, ()) for title, body in NOTE_SEED)
_PHONE_NUMBER = re.compile(r"\+?\d[\d ().-]{5,}\d")


def contacts_of(phone: VirtualPhone) -> Contacts:
    return phone.apps[CONTACTS]  # type: ignore[return-value]


def messages_of(phone: VirtualPhone) -> Messages:
    return phone.apps[MESSAGES]  # type: ignore[return-value]


def keep_of(phone: VirtualPhone) -> KeepNotes:
    return phone.apps[KEEP]  # type: ignore[return-value]


def chrome_of(phone: VirtualPhone) -> Chrome:
    return phone.apps[CHROME]  # type: ignore[return-value]


def exact(text: str) -> str:
    """Text as a checker compares it exactly: NFC (a pasted "ä" may arrive decomposed) and outer space trimmed."""
    return unicodedata.normalize("NFC", text).strip()


def loose(text: str) -> str:
    """Text as a checker looks for words in it: lower case, single spaces."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def numbers_in(text: str) -> list[str]:
    return _PHONE_NUMBER.findall(text)


# ---------------------------------------------------------------- Contacts

def contacts_diff(contacts: Contacts, expected: Iterable[tuple[str, str]]) -> str:
    """'' when Contacts holds exactly the ``expected`` (name, number) pairs — names exact, numbers as the
    phone compares them — else which are missing and which are unexpected."""
    unmatched = list(contacts.contacts)
    missing = []
    for name, number in expected:
        hit = next((c for c in unmatched if exact(c.name) == name and same_number(c.phone, number)), None)
        if hit is None:
            missing.append(f"{name} ({number})")
        else:
            unmatched.remove(hit)
    parts = []
    if missing:
        parts.append("missing " + ", ".join(missing))
    if unmatched:
        parts.append("unexpected " + ", ".join(f"{c.name} ({c.phone})" for c in unmatched))
    return "; ".join(parts)


def starred(contacts: Contacts) -> list[str]:
    return sorted(c.name for c in contacts.contacts if c.starred)


# ---------------------------------------------------------------- Messages

def texts_to(phone: VirtualPhone, number: str) -> list[str]:
    return [m.text for m in messages_of(phone).sent if same_number(m.number, number)]


def stray_texts(phone: VirtualPhone, *numbers: str) -> list[SentMessage]:
    """Texts sent to anyone but ``numbers``."""
    return [m for m in messages_of(phone).sent if not any(same_number(m.number, n) for n in numbers)]


def said(messages: Iterable[SentMessage]) -> str:
    return "; ".join(f"{m.name}: {m.text!r}" for m in messages)


# ---------------------------------------------------------------- Keep

def note_row(note: Note) -> NoteRow:
    return note.title, note.body, tuple(note.labels)


def notes_diff(keep: KeepNotes, expected: Iterable[NoteRow]) -> str:
    """'' when Keep holds exactly the ``expected`` (title, body, labels) notes, else what differs."""
    have, want = Counter(note_row(n) for n in keep.notes), Counter(expected)
    parts = []
    if want - have:
        parts.append("missing or changed: " + ", ".join(repr(title or body[:30]) for title, body, _ in want - have))
    if have - want:
        parts.append("unexpected: " + ", ".join(repr(title or body[:30]) for title, body, _ in have - want))
    return "; ".join(parts)


def one_note_titled(keep: KeepNotes, title: str) -> tuple[Note | None, str]:
    """The single note titled ``title`` (case and spacing aside), or why there is not exactly one."""
    notes = keep.titled(title)
    if len(notes) == 1:
        return notes[0], ""
    if not notes:
        new = [repr(n.title or n.body[:30]) for n in keep.notes if note_row(n) not in SEEDED_NOTES]
        return None, f"no note titled {title!r}" + (f"; new notes: {', '.join(new)}" if new else "")
    return None, f"{len(notes)} notes are titled {title!r}; expected one"


# ---------------------------------------------------------------- oracle moves

async def text_of(driver: Driver, **query: str) -> str:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    if node is None:
        raise OracleError(f"nothing on screen matches {query}")
    return node.attrs.get("text", "")


async def texts_of(driver: Driver, id: str) -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs.get("text", "") for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(f":id/{id}")]


async def back_to(driver: Driver, tries: int = 5, **query: str) -> None:
    """Press BACK until something matching ``query`` is on screen (an app's first screen, say)."""
    for _ in range(tries):
        if find(await driver.dump_hierarchy(), **query) is not None:  # type: ignore[arg-type]
            return
        await driver.press_key(KEY_BACK)
    raise OracleError(f"pressed BACK {tries} times and never saw {query}")


async def open_contact(driver: Driver, name: str) -> None:
    """Contacts' details of ``name``, found through the search bar."""
    await driver.launch_app(CONTACTS)
    await back_to(driver, desc="Create contact")
    if find(await driver.dump_hierarchy(), desc="Clear search") is not None:
        await tap_on(driver, desc="Clear search")
    await type_into(driver, name, id="open_search_bar_text_view")
    await tap_on(driver, text=name, id="cliv_name_textview")


async def open_conversation(driver: Driver, name: str) -> None:
    """The thread with ``name``: from the conversation list if there is one, else through Start chat."""
    await driver.launch_app(MESSAGES)
    await back_to(driver, desc="Start chat")
    if find(await driver.dump_hierarchy(), text=name, id="conversation_name") is not None:
        await tap_on(driver, text=name, id="conversation_name")
        return
    await tap_on(driver, desc="Start chat")
    await driver.type_text(name.split()[0])     # the To field has focus as the screen opens
    await tap_on(driver, text=name, id="contact_name")


async def send_text(driver: Driver, text: str) -> None:
    """Type into the open thread's compose field and send."""
    await type_into(driver, text, id="compose_message_text")
    await tap_on(driver, desc="Send SMS")


async def write_note(driver: Driver, title: str, body: str) -> None:
    """A new Keep note with ``title`` and ``body``, left with the up arrow (Keep saves as you type)."""
    await driver.launch_app(KEEP)
    await back_to(driver, desc="New note")
    await tap_on(driver, desc="New note")
    await type_into(driver, title, id="editable_title")
    await type_into(driver, body, id="edit_note_text")
    await tap_on(driver, desc="Navigate up")
