"""What Messages keeps: conversations of messages, and the record of every text sent from the app.

Task checkers read :class:`SentMessage` records ("was exactly one text sent to Bob?"), never the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Message:
    text: str
    outgoing: bool
    time: datetime


@dataclass
class Conversation:
    number: str                 # as first dialled or received
    name: str                   # the contact's name when the conversation started, else the number
    messages: list[Message] = field(default_factory=list)
    read: bool = True
    order: int = 0              # bumped by each new message: the list shows the highest first


@dataclass(frozen=True)
class SentMessage:
    number: str
    name: str
    text: str
