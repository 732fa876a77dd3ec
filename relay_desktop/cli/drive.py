"""One run on one phone from the command line, as ``run`` and ``routines run`` both carry it out: the live
mirror (and a recording of it), the run history, the terminal's questions and confirmations, Ctrl+C, the
virtual phone's suite check, and the routine around the run (its replay, and its repair when the agent fixed
it). Several of these can go at once, one per phone (``routines run --all-devices``).
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relay_desktop.agent.control import STOPPED_BY_THE_USER
from relay_desktop.agent.events import EventBus
from relay_desktop.agent.settings import AgentSettings, RunResult
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.cli.output import EventPrinter
from relay_desktop.cli.phone_and_models import start_mirror

__all__ = ["OUTPUT_CLOSED", "DriveOptions", "Driven", "drive"]

OUTPUT_CLOSED = "stopped: the reader of its output went away (the pipe was closed)"


@dataclass(frozen=True)
class DriveOptions:
    settings: AgentSettings
    router: Any                              # the models (a ModelRouter), or None for the rule-based planner
    describe_models: dict[str, Any]
    approve_all: bool = False                # --yes
    mirror: bool = True
    record: Path | None = None


@dataclass
class Driven:
    result: RunResult
    agent: Any
    routine_line: str | None = None          # what became of the routine (repaired, …)
    check: str | None = None                 # the virtual phone's suite check, when there was one


async def drive(device: Any, service: Any, task: str, options: DriveOptions, out: EventPrinter, *,
                routine: Any = None, routines: Any = None,
                on_agent: Callable[[Any], None] | None = None) -> Driven | None:
    """Carry out ``task`` on ``device`` (the virtual phone ``service``'s, or a real one), replaying ``routine``
    (a BoundRoutine kept in the RoutineStore ``routines``) first when given. None when a recording was asked
    for and cannot be made (said on ``out``). The device is closed; the phone itself is the caller's."""
    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.supervisors.knowledge import AppKnowledgeCache
    from relay_desktop.mirror.mirrored_phone import MirroredPhone
    from relay_desktop.routines.service import RoutineRun
    from relay_desktop.runs import RunRecorder, RunStore
    from relay_desktop.user_secrets import SecretStore

    bus = EventBus()
    bus.subscribe(out.print_event)
    recorder = RunRecorder(RunStore())
    detach = recorder.attach(bus)
    around = RoutineRun(routines, routine) if routine is not None and routines is not None else None
    detach_routine = around.attach(bus) if around is not None else None
    suite_task = suite_task_for(task) if service is not None else None
    if suite_task is not None:
        suite_task.setup(service.phone)
    if service is not None:
        from relay_desktop.sim.chaos import begin_task

        begin_task(service.phone, suite_task.id if suite_task is not None else task)   # this task's own seed
    mirror = await start_mirror(device, out.line, built_in=service is not None) if options.mirror else None
    recording = None
    try:
        if options.record is not None:
            if mirror is None:       # asked for a video and cannot make one: say so before touching anything
                out.line("relay-desktop: cannot record: the live mirror did not start (see above)")
                return None
            recording = await mirror.start_recording(options.record)
        router = options.router
        agent = Orchestrator(MirroredPhone(device, mirror), router, settings=options.settings, bus=bus,
                             handlers=TerminalHandlers(options.approve_all, out.line),
                             knowledge=AppKnowledgeCache(models=router) if router is not None else None,
                             describe_models=options.describe_models, routine=routine, secrets=SecretStore())
        if on_agent is not None:
            on_agent(agent)
        running = asyncio.ensure_future(agent.run(task))
        stop = stop_on_interrupt(running, agent)
        # The output's reader went away (`| head -3`): stop as Ctrl+C would, quietly, and say so in the history.
        out.on_closed = lambda: stop(OUTPUT_CLOSED)
        result: RunResult = await running
    finally:
        if detach_routine is not None:
            detach_routine()
        detach()
        await recorder.aclose()
        if recording is not None and mirror is not None:
            await mirror.finish_recording(recording)
        if mirror is not None:
            await mirror.stop()
        await device.close()
    driven = Driven(result, agent)
    if suite_task is not None and service is not None:
        check = suite_task.check(service.phone)
        driven.check = f"Virtual phone check: {'passed' if check.ok else 'failed'} ({check.detail})"
        out.line(driven.check)
    if recorder.error:
        out.line(f"History not saved: {recorder.error}")
    if recording is not None:
        await link_recording(recorder.store, result.run_id, recording, out.line)
    if around is not None:
        driven.routine_line = await around.finish(agent, result.outcome)
        if driven.routine_line:
            out.line(driven.routine_line)
    if agent.models_failed is not None and result.outcome == "error":
        out.line("To let the rule-based planner carry on when the model cannot be used, add --allow-fallback.")
    if not recorder.error:
        out.line(f"Saved as run {result.run_id} (relay-desktop runs show {result.run_id})")
    return driven


class TerminalHandlers(Handlers):
    """Questions and confirmations on the terminal; without one, the answers are 'none' and 'no'."""

    def __init__(self, approve_all: bool, printer: Callable[[str], None]) -> None:
        super().__init__(ask_user=self._ask, confirm=self._confirm)
        self.approve_all = approve_all
        self._print = printer

    async def _ask(self, question: str) -> str | None:
        if not sys.stdin.isatty():
            self._print(f"? {question}\n  (no terminal to answer on: the agent carries on without an answer)")
            return None
        answer = await asyncio.to_thread(input, f"? {question}\n> ")
        return answer.strip() or None

    async def _confirm(self, description: str) -> bool:
        if self.approve_all:
            return True
        if not sys.stdin.isatty():
            self._print(f"! Not allowed without confirmation: {description} (run with --yes to allow)")
            return False
        answer = await asyncio.to_thread(input, f"! Allow the agent to {description}? [y/N] ")
        return answer.strip().lower() in ("y", "yes")


async def link_recording(store: Any, run_id: str, recording: Any, say: Callable[[str], None]) -> None:
    if not recording.packets:
        say(f"No recording saved: the mirror sent no picture to {recording.path}")
        return
    say(f"Recording saved: {recording.path} ({recording.duration_s:.1f} s)")
    try:
        await store.alink_recording(run_id, recording.path)
    except Exception as exc:  # the video is there; only the history's link to it is missing
        say(f"The history could not link the recording: {exc}")


def stop_on_interrupt(task: asyncio.Future[Any], agent: Any) -> Callable[..., None]:
    """Ctrl+C stops the run cleanly (history saved, no further device commands) instead of killing it; returns
    the function that does that, for other reasons to stop (given as its ``reason``)."""
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def interrupt(reason: str = STOPPED_BY_THE_USER) -> None:
        stopper = loop.create_task(agent.control.stop(reason=reason))
        stopping.add(stopper)
        stopper.add_done_callback(stopping.discard)
    try:
        loop.add_signal_handler(signal.SIGINT, interrupt)
        task.add_done_callback(lambda _: loop.remove_signal_handler(signal.SIGINT))
    except (NotImplementedError, RuntimeError):  # Windows' loop, or not the main thread
        pass
    return interrupt


def suite_task_for(text: str) -> Any:
    """The virtual phone's suite task with this goal, so `run --sim` starts from its initial state."""
    from relay_desktop.sim.tasks import ALL_TASKS

    wanted = " ".join(text.lower().split()).rstrip(".")
    return next((t for t in ALL_TASKS if " ".join(t.goal.lower().split()).rstrip(".") == wanted), None)
