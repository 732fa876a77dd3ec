"""Gboard's suggestion strip: up to three candidates for the word being typed, as chaos mode shows them.

Like Gboard, the strip offers the word as typed, its best correction or completion in the middle, and one more;
tapping a candidate replaces the word being typed with it and a space. The candidates come from a small
frequency-ordered vocabulary (common English words and the names in the phone's contacts), so an unusual word
("Kinoko", a restaurant) gets a confident wrong correction ("Kimono"), as on a real phone. Text typed with
``adb shell input text`` never goes through the strip: only a tap on a candidate changes what was typed.
"""

from __future__ import annotations

import re

__all__ = ["candidates", "pick"]

# Most frequent first: the order ranks completions and corrections.
_WORDS = " ".join("""
the to and a i you it in is of that for on my be have me do this at with but not are so can we was just your
what get all if no like go up out about will know how one good time see now when then there here more day
love got back want think need going way yeah make today really well hey thanks thank did come right home
still work some tomorrow tonight night call text send after before let sure okay ok great please sorry
morning from where who why would could should over them they our us him her his she he had been has am
meet meeting lunch dinner breakfast coffee late early soon minutes hour hours running run later next week
weekend saturday sunday monday tuesday wednesday thursday friday table booked book books booking reserved
place restaurant kimono kind king kitchen kid kids kinder kinda knock note notes number phone message messages
store shop shopping shops price cart order ready pick picked pickup groceries milk bread eggs cheese fruit
alarm gym gate code password wifi network guest guests library hours open opens opening closed saturday
address street road avenue station train bus airport flight ticket tickets concert game party birthday
happy see seat save saved seats way wait waiting walk walking drive driving car parking park
bob carol dave amara elena frank grace hannah ivan julia kenji maya omar sofia tom zoe
""".splitlines()).split()
VOCABULARY: tuple[str, ...] = tuple(dict.fromkeys(_WORDS))   # unique, in order of first mention
_KNOWN = frozenset(VOCABULARY)
_WORD_AT_END = re.compile(r"[A-Za-z']+$")


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (small words only: the vocabulary is short)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _like(typed: str, word: str) -> str:
    """``word`` in the case the user typed: capitalised when they capitalised."""
    return word.capitalize() if typed[:1].isupper() else word


def candidates(text: str) -> list[str]:
    """The strip's candidates, left to right, for the word ``text`` ends with; none after a space or a digit."""
    match = _WORD_AT_END.search(text)
    if match is None:
        return []
    typed = match.group(0)
    low = typed.lower()
    completions = [w for w in VOCABULARY if w.startswith(low) and w != low]
    limit = 1 if len(low) <= 4 else 2
    corrections = [w for w in VOCABULARY if w != low and w[0] == low[0] and abs(len(w) - len(low)) <= limit
                   and _distance(w, low) <= limit]
    if low in _KNOWN:
        best, others = low, completions
    else:
        ranked = corrections + [w for w in completions if w not in corrections]
        if not ranked:
            return [typed]
        best, others = ranked[0], ranked[1:]
    # Gboard: the best candidate in the middle, the typed word (or a runner-up) to its left, another to its right.
    left = typed if low not in _KNOWN else (_like(typed, others[0]) if others else "")
    rest = [w for w in others if _like(typed, w) != left]
    right = _like(typed, rest[0]) if rest else ""
    return [w for w in (left, _like(typed, best) if low not in _KNOWN else typed, right) if w]


def pick(text: str, word: str) -> str:
    """``text`` after tapping the candidate ``word``: the word being typed replaced by it, then a space."""
    match = _WORD_AT_END.search(text)
    start = match.start() if match is not None else len(text)
    return f"{text[:start]}{word} "
