"""Facts the model chose to keep: what it read on one screen and needs on a later one.

The fast agent's conversation is a sliding window, so a phone number read in Contacts at step 4 is gone by
step 17, when the message to Bob is typed. The model keeps such facts with the ``remember`` field of its
answer; they are pinned next to the task in every request, shown to the planning agent and the completion
verifier (with the step and app where each was read, as evidence), and capped so they cannot grow without end.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_FACTS", "MAX_FACT_CHARS", "Fact", "Memory"]

MAX_FACTS = 12
MAX_FACT_CHARS = 300


@dataclass(frozen=True)
class Fact:
    text: str
    step: int
    app: str

    def line(self) -> str:
        where = f"step {self.step}" + (f", {self.app}" if self.app else "")
        return f"- {self.text} (read at {where})"


class Memory:
    def __init__(self, max_facts: int = MAX_FACTS) -> None:
        self.max_facts = max_facts
        self.facts: list[Fact] = []
        self.dropped = 0

    def add(self, texts: list[str] | tuple[str, ...], step: int, app: str = "") -> list[Fact]:
        """Keep new facts (the newest win when the cap is reached); returns those actually added."""
        added = []
        for raw in texts:
            text = " ".join(str(raw).split())
            if not text:
                continue
            if len(text) > MAX_FACT_CHARS:
                text = text[:MAX_FACT_CHARS - 1].rstrip() + "…"
            if any(f.text == text for f in self.facts):
                continue
            fact = Fact(text, step, app)
            self.facts.append(fact)
            added.append(fact)
        excess = len(self.facts) - self.max_facts
        if excess > 0:
            self.facts = self.facts[excess:]
            self.dropped += excess
        return added

    def text(self, header: str = "FACTS YOU NOTED (kept for the whole run; add more with \"remember\"):") -> str:
        if not self.facts:
            return ""
        lines = [header, *(f.line() for f in self.facts)]
        if self.dropped:
            lines.append(f"({self.dropped} older facts were dropped to keep this list short)")
        return "\n".join(lines)

    def __bool__(self) -> bool:
        return bool(self.facts)
