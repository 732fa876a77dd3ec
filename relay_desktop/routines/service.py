"""What every front end (the window, ``run``, ``routines run``, MCP, the bench) does around a run that may
replay a routine: find the routine a typed task is, gather the run's actions from its events, and afterwards
note the run and — when the agent took over and succeeded — save its fix as the routine's next version.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from relay_desktop.agent.events import (
    ActionEffect,
    ActionResult,
    ActionStarted,
    Event,
    EventBus,
    PlanReceived,
    RunStarted,
)
from relay_desktop.routines.learn import ActionRecord, learn_routine
from relay_desktop.routines.matching import RoutineMatch, match_task
from relay_desktop.routines.model import BoundRoutine, Parameter, Routine, RoutineError
from relay_desktop.routines.store import RoutineStore

__all__ = ["RoutineRun", "RunActions", "find_routine", "replay_summary"]


class RunActions:
    """The actions of one run, gathered from its events as the history keeps them (to learn from a run without
    reading the history back: the bench, a repair)."""

    def __init__(self) -> None:
        self.task = ""
        self.run_id = ""
        self._sources: dict[int, str] = {}
        self._actions: list[dict[str, Any]] = []

    def attach(self, bus: EventBus) -> Callable[[], None]:
        return bus.subscribe(self.on_event)

    def on_event(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.task, self.run_id = event.task, event.run_id
        elif isinstance(event, PlanReceived):
            self._sources[event.step] = event.source
        elif isinstance(event, ActionStarted):
            self._actions.append({"step": event.step, "index": event.index, "action": event.action.to_json(),
                                  "ok": None, "target": event.target, "screen": event.screen, "effect": None})
        elif isinstance(event, ActionResult):
            action = self._find(event.step, event.index, lambda a: a["ok"] is None)
            if action is not None:
                action["ok"] = event.ok
        elif isinstance(event, ActionEffect):
            action = self._find(event.step, event.index, lambda a: a["ok"] is True)
            if action is not None:
                action["effect"] = event.effect

    def _find(self, step: int, index: int, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        return next((a for a in reversed(self._actions) if a["step"] == step and a["index"] == index and wanted(a)),
                    None)

    def records(self) -> list[ActionRecord]:
        return [ActionRecord(a["step"], a["index"], self._sources.get(a["step"], ""), a["action"], a["ok"] is True,
                             a["target"], a["screen"], a["effect"]) for a in self._actions]


def find_routine(store: RoutineStore, task: str) -> RoutineMatch | None:
    """The saved routine this typed task is, with its values (blocking: SQLite)."""
    return match_task(task, store.all())


def replay_summary(agent: Any) -> dict[str, Any] | None:
    """How a run's routine went: its name and version, steps replayed and steps the agent took."""
    routine: BoundRoutine | None = agent.routine
    replay = agent.replay
    driver = getattr(agent, "routine_driver", None)
    if routine is None:
        return None
    replayed = driver.replayed if driver is not None else 0
    handed_over = driver is not None and driver.handovers > 0
    agent_steps = driver.agent_steps if driver is not None else 0
    out: dict[str, Any] = {"name": routine.name, "version": routine.routine.version,
                           "parameters": dict(routine.values), "replayed_steps": replayed,
                           "agent_steps": agent_steps, "handed_over": handed_over}
    if handed_over:
        out["stopped_at"] = (replay.stopped_at or 0) + 1
        out["reason"] = replay.reason
    return out


class RoutineRun:
    """One run that replays ``routine``: attach it to the run's bus before the run starts, ``finish`` after."""

    def __init__(self, store: RoutineStore, routine: BoundRoutine) -> None:
        self.store = store
        self.routine = routine
        self.actions = RunActions()
        self.saved: Routine | None = None

    def attach(self, bus: EventBus) -> Callable[[], None]:
        return self.actions.attach(bus)

    async def finish(self, agent: Any, outcome: str) -> str | None:
        """Note the run; save the repaired routine when the agent finished what the replay could not. Returns a
        line for the user (or None when there is nothing to say)."""
        name = self.routine.name
        try:
            await asyncio.to_thread(self.store.note_run, name, outcome)
        except Exception:  # the routine was deleted or renamed meanwhile: its run is in the history anyway
            return None
        replay, driver = agent.replay, getattr(agent, "routine_driver", None)
        if replay is None or driver is None or not driver.handovers or outcome != "success":
            return None
        try:
            self.saved = await asyncio.to_thread(self._save_repair, agent.run_id, replay)
        except (RoutineError, OSError) as exc:
            return f"The routine \"{name}\" was not updated: {exc}"
        return (f"The routine \"{name}\" is repaired: the agent's fix is saved as version {self.saved.version} "
                f"(version {self.routine.routine.version} is kept; the replay had stopped at step "
                f"{(replay.stopped_at or 0) + 1}: {replay.reason}).")

    def _save_repair(self, run_id: str, replay: Any) -> Routine:
        old = self.routine.routine
        task = self.actions.task or self.routine.task
        values = [Parameter(name, value) for name, value in self.routine.values.items()]
        learned = learn_routine(old.name, task, self.actions.records(), source_run=run_id,
                                parameters=[p for p in values if p.default.casefold() in task.casefold()],
                                confirm=old.confirm,
                                interruptions=[replay.interruption] if replay.interruption else [],
                                note=f"repaired in run {run_id}: the replay of version {old.version} stopped at "
                                     f"step {(replay.stopped_at or 0) + 1} ({replay.reason})")
        # The routine's own wording and defaults stay; only how it is done changed.
        return self.store.save(replace(learned, task=old.task, parameters=old.parameters))
