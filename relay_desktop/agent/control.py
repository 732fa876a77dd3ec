"""Start, pause, resume, stop and steer a run from outside it (the window's buttons, Ctrl+C, a test).

Pause is cooperative: the run holds at its next checkpoint, which comes after the device action in
progress, never in the middle of one. Stop is not: it cancels the run's task, which aborts an LLM call in
flight at once; ``stop()`` returns only when the run has finished, so no device command is sent after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

__all__ = ["STOPPED_BY_THE_USER", "RunControl", "RunFinishedSignal", "RunStopped"]

State = Literal["idle", "running", "paused", "stopping", "finished"]
STOPPED_BY_THE_USER = "stopped by the user"


class RunStopped(Exception):
    """Raised at a checkpoint once stop was asked for."""


class RunFinishedSignal(Exception):
    """The run has its outcome (the agent said complete or fail, or too many errors in a row): unwind to the
    orchestrator, which reports it."""

    def __init__(self, outcome: str, reason: str, answer: str = "") -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason
        self.answer = answer              # the value a question task asked for ("" when none was given)


class RunControl:
    def __init__(self) -> None:
        self.state: State = "idle"
        self._resume = asyncio.Event()
        self._resume.set()
        self._stop_requested = False
        self.stop_reason = STOPPED_BY_THE_USER
        self._task: asyncio.Task[object] | None = None
        self._messages: list[str] = []
        self._read: dict[int, int] = {}         # reader → how many messages it has read
        self.on_change: Callable[[State, str], None] | None = None

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def bind(self, task: asyncio.Task[object]) -> None:
        self._task = task
        self._set("running")

    def _set(self, state: State, reason: str = "") -> None:
        if state != self.state:
            self.state = state
            if self.on_change is not None:
                self.on_change(state, reason)

    def pause(self, reason: str = "paused by the user") -> None:
        if self.state == "running":
            self._resume.clear()
            self._set("paused", reason)

    def resume(self) -> None:
        if self.state == "paused":
            self._resume.set()
            self._set("running", "resumed")

    def steer(self, message: str) -> None:
        """A message from the user to the running agent; it reads it on its next step."""
        if message.strip():
            self._messages.append(message.strip())

    def take_messages(self, reader: int = 0) -> list[str]:
        """The user's messages this reader has not read yet. A split screen's two loops are readers of their
        own, so each hears every message sent while they run."""
        start = self._read.get(reader, 0)
        self._read[reader] = len(self._messages)
        return self._messages[start:]

    def new_reader(self) -> int:
        """A reader that hears only what is sent from now on."""
        reader = max(self._read, default=0) + 1
        self._read[reader] = len(self._messages)
        return reader

    async def stop(self, timeout: float = 5.0, reason: str = STOPPED_BY_THE_USER) -> None:
        """Cancel the run and wait until it has finished (its last events emitted). A second caller (Stop, then
        Ctrl+C or closing the window) also waits for the end instead of returning early. ``reason``: why, as the
        run's result and history will say it (a closed output is not the user's Stop)."""
        first = not self._stop_requested
        self._stop_requested = True
        task = self._task
        if task is None:
            return
        if first:
            self.stop_reason = reason
            self._set("stopping", reason)
            self._resume.set()
            if task is not asyncio.current_task():
                task.cancel()
        if task is not asyncio.current_task() and not task.done():
            await asyncio.wait({task}, timeout=timeout)

    async def checkpoint(self) -> None:
        """Between device actions and model calls: hold while paused, raise once stopped."""
        if self._stop_requested:
            raise RunStopped
        if not self._resume.is_set():
            await self._resume.wait()
            if self._stop_requested:
                raise RunStopped

    def finished(self) -> None:
        self._set("finished")
