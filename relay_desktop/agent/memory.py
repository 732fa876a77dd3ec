"""Facts the model chose to keep: what it read on one screen and needs on a later one.

The fast agent's conversation is a sliding window, so a phone number read in Contacts at step 4 is gone by
step 17, when the message to Bob is typed. The model keeps such facts with the ``remember`` field of its
answer; they are pinned next to the task in every request, shown to the planning agent and the completion
verifier, and capped so they cannot grow without end.

A fact is the model's own sentence, not something the loop saw: "Julia starred" may be true or a hope. So each
keeps, as evidence, the text on the screen it was noted on that matches it (the number, the names), or says
that nothing there matched; a supervisor then weighs a quoted "Hannah Schmidt · 555-0104" above a bare claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MAX_FACTS", "MAX_FACT_CHARS", "NOTED_BY_THE_AGENT", "Fact", "Memory", "evidence_for"]

MAX_FACTS = 12
MAX_FACT_CHARS = 300
MAX_EVIDENCE_CHARS = 120
NOTED_BY_THE_AGENT = ("Facts the agent noted (its own words, not checked; each says what text the screen showed "
                      "that matches it, if any):")
_TOKEN = re.compile(r"[^\W_]+(?:[-.'][^\W_]+)*")


@dataclass(frozen=True)
class Fact:
    text: str
    step: int
    app: str
    evidence: str = ""      # the screen's text that matches the fact, quoted; "" when nothing there did
    from_task: bool = False  # the evidence is the task's own text (the user said it), not the screen's
    unseen: tuple[str, ...] = ()   # numbers of the fact that the quoted text does not show (a partial match)

    def line(self) -> str:
        where = f"step {self.step}" + (f", {self.app}" if self.app else "")
        if self.evidence and self.from_task:
            # What the user asked for is not proof it was done: said so, so no verifier reads it as screen text.
            seen = f'not shown on that screen — only the user\'s task says "{self.evidence}"'
        elif self.evidence:
            seen = f'the screen showed "{self.evidence}"'
        else:
            seen = "no matching text on that screen"
        if self.unseen:
            seen += f"; not on it: {', '.join(self.unseen)}"
        return f"- {self.text} (noted at {where}; {seen})"


def _significant(text: str) -> set[str]:
    """Tokens that identify a fact: anything with a digit (numbers, codes, times) and words of 4+ letters."""
    found = set()
    for token in _TOKEN.findall(text.lower()):
        digits = sum(c.isdigit() for c in token)
        if digits >= 2 or (not digits and len(token) >= 4):
            found.add(token)
    return found


def evidence_for(fact: str, screen_texts: Sequence[str]) -> str:
    """The screen text that best backs ``fact``: every number in the fact must be on it, and, for a fact
    without numbers, at least two of its words. "" when no text on the screen does."""
    wanted = _significant(fact)
    numbers = {t for t in wanted if any(c.isdigit() for c in t)}
    best, best_score = "", 0
    for text in screen_texts:
        have = _significant(text)
        if numbers and not numbers <= have:
            continue
        score = len(wanted & have)
        if score > best_score and (numbers or score >= 2):
            best, best_score = text, score
    if best:
        return _quoted(best)
    # A fact may gather what several texts show ("Order #SH-10421, 1 × Speaker, total $39.99"): backed when
    # the texts holding its numbers hold all of them between them.
    gathered, unseen = partly_seen(fact, screen_texts)
    return gathered if gathered and not unseen else ""


def partly_seen(fact: str, screen_texts: Sequence[str]) -> tuple[str, list[str]]:
    """The texts that show some of the fact's numbers, quoted, and the numbers none of them shows
    ("11:10 · Wednesday, November 25", ["26"]); ("", []) when none of its numbers is there."""
    numbers = {t for t in _significant(fact) if any(c.isdigit() for c in t)}
    holding = [t for t in screen_texts if _significant(t) & numbers]
    if not holding:
        return "", []
    seen = set().union(*(_significant(t) for t in holding))
    return _quoted(" | ".join(holding)), sorted(numbers - seen, key=fact.lower().find)


def _quoted(text: str) -> str:
    return text if len(text) <= MAX_EVIDENCE_CHARS else text[:MAX_EVIDENCE_CHARS - 1].rstrip() + "…"


class Memory:
    def __init__(self, max_facts: int = MAX_FACTS, task: str = "") -> None:
        self.max_facts = max_facts
        self.task = task          # a fact that restates the task is backed by it (the user said it)
        self.facts: list[Fact] = []
        self.dropped = 0

    def add(self, texts: list[str] | tuple[str, ...], step: int, app: str = "",
            screen_texts: Sequence[str] = ()) -> list[Fact]:
        """Keep new facts (the newest win when the cap is reached), each with the text of ``screen_texts`` (the
        screen it was noted on) that backs it; returns those actually added."""
        added = []
        for raw in texts:
            text = " ".join(str(raw).split())
            if not text:
                continue
            if len(text) > MAX_FACT_CHARS:
                text = text[:MAX_FACT_CHARS - 1].rstrip() + "…"
            if any(f.text == text for f in self.facts):
                continue
            evidence, from_task, unseen = evidence_for(text, screen_texts), False, []
            if not evidence and self.task:
                evidence = evidence_for(text, [self.task])
                from_task = bool(evidence)
            if not evidence:
                evidence, unseen = partly_seen(text, screen_texts)
                # A number the task gave (a price limit, a time) is no gap in what the screen showed.
                given = _significant(self.task) if self.task else set()
                unseen = [u for u in unseen if u.lower() not in given]
            fact = Fact(text, step, app, evidence, from_task, tuple(unseen))
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
