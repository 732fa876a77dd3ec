"""A task for Messages' conversations with several people: one message that reaches two contacts at once.

The checker reads :attr:`Messages.sent`, where each sent message lists every recipient; so the same words
sent to each person apart, a group missing one of them or with someone extra, or the wrong time, all fail,
each with a reason that names the mistake.
"""

from __future__ import annotations

import re

from relay_desktop.sim.apps.contacts import PACKAGE as CONTACTS
from relay_desktop.sim.apps.contacts import same_number
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import SentMessage
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import CheckResult, Driver, Task, failed, fresh_start, passed, tap_on, type_into
from relay_desktop.sim.tasks.hard_comms_common import back_to, messages_of, said

BOB, CAROL = "555-0142", "555-0187"
GROUP = (BOB, CAROL)
# "8:30" as a time of its own: not 18:30, 8:305 or a date's "28:30".
NEW_TIME = re.compile(r"(?<![\d:])8[:.]30(?!\d)")


def _setup(phone: VirtualPhone) -> None:
    fresh_start(phone, CONTACTS, MESSAGES)


def _to_exactly(message: SentMessage, numbers: tuple[str, ...]) -> bool:
    people = message.recipients or (message.number,)
    return len(people) == len(numbers) and all(any(same_number(p, n) for p in people) for n in numbers)


def _reaches(message: SentMessage, number: str) -> bool:
    return any(same_number(p, number) for p in message.recipients or (message.number,))


def _names(phone: VirtualPhone, numbers: tuple[str, ...]) -> str:
    return ", ".join(messages_of(phone).display_name(n) for n in numbers)


def _dinner_moved_in_one_group(phone: VirtualPhone) -> CheckResult:
    sent = messages_of(phone).sent
    if not sent:
        return failed("no message was sent")
    groups = [m for m in sent if _to_exactly(m, GROUP)]
    others = [m for m in sent if m not in groups]
    if not groups:
        near = next((m for m in sent if len(m.recipients) > 1), None)
        if near is not None:
            missing = [n for n in GROUP if not _reaches(near, n)]
            extra = [p for p in near.recipients if not any(same_number(p, n) for n in GROUP)]
            wrong = "; ".join(part for part in (
                f"it left out {_names(phone, tuple(missing))}" if missing else "",
                f"it also went to {_names(phone, tuple(extra))}" if extra else "") if part)
            return failed(f"the group message went to {near.name}, not to Bob Martinez and Carol Nguyen "
                          f"alone: {wrong}")
        reached = [n for n in GROUP if any(_reaches(m, n) for m in sent)]
        if len(reached) == len(GROUP):
            return failed(f"Bob and Carol were texted separately, not in one group message: {said(sent)}")
        lacking = _names(phone, tuple(n for n in GROUP if n not in reached))
        return failed(f"no group message with Bob and Carol; {lacking} got nothing: {said(sent)}")
    if len(groups) > 1:
        return failed(f"{len(groups)} group messages were sent, not one: {said(groups)}")
    if others:
        return failed(f"besides the group message, texts were also sent separately: {said(others)}")
    text = groups[0].text
    if not NEW_TIME.search(text) or "dinner" not in text.lower():
        return failed(f"the group message does not say dinner moved to 8:30: {text!r}")
    return passed(f"one message to {groups[0].name}: {text!r}")


async def start_group(driver: Driver, *names: str) -> None:
    """A new group conversation with ``names`` (contacts, picked by their first name), opened with Next."""
    await driver.launch_app(MESSAGES)
    await back_to(driver, desc="Start chat")
    await tap_on(driver, desc="Start chat")
    await tap_on(driver, text="Create group", id="contact_picker_create_group")
    for name in names:
        await tap_on(driver, id="recipient_text_view")
        await driver.type_text(name.split()[0])
        await tap_on(driver, text=name, id="contact_name")
    await tap_on(driver, text="Next")


async def write_in_thread(driver: Driver, text: str) -> None:
    await type_into(driver, text, id="compose_message_text")
    await tap_on(driver, desc="Send SMS")


async def _dinner_moved(driver: Driver) -> None:
    await start_group(driver, "Bob Martinez", "Carol Nguyen")
    await write_in_thread(driver, "Dinner at 8 moved to 8:30")


TASKS = [
    Task("messages_group_dinner_moved", "Text Bob and Carol in one group message: dinner at 8 moved to 8:30",
         _setup, _dinner_moved_in_one_group, _dinner_moved, apps=(MESSAGES, CONTACTS),
         tags=("group_message", "multi_goal"), max_steps=20),
]
