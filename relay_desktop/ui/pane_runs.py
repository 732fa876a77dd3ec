"""Runs on one phone's pane: starting one (a typed task, which replays the saved routine it matches when the
setting allows, or a routine chosen in the Routines tab), the agent's questions and confirmations as dialogs,
Stop and a word to the running agent, and — once a routine's run ends — noting it and saving the agent's repair.

Finding the routine a typed task is reads the database, so it happens in the run's own task, in a thread: Start
answers at once and the run counts as going from the first moment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QInputDialog, QMessageBox

from relay_desktop.agent import Handlers, Orchestrator, RunResult
from relay_desktop.agent.settings import task_problem
from relay_desktop.routines.model import BoundRoutine
from relay_desktop.routines.service import RoutineRun
from relay_desktop.ui.routine_library import problem

if TYPE_CHECKING:
    from relay_desktop.ui.phone_pane import PhonePane

__all__ = ["PaneRuns", "using_line"]


def using_line(routine: BoundRoutine, typed: bool) -> str:
    """What the log says when a run replays a routine: which one, with which values, and that no model is needed."""
    values = f" with {routine.describe_values()}" if routine.values else ""
    which = f"“{routine.name}” (version {routine.routine.version}){values}"
    return (f"Using the saved routine {which}: it replays without a model." if typed else
            f"Running the routine {which}: it replays without a model; where the phone differs, the agent takes "
            "over.")


@dataclass
class _RoutineSide:
    """The routine part of one run: what notes the run and saves a repair, and how to stop listening."""

    around: RoutineRun | None = None
    detach: Callable[[], None] | None = None


class PaneRuns(QObject):
    def __init__(self, pane: PhonePane) -> None:
        super().__init__(pane)
        self.pane = pane

    def start(self, task: str, routine: BoundRoutine | None = None) -> asyncio.Task[RunResult] | None:
        """Start ``task`` on this pane's phone (``routine``: replay it; None: the saved routine the task matches,
        when the setting allows). The run's task, or None after saying why it cannot start."""
        pane = self.pane
        problem_text = task_problem(task)
        if problem_text is not None:
            pane.say(f"Cannot start: {problem_text.rstrip('.')}.")        # the problem may end a sentence itself
            pane.panel.task.setFocus()
            return None
        if pane.session.device is None or pane.lost is not None:
            pane.say("Connect a phone first (or start the virtual phone).")
            return None
        if pane.session.running:
            pane.say("This phone's run is still going: stop it first, or wait for it to end.")
            return None
        host, side = pane.host, _RoutineSide()
        if routine is not None:
            self._follow(side, routine)
            pane.say(using_line(routine, typed=False))
        look = routine is None and host.app_settings.use_routines

        async def find_routine(agent: Orchestrator) -> None:
            await self._find(agent, task, side)
        # With no model set up the rule-based planner drives the window's runs, so it also takes over where a
        # routine's replay stops (as `relay-desktop run` does with no model), rather than the run ending there.
        settings = host.settings if host.models is not None else replace(host.settings, allow_fallback=True)
        # Keys are read from the keyring again for each run: a key put right (or removed) elsewhere since the
        # last run is the one used, where the router's cached keys failed every run until a restart. (Models
        # other than a ModelRouter — a test's scripted ones — hold no keys.)
        forget_keys = getattr(host.models, "forget_keys", None)
        if forget_keys is not None:
            forget_keys()
        pane.panel.set_state("running")
        agent = pane.session.start_run(task, host.models, settings,
                                       Handlers(ask_user=self._ask, confirm=self._confirm), routine=routine,
                                       prepare=find_routine if look else None)
        run = pane.session.run_task
        assert run is not None
        pane.run_state = "running"
        pane.changed.emit()
        pane.spawn(self._after(agent, run, side))
        return run

    def _follow(self, side: _RoutineSide, routine: BoundRoutine) -> None:
        side.around = RoutineRun(self.pane.host.routines.store, routine)
        side.detach = side.around.attach(self.pane.bus)

    async def _find(self, agent: Orchestrator, task: str, side: _RoutineSide) -> None:
        """The saved routine this typed task is, bound to the values it gives, becomes the run's routine."""
        try:
            match = await self.pane.host.routines.find(task)
            routine = match.routine.bind(match.values) if match is not None else None
        except Exception as exc:  # the routines could not be read or bound: the run goes on without them
            self.pane.say(f"Saved routines not used: {problem(exc, capital=False)}")
            return
        if routine is None:
            return
        agent.routine = routine
        self._follow(side, routine)
        self.pane.say(using_line(routine, typed=True))

    async def _after(self, agent: Orchestrator, run: asyncio.Task[RunResult], side: _RoutineSide) -> None:
        """Once the run ends: a routine's run is noted, and the agent's fix saved when it had to take over."""
        try:
            result = await asyncio.shield(run)
        except Exception:  # the orchestrator turns failures into outcomes; a run that raised has nothing to note
            return
        finally:
            if side.detach is not None:
                side.detach()
        if side.around is None:
            return
        try:
            line = await side.around.finish(agent, result.outcome)
        except Exception as exc:  # the database refused the repair: the run itself is in History all the same
            line = f"The routine “{side.around.routine.name}” was not updated: {problem(exc, capital=False)}"
        self.pane.host.routines.ran()
        if line:
            self.pane.say(line)

    def stop(self) -> None:
        if self.pane.session.agent is not None:
            self.pane.spawn(self.pane.session.agent.control.stop())

    def steer(self, text: str) -> None:
        if self.pane.session.agent is not None:
            self.pane.session.agent.control.steer(text)
            self.pane.log_view.add_line(f"· you: {text}")

    async def _ask(self, question: str) -> str | None:
        # open(), not exec(): the agents, the mirrors and the logs of every phone go on while it waits.
        pane = self.pane
        dialog = QInputDialog(pane)
        dialog.setWindowTitle(f"The agent asks ({pane.label})" if pane.label else "The agent asks")
        dialog.setLabelText(question)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        dialog.finished.connect(lambda result: done.done() or done.set_result(bool(result)))
        dialog.open()
        return dialog.textValue().strip() or None if await done else None

    async def _confirm(self, description: str) -> bool:
        pane = self.pane
        box = QMessageBox(QMessageBox.Icon.Question, f"Confirm ({pane.label})" if pane.label else "Confirm",
                          f"Allow the agent to {description}?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, pane)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        box.finished.connect(lambda result: done.done() or done.set_result(result))
        box.open()
        return await done == QMessageBox.StandardButton.Yes
