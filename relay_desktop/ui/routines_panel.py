"""A phone's Routines tab: the saved routines (name, version, steps, parameters with their defaults, task, runs),
the chosen one's steps, and what can be done with one — run it (here or on every phone), rename, delete, export
and import as YAML, and see its versions.

Every store call is awaited off the loop (``RoutineLibrary``); the list follows every change made anywhere in the
window. Running is the pane's: the panel asks for it with ``run_requested``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.routines.model import RoutineError
from relay_desktop.routines.replay import describe_step
from relay_desktop.routines.store import RoutineSummary
from relay_desktop.ui.history import ListTree
from relay_desktop.ui.routine_dialogs import RunRoutineDialog, VersionsDialog
from relay_desktop.ui.routine_library import RoutineLibrary, problem
from relay_desktop.ui.tasks import spawn

__all__ = ["EMPTY", "RoutinesPanel"]

NAME = Qt.ItemDataRole.UserRole
EMPTY = ("No routines yet. Save a successful run from History as a routine (History → choose the run → Save as "
         "routine…): it then runs again without a model, with other values if you like.")


def _when(seconds: float | None) -> str:
    return time.strftime("%m-%d %H:%M", time.localtime(seconds)) if seconds else ""


class RoutinesPanel(QWidget):
    run_requested = Signal(object, bool)     # BoundRoutine, on every connected phone
    said = Signal(str)                       # a result for the window's status line

    def __init__(self, library: RoutineLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.several_phones = False                      # two or more connected: a routine can run on all
        self.summaries: list[RoutineSummary] = []
        self.dialog: QWidget | None = None               # the dialog last opened here (run, versions, files, …)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.routines = ListTree(["Name", "Version", "Steps", "Parameters (defaults)", "Runs", "Task"], self)
        self.routines.setAccessibleName("Saved routines")
        self.steps = ListTree(["Step", "What it does"], self)
        self.steps.setAccessibleName("Steps of the chosen routine")
        self.empty = QLabel(EMPTY, self)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setAccessibleName("No routines yet")
        self.stack = QStackedWidget(self)
        lists = QSplitter(Qt.Orientation.Vertical, self)
        lists.addWidget(self.routines)
        lists.addWidget(self.steps)
        lists.setSizes([260, 240])
        self.stack.addWidget(lists)
        self.stack.addWidget(self.empty)
        self.run_button = QPushButton("&Run…", self)
        self.rename_button = QPushButton("Re&name…", self)
        self.delete_button = QPushButton("De&lete", self)
        self.export_button = QPushButton("E&xport…", self)
        self.import_button = QPushButton("I&mport…", self)
        self.versions_button = QPushButton("&Versions", self)
        for button, name in ((self.run_button, "Run the chosen routine"),
                             (self.rename_button, "Rename the chosen routine"),
                             (self.delete_button, "Delete the chosen routine"),
                             (self.export_button, "Export the chosen routine as YAML"),
                             (self.import_button, "Import a routine from a YAML file"),
                             (self.versions_button, "Show the chosen routine's versions")):
            button.setAccessibleName(name)
            button.setToolTip(name)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setAccessibleName("What happened to the routines")
        self.status.hide()                               # until there is something to say
        # What is done to the chosen routine above the list, files below it: one row of six set a narrow tile's
        # (side by side) width.
        buttons = QHBoxLayout()
        for button in (self.run_button, self.rename_button, self.delete_button, self.versions_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        files = QHBoxLayout()
        for button in (self.export_button, self.import_button):
            files.addWidget(button)
        files.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(self.stack, 1)
        layout.addLayout(files)
        self.run_button.clicked.connect(lambda: self._spawn(self.ask_run()))
        self.rename_button.clicked.connect(lambda: self._spawn(self.ask_rename()))
        self.delete_button.clicked.connect(lambda: self._spawn(self.ask_delete()))
        self.export_button.clicked.connect(self.ask_export)
        self.import_button.clicked.connect(self.ask_import)
        self.versions_button.clicked.connect(lambda: self._spawn(self.show_versions()))
        self.routines.currentItemChanged.connect(lambda *_: self._chosen_changed())
        library.changed.connect(self._library_changed)
        self._enable()

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    # ------------------------------------------------------------ the list

    @property
    def chosen(self) -> str | None:
        item = self.routines.currentItem()
        return str(item.data(0, NAME)) if item is not None else None

    def names(self) -> list[str]:
        return [summary.name for summary in self.summaries]

    async def refresh(self) -> None:
        try:
            summaries = await self.library.list()
        except Exception as exc:  # the database could not be read: said here, the rest of the window goes on
            self.say(problem(exc), error=True)
            return
        chosen = self.chosen
        self.summaries = summaries
        self.routines.clear()
        for summary in summaries:
            parameters = ", ".join(f"{p.name}={p.default}" for p in summary.parameters) or "–"
            runs = str(summary.runs) + (f" (last {summary.last_outcome}, {_when(summary.last_run_at)})"
                                        if summary.runs and summary.last_outcome else "")
            item = QTreeWidgetItem([summary.name, str(summary.version), str(summary.steps), parameters, runs,
                                    summary.task])
            item.setData(0, NAME, summary.name)
            item.setToolTip(5, summary.task)
            item.setToolTip(3, parameters)
            item.setToolTip(0, "Asks before send, pay, delete and install" if summary.confirm else
                            "Does not ask before send, pay, delete and install")
            self.routines.addTopLevelItem(item)
        self.stack.setCurrentIndex(0 if summaries else 1)
        names = self.names()
        self.routines.setCurrentRow(names.index(chosen) if chosen in names else 0)
        self._enable()
        if not summaries:
            self.steps.clear()

    def _library_changed(self) -> None:
        # Hidden tabs catch up when shown (the pane refreshes the tab then): no reads for lists nobody sees.
        if self.isVisible():
            self._spawn(self.refresh())

    def _chosen_changed(self) -> None:
        self._enable()
        name = self.chosen
        self.steps.clear()
        if name is not None:
            self._spawn(self._show_steps(name))

    async def _show_steps(self, name: str) -> None:
        try:
            routine = await self.library.get(name)
        except Exception as exc:  # deleted meanwhile, or unreadable: the list says so on its next refresh
            self.say(problem(exc), error=True)
            return
        if self.chosen != name:          # another routine was chosen while this one was read
            return
        self.steps.clear()
        try:
            bound = routine.bind()
        except RoutineError as exc:      # an imported file's empty default: its steps need values to be shown
            self.steps.addTopLevelItem(QTreeWidgetItem(["", f"(The steps show once it can run: {exc}.)"]))
            return
        for number, step in enumerate(bound.steps, 1):
            item = QTreeWidgetItem([str(number), describe_step(step)])
            item.setToolTip(1, describe_step(step))
            self.steps.addTopLevelItem(item)

    def _enable(self) -> None:
        chosen = self.chosen is not None
        for button in (self.run_button, self.rename_button, self.delete_button, self.export_button,
                       self.versions_button):
            button.setEnabled(chosen)

    def say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet("color: #c62828" if error else "")
        self.status.setVisible(bool(text))
        self.said.emit(text)

    # ------------------------------------------------------------ actions

    async def ask_run(self) -> RunRoutineDialog | None:
        name = self.chosen
        if name is None:
            return None
        try:
            routine = await self.library.get(name)
        except Exception as exc:  # gone since the list was read
            self.say(problem(exc), error=True)
            return None
        dialog = RunRoutineDialog(routine, self.several_phones, self)
        dialog.run_requested.connect(self.run_requested)
        self.dialog = dialog
        dialog.open()          # not exec(): the mirrors and runs go on while the values are typed
        return dialog

    async def _answer(self, dialog: QInputDialog | QMessageBox) -> int:
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        dialog.finished.connect(lambda result: done.done() or done.set_result(result))
        self.dialog = dialog
        dialog.open()
        return await done

    async def ask_rename(self) -> str | None:
        old = self.chosen
        if old is None:
            return None
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Rename routine")
        dialog.setLabelText(f"New name for “{old}”:")
        dialog.setTextValue(old)
        if not await self._answer(dialog) or dialog.textValue().strip() == old:
            return None
        return await self.rename(old, dialog.textValue())

    async def rename(self, old: str, new: str) -> str | None:
        try:
            name = await self.library.rename(old, new)
        except Exception as exc:  # a clash or a bad name: one sentence, the routine keeps its name
            self.say(problem(exc), error=True)
            return None
        self.say(f"Renamed “{old}” to “{name}”.")
        await self.refresh()
        self.routines.setCurrentRow(self.names().index(name) if name in self.names() else 0)
        return name

    async def ask_delete(self) -> bool:
        name = self.chosen
        if name is None:
            return False
        box = QMessageBox(QMessageBox.Icon.Question, "Delete routine",
                          f"Delete the routine “{name}” and all its versions? Its runs stay in History.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        if await self._answer(box) != QMessageBox.StandardButton.Yes:
            return False
        try:
            await self.library.delete(name)
        except Exception as exc:  # deleted elsewhere meanwhile, or the database refused
            self.say(problem(exc), error=True)
            return False
        self.say(f"Deleted the routine “{name}”.")
        await self.refresh()
        return True

    def ask_export(self) -> None:
        name = self.chosen
        if name is None:
            return
        file_name = "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-") or "routine"
        dialog = QFileDialog(self, "Export routine", str(Path.home() / f"{file_name}.yaml"), "YAML (*.yaml *.yml)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix("yaml")
        dialog.fileSelected.connect(lambda path: self._spawn(self.export(name, Path(path))))
        self.dialog = dialog
        dialog.open()          # not exec(): the loop (and any run) goes on while a file is chosen

    async def export(self, name: str, path: Path) -> Path | None:
        try:
            out = await self.library.export(name, path)
        except Exception as exc:  # the folder is not writable, the routine gone
            self.say(problem(exc), error=True)
            return None
        self.say(f"Exported “{name}” to {out}.")
        return out

    def ask_import(self) -> None:
        dialog = QFileDialog(self, "Import routine", str(Path.home()), "YAML (*.yaml *.yml);;All files (*)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self._spawn(self.import_file(Path(path))))
        self.dialog = dialog
        dialog.open()

    async def import_file(self, path: Path) -> str | None:
        try:
            saved = await self.library.import_file(path)
        except Exception as exc:  # not YAML, not a routine, unreadable: where the mistake is, in one sentence
            self.say(f"Could not import {path.name}: {problem(exc, capital=False)}", error=True)
            return None
        kept = f" (version {saved.version - 1} is kept)" if saved.version > 1 else ""
        self.say(f"Imported the routine “{saved.name}” as version {saved.version}{kept}.")
        await self.refresh()
        self.routines.setCurrentRow(self.names().index(saved.name) if saved.name in self.names() else 0)
        return saved.name

    async def show_versions(self) -> VersionsDialog | None:
        name = self.chosen
        if name is None:
            return None
        try:
            versions = await self.library.versions(name)
        except Exception as exc:  # gone since the list was read
            self.say(problem(exc), error=True)
            return None
        dialog = VersionsDialog(name, versions, self)
        self.dialog = dialog
        dialog.show()          # non-modal: it can stay open beside the window
        return dialog
