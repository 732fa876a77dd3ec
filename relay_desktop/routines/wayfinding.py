"""What a replay does before it gives up, as a person would, with no model: the app is the right one but on another
screen (it was left there and opened where it was) — go back to the screen the step expects; the screen is right
but the target is out of sight — scroll its list to it. Each move is an action of the run's step, in its history.

A mixin of :class:`~relay_desktop.routines.replay.RoutineReplayer`: it uses the replayer's ``_look``, ``_move``
and ``_log``.
"""

from __future__ import annotations

from typing import Any

from relay_desktop.agent.steps.actions import Step
from relay_desktop.perception import current_dialog
from relay_desktop.perception.screen import screen_title
from relay_desktop.routines.effects import title_matches
from relay_desktop.routines.identity import layout_similarity, target_name
from relay_desktop.routines.model import BoundStep
from relay_desktop.routines.outcome import Look

__all__ = ["ANYWHERE", "SAME_LAYOUT", "WayFinding"]

# Steps that act from whatever screen is in front.
ANYWHERE = ("launch_app", "home", "wait", "recent_apps")
SAME_LAYOUT = 0.5
_MAX_BACKS = 2
_MAX_SCROLLS = 4


class WayFinding:
    _look: Any
    _move: Any
    _log: Any

    def _recoverable(self, step: BoundStep, look: Look) -> bool:
        """The app is the one the step expects, no pop-up is in the way, and the step acts on a screen."""
        screen = step.screen
        return (str(step.action.get("action")) not in ANYWHERE and bool(screen.get("app"))
                and look.observation.app == screen["app"] and current_dialog(look.observation.element_map) is None)

    async def _recover(self, step: BoundStep, look: Look) -> Look | None:
        """What a person does before giving up: the app is right but on another screen (it was left there and
        opened where it was) — go back to the screen the step expects; the screen is right but the target is
        not in sight — scroll its list to it. Each move is an action of this run step, in its history."""
        title = step.screen.get("title")
        now = screen_title(look.observation.element_map) or ""
        if title:
            same = title_matches(title, now, step.screen_needs)
        else:   # an untitled screen is known by its layout
            same = layout_similarity(step.screen.get("layout") or [], look.observation.element_map) >= SAME_LAYOUT
        if not same:
            return await self._back_to(step, look, f"\"{title}\"" if title else "the one the step expects")
        place = (step.target or {}).get("place")
        if place:
            return await self._scroll_to(step, look, place)
        return None

    async def _back_to(self, step: BoundStep, look: Look, expected: str) -> Look | None:
        app = step.screen["app"]
        for attempt in range(1, _MAX_BACKS + 1):
            now = screen_title(look.observation.element_map)
            self._log(f"The app is on another screen ({f'{chr(34)}{now}{chr(34)}' if now else 'an untitled one'}), "
                      f"not {expected}: going back to it (no model needed)")
            await self._move(Step("back"), look.observation)
            look = await self._look(step, look.observation, None)
            if look.problem is None:
                return look
            if look.observation.app != app or attempt == _MAX_BACKS:
                return None
        return None

    async def _scroll_to(self, step: BoundStep, look: Look, place: dict[str, Any]) -> Look | None:
        container = next((e for e in look.observation.element_map.elements if e.role == "scroll" and
                          e.node.id_name == place.get("list")), None)
        if container is None:
            return None
        for direction, times in (("down", _MAX_SCROLLS), ("up", 2 * _MAX_SCROLLS)):
            for _ in range(times):
                self._log(f"{target_name(step.target)} is not in sight: scrolling its list {direction} for it "
                          "(no model needed)")
                before = look.observation.fingerprint
                await self._move(Step("scroll", {"element": container.id, "direction": direction}), look.observation)
                look = await self._look(step, look.observation, None)
                if look.problem is None:
                    return look
                found = look.observation.element_map.get(container.id)
                if found is None or look.observation.fingerprint == before:
                    break          # the end of the list (nothing moved), or the list is gone
                container = found
        return None
