"""The fast agent's conversation: the pinned message plus a sliding window of the last 12 messages.

The pinned message is never trimmed. It holds, once each: the task, the phone (device, installed apps and
what they can do), the planning agent's guidance once it has spoken, and the facts the model chose to
remember. Older turns fall out of the window; what they taught survives as those facts, the open issues and
the loop-guard notes the orchestrator puts in every prompt.
"""

from __future__ import annotations

from collections import deque

from relay_desktop.llm.types import Message

__all__ = ["WINDOW", "Conversation", "merge_roles"]

WINDOW = 12


class Conversation:
    def __init__(self, task: str, window: int = WINDOW) -> None:
        self.task = task
        self.context = ""                 # the phone: device, installed apps, what the apps can do
        self.guidance = ""                # the planning agent's current guidance
        self.routine = ""                 # a replayed routine's remaining steps, once the agent took over from it
        self.facts = ""                   # what the model chose to remember
        self._recent: deque[Message] = deque(maxlen=window)
        self._added = 0

    @property
    def pinned(self) -> Message:
        parts = [f"TASK: {self.task}", self.context, self.routine, self.guidance, self.facts]
        return Message.user("\n\n".join(p for p in parts if p))

    def add(self, message: Message) -> None:
        self._recent.append(message)
        self._added += 1

    def messages(self) -> list[Message]:
        """Pinned message first, then the window, which starts with a plan of the model's: results and answers
        whose plan fell out of the window go with it (a result with no plan before it reads as a fresh one)."""
        recent = list(self._recent)
        trimmed = self._added > len(recent)
        while trimmed and recent and recent[0].role == "user" and any(m.role == "assistant" for m in recent):
            recent.pop(0)
        return [self.pinned, *recent]

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
