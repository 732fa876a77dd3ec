"""A phone not quite as a routine left it, for ``bench --replay --perturb``: what a saved routine meets on a real
phone on another day.

* ``popup`` — an app in the background crashed: "Clock keeps stopping" is over whatever comes up first;
* ``elsewhere`` — the task's app was left open on another screen (its first list row opened), so launching it
  brings it back there, as a launcher icon does;
* ``moved`` — the lists the task works in have a new item at the top (a contact, a conversation, a note, an
  alarm), so every row it taps sits one place lower.

Each keeps the task's meaning. The items ``moved`` adds are taken away again by ``Perturbation.undo`` before
the task's checker reads the phone (a checker that counts alarms must not count the one the bench added).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from relay_desktop.sim.tasks.base import PhoneDriver, nodes

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

__all__ = ["KINDS", "Perturbation", "perturb"]

KINDS = ("popup", "elsewhere", "moved")
CONTACTS = "com.google.android.contacts"
MESSAGES = "com.google.android.apps.messaging"
KEEP = "com.google.android.keep"
CLOCK = "com.google.android.deskclock"
_BYSTANDERS = (CLOCK, "com.android.chrome", KEEP, CONTACTS)


@dataclass
class Perturbation:
    what: str                                           # what was changed, in words
    undos: list[Callable[[], None]] = field(default_factory=list)

    def undo(self) -> None:
        """Take away what was added (before the task's checker reads the phone)."""
        for undo in reversed(self.undos):
            undo()


async def perturb(phone: VirtualPhone, kind: str, apps: tuple[str, ...]) -> Perturbation:
    """Change the phone as ``kind`` says, for a task that works in ``apps``."""
    if kind == "popup":
        crashed = next(p for p in _BYSTANDERS if p not in apps and p in phone.apps)
        phone.report_background_crash(crashed)
        return Perturbation(f"\"{phone.apps[crashed].label} keeps stopping\" is showing")
    if kind == "elsewhere":
        return Perturbation(await _left_elsewhere(phone, apps))
    if kind == "moved":
        return _moved(phone, apps)
    raise ValueError(f"unknown perturbation {kind!r}: one of {', '.join(KINDS)}")


async def _left_elsewhere(phone: VirtualPhone, apps: tuple[str, ...]) -> str:
    package = next((p for p in apps if p in phone.apps), None)
    if package is None:
        return "nothing (the task names no app)"
    phone.launch(package)
    driver = PhoneDriver(phone)
    found = nodes(await driver.dump_hierarchy())
    lists = [n for n in found if n.attrs.get("scrollable") == "true"]
    row = None
    if lists:
        left, top, right, bottom = lists[0].bounds
        row = next((n for n in found if n.attrs.get("clickable") == "true" and n.attrs.get("package") == package
                    and left <= n.bounds[0] and n.bounds[2] <= right and top <= n.bounds[1] < bottom
                    and n.bounds[3] - n.bounds[1] > 40), None)
    if row is not None:
        await driver.tap(*row.center)
    phone.go_home()
    label = phone.apps[package].label
    return f"{label} was left on another screen" if row is not None else f"{label} was left open"


def _moved(phone: VirtualPhone, apps: tuple[str, ...]) -> Perturbation:
    done: list[str] = []
    undos: list[Callable[[], None]] = []
    if CONTACTS in apps or MESSAGES in apps:
        contacts = phone.apps[CONTACTS]
        added = contacts.add("Aaron", "Abbott", "555-0111")   # type: ignore[attr-defined]
        undos.append(lambda: contacts.delete(added.id))       # type: ignore[attr-defined]
        done.append("a contact")
    if MESSAGES in apps:
        messages = phone.apps[MESSAGES]
        conversation = messages.receive("555-0111", "Are we still on for lunch?", heads_up=None)  # type: ignore
        phone.notifications.clear()

        def forget() -> None:
            if conversation in messages.conversations:             # type: ignore[attr-defined]
                messages.conversations.remove(conversation)        # type: ignore[attr-defined]
        undos.append(forget)
        done.append("a conversation")
    if KEEP in apps:
        keep = phone.apps[KEEP]
        note = keep.add("Bike shop", "new inner tube")  # type: ignore[attr-defined]
        keep.notes.remove(note)                         # type: ignore[attr-defined]
        keep.notes.insert(0, note)                      # type: ignore[attr-defined]
        undos.append(lambda: keep.delete(note.id))      # type: ignore[attr-defined]
        done.append("a note")
    if CLOCK in apps:
        clock = phone.apps[CLOCK]
        alarm = clock.add(4, 45, label="Early flight", enabled=False)  # type: ignore[attr-defined]
        undos.append(lambda: clock.delete(alarm.id))                   # type: ignore[attr-defined]
        done.append("an alarm")
    phone.invalidate()
    what = ("new at the top: " + ", ".join(done)) if done else "nothing moved (no list of the task's apps)"
    return Perturbation(what, undos)
