"""Whether an agent's answer to a question task is the expected one, however it is written.

Answers are compared by what they mean, not their spelling: case, spaces and punctuation do not count; a time is
its hour and minute ("7:30", "07:30", "7:30 am", "19h30"; "8 am" is "8:00"; "7:30 pm" is "19:30"); a number is its
value ("3", "three", "$12.00", "12", "1,299"); yes and no are their first word ("Yes, it's on" is "yes"). A code
keeps its leading zeros ("0412" is not "412").
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

__all__ = ["answers_match", "normalise_answer"]

_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_WORDS = {word: str(n) for n, word in enumerate(_NUMBER_WORDS)} | {"none": "0", "no one": "0", "a single": "1"}
_YES = {"yes", "yeah", "yep", "true", "correct", "affirmative"}
_NO = {"no", "nope", "false", "not"}
_TIME = re.compile(r"\b(\d{1,2})(?:[:h](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)?(?![\w.:]|\.\d)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?!\w)")


def _words_to_digits(text: str) -> str:
    for word, digits in sorted(_WORDS.items(), key=lambda item: -len(item[0])):
        text = re.sub(rf"\b{word}\b", digits, text)
    return text


def _time(text: str) -> str | None:
    """The one time of day the text names, as "H:MM" in 24 hours; None when it names none or several."""
    found = []
    for match in _TIME.finditer(text):
        hour, minute, half = match.group(1), match.group(2), (match.group(3) or "").replace(".", "").lower()
        if minute is None and not half:
            continue                      # a bare number is a number, not a time
        h, m = int(hour), int(minute or 0)
        if half == "pm" and h < 12:
            h += 12
        elif half == "am" and h == 12:
            h = 0
        if h <= 23 and m <= 59:
            found.append(f"{h}:{m:02d}")
    return found[0] if len(set(found)) == 1 else None


def _number(text: str) -> str | None:
    """The one number the text holds, by value (a code with leading zeros as written); None otherwise."""
    found = _NUMBER.findall(text)
    if len(found) != 1:
        return None
    raw = found[0].replace(",", "")
    if re.fullmatch(r"0\d+", raw):
        return raw                        # a code: its zeros are part of it
    try:
        value = Decimal(raw).normalize()
    except InvalidOperation:
        return None
    return format(value, "f")


def normalise_answer(text: str) -> str:
    """The answer's meaning as a comparable string: "time:7:30", "number:12", "yes", "no", or its words."""
    text = " ".join(str(text).lower().split()).strip(" .!?\"'")
    text = _words_to_digits(text)
    first = re.split(r"[\s,.;:!]+", text, maxsplit=1)[0] if text else ""
    if first in _YES:
        return "yes"
    if first in _NO and not re.search(r"\d", text):
        return "no"
    when = _time(text)
    if when is not None:
        return f"time:{when}"
    number = _number(text) if not re.search(r"\d[\s-]+\d|\d-\d", text) else None
    if number is not None:
        return f"number:{number}"
    return re.sub(r"[^\w]+", "", text)


def answers_match(expected: str, given: str) -> bool:
    return bool(str(given).strip()) and normalise_answer(expected) == normalise_answer(given)
