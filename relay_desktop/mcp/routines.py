"""Routines over MCP: the ``list_routines`` and ``run_routine`` tools, and the routine around a ``run_task`` whose
task matches a saved one (its replay, its repair, and what the reply says of it). Tool errors are plain sentences."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from relay_desktop.routines.model import BoundRoutine, RoutineError
from relay_desktop.routines.service import RoutineRun, find_routine, replay_summary
from relay_desktop.routines.store import RoutineStore

__all__ = ["RoutineAround", "bound_routine", "routine_for_task", "routines_listing"]


def _store() -> RoutineStore:
    return RoutineStore()


async def routines_listing() -> list[dict[str, Any]]:
    store = _store()
    try:
        return [r.to_json() for r in await asyncio.to_thread(store.list)]
    except Exception as exc:  # an unreadable data folder is a sentence for the calling agent
        raise ToolError(f"the routines could not be read: {exc}") from None
    finally:
        store.close()


async def bound_routine(name: str, values: dict[str, str]) -> BoundRoutine:
    store = _store()
    try:
        routine = await asyncio.to_thread(store.get, name)
        return routine.bind({str(k): str(v) for k, v in values.items()})
    except RoutineError as exc:
        raise ToolError(str(exc)) from None
    finally:
        store.close()


async def routine_for_task(task: str) -> BoundRoutine | None:
    """The saved routine a task is, bound to its values, unless routines are turned off in the settings."""
    from relay_desktop.app_settings import AppSettings

    if not AppSettings.load().use_routines:
        return None
    store = _store()
    try:
        match = await asyncio.to_thread(find_routine, store, task)
    except Exception:  # unreadable routines: the task runs as a plain run
        return None
    finally:
        store.close()
    return match.routine.bind(match.values) if match is not None else None


class RoutineAround:
    """The routine of one run_task/run_routine (when it has one): gathers the run's actions, then notes the run and
    saves the agent's repair; ``finish`` gives the reply's "routine" entry."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.store = _store() if agent.routine is not None else None
        self.run = RoutineRun(self.store, agent.routine) if self.store is not None else None
        self._detach = self.run.attach(agent.bus) if self.run is not None else None

    def detach(self) -> None:
        if self._detach is not None:
            self._detach()
            self._detach = None

    async def finish(self, outcome: str) -> dict[str, Any] | None:
        if self.run is None or self.store is None:
            return None
        try:
            summary = replay_summary(self.agent) or {}
            line = await self.run.finish(self.agent, outcome)
            if line:
                summary["note"] = line
            return summary
        finally:
            self.store.close()
