"""The phone behind ``relay-desktop mcp``: opened on first use, looked at, and acted on one action at a time.

An MCP client's direct actions go through the agent's own pieces, so they are held to the same rules as the
agent: the screen is read again before every action and an element id from the client's last look is found
anew on it (``plan_runner.retarget``) — a tap never lands on another control than the one named; the step is
checked against the action's schema (``parse_plan``), resolved (``resolve_step``), stopped at the safety gates
(``safety.sensitive_reason``, ``typing_secret``) unless the caller's ``confirm`` says yes, and carried out by
the agent's :class:`Executor`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any

from relay_desktop.agent.control import RunControl
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.loop.plan_runner import retarget
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.agent.steps.actions import ResolvedStep, StepError, parse_plan, resolve_step, screen_step
from relay_desktop.agent.steps.executor import Executor
from relay_desktop.agent.steps.safety import sensitive_reason, typing_secret
from relay_desktop.device.errors import DeviceError
from relay_desktop.user_secrets import SecretStore

__all__ = ["ActionRefused", "PhoneSession", "PhoneUnavailable"]

log = logging.getLogger(__name__)

Confirm = Callable[[str], Awaitable[bool]]          # description of a sensitive action → allowed?


class PhoneUnavailable(Exception):
    """No phone could be opened (none attached, several, unauthorised, adb missing): a sentence to show."""


class ActionRefused(Exception):
    """An action that was not carried out, with the reason in words for the calling agent."""


class PhoneSession:
    """One phone for the whole MCP session (``--device``, ``--sim`` or the only one attached)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.serial: str | None = args.device
        self.use_sim: bool = args.sim
        self.mirror_wanted = not args.no_mirror
        self.phone: Any = None                   # MirroredPhone once opened
        self.service: Any = None                 # the virtual phone (--sim)
        self.last: Observation | None = None     # what the last look saw: element ids refer to it
        self._stack = AsyncExitStack()
        self._lock = asyncio.Lock()
        self._looker: Any = None
        self._reader: Any = None
        self._mirror: Any = None

    async def open(self) -> Any:
        """The phone, opened on the first call. A failure is said plainly and tried again on the next call
        (the user may plug the phone in meanwhile)."""
        async with self._lock:
            if self.phone is not None:
                return self.phone
            from relay_desktop.agent.orchestrator import Orchestrator
            from relay_desktop.cli.phone_and_models import open_phone, start_mirror
            from relay_desktop.mirror.mirrored_phone import MirroredPhone

            try:
                device, service = await self._stack.enter_async_context(open_phone(self.serial, self.use_sim))
            except DeviceError as exc:
                await self._stack.aclose()
                hint = "" if self.serial or self.use_sim else "; or give this server --sim for a virtual phone"
                raise PhoneUnavailable(f"{exc}{hint}") from None
            self._stack.push_async_callback(device.close)
            mirror = None
            if self.mirror_wanted:
                mirror = await start_mirror(device, _to_stderr, built_in=service is not None)
                if mirror is not None:
                    self._stack.push_async_callback(mirror.stop)
            self._mirror, self.service = mirror, service
            self.phone = MirroredPhone(device, mirror)
            # The agent's own capture (screenshot, dump and app in front at once; text read off the picture when
            # OCR is on), from an orchestrator that never runs: what `screen` shows is what the agent would see.
            self._looker = Orchestrator(self.phone, None, settings=AgentSettings())
            self._reader = Orchestrator(self.phone, None, settings=AgentSettings(screenshots=False))
            return self.phone

    @property
    def mirror(self) -> Any:
        return self._mirror

    async def close(self) -> None:
        async with self._lock:
            self.phone = self._looker = self._reader = None
            await self._stack.aclose()

    async def look(self) -> Observation:
        """The screen now, with a screenshot; element ids carried over from the last look."""
        await self.open()
        observation = await self._looker.capture(self.last.element_map if self.last else None)
        self.last = observation
        return observation

    async def act(self, raw_step: dict[str, Any], confirm: Confirm) -> str:
        """Carry out one action (the agent's step format: ``{"action": "tap", "element": "e3"}``) on the screen
        as it is now; returns what was done. Raises :class:`ActionRefused` when it was not done."""
        phone = await self.open()
        try:
            step = parse_plan({"steps": [raw_step]}).steps[0]
        except StepError as exc:   # "step 1 (swipe): direction: …" names a plan's step; here there is one
            message = str(exc)
            raise ActionRefused(message.split(": ", 1)[-1] if message.startswith("step 1") else message) from None
        before = self.last
        fresh: Observation = await self._reader.capture(before.element_map if before else None)
        if before is not None:
            step, problem = retarget(step, before.element_map, fresh.element_map)
            if problem is not None:
                raise ActionRefused(f"{problem}; call screen to see the phone as it is now")
        elif step.element:
            raise ActionRefused("call screen first: element ids come from the element list it returns")
        self.last = fresh
        try:
            # A point read off the picture `screen` returned: that look's picture, mapped to the phone's pixels.
            step = screen_step(step, (before or fresh).screen_point)
            resolved = resolve_step(step, fresh.element_map)
        except StepError as exc:
            raise ActionRefused(str(exc)) from None
        reason = _needs_confirmation(resolved, fresh)
        if reason is not None and not await confirm(reason):
            raise ActionRefused(f"not confirmed: {reason}")
        try:
            return await Executor(phone, RunControl(), secrets=SecretStore()).run(resolved, fresh)
        except StepError as exc:
            raise ActionRefused(str(exc)) from None


def _needs_confirmation(resolved: ResolvedStep, observation: Observation) -> str | None:
    """Why the user must allow this action: the agent's sensitive actions, and typing into a password field (the
    calling agent may have read that text anywhere; only the person may let it into a password field)."""
    reason = sensitive_reason(resolved, observation)
    if reason is None and typing_secret(resolved, observation, given=[]):
        target = resolved.target
        reason = f'type into the password field "{target.name if target else "focused field"}"'
    return reason


def _to_stderr(message: str) -> None:
    """Notices (the mirror did not start) for the person reading the server's log: stdout is the protocol."""
    print(f"relay-desktop mcp: {message}", file=sys.stderr, flush=True)
