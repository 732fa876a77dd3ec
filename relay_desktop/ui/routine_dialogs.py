"""The routine dialogs: save a successful run as a routine (its name, the task's values as parameters, whether
it asks before sensitive steps), run one with values of the user's (on this phone or on every phone), and see
every version a routine had.

None of them blocks the loop (they are shown with ``show()`` or ``open()``); a mistake shows in the dialog as one
sentence and leaves it open.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.routines.learn import detect_parameters, learn_routine, records_from_steps
from relay_desktop.routines.model import Parameter, Routine, RoutineError
from relay_desktop.routines.store import VersionSummary
from relay_desktop.runs import RunRecord
from relay_desktop.ui.routine_library import RoutineLibrary, problem
from relay_desktop.ui.tasks import spawn

__all__ = ["DONT_ASK", "RunRoutineDialog", "SaveRoutineDialog", "VersionsDialog", "routine_name_for"]

DONT_ASK = "Don't ask again for this routine before send, pay, delete or install"
ERROR_STYLE = "color: #c62828"


def routine_name_for(task: str) -> str:
    """A routine's first name: the task it was learnt from, on one line and within the 80 characters a name has."""
    name = " ".join(task.split()).rstrip(".")
    return name if len(name) <= 80 else name[:79].rstrip() + "…"


def _error_label(parent: QWidget) -> QLabel:
    label = QLabel("", parent)
    label.setWordWrap(True)
    label.setStyleSheet(ERROR_STYLE)
    label.setAccessibleName("What is wrong")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class SaveRoutineDialog(QDialog):
    saved = Signal(object)          # Routine, as the store saved it (with its version)

    def __init__(self, record: RunRecord, library: RoutineLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Save as routine")
        self.setMinimumWidth(560)
        self.record = record
        self.library = library
        self.records = records_from_steps(record.steps)
        self._tasks: set[asyncio.Task[Any]] = set()
        task = record.summary.task
        intro = QLabel(f"The run {record.summary.id} did “{' '.join(task.split())}”. Saved as a routine, it runs "
                       "again without a model; the parameters are the task's values a run can change.", self)
        intro.setWordWrap(True)
        self.name = QLineEdit(routine_name_for(task), self)
        self.name.setAccessibleName("The routine's name")
        self.parameters = QTableWidget(0, 2, self)
        self.parameters.setHorizontalHeaderLabels(["Parameter", "Value in this run"])
        self.parameters.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.parameters.horizontalHeader().setStretchLastSection(True)
        self.parameters.verticalHeader().setVisible(False)
        self.parameters.setAccessibleName("Parameters: a name and the value the task gave")
        self.parameters.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.parameters.setMinimumHeight(120)
        self.none_found = QLabel("No value of the task was found to make a parameter: the routine does the task "
                                 "as it was. Add parameter makes one.", self)
        self.none_found.setWordWrap(True)
        for parameter in detect_parameters(task, [r for r in self.records if r.ok]):
            self.add_parameter(parameter.name, parameter.default)
        self.none_found.setVisible(self.parameters.rowCount() == 0)
        self.add_button = QPushButton("&Add parameter", self)
        self.remove_button = QPushButton("&Remove parameter", self)
        self.add_button.clicked.connect(lambda: self.add_parameter("", "", edit=True))
        self.remove_button.clicked.connect(self.remove_parameter)
        hint = QLabel("A parameter's name: lower-case letters, digits and _. Its value must appear in the task.",
                      self)
        hint.setWordWrap(True)
        self.dont_ask = QCheckBox(DONT_ASK, self)
        self.error = _error_label(self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        buttons.accepted.connect(lambda: spawn(self.save(), self._tasks))
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("&Name:", self.name)
        edit_row = QHBoxLayout()
        edit_row.addWidget(self.add_button)
        edit_row.addWidget(self.remove_button)
        edit_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(QLabel("Parameters:", self))
        layout.addWidget(self.parameters, 1)
        layout.addWidget(self.none_found)
        layout.addLayout(edit_row)
        layout.addWidget(hint)
        layout.addWidget(self.dont_ask)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def add_parameter(self, name: str, value: str, edit: bool = False) -> None:
        row = self.parameters.rowCount()
        self.parameters.insertRow(row)
        self.parameters.setItem(row, 0, QTableWidgetItem(name))
        self.parameters.setItem(row, 1, QTableWidgetItem(value))
        self.none_found.hide()
        if edit:
            self.parameters.setCurrentCell(row, 0)
            self.parameters.editItem(self.parameters.item(row, 0))

    def remove_parameter(self) -> None:
        row = self.parameters.currentRow()
        if row >= 0:
            self.parameters.removeRow(row)
        self.none_found.setVisible(self.parameters.rowCount() == 0)

    def chosen_parameters(self) -> list[Parameter]:
        """The table's rows as parameters (RoutineError for a name that cannot be one); empty rows are skipped."""
        out = []
        for row in range(self.parameters.rowCount()):
            name, value = (self.parameters.item(row, column) for column in (0, 1))
            name_text, value_text = (name.text().strip() if name else ""), (value.text().strip() if value else "")
            if not name_text and not value_text:
                continue
            if not value_text:
                raise RoutineError(f"the parameter {name_text} needs the value the task gave it")
            out.append(Parameter(name_text, value_text))
        return out

    async def save(self) -> Routine | None:
        self.error.clear()
        self.save_button.setEnabled(False)
        try:
            summary = self.record.summary
            routine = learn_routine(self.name.text(), summary.task, self.records, source_run=summary.id,
                                    parameters=self.chosen_parameters(), confirm=not self.dont_ask.isChecked(),
                                    note=f"saved from run {summary.id}")
            saved = await self.library.save(routine)
        except Exception as exc:  # a name, a parameter, the store: said in the dialog, which stays open
            self.error.setText(problem(exc))
            return None
        finally:
            self.save_button.setEnabled(True)
        self.saved.emit(saved)
        self.accept()
        return saved


class RunRoutineDialog(QDialog):
    run_requested = Signal(object, bool)     # BoundRoutine, on every connected phone

    def __init__(self, routine: Routine, several_phones: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Run {routine.name}")
        self.setMinimumWidth(460)
        self.routine = routine
        task = QLabel(routine.task, self)
        task.setWordWrap(True)
        task.setStyleSheet("font-weight: bold")
        task.setAccessibleName("The routine's task")
        about = QLabel(f"Version {routine.version}, {len(routine.steps)} steps. It replays without a model; where "
                       "the phone differs, the agent takes over.", self)
        about.setWordWrap(True)
        self.fields: dict[str, QLineEdit] = {}
        form = QFormLayout()
        for parameter in routine.parameters:
            field = QLineEdit(parameter.default, self)
            field.setAccessibleName(f"Value of {parameter.name}")
            form.addRow(f"{parameter.name}:", field)
            self.fields[parameter.name] = field
        self.error = _error_label(self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.run_here = buttons.addButton("&Run on this phone", QDialogButtonBox.ButtonRole.AcceptRole)
        self.run_everywhere = buttons.addButton("Run on &all phones", QDialogButtonBox.ButtonRole.ActionRole)
        self.run_everywhere.setVisible(several_phones)
        self.run_here.setDefault(True)
        self.run_here.clicked.connect(lambda: self._run(False))
        self.run_everywhere.clicked.connect(lambda: self._run(True))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(task)
        layout.addWidget(about)
        if self.fields:
            layout.addLayout(form)
        else:
            layout.addWidget(QLabel("It has no parameters.", self))
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def values(self) -> dict[str, str]:
        return {name: field.text().strip() for name, field in self.fields.items()}

    def _run(self, everywhere: bool) -> None:
        try:
            bound = self.routine.bind(self.values())
        except RoutineError as exc:
            self.error.setText(problem(exc))
            return
        self.accept()
        self.run_requested.emit(bound, everywhere)


class VersionsDialog(QDialog):
    """Every version a routine had (a repair or a new save adds one; the old ones stay), the current one marked."""

    def __init__(self, name: str, versions: list[VersionSummary], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Versions of {name}")
        self.resize(720, 300)
        self.table = QTableWidget(len(versions), 4, self)
        self.table.setHorizontalHeaderLabels(["Version", "Saved", "Steps", "Note"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAccessibleName(f"Versions of the routine {name}")
        header = self.table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        for row, version in enumerate(versions):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(version.created_at)) if version.created_at else "?"
            note = version.note or (f"saved from run {version.source_run}" if version.source_run else "")
            cells = [f"{version.version} (current)" if version.current else str(version.version), when,
                     str(version.steps), note]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if version.current:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(row, column, item)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def rows(self) -> list[list[str]]:
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]
