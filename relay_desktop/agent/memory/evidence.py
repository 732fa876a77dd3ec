"""Which text on the phone's screens backs a fact the agent noted, found by the fact's words.

Matching on numbers alone quoted the wrong text: a note quoting Carol's message word for word was shown against
the clock ("02:32 | 07:32") because the two shared digits, and a fact read one screen before a scroll was judged
against the screen after it. So a fact is matched by all its telling words, numbers among them, over the screen
it was noted on and the few seen just before; the numbers the best text lacks are looked for in the other texts
of that screen, and only those found nowhere are "not on it".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Match", "Screen", "match_evidence", "numbers_in", "words_in"]

# A time is one token ("8:30", not "8" and "30"); other tokens are words and numbers, joined by - . and '.
_TOKEN = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?(?!\d)|[^\W_]+(?:[-.'][^\W_]+)*")
# Words too common to tell texts apart (a fact's "the", "and", "has" match every message).
_COMMON = frozenset({
    "the", "and", "for", "are", "was", "were", "has", "have", "had", "not", "but", "you", "your", "she", "her",
    "his", "its", "they", "them", "this", "that", "with", "from", "into", "onto", "than", "then", "there", "their",
    "what", "when", "who", "will", "would", "can", "could", "should", "may", "might", "one", "two", "all", "any",
    "our", "out", "per", "via", "also", "just", "only", "very", "more", "most", "some", "such", "each",
    "both", "own", "same", "too", "yes"
})
MAX_GATHERED = 6     # texts of one screen that may back one fact between them (a list's rows)
LABEL_WORDS = 2      # a text this short backs a fact by one word it shares (a row's name)
EARLIER_MARGIN = 2   # telling words more an earlier screen's text must share to beat the current screen's


@dataclass(frozen=True)
class Screen:
    """The texts of one screen the agent saw, and when and where."""
    step: int
    app: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    text: str                  # the backing text, whole (texts gathered from one screen joined by " | ")
    step: int                  # the step whose screen showed it
    unseen: tuple[str, ...]    # numbers of the fact that no text of that screen shows
    app: str = ""              # the app that screen was in
    score: int = 0             # telling words of the fact its first text shows


def _tokens(text: str) -> list[str]:
    found = []
    for token in _TOKEN.findall(text.lower()):
        if token.endswith("'s"):
            token = token[:-2]
        elif ":" in token:
            token = token.lstrip("0") if not token.startswith("00") else token[1:]   # 07:30 is 7:30
        found.append(token)
    return found


def numbers_in(text: str) -> set[str]:
    """The numbers, codes and times of a text that identify it (two digits or more: "555-0104", "39.99", "30")."""
    return {t for t in _tokens(text) if sum(c.isdigit() for c in t) >= 2}


def words_in(text: str) -> set[str]:
    """The telling tokens of a text: its numbers and its words of three letters or more, common ones aside."""
    telling = set()
    for token in _tokens(text):
        digits = sum(c.isdigit() for c in token)
        if digits >= 2:
            telling.add(token)
        elif not digits and (len(token) >= 3 or token == "on") and token not in _COMMON:
            # "on" beside "off": a switch's state is what many facts are about ("Dark theme · on").
            # "alarms" and "alarm", "notes" and "note" are one word here.
            telling.add(token[:-1] if len(token) > 4 and token.endswith("s") else token)
    return telling


def match_evidence(fact: str, screens: Sequence[Screen], ignore: set[str] = frozenset()) -> Match | None:
    """The text that backs ``fact`` best, on the first of ``screens`` (the screen it was noted on) or on one
    before it; None when no text shares two of its telling words (one, for a fact of one telling word).
    ``ignore``: numbers that need no backing on the screen (the task gave them, the agent worked them out)."""
    wanted = words_in(fact)
    if not wanted:
        return None
    needed = 1 if len(wanted) == 1 else 2
    words = [[words_in(text) for text in screen.texts] for screen in screens]
    best: tuple[int, int, int] | None = None      # (score, screen index, text index)
    for s, screen in enumerate(screens):
        # An earlier screen wins only when clearly better: the fact was noted on the first (a headline seen a
        # step before must not stand for the article's own line on the screen the fact was read from).
        margin = 0 if s == 0 else EARLIER_MARGIN
        for t in range(len(screen.texts)):
            score = len(wanted & words[s][t])
            if score >= needed and (best is None or score > best[0] + (margin if best[1] == 0 else 0)):
                best = (score, s, t)
    if best is None:
        return None
    numbers = numbers_in(fact) - ignore
    found = _gathered(fact, wanted, numbers, screens[best[1]], words[best[1]], best[2])
    if found.unseen:
        # The screen the fact was noted on lacks its number: a screen just before that shows it backs it better
        # ("Omar Haddad · 555-0194" in the picker, a step before the thread titled "Omar Haddad").
        for s, screen in enumerate(screens):
            holding = [(len(wanted & words[s][t]), t) for t in range(len(screen.texts))
                       if numbers_in(screen.texts[t]) & set(found.unseen) and len(wanted & words[s][t]) >= needed]
            if s != best[1] and holding:
                other = _gathered(fact, wanted, numbers, screen, words[s], max(holding)[1])
                if len(other.unseen) < len(found.unseen):
                    found = other
    return found


def _gathered(fact: str, wanted: set[str], numbers: set[str], screen: Screen, told: list[set[str]],
              first: int) -> Match:
    """The match that starts from text ``first`` of ``screen`` and gathers the texts of that screen that show
    what it lacks: the fact's numbers first, then its words."""
    missing = numbers - numbers_in(screen.texts[first])
    chosen = [first]
    while missing and len(chosen) < MAX_GATHERED:
        # The text that shows most of what is still missing ("07:32" for "07", "32"; not "02:32" for "32").
        # Ties go to the text sharing more of the fact's words ("Turn off 07:15 alarm · on" over a bare "07:15").
        holds, _, back = max(((len(numbers_in(text) & missing), len(told[i] & wanted), -i)
                              for i, text in enumerate(screen.texts) if i not in chosen), default=(0, 0, 1))
        other = -back
        if not holds:
            break
        chosen.append(other)
        missing -= numbers_in(screen.texts[other])
    # Then texts that show words of the fact no chosen text does (a row's repeat days, "Mon, Tue, Wed, Thu, Fri"),
    # or a short label that is one of them (the alarm's "Gym": the word that shows it is the right row).
    unsaid = wanted - set().union(*(told[i] for i in chosen))
    while unsaid and len(chosen) < MAX_GATHERED:
        adds, _, back = max(((len(told[i] & unsaid), -len(told[i]), -i) for i in range(len(screen.texts))
                             if i not in chosen), default=(0, 0, 1))
        if adds < 2 and not (adds == 1 and len(told[-back]) <= LABEL_WORDS):
            break
        chosen.append(-back)
        unsaid -= told[-back]
    joined = " | ".join(screen.texts[i] for i in sorted(chosen))
    return Match(joined, screen.step, tuple(sorted(missing, key=lambda n: (fact.lower().find(n), n))), screen.app,
                 len(told[first] & wanted))
