"""Facts the model chose to keep: what it read on one screen and needs on a later one.

The fast agent's conversation is a sliding window, so a phone number read in Contacts at step 4 is gone by
step 17, when the message to Bob is typed. The model keeps such facts with the ``remember`` field of its
answer; they are pinned next to the task in every request, shown to the planning agent and the completion
verifier, and capped so they cannot grow without end.

A fact is the model's own sentence, not something the loop saw: "Julia starred" may be true or a hope. So each
keeps, as evidence, the exact screen text it was read from (found by its words, on the screen it was noted on or
one just before it: a fact is often noted a scroll later), with the step that screen was seen at; numbers the
task gave and values the agent worked out ("Saves $60 = $139.99 − $79.99") are shown as such, not as missing
from the screen. A supervisor then weighs a quoted "Hannah Schmidt · 555-0104" above a bare claim, and the
verifier reads the very lines the agent decided on.

Facts have keys (F1, F2 …): the model replaces one by starting a new fact with its key ("F2: 3 alarms on") and
retires one with ``forget``, so only the current version travels. A progress note ("done so far …") is the
first to go when room runs out, before the facts the task rests on, and the model is told the limit and what
went.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

from relay_desktop.agent.memory.evidence import Screen, match_evidence, numbers_in, words_in

__all__ = ["MAX_FACTS", "MAX_FACT_CHARS", "NOTED_BY_THE_AGENT", "Fact", "Memory", "Screen", "evidence_for"]

MAX_FACTS = 12
MAX_FACT_CHARS = 300
SHOWN_EVIDENCE_CHARS = 160     # of a fact's screen text, in its line (the verifier gets more: read_text)
RECENT_SCREENS = 3             # screens before the current one where a fact's text is looked for
READ_BUDGET_CHARS = 2000       # the screen lines behind facts and reasoning, for the completion verifier
READ_PER_STEP = 3              # lines one step's reasoning may point at
READ_LINE_CHARS = 300          # of one such line
NOTED_BY_THE_AGENT = ("Facts the agent noted (its own words, not checked; each says what text the screen showed "
                      "that matches it, if any):")
_KEYED = re.compile(r"^\s*\[?(F\d+)\]?\s*[:=–—-]\s*(.+)$", re.S)
_FORGET = re.compile(r"^\s*(?:forget|drop|retire)\s+\[?(F\d+)\]?\s*$", re.I)
# Words that say the agent worked a number out (counted it, added it up) rather than read it.
# So do words that make a number a target, not a reading ("must become 17:15").
_COMPUTED = re.compile(r"\b(count(?:ed|s|ing)?|total(?:s|led|ing)?|sums?|summed|add(?:ed|s)? up|in all|altogether|"
                       r"combined|difference|average|plus|minus|times|comes to|came to|"
                       r"(?:must|should|will|needs? to|is to) (?:be|become)|becomes?|target)\b", re.I)
_PROGRESS = re.compile(r"\b(so far|progress|done:|remaining|still to do|left to do|next step|todo|to-do list "
                       r"done)\b", re.I)


@dataclass(frozen=True)
class Fact:
    text: str
    step: int
    app: str
    evidence: str = ""       # the screen's text the fact was read from, whole ("" when nothing there matched)
    from_task: bool = False  # the evidence is the task's own text (the user said it), not the screen's
    unseen: tuple[str, ...] = ()   # numbers of the fact that neither the quoted text nor the task shows
    key: str = ""
    seen_at: int = 0         # the step whose screen showed the evidence (the step noted at, or one before it)
    given: tuple[str, ...] = ()     # numbers the user's task gave
    worked_out: tuple[str, ...] = ()   # numbers the agent computed, with its inputs in the fact ("= a − b")
    progress: bool = False   # a note on how far the task has got, not something the task rests on
    seen_in: str = ""        # the app of the screen that showed the evidence (when not the one noted in)

    def line(self) -> str:
        where = f"step {self.step}" + (f", {self.app}" if self.app else "")
        shown = _quoted(self.evidence, SHOWN_EVIDENCE_CHARS)
        if self.evidence and self.from_task:
            # What the user asked for is not proof it was done: said so, so no verifier reads it as screen text.
            seen = f'not shown on that screen — only the user\'s task says "{shown}"'
        elif self.evidence:
            at = f" at step {self.seen_at}" if self.seen_at and self.seen_at != self.step else ""
            if at and self.seen_in and self.seen_in != self.app:
                at += f" ({self.seen_in})"
            seen = f'the screen{at} showed "{shown}"'
        else:
            seen = "no matching text on that screen"
        if self.given:
            seen += f"; from the task: {', '.join(self.given)}"
        if self.worked_out:
            seen += f"; worked out by the agent (inputs in the fact): {', '.join(self.worked_out)}"
        if self.unseen:
            seen += f"; not on it: {', '.join(self.unseen)}"
        head = f"{self.key}: " if self.key else ""
        kind = "progress note: " if self.progress else ""
        return f"- {head}{kind}{self.text} (noted at {where}; {seen})"


def evidence_for(fact: str, screen_texts: Sequence[str]) -> str:
    """The screen text that best backs ``fact`` (by its words; numbers count as words), quoted; "" when no text
    on the screen does."""
    found = match_evidence(fact, [Screen(0, "", tuple(screen_texts))])
    return _quoted(found.text, SHOWN_EVIDENCE_CHARS) if found is not None and not found.unseen else ""


def _quoted(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


class Memory:
    def __init__(self, max_facts: int = MAX_FACTS, task: str = "") -> None:
        self.max_facts = max_facts
        self.task = task          # a fact that restates the task is backed by it (the user said it)
        self.facts: list[Fact] = []
        self.dropped = 0
        self.dropped_texts: list[str] = []     # what went to make room, newest last (the model is told)
        self._next_key = 1
        self.recent: deque[Screen] = deque(maxlen=RECENT_SCREENS)   # the screens seen before the current one
        self.reads: list[tuple[int, str, tuple[str, ...]]] = []     # (step, app, lines its reasoning quoted)

    def saw(self, step: int, app: str, screen_texts: Sequence[str]) -> None:
        """A screen the agent was shown: a fact noted on a later screen may have been read on this one, and a
        fact noted on the screen before, in the plan that acted on it ("Dark theme switched on"), may be
        shown by this one better than by the screen it was noted on."""
        screen = Screen(step, app, tuple(screen_texts))
        before = self.recent[0] if self.recent else None
        if before is not None and before.step < step:
            self.facts = [self._seen_after(fact, before, screen) for fact in self.facts]
        self.recent.appendleft(screen)

    def _seen_after(self, fact: Fact, noted_on: Screen, after: Screen) -> Fact:
        if fact.step != noted_on.step or fact.from_task or (fact.evidence and fact.seen_at != fact.step):
            return fact
        ignore = (numbers_in(self.task) if self.task else set()) | set(fact.worked_out)
        now = match_evidence(fact.text, [after], ignore=ignore)
        if now is None or len(now.unseen) > len(fact.unseen):
            return fact
        then = match_evidence(fact.text, [noted_on], ignore=ignore) if fact.evidence else None
        if then is not None and now.score <= then.score:
            return fact
        return replace(fact, evidence=now.text, unseen=now.unseen, seen_at=after.step, seen_in=after.app)

    def add(self, texts: Iterable[str], step: int, app: str = "", screen_texts: Sequence[str] = (),
            earlier: Sequence[Screen] = ()) -> list[Fact]:
        """Keep new facts, each with the text that backs it: on ``screen_texts`` (the screen it was noted on) or
        on ``earlier`` screens (newest first). "F3: …" replaces fact F3, "forget F3" retires it. Returns the
        facts added or replaced."""
        current = Screen(step, app, tuple(screen_texts))
        if not earlier:
            earlier = [seen for seen in self.recent if seen.step != step]
        screens = [current, *earlier]
        added = []
        for raw in texts:
            text = " ".join(str(raw).split())
            if not text:
                continue
            forget = _FORGET.match(text)
            if forget:
                self.forget([forget.group(1)])
                continue
            key = ""
            keyed = _KEYED.match(text)
            if keyed:
                # "F1: …" replaces F1 when there is one; a key the model made up is dropped (never "F1: F1: …").
                text = keyed.group(2).strip()
                if any(f.key == keyed.group(1).upper() for f in self.facts):
                    key = keyed.group(1).upper()
            if len(text) > MAX_FACT_CHARS:
                text = text[:MAX_FACT_CHARS - 1].rstrip() + "…"
            if any(f.text == text for f in self.facts):
                continue
            fact = self._fact(text, step, app, screens)
            if key:
                fact = replace(fact, key=key)
                self.facts = [fact if f.key == key else f for f in self.facts]
            else:
                # Facts may have been handed over from another memory (split screen): keys keep counting up.
                self._next_key = max(self._next_key, 1 + max((int(f.key[1:]) for f in self.facts if f.key), default=0))
                fact = replace(fact, key=f"F{self._next_key}")
                self._next_key += 1
                self.facts.append(fact)
            added.append(fact)
        self._make_room()
        return added

    def read_lines(self, step: int, app: str, screen_texts: Sequence[str], reasoning: str,
                   controls: Collection[int] = ()) -> tuple[str, ...]:
        """Keep the screen lines the model's reasoning at ``step`` points at (a message, a notice, a saved
        contact's name and number), so the completion verifier can check a decision made on a screen long gone.
        A line counts when it has three telling words or more and the reasoning shares at least two and half of
        them; a shorter text that is not a control (``controls``: indices of the texts that are) when the
        reasoning names both its words. A button named in passing ("tap Network & internet") is a target, not
        a line read."""
        said = words_in(reasoning)
        scored = []
        for index, text in enumerate(screen_texts):
            words = words_in(text)
            shared = len(words & said)
            long_enough = len(words) >= 3 and shared >= 2 and 2 * shared >= len(words)
            named_whole = len(words) == 2 and shared == 2 and index not in controls
            if long_enough or named_whole:
                scored.append((-shared, index, text))
        lines = tuple(text for _, _, text in sorted(scored)[:READ_PER_STEP])
        lines = tuple(sorted(lines, key=list(screen_texts).index))      # in the screen's order
        if lines:
            self.reads.append((step, app, lines))
        return lines

    def forget(self, keys: Iterable[str]) -> None:
        """Retire facts the model no longer needs (or found wrong), by key."""
        gone = {str(k).strip().strip("[]").upper() for k in keys}
        self.facts = [f for f in self.facts if f.key not in gone]

    def _fact(self, text: str, step: int, app: str, screens: Sequence[Screen]) -> Fact:
        given_numbers = numbers_in(self.task) if self.task else set()
        worked = _worked_out(text)
        found = match_evidence(text, screens, ignore=given_numbers | worked)
        if found is not None and found.unseen and ("=" in text or _COMPUTED.search(text)):
            # "Counted 13 products …", "this Saturday = Nov 28": the numbers no screen shows are the agent's
            # result, told with its inputs (on either side of the "=").
            worked |= set(found.unseen)
            found = replace(found, unseen=())
        progress = bool(_PROGRESS.search(text))
        fact_numbers = numbers_in(text)
        given = tuple(n for n in _in_order(fact_numbers & given_numbers, text) if n not in worked)
        if found is not None:
            return Fact(text, step, app, found.text, False, tuple(found.unseen), seen_at=found.step, given=given,
                        worked_out=tuple(_in_order(worked, text)), progress=progress, seen_in=found.app)
        if self.task:
            by_task = match_evidence(text, [Screen(step, "", (self.task,))])
            if by_task is not None:
                return Fact(text, step, app, self.task, True, seen_at=step, worked_out=tuple(_in_order(worked, text)),
                            progress=progress)
        return Fact(text, step, app, "", False, given=given, worked_out=tuple(_in_order(worked, text)),
                    progress=progress)

    def _make_room(self) -> None:
        """Over the limit: progress notes go first (oldest first), then the oldest facts."""
        while len(self.facts) > self.max_facts:
            victim = next((f for f in self.facts if f.progress), self.facts[0])
            self.facts.remove(victim)
            self.dropped += 1
            self.dropped_texts.append(victim.text)

    def text(self, header: str = "") -> str:
        if not self.facts and not self.dropped:
            return ""
        header = header or (f"FACTS YOU NOTED (kept for the whole run, room for {self.max_facts}; replace one by "
                            "starting a new fact with its key, e.g. \"F2: …\"; retire one with forget):")
        lines = [header, *(f.line() for f in self.facts)]
        if self.dropped:
            last = "; ".join(f'"{_quoted(t, 60)}"' for t in self.dropped_texts[-3:])
            lines.append(f"(the list is limited to {self.max_facts} facts: {self.dropped} dropped to make room, "
                         f"the last: {last})")
        return "\n".join(lines)

    def read_text(self, budget: int = READ_BUDGET_CHARS) -> str:
        """The screen lines the agent's facts were read from and its reasoning pointed at, whole, within
        ``budget`` characters (the facts' first, then the newest reads), in step order: what the completion
        verifier needs to check the agent's decisions itself."""
        candidates: list[tuple[int, str]] = []      # (step, line)
        behind: dict[str, list[Fact]] = {}          # facts read from one line share it ("behind F1, F2")
        for fact in reversed(self.facts):
            if fact.evidence and not fact.from_task:
                behind.setdefault(fact.evidence, []).append(fact)
        for evidence, facts in behind.items():
            fact = facts[0]
            app = fact.seen_in or fact.app
            keys = ", ".join(sorted((f.key for f in facts), key=lambda k: int(k[1:]) if k[1:].isdigit() else 0))
            candidates.append((fact.seen_at or fact.step, f'- behind {keys} (screen at step '
                               f'{fact.seen_at or fact.step}' + (f", {app}" if app else "") + f'): "{evidence}"'))
        for step, app, texts in reversed(self.reads):
            for text in texts:
                # The screen the model was shown at that step, before it acted (the transcript's "step N:" is
                # what it then did).
                candidates.append((step, f"- read on the screen at step {step}" + (f" ({app})" if app else "") +
                                   f': "{_quoted(text, READ_LINE_CHARS)}"'))
        chosen: list[tuple[int, str]] = []
        used = 0
        quoted: set[str] = set()
        for step, line in candidates:
            body = line.split('"', 1)[1]
            if body in quoted:
                continue
            quoted.add(body)
            if used + len(line) > budget:
                if budget - used > 80:
                    chosen.append((step, line[:budget - used - 1] + "…"))
                break
            chosen.append((step, line))
            used += len(line)
        if not chosen:
            return ""
        return ("Screen lines the agent read (behind its facts, and what its reasoning pointed at; quoted "
                "whole):\n" + "\n".join(line for _, line in sorted(chosen, key=lambda c: c[0])))

    def __bool__(self) -> bool:
        return bool(self.facts)


def _worked_out(text: str) -> set[str]:
    """Numbers the fact says the agent computed: what stands on either side of an "=" with arithmetic on the
    other ("Saves $60 = $139.99 − $79.99", "13 = count of products rated ≥ 4.5") — the result, not the inputs."""
    if "=" not in text:
        return set()
    results = set()
    for left, right in re.findall(r"([^=;,]*)=([^=;,]*)", text):
        inputs = numbers_in(right)
        result = numbers_in(left)
        if result and (len(inputs) != 1 or re.search(r"[-+−×x*/÷]|count|sum|total|of", right)):
            results |= {n for n in result if n not in inputs}
    return results


def _in_order(numbers: set[str], text: str) -> list[str]:
    return sorted(numbers, key=lambda n: (text.lower().find(n), n))
