"""Whether a replayed step changed what it changed when it was recorded (agent/steps/effects.py records that).

A replay checks the facets that say what the step was for, and only those: a different clock, a new message
preview or a list scrolled by another amount is not a different effect, another app or an unchanged switch is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.effects import choice_states as _choice
from relay_desktop.agent.steps.effects import reading, record_effect
from relay_desktop.agent.steps.results import no_visible_effect
from relay_desktop.perception import Element
from relay_desktop.perception.screen import screen_title
from relay_desktop.routines.identity import find_target
from relay_desktop.routines.identity import short_text as _short

__all__ = ["already_done", "check_effect", "check_end", "reading", "record_effect", "title_matches"]

def difference(have: str, expected: str, context: int = 24) -> str:
    """Where a field's text parts from the expected one, shown around that place (both may be long)."""
    a, b = " ".join(have.split()), " ".join(expected.split()).removesuffix("…")
    at = next((i for i, (x, y) in enumerate(zip(a.casefold(), b.casefold(), strict=False)) if x != y),
              min(len(a), len(b)))
    start = max(0, at - context)
    lead = "…" if start else ""
    return (f"holds \"{lead}{a[start:at + context]}\" where the run had \"{lead}{b[start:at + context]}\" (they part "
            f"at character {at + 1})")


def value_matches(have: str, expected: str) -> bool:
    """Whether a field holds the text a step typed, as kept: on one line, and cut short with "…" when long (a
    note's lines were kept joined: "Network: Maple-Guest Password: …" is the two-line note)."""
    have, expected = " ".join(have.split()).casefold(), " ".join(expected.split()).casefold()
    if expected.endswith("…"):
        return expected[:-1] in have
    return expected in have


def _contains(text: str, expected: str) -> bool:
    return expected.casefold() in text.casefold()


def check_effect(expect: dict[str, Any] | None, needs: Sequence[str], before: Observation, after: Observation,
                 target: dict[str, Any] | None, kind: str = "") -> str | None:
    """Why the replayed step (of action ``kind``) did not do what it did when recorded, or None when it did (or
    nothing is known)."""
    if not expect or not expect.get("changed"):
        return None
    app = expect.get("app")
    if app and after.app != app:
        return f"{after.app or 'another app'} is in front, where the step brought up {app}"
    title = expect.get("title")
    now = screen_title(after.element_map) or ""
    if title and not title_matches(title, now, needs):
        return f"the screen is called \"{now or 'nothing'}\", where the step led to \"{title}\""
    states, value = expect.get("states"), expect.get("value")
    if (states or value) and target is not None:
        found = find_target(target, after.element_map)
        if found.element is not None:
            have = _choice(found.element.states)
            if states and have != list(states):
                return f"{found.element.name!r} is {' '.join(have) or 'unchanged'}, where the step made it " \
                       f"{' '.join(states)}"
            if value and not value_matches(found.element.value, value):
                return f"{found.element.name!r} {difference(found.element.value, value)}"
    # A slider that reports no position moves only a few pixels, and a toast may be gone by the time the screen
    # is read: that nothing shows then is no sign the step failed.
    unseen = expect.get("passing") or (kind == "set_value" and not expect.get("reading"))
    if no_visible_effect(before, after) and not unseen:
        return "nothing changed on the screen"
    return None


def title_matches(expected: str, now: str, needs: Sequence[str]) -> bool:
    """Whether a screen called ``now`` is the one recorded as ``expected`` (values of ``needs`` filled in)."""
    if now == expected or _short(now) == expected:
        return True
    # A title with a parameter in it ("Bob Martinez" saved as "{name} Martinez"): the value must show.
    return bool(needs) and any(_contains(expected, n) for n in needs) and all(
        _contains(now, n) for n in needs if _contains(expected, n))


def already_done(expect: dict[str, Any] | None, element: Element | None) -> str | None:
    """What the step was for is already so (the switch it turned on is on, the slider it set is there): in
    words, or None. Tapping a switch that is already on would turn it off."""
    if not expect or element is None:
        return None
    states = expect.get("states")
    if states and _choice(element.states) == list(states):
        return f"it is already {' '.join(states)}"
    wanted = expect.get("reading")
    if wanted and reading(element) == wanted:
        return f"it is already at {wanted.removeprefix('value ')}"
    return None


def check_end(end: dict[str, Any], needs: Sequence[str], final: Observation) -> str | None:
    """Why the final screen is not the one the recorded run ended on, or None."""
    app = end.get("app")
    if app and final.app != app:
        return f"the run ended in {app}, the replay in {final.app or 'no app'}"
    title = end.get("title")
    now = screen_title(final.element_map) or ""
    if title and not title_matches(title, now, needs):
        return f"the run ended on \"{title}\", the replay on \"{now or 'an untitled screen'}\""
    return None
