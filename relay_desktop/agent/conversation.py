"""The fast agent's conversation: the pinned task message plus a sliding window of the last 12 messages.

The pinned message is never trimmed: it is the task, and once the planning agent has spoken, the task
with its strategic guidance. Older turns fall out of the window; what they taught survives as the failure
context and loop-guard notes the orchestrator puts in every prompt.
"""

from __future__ import annotations

from collections import deque

from relay_desktop.llm.types import Message

__all__ = ["WINDOW", "Conversation", "merge_roles"]

WINDOW = 12


class Conversation:
    def __init__(self, task: str, window: int = WINDOW) -> None:
        self.task = task
        self.pinned = Message.user(f"TASK: {task}")
        self._recent: deque[Message] = deque(maxlen=window)

    def pin(self, text: str) -> None:
        self.pinned = Message.user(text)

    def add(self, message: Message) -> None:
        self._recent.append(message)

    def messages(self) -> list[Message]:
        """Pinned message first, then the window."""
        return [self.pinned, *self._recent]

    def request(self, current: Message) -> tuple[Message, ...]:
        """The messages for this turn's request: history, then the current screen, roles alternating."""
        return tuple(merge_roles([*self.messages(), current]))


def merge_roles(messages: list[Message]) -> list[Message]:
    """Join neighbours of the same role: some providers refuse two user messages in a row."""
    merged: list[Message] = []
    for message in messages:
        if merged and merged[-1].role == message.role:
            last = merged[-1]
            merged[-1] = Message(last.role, f"{last.text}\n\n{message.text}".strip(), last.images + message.images)
        else:
            merged.append(message)
    return merged
