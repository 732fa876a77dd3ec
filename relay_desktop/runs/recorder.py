"""The run store as an event subscriber: gathers each step's events and commits the step when it ends.

Subscribers must be quick, so events go into a queue and one background task writes them (through threads:
SQLite and JPEG files never block the loop). A step is committed when the next one starts or the run ends.
A folder that takes no writes (read-only, on a full disk) is found before the run's first row and said in
one plain sentence. If the disk fails later (full, read-only, removed), the run goes on: the recorder stops
writing, says so once on the run's own event stream (a log line the window and the command line show at
once) and keeps a plain ``error`` for their end-of-run summary.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from relay_desktop.agent.events import (
    ActionEffect,
    ActionResult,
    ActionStarted,
    Event,
    EventBus,
    GuidanceUpdated,
    HumanInput,
    LogLine,
    PlanReceived,
    RunFinished,
    RunStarted,
    RunStateChanged,
    ScreenCaptured,
    StepStarted,
    Verification,
)
from relay_desktop.perception import to_json
from relay_desktop.runs.store import RunStore, StepRecord

__all__ = ["RunRecorder"]

log = logging.getLogger(__name__)

_KEEP_COMMITTED = 4


class RunRecorder:
    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.error: str | None = None
        self._queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None
        self._run_id: str | None = None
        self._step: StepRecord | None = None          # the newest open step
        self._lanes: dict[str, StepRecord] = {}        # open steps by loop ("" or a split screen's half)
        self._jpegs: dict[int, bytes] = {}             # the picture of each open step
        # Steps already written, by number: an action's effect is seen on the next step's screen, after its own
        # step was committed, and is then written into it.
        self._committed: dict[int, StepRecord] = {}
        self._bus: EventBus | None = None

    def attach(self, bus: EventBus) -> Callable[[], None]:
        self._bus = bus
        return bus.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        if self._worker is None:
            self._worker = asyncio.get_running_loop().create_task(self._drain(), name="run-recorder")
        self._queue.put_nowait(event)

    async def flush(self) -> None:
        """Wait until every event received so far is written."""
        if self._worker is not None:
            await self._queue.join()

    async def aclose(self) -> None:
        if self._worker is not None:
            self._queue.put_nowait(None)
            await self._worker
            self._worker = None

    async def _drain(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                if event is None:
                    return
                if self.error is None:
                    await self._handle(event)
            except (OSError, sqlite3.Error) as exc:
                self.error = f"{type(exc).__name__}: {exc}"
                log.error("run history not saved from now on (%s): %s", self.store.root, self.error)
                if event is not None and self._bus is not None:
                    # Skipped by this recorder (its error is set): for the people watching the run.
                    self._bus.emit(LogLine(run_id=event.run_id, level="error",
                                           message=f"Run history is not being saved from now on ({self.error}); "
                                                   "the run goes on."))
            except Exception:
                log.exception("run history: could not record %s", event.kind if event else "close")
            finally:
                self._queue.task_done()

    async def _handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            # A folder that takes no writes is said once, plainly, before SQLite's own words could be.
            problem = await asyncio.to_thread(self.store.write_problem)
            if problem is not None:
                self.error = problem.short
                log.warning("run history not saved: %s", problem.short)
                if self._bus is not None:
                    self._bus.emit(LogLine(run_id=event.run_id, level="error", message=problem.sentence))
                return
            self._run_id = event.run_id
            await asyncio.to_thread(self.store.begin_run, event.run_id, event.task, event.serial, event.settings,
                                    event.time)
        elif self._run_id is None:
            return
        elif isinstance(event, StepStarted):
            # A loop's new step ends its previous one; in split screen the other half's step goes on meanwhile.
            await self._commit(self._lanes.pop(event.window, None))
            self._step = self._lanes[event.window] = StepRecord(event.step, started_at=event.time)
        elif isinstance(event, RunFinished):
            for step in list(self._lanes.values()):
                await self._commit(step)
            self._lanes.clear()
            await asyncio.to_thread(
                self.store.finish_run, event.run_id, outcome=event.outcome, reason=event.reason, steps=event.steps,
                elapsed_s=event.elapsed_s, input_tokens=event.input_tokens, output_tokens=event.output_tokens,
                cost_usd=event.cost_usd, finished_at=event.time, answer=event.answer)
        elif isinstance(event, ActionEffect):
            await self._effect(event)
        elif isinstance(event, LogLine | HumanInput | RunStateChanged | GuidanceUpdated):
            await asyncio.to_thread(self.store.add_log, self._run_id, event.time, getattr(event, "step", None),
                                    *_log_line(event))
            step = self._step_of(event)
            if isinstance(event, GuidanceUpdated) and step is not None:
                step.guidance = event.guidance
        elif (step := self._step_of(event)) is not None:
            await self._into_step(event, step)

    def _step_of(self, event: Event) -> StepRecord | None:
        """The open step an event belongs to: by its number (two halves' steps are open at once), else the
        newest."""
        number = getattr(event, "step", None)
        return next((s for s in self._lanes.values() if s.step == number), self._step)

    async def _into_step(self, event: Event, step: StepRecord) -> None:
        if isinstance(event, ScreenCaptured):
            step.app, step.layout_hash, step.withheld = event.app, event.layout_hash, event.withheld
            step.element_map = await asyncio.to_thread(to_json, event.element_map)
            shot = event.screenshot
            if shot is not None:
                self._jpegs[id(step)] = shot.jpeg
                # Actions and elements are in device pixels of the whole display; the picture may come from a
                # scaled-down mirror frame, and the element map's screen may leave out the navigation bar.
                width, height = event.display if all(event.display) else (shot.source_width, shot.source_height)
                step.screen_size = (shot.width, shot.height, width, height)
        elif isinstance(event, PlanReceived):
            step.prompt, step.response, step.thinking = event.prompt, event.response, event.thinking
            step.plan, step.source, step.model = event.plan.to_json(), event.source, event.model
            step.latency_ms, step.cost_usd = event.latency_ms, event.cost_usd or 0.0
            step.input_tokens, step.output_tokens = event.input_tokens, event.output_tokens
        elif isinstance(event, ActionStarted):
            step.actions.append({"index": event.index, "description": event.description,
                                 "action": event.action.to_json(), "bounds": _list(event.bounds),
                                 "point": _list(event.point), "ok": None, "message": "", "duration_ms": 0.0,
                                 "target": event.target, "screen": event.screen})
        elif isinstance(event, ActionResult):
            started = next((a for a in reversed(step.actions) if a["index"] == event.index and a["ok"] is None), None)
            if started is None:
                started = {"index": event.index, "description": event.action.describe(),
                           "action": event.action.to_json(), "bounds": None, "point": None}
                step.actions.append(started)
            started.update(ok=event.ok, message=event.message, duration_ms=event.duration_ms)
        elif isinstance(event, Verification):
            step.verifications.append({"check": event.check, "ok": event.ok, "reason": event.reason})

    async def _effect(self, event: ActionEffect) -> None:
        """The effect goes with its action: into the open step, or into the step already written."""
        open_step = next((s for s in self._lanes.values() if s.step == event.step), None)
        step = open_step or self._committed.get(event.step)
        if step is None:
            return
        action = next((a for a in reversed(step.actions) if a.get("index") == event.index and a.get("ok")), None)
        if action is None:
            return
        action["effect"] = event.effect
        if open_step is None and self._run_id is not None:
            await asyncio.to_thread(self.store.save_step, self._run_id, step, None)

    async def _commit(self, step: StepRecord | None) -> None:
        jpeg = self._jpegs.pop(id(step), None)
        if step is self._step:
            self._step = None
        if step is None or self._run_id is None:
            return
        step.ended_at = time.time()
        await asyncio.to_thread(self.store.save_step, self._run_id, step, jpeg)
        self._committed[step.step] = step
        for old in sorted(self._committed)[:-_KEEP_COMMITTED]:
            del self._committed[old]


def _list(value: Any) -> list[int] | None:
    return None if value is None else [int(v) for v in value]


def _log_line(event: Event) -> tuple[str, str]:
    if isinstance(event, LogLine):
        return event.level, event.message
    if isinstance(event, HumanInput):
        return "info", f"{event.purpose}: {event.prompt} → {event.answer or '(no answer)'}"
    if isinstance(event, GuidanceUpdated):
        return "info", f"planning agent ({event.trigger}): {event.guidance}"
    assert isinstance(event, RunStateChanged)
    return "info", f"run {event.state}" + (f": {event.reason}" if event.reason else "")
