"""Group control: one task (or one routine) started on every connected phone that is idle, all at once, each in
its own pane with its own mirror, log and history; when all have ended, a table says how each went — its
outcome, the steps a routine replayed and the steps the agent took, and the time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.agent.settings import task_problem
from relay_desktop.routines.model import BoundRoutine
from relay_desktop.routines.service import replay_summary

if TYPE_CHECKING:
    from relay_desktop.ui.phone_pane import PhonePane

__all__ = ["COLUMNS", "GroupControl", "GroupResultsDialog", "PhoneResult", "idle_phones", "run_on_panes"]

COLUMNS = ["Phone", "Outcome", "Replayed steps", "Agent steps", "Time"]


@dataclass(frozen=True)
class PhoneResult:
    phone: str
    outcome: str
    reason: str
    replayed_steps: int
    agent_steps: int
    seconds: float

    def cells(self) -> list[str]:
        return [self.phone, self.outcome, str(self.replayed_steps), str(self.agent_steps), f"{self.seconds:.1f} s"]


def idle_phones(panes: Iterable[PhonePane]) -> list[PhonePane]:
    """The panes whose phone is connected, still there, and not running anything."""
    return [p for p in panes if p.session.device is not None and p.lost is None and not p.session.running
            and not p.connecting]


async def run_on_panes(panes: list[PhonePane], task: str, routine: BoundRoutine | None) -> list[PhoneResult]:
    """Start ``task`` (replaying ``routine`` when given; else each phone's typed-task rules apply) on every pane at
    once, and wait for all of them."""
    started: list[tuple[PhonePane, Any, asyncio.Task[Any]]] = []
    for pane in panes:
        pane.panel.task.setPlainText(task)
        run = pane.start(task, routine)
        if run is not None:
            started.append((pane, pane.session.agent, run))
    if started:
        await asyncio.wait([run for _, _, run in started])
    results = []
    for pane, agent, run in started:
        if run.cancelled() or run.exception() is not None:
            why = "it was cancelled" if run.cancelled() else str(run.exception())
            results.append(PhoneResult(pane.label, "error", why, 0, 0, 0.0))
            continue
        result = run.result()
        # No routine: the replay columns read 0 (the agent's own steps are in the run's log and History).
        summary = replay_summary(agent) or {}
        results.append(PhoneResult(pane.label, result.outcome, result.reason, summary.get("replayed_steps", 0),
                                   summary.get("agent_steps", 0), result.elapsed_s))
    return results


class GroupResultsDialog(QDialog):
    """The table at the end of a group run; non-modal, so the phones stay in reach while it is read."""

    def __init__(self, task: str, results: list[PhoneResult], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run on all phones")
        self.resize(640, 120 + 32 * max(2, len(results)))
        solved = sum(r.outcome == "success" for r in results)
        self.summary = QLabel(f"“{' '.join(task.split())}”: {solved} of {len(results)} phones succeeded.", self)
        self.summary.setWordWrap(True)
        self.table = QTableWidget(len(results), len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName("How the run went on each phone")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for row, result in enumerate(results):
            for column, text in enumerate(result.cells()):
                item = QTableWidgetItem(text)
                item.setToolTip(result.reason)
                self.table.setItem(row, column, item)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def rows(self) -> list[list[str]]:
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]


class GroupControl(QObject):
    """The window's "Run on all phones": which phones take part, the runs, and the table at the end."""

    def __init__(self, panes: Callable[[], list[PhonePane]], say: Callable[[str], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.panes = panes
        self.say = say
        self.dialog: GroupResultsDialog | None = None      # the last table shown
        self.results: list[PhoneResult] = []

    async def run(self, task: str, routine: BoundRoutine | None = None) -> list[PhoneResult]:
        problem = task_problem(task)
        if problem is not None:
            self.say(f"Cannot start: {problem}.")
            return []
        connected = [p for p in self.panes() if p.session.device is not None and p.lost is None]
        idle = idle_phones(connected)
        busy = [p.label for p in connected if p not in idle]
        if not idle:
            self.say("No phone is free to run it: every connected phone is running a task (or none is connected).")
            return []
        phones = f"{len(idle)} phones at once" if len(idle) > 1 else "the only free phone"
        self.say(f"Running “{' '.join(task.split())}” on {phones}"
                 + (f" (not on {', '.join(busy)}: busy)" if busy else "") + ".")
        self.results = await run_on_panes(idle, task, routine)
        if self.results:
            parent = self.parent()
            self.dialog = GroupResultsDialog(task, self.results, parent if isinstance(parent, QWidget) else None)
            self.dialog.show()
            self.say(self.dialog.summary.text())
        return self.results
