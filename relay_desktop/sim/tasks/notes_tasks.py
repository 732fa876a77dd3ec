"""Tasks in Keep Notes: create a note, delete one, and edit the text of one."""

from __future__ import annotations

from relay_desktop.sim.apps.keep import PACKAGE, SEED, KeepNotes, Note
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_BACK,
    KEY_DEL,
    CheckResult,
    Driver,
    Task,
    failed,
    fresh_start,
    passed,
    tap_on,
    type_into,
)

PACKING, WIFI = "Packing list", "Wi-Fi password for guests"
OLD_PASSWORD, NEW_PASSWORD = "bluebird2024", "sunflower42"


def _setup(phone: VirtualPhone) -> None:
    fresh_start(phone, PACKAGE)


def _keep(phone: VirtualPhone) -> KeepNotes:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


def _missing_seeded(keep: KeepNotes, *, except_title: str = "") -> list[str]:
    return [title for title, _ in SEED if title != except_title and not keep.titled(title)]


def _words(note: Note) -> str:
    return " ".join(note.body.lower().split())


# ---------------------------------------------------------------- create "Groceries"

def _groceries_created(phone: VirtualPhone) -> CheckResult:
    keep = _keep(phone)
    missing = _missing_seeded(keep)
    if missing:
        return failed(f"existing notes were removed: {', '.join(missing)}")
    notes = keep.titled("Groceries")
    if not notes:
        others = [repr(n.title or n.body) for n in keep.notes if not any(n.title == t for t, _ in SEED)]
        return failed("no note titled Groceries" + (f"; new notes: {', '.join(others)}" if others else ""))
    if len(notes) > 1:
        return failed(f"{len(notes)} notes are titled Groceries; expected one")
    lacking = [item for item in ("milk", "eggs", "bread") if item not in _words(notes[0])]
    if lacking:
        return failed(f"the Groceries note says {notes[0].body!r}; it lacks {', '.join(lacking)}")
    return passed(f"Groceries note: {notes[0].body!r}")


async def _create_groceries(driver: Driver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="New note")
    await type_into(driver, "Groceries", id="editable_title")
    await type_into(driver, "milk, eggs, bread", id="edit_note_text")
    await tap_on(driver, desc="Navigate up")


# ---------------------------------------------------------------- delete "Packing list"

def _packing_deleted(phone: VirtualPhone) -> CheckResult:
    keep = _keep(phone)
    if keep.titled(PACKING):
        return failed("the note 'Packing list' is still there")
    missing = _missing_seeded(keep, except_title=PACKING)
    if missing:
        return failed(f"other notes were deleted too: {', '.join(missing)}")
    return passed("Packing list deleted; the other notes are kept")


async def _delete_packing(driver: Driver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text=PACKING)
    await tap_on(driver, desc="Delete")
    await tap_on(driver, text="Delete", id="button1")


# ---------------------------------------------------------------- change the guest Wi-Fi password

def _password_changed(phone: VirtualPhone) -> CheckResult:
    keep = _keep(phone)
    missing = _missing_seeded(keep)
    if missing:
        return failed(f"notes were removed: {', '.join(missing)}")
    notes = keep.titled(WIFI)
    if len(notes) != 1:
        return failed(f"{len(notes)} notes are titled {WIFI!r}; expected one")
    body = notes[0].body
    if OLD_PASSWORD in body:
        return failed(f"the note still has the old password: {body!r}")
    if NEW_PASSWORD not in body:
        return failed(f"the note does not have the new password {NEW_PASSWORD}: {body!r}")
    if "maple-guest" not in body.lower():
        return failed(f"the network name was lost: {body!r}")
    return passed(f"the note now says {body!r}")


async def _change_password(driver: Driver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text=WIFI)
    await tap_on(driver, id="edit_note_text")  # the cursor goes to the end, after the old password
    for _ in OLD_PASSWORD:
        await driver.press_key(KEY_DEL)
    await driver.type_text(NEW_PASSWORD)
    await driver.press_key(KEY_BACK)  # hides the keyboard
    await driver.press_key(KEY_BACK)  # leaves the note; Keep saves as you type


TASKS: list[Task] = [
    Task("notes_create_groceries", "Create a note titled 'Groceries' with the text 'milk, eggs, bread'",
         _setup, _groceries_created, _create_groceries, apps=(PACKAGE,), tags=("notes", "create"), max_steps=10),
    Task("notes_delete_packing", "Delete the note 'Packing list'",
         _setup, _packing_deleted, _delete_packing, apps=(PACKAGE,), tags=("notes", "delete"), max_steps=8),
    Task("notes_change_wifi_password",
         f"In the note '{WIFI}', change the password from {OLD_PASSWORD} to {NEW_PASSWORD}",
         _setup, _password_changed, _change_password, apps=(PACKAGE,), tags=("notes", "edit"), max_steps=12),
]
