"""What a carried-out step changed, as a routine keeps it: recorded from the two screens around the step (the
agent's own review, or a replay's) — the app that came to the front, the screen's new title, a dialog opening or
closing, the state, position or text the target took, what appeared, and in words what the run saw change.

Plain JSON, emitted as ``ActionEffect`` events; routines/effects.py checks a replayed step against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.results import effect_of, no_visible_effect
from relay_desktop.perception import Element, ElementMap, diff_maps, is_ocr
from relay_desktop.perception.render import in_system_bar
from relay_desktop.perception.screen import current_dialog, screen_title
from relay_desktop.perception.tree import WindowKind
from relay_desktop.routines.identity import CHOICE_STATES
from relay_desktop.routines.identity import short_text as _short

__all__ = ["choice_states", "reading", "record_effect"]

MAX_APPEARED = 4
MAX_VALUE = 500


def choice_states(states: Sequence[str]) -> list[str]:
    """The states that say what a control is set to ("on", "checked", "selected")."""
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
            if choice_states(old.states) != choice_states(new.states) and choice_states(new.states):
                effect["states"] = choice_states(new.states)
            if reading(old) != reading(new) and reading(new):
                effect["reading"] = reading(new)
            password = "password" in new.states or any(n.password for n in new.sources)
            if old.value != new.value and new.value and not password:
                # Whole, or nearly: what was typed is checked again, and its end is where a password sits.
                effect["value"] = _short_lines(new.value, MAX_VALUE)
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


