"""What a step changed, as a routine keeps it, and whether a replayed step changed the same.

Recorded from the two screens the run saw around the step (the agent's own review, or the replay's): the app
that came to the front, the screen's new title, the state or text the target took, what appeared. A replay
checks the facets that say what the step was for, and only those: a different clock, a new message preview or
a list scrolled by another amount is not a different effect, another app or an unchanged switch is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from relay_desktop.agent.observation import Observation
from relay_desktop.agent.step_results import effect_of, no_visible_effect
from relay_desktop.perception import Element, ElementMap, diff_maps, is_ocr
from relay_desktop.perception.render import in_system_bar
from relay_desktop.perception.screen import current_dialog, screen_title
from relay_desktop.perception.tree import WindowKind
from relay_desktop.routines.identity import CHOICE_STATES, find_target
from relay_desktop.routines.identity import short_text as _short

__all__ = ["already_done", "check_effect", "check_end", "reading", "record_effect", "title_matches"]

MAX_APPEARED = 4


def _choice(states: Sequence[str]) -> list[str]:
    return [s for s in states if s in CHOICE_STATES]


def reading(element: Element) -> str:
    """A slider's position as its state says it ("value 26 of 0–255"), or ""."""
    return next((s for s in element.states if s.startswith("value ")), "")


def _same_kind(a: Element, b: Element) -> bool:
    return (a.node.package, a.node.cls, a.node.resource_id) == (b.node.package, b.node.cls, b.node.resource_id)


def _title(element_map: ElementMap) -> str:
    return _short(screen_title(element_map) or "")


def record_effect(before: Observation, after: Observation, target_id: str | None = None) -> dict[str, Any]:
    """The step's effect as plain JSON; ``target_id``: the element it acted on (ids carry over between maps)."""
    changed = not no_visible_effect(before, after)
    effect: dict[str, Any] = {"changed": changed,
                              "after": {"app": after.app, "title": _title(after.element_map)}}
    if not changed:
        return effect
    # What the run saw change, as the step's result told the model (for people reading the routine).
    effect["seen"] = _short_lines(effect_of(before, after)[0])
    if before.app and after.app and before.app != after.app:
        effect["app"] = after.app
    old_title, new_title = _title(before.element_map), _title(after.element_map)
    if new_title and new_title != old_title:
        effect["title"] = new_title
    dialog_before, dialog_after = current_dialog(before.element_map), current_dialog(after.element_map)
    if dialog_after is not None and dialog_before is None:
        effect["dialog"] = "opened"
    elif dialog_before is not None and dialog_after is None:
        effect["dialog"] = "closed"
    if target_id:
        old, new = before.element_map.get(target_id), after.element_map.get(target_id)
        if old is not None and new is not None and _same_kind(old, new):
            if _choice(old.states) != _choice(new.states) and _choice(new.states):
                effect["states"] = _choice(new.states)
            if reading(old) != reading(new) and reading(new):
                effect["reading"] = reading(new)
            password = "password" in new.states or any(n.password for n in new.sources)
            if old.value != new.value and new.value and not password:
                effect["value"] = _short(new.value)
    diff = diff_maps(before.element_map, after.element_map)
    lasting = [e for e in (*diff.added, *diff.removed) if not is_ocr(e) and not in_system_bar(e)] + \
        [c for c in diff.changed if not is_ocr(c.after) and not in_system_bar(c.after)]
    if not lasting and "app" not in effect and "title" not in effect and "dialog" not in effect:
        # Only text read off the pixels came or went (a toast: "Calling Grace Liu…"), or only the picture
        # changed: a passing sign a later look may well miss.
        effect["passing"] = True
    appeared = [_short(e.name) for e in diff.added
                if e.name and e.window not in (WindowKind.KEYBOARD, WindowKind.OVERLAY) and not in_system_bar(e)]
    if appeared and diff.new_screen is None:
        effect["appeared"] = appeared[:MAX_APPEARED]
    return effect


def _short_lines(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


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
                return f"{found.element.name!r} holds \"{_short(found.element.value)}\", not \"{value}\""
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
