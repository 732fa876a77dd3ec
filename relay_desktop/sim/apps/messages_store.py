"""What Messages keeps: conversations of messages, and the record of every text sent from the app.

Task checkers read :class:`SentMessage` records ("was exactly one text sent to Bob?"), never the screen.
A conversation with several people is keyed, as Android's ``smsto:`` URIs name it, by their numbers joined
with ";" ("555-0142;555-0187"); one-to-one conversations are keyed by the one number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from relay_desktop.sim.apps.contacts import same_number


def recipients_of(key: str) -> tuple[str, ...]:
    """The numbers a conversation key names, in order (Android accepts ";" or "," between them)."""
    return tuple(part.strip() for part in re.split(r"[;,]", key) if part.strip())


def group_key(numbers: Iterable[str]) -> str:
    return ";".join(numbers)


def same_people(a: str, b: str) -> bool:
    """Whether two keys name the same people, in any order: one group is one conversation, as in Messages
    (and a number alone never matches a group that merely ends with its digits)."""
    left, right = recipients_of(a) or (a,), recipients_of(b) or (b,)
    return len(left) == len(right) and all(any(x == y or same_number(x, y) for y in right) for x in left)


@dataclass
class Message:
    text: str
    outgoing: bool
    time: datetime
    sender: str = ""            # who wrote an incoming message in a group (their number); "" otherwise


@dataclass
class Conversation:
    number: str                 # as first dialled or received; several people's numbers joined with ";"
    name: str                   # the contact's name when the conversation started, else the number
    messages: list[Message] = field(default_factory=list)
    read: bool = True
    order: int = 0              # bumped by each new message: the list shows the highest first


    @property
    def recipients(self) -> tuple[str, ...]:
        return recipients_of(self.number)


@dataclass(frozen=True)
class SentMessage:
    number: str                 # the conversation's key: one number, or a group's numbers joined with ";"
    name: str                   # as the thread's header shows it: "Bob Martinez, Carol Nguyen" for a group
    text: str
    recipients: tuple[str, ...] = ()    # every number the one message went to, in the conversation's order
