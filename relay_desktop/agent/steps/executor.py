"""Carry out one resolved step on the phone.

Device failures that are the step's fault (no such app, text adb cannot type) become :class:`StepError`
with a message for the model; a phone that went away stays a ``DeviceError`` for the orchestrator to end
the run with. Before every device command the run's stop flag is checked, so nothing reaches the phone
once stop was asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from relay_desktop.agent.control import RunControl, RunStopped
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.ports import Phone
from relay_desktop.agent.steps.actions import ResolvedStep, StepError, finger_vector
from relay_desktop.device.errors import (
    AppNotFoundError,
    CommandFailedError,
    CommandInterruptedError,
    UnsupportedTextError,
)
from relay_desktop.perception import Bounds, focused_field
from relay_desktop.perception.screen import slider_range

__all__ = ["Executor"]

_KEYS = {"enter": "ENTER", "search": "SEARCH", "delete": "DEL", "tab": "TAB", "escape": "ESCAPE",
         "volume_up": "VOLUME_UP", "volume_down": "VOLUME_DOWN", "power": "POWER", "camera": "CAMERA"}
_SYSTEM_KEYS = {"back": "BACK", "home": "HOME", "recent_apps": "APP_SWITCH"}
SWIPE_MS = 350


class Executor:
    def __init__(self, phone: Phone, control: RunControl, shell_allowed: tuple[str, ...] = (),
                 secrets: Any = None) -> None:
        self.phone = phone
        self.control = control
        self.shell_allowed = shell_allowed
        self.secrets = secrets                 # the user's saved secrets (user_secrets.SecretStore), by name
        self.launched: str | None = None       # package of the last app opened with launch_app

    async def _send(self, command: Callable[[], Awaitable[object]]) -> None:
        if self.control.stop_requested:
            raise RunStopped
        await command()

    async def run(self, resolved: ResolvedStep, observation: Observation) -> str:
        """Perform the step; returns what was done, in words for the log and the model."""
        step, phone = resolved.step, self.phone
        action = step.action
        try:
            if action in ("tap", "long_press"):
                assert resolved.point is not None
                x, y = resolved.point
                if action == "tap":
                    await self._send(lambda: phone.tap(x, y))
                else:
                    await self._send(lambda: phone.long_press(x, y))
                return f"{action.replace('_', ' ')} at ({x},{y})"
            if action == "type":
                return await self._type(resolved, observation)
            if action in ("swipe", "scroll"):
                return await self._swipe(resolved, observation)
            if action == "set_value":
                return await self._set_value(resolved)
            if action == "press_key":
                await self._send(lambda: phone.press_key(_KEYS[step.params["key"]]))
                return f"pressed {step.params['key']}"
            if action in _SYSTEM_KEYS:
                await self._send(lambda: phone.press_key(_SYSTEM_KEYS[action]))
                return f"pressed {action.replace('_', ' ')}"
            if action == "launch_app":
                package = ""

                async def launch() -> None:
                    nonlocal package
                    package = await phone.launch_app(str(step.params["app"]))
                await self._send(launch)
                self.launched = package
                return f"opened {package}"
            if action == "shell":
                return await self._shell(str(step.params["command"]))
            if action == "wait":
                await asyncio.sleep(float(step.params["seconds"]))
                return f"waited {step.params['seconds']} s"
        except AppNotFoundError as exc:
            raise StepError(f"{exc}. Pick an app from the installed apps list.") from None
        except UnsupportedTextError as exc:
            raise StepError(f"{exc}") from None
        except CommandInterruptedError as exc:
            raise StepError(f"{exc}; look at the screen to see whether '{step.describe()}' happened") from None
        except CommandFailedError as exc:
            raise StepError(f"the phone refused '{step.describe()}': {exc}") from None
        raise StepError(f"'{action}' is not carried out on the phone")

    async def _shell(self, command: str) -> str:
        command = command.strip()
        if not any(command == p or command.startswith(p + " ") for p in self.shell_allowed):
            allowed = ", ".join(self.shell_allowed) or "none"
            raise StepError(f"shell command not allowed: `{command}` (allowed prefixes: {allowed})")
        if any(c in command for c in ";&|`$<>\n"):
            raise StepError("shell commands may not chain, redirect or substitute (; & | ` $ < >)")
        shell = getattr(self.phone, "shell", None)
        if shell is None:
            raise StepError("this phone connection has no shell")
        result = None

        async def run() -> None:
            nonlocal result
            result = await shell(command, timeout=20)
        await self._send(run)
        assert result is not None
        output = result.output.strip()
        if len(output) > 1500:
            output = output[:1500] + f"… ({len(result.output):,} characters in all)"
        return f"exit {result.exit_code}: {output or '(no output)'}"

    async def _type(self, resolved: ResolvedStep, observation: Observation) -> str:
        step, phone = resolved.step, self.phone
        name = step.params.get("secret")
        text = await self._secret(str(name)) if name else str(step.params["text"])
        done = []
        if resolved.point is not None:
            x, y = resolved.point
            await self._send(lambda: phone.tap(x, y))
            done.append("tapped the field")
        # Without an element the text goes to the focused field: its current text is what "clear" removes.
        field = resolved.target or focused_field(observation.element_map)
        current = field.value if field is not None else ""
        old = step.params.get("replace")
        if old:
            # Part of the field: its whole new value is typed over it, so no cursor has to be placed.
            text = _replaced(current, str(old), text, field is not None)
        if (step.params.get("clear") or old) and current:
            # Every character before the cursor (Delete) and after it (Forward delete), wherever the tap put it:
            # key presses every Android takes, unlike select-all shortcuts or line-bound Home/End.
            count = len(current) + 2
            await self._send(lambda: phone.press_keys(*["DEL"] * count, *["FORWARD_DEL"] * count))
            if not old:
                done.append("cleared it")
        if text:
            await self._send(lambda: phone.type_text(text))
        if old:
            done.append(f'replaced "{old}" by "{step.params.get("text", "")}"')
        elif text:
            done.append(f"typed the saved secret {name} (its value hidden)" if name else f'typed "{text}"')
        if step.params.get("submit"):
            await self._send(lambda: phone.press_key("ENTER"))
            done.append("pressed Enter")
        return ", ".join(done)

    async def _secret(self, name: str) -> str:
        """A saved secret's value, for the phone only (it is masked wherever else it could show)."""
        secret = await self.secrets.aget(name) if self.secrets is not None else None
        if secret is None:
            raise StepError(f"no secret called {name!r} is saved; use one of the saved secrets' names, or ask_user")
        return str(secret.reveal())

    async def _swipe(self, resolved: ResolvedStep, observation: Observation) -> str:
        step = resolved.step
        screen = observation.element_map.screen
        vx, vy = finger_vector(step.action, str(step.params["direction"]))
        edge = step.params.get("from_edge")
        verb = "scrolled" if step.action == "scroll" else "swiped"
        if edge:
            # From the very edge (a status-bar pull starts on the status bar), 40% of the screen inwards.
            start = {"top": (screen.center[0], screen.top + 2), "bottom": (screen.center[0], screen.bottom - 3),
                     "left": (screen.left + 2, screen.center[1]), "right": (screen.right - 3, screen.center[1])}[edge]
            end = (start[0] + int(screen.width * 0.4) * vx, start[1] + int(screen.height * 0.4) * vy)
            await self._send(lambda: self.phone.swipe(*start, *end, SWIPE_MS))
            return f"{verb} {step.params['direction']} from the {edge} edge"
        if step.action == "swipe" and resolved.target is not None:
            # On an element: the finger starts on it (swiping a row aside, dragging a handle).
            area = resolved.target.visible
            start = resolved.point or area.center
            reach = max(int(area.width * 0.8) if vx else int(area.height * 0.8), int(screen.width * 0.3))
            end = (start[0] + reach * vx, start[1] + reach * vy)
            end = (min(max(end[0], screen.left + 1), screen.right - 2), min(max(end[1], screen.top + 1),
                                                                            screen.bottom - 2))
            await self._send(lambda: self.phone.swipe(*start, *end, SWIPE_MS))
            return f"{verb} {step.params['direction']} from ({start[0]},{start[1]}) to ({end[0]},{end[1]})"
        area: Bounds = resolved.target.visible if resolved.target is not None else screen
        if step.action == "scroll" and resolved.target is not None:
            area = _list_around(resolved.target.visible, observation) or area
        cx, cy = area.center
        dx, dy = int(area.width * 0.3) * vx, int(area.height * 0.3) * vy
        start, end = (cx - dx, cy - dy), (cx + dx, cy + dy)
        await self._send(lambda: self.phone.swipe(*start, *end, SWIPE_MS))
        return f"{verb} {step.params['direction']}"

    async def _set_value(self, resolved: ResolvedStep) -> str:
        """A tap on a slider's track at the value's place (Android's SeekBar jumps there)."""
        target = resolved.target
        if target is None or target.role != "slider":
            raise StepError("set_value needs a slider's element id")
        value = float(resolved.step.params["value"])
        known = slider_range(target)
        low, high = (known[0], known[1]) if known is not None else (0.0, 100.0)
        if high <= low or not low <= value <= high:
            unit = f"{low:g}–{high:g}" if known is not None else "0–100 (percent)"
            raise StepError(f"value {value:g} is outside the slider's range {unit}")
        track = target.bounds
        # The thumb's travel stops short of the ends by about its radius (half the bar's height).
        inset = min(track.height // 2, track.width // 10)
        x = track.left + inset + round((value - low) / (high - low) * max(1, track.width - 2 * inset))
        # The inset is a guess; a tap outside the thumb's travel clamps to its end (SeekBar), so the range's ends
        # are tapped at the track's own ends: a minimum that came out as 5 is not the minimum.
        if value == low:
            x = track.left + 1
        elif value == high:
            x = track.right - 2
        y = track.center[1]
        await self._send(lambda: self.phone.tap(x, y))
        return f"set to {value:g} (tapped the track at ({x},{y}))"


def _replaced(current: str, old: str, new: str, known_field: bool) -> str:
    """The field's value with ``old`` replaced by ``new``; a StepError unless ``old`` is there exactly once."""
    if not known_field:
        raise StepError("replace needs the field: give its element (or tap it first so it is focused)")
    count = current.count(old)
    if count == 1:
        return current.replace(old, new)
    shown = current if len(current) <= 300 else current[:300] + "…"
    if count == 0:
        raise StepError(f'"{old}" is not in the field (it holds "{shown}"); give words exactly as the field has them')
    raise StepError(f'"{old}" appears {count} times in the field; give more of the words around the one to change '
                    "so it appears once")


def _list_around(area: Bounds, observation: Observation) -> Bounds | None:
    """The smallest scrollable container holding ``area``: a scroll given a row of a list scrolls the list by
    most of its height, as a finger would, not by the row's (one row at a time)."""
    x, y = area.center
    # By its on-screen bounds: a list's "visible" part is what its rows leave uncovered.
    lists = [e.bounds for e in observation.element_map.elements
             if (e.role in ("scroll", "web") or e.node.scrollable) and e.bounds.contains_point(x, y)
             and e.bounds.area >= area.area]
    return min(lists, key=lambda b: b.area) if lists else None

