"""Past runs: pick one, then step through it — the screenshot with the element boxes and the action drawn,
the model's prompt and answer beside it — export it as one HTML report, or save a successful one as a routine.

Reading the store happens in a thread; the panel never blocks the loop.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.runs import RunRecord, RunStore, export_html
from relay_desktop.runs.store import StepRecord, withheld_text
from relay_desktop.ui.open_file import open_with_desktop
from relay_desktop.ui.routine_dialogs import SaveRoutineDialog
from relay_desktop.ui.routine_library import RoutineLibrary
from relay_desktop.ui.tasks import spawn

__all__ = ["HistoryPanel", "draw_step", "driver_short"]

RUN_ID = Qt.ItemDataRole.UserRole
ONLY_SUCCESS = "Only a successful run can be saved as a routine"


def driver_short(driver: str) -> str:
    """Who planned a run's steps, in a word or two: "model", "rules", "routine", "routine → model", …"""
    if not driver:
        return "–"
    first, _, then = driver.partition(", then the ")
    words = {"model": "model", "rule-based planner": "rules", "routine": "routine"}
    short = words.get(first, first)
    if then:
        short += " → " + next((w for name, w in words.items() if then.startswith(name)), then)
    return short


def draw_step(store: RunStore, step: StepRecord) -> QImage | None:
    """The step's screenshot with its element boxes and actions drawn on (device coordinates scaled)."""
    path = store.screenshot_path(step)
    if path is None or not path.exists() or step.screen_size is None:
        return None
    image = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB32)
    _, _, device_w, device_h = step.screen_size
    sx, sy = image.width() / device_w, image.height() / device_h
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    for element in (step.element_map or {}).get("elements", []):
        left, top, right, bottom = element["bounds"]
        painter.setPen(QPen(QColor(30, 136, 229, 150), 1))
        painter.drawRect(QRectF(left * sx, top * sy, (right - left) * sx, (bottom - top) * sy))
    for action in step.actions:
        colour = QColor(46, 125, 50) if action.get("ok") else QColor(229, 57, 53)
        if action.get("bounds"):
            left, top, right, bottom = action["bounds"]
            painter.setPen(QPen(colour, 3))
            painter.drawRect(QRectF(left * sx, top * sy, (right - left) * sx, (bottom - top) * sy))
        if action.get("point"):
            x, y = action["point"]
            painter.setBrush(QColor(colour.red(), colour.green(), colour.blue(), 150))
            painter.drawEllipse(QPointF(x * sx, y * sy), 10, 10)
            painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.end()
    return image


class Picture(QLabel):
    """A screenshot scaled to fit whatever room the splitter gives it, never asking for more."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image: QImage | None = None
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.setMinimumSize(220, 360)
        self.setWordWrap(True)
        self.setText(PICK_A_RUN)

    def show_image(self, image: QImage | None, empty: str = "(no screenshot for this step)") -> None:
        self.image = image
        if image is None:
            self.setPixmap(QPixmap())
            self.setText(empty)
        self._fit()

    def _fit(self) -> None:
        if self.image is not None:
            room = self.size().expandedTo(self.minimumSize())
            self.setPixmap(QPixmap.fromImage(self.image).scaled(
                room, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()


PICK_A_RUN = "Choose a run above, then a step, to see the phone's screen at that step."


class ListTree(QTreeWidget):
    """A list with column headers whose rows show in full (a QListWidget had neither)."""

    def __init__(self, headers: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(headers)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.header()
        header.setStretchLastSection(True)
        for column in range(len(headers) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)

    def count(self) -> int:
        return self.topLevelItemCount()

    def item(self, row: int) -> QTreeWidgetItem | None:
        return self.topLevelItem(row)

    def setCurrentRow(self, row: int) -> None:
        item = self.topLevelItem(row)
        if item is not None:
            self.setCurrentItem(item)


class HistoryPanel(QWidget):
    said = Signal(str)          # news for the window's status line (a routine saved)

    def __init__(self, parent: QWidget | None = None, store: RunStore | None = None,
                 routines: RoutineLibrary | None = None) -> None:
        super().__init__(parent)
        self.store = store or RunStore()
        self.routines = routines             # where Save as routine… saves (None: not offered)
        self.record: RunRecord | None = None
        self.save_dialog: SaveRoutineDialog | None = None
        self.runs = ListTree(["Started", "Outcome", "By", "Steps", "Phone", "Task"], self)
        self.runs.setAccessibleName("Past runs")
        self.steps = ListTree(["Step", "App", "Actions"], self)
        self.steps.setAccessibleName("Steps of the run")
        self.picture = Picture(self)
        self.picture.setAccessibleName("Screen at this step")
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setAccessibleName("Prompt and response of this step")
        self.details.setPlaceholderText("The chosen step's thinking, actions, prompt and response show here.")
        self.refresh_button = QPushButton("&Refresh", self)
        self.export_button = QPushButton("&Export HTML…", self)
        self.export_button.setEnabled(False)
        self.play_button = QPushButton("&Play recording", self)
        self.play_button.setToolTip("Open the screen recording made during this run")
        self.play_button.setEnabled(False)
        self.play_button.clicked.connect(lambda: self._spawn(self.play_recording()))
        # When no player opens the recording: its folder, for the user to open it with what they have.
        self.show_folder_button = QPushButton("Show in &folder", self)
        self.show_folder_button.setToolTip("Open the folder that holds the recording")
        self.show_folder_button.hide()
        self.show_folder_button.clicked.connect(lambda: self._spawn(self.show_recording_folder()))
        self.save_routine_button = QPushButton("Save as rou&tine…", self)
        self.save_routine_button.setAccessibleName("Save this run as a routine")
        self.save_routine_button.setToolTip(ONLY_SUCCESS)
        self.save_routine_button.setEnabled(False)
        self.save_routine_button.setVisible(routines is not None)
        self.save_routine_button.clicked.connect(self.ask_save_routine)
        self.status = QLabel("", self)
        # Two rows, and the status wraps: side by side a tile is narrow, and one long row set the width of the
        # whole window (a run's reason, unwrapped, pushed it off the screen).
        self.status.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.refresh_button)
        top.addWidget(self.export_button)
        top.addWidget(self.play_button)
        top.addWidget(self.show_folder_button)
        top.addStretch(1)
        chosen = QHBoxLayout()
        chosen.addWidget(self.save_routine_button)
        chosen.addWidget(self.status, 1)
        self.lists = QSplitter(Qt.Orientation.Vertical, self)
        self.lists.addWidget(self.runs)
        self.lists.addWidget(self.steps)
        self.step_view = QSplitter(Qt.Orientation.Horizontal, self)
        self.step_view.addWidget(self.picture)
        self.step_view.addWidget(self.details)
        self.body = QSplitter(Qt.Orientation.Vertical, self)
        self.body.addWidget(self.lists)
        self.body.addWidget(self.step_view)
        self.step_view.setStretchFactor(0, 2)
        self.step_view.setStretchFactor(1, 3)
        # Until a run is chosen the list of runs is all there is to see, and fills the tab (it showed four rows
        # above an empty step view); a chosen run's steps and screen then take their share (``_split``).
        self.steps.hide()
        self.step_view.hide()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(chosen)
        layout.addWidget(self.body, 1)
        self._tasks: set[asyncio.Task[object]] = set()
        self.refresh_button.clicked.connect(lambda: self._spawn(self.refresh()))
        self.runs.currentItemChanged.connect(lambda item, _: item and self._spawn(self.open(item.data(0, RUN_ID))))
        self.steps.currentItemChanged.connect(
            lambda item, _: item is not None and self.show_step(self.steps.indexOfTopLevelItem(item)))
        self.export_button.clicked.connect(self._ask_export)

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    async def refresh(self) -> None:
        runs = await self.store.alist_runs(100)
        self.runs.clear()
        for run in runs:
            started = time.strftime("%m-%d %H:%M", time.localtime(run.started_at))
            by = driver_short(run.driver)
            task = " ".join(run.task.split())
            item = QTreeWidgetItem([started, run.outcome, by, str(run.steps), run.serial or "–", task])
            item.setToolTip(5, task)
            item.setToolTip(4, f"The phone the run used: {run.serial}" if run.serial else "No phone was recorded")
            item.setToolTip(2, run.driver or "no step was planned")
            item.setData(0, RUN_ID, run.id)
            self.runs.addTopLevelItem(item)
        self.status.setText(f"{len(runs)} runs" if runs else
                            'No runs yet: runs appear here once they start (try "Turn on Wi-Fi").')
        problem = await self.store.awrite_problem()     # read-only or full: what is shown is all there will be
        if problem is not None:
            self.status.setText(f"{self.status.text().rstrip('.')}. {problem.sentence}")

    async def open(self, run_id: str) -> None:
        self.record = await self.store.aget_run(run_id)
        self.export_button.setEnabled(True)
        self.play_button.setEnabled(bool(self.record.settings.get("recording")))
        self.show_folder_button.hide()
        success = self.record.summary.outcome == "success"
        self.save_routine_button.setEnabled(success)
        self.save_routine_button.setToolTip("Save this run as a routine: it then runs again without a model"
                                            if success else ONLY_SUCCESS)
        self._split()
        self.steps.clear()
        for step in self.record.steps:
            actions = "; ".join(a.get("description", "") for a in step.actions) or "(no action)"
            self.steps.addTopLevelItem(QTreeWidgetItem([str(step.step), step.app, actions]))
        summary = self.record.summary
        by = f" (driven by the {summary.driver})" if summary.driver else ""
        self.status.setText(f"{summary.outcome}{by}: {summary.reason}")
        self.details.clear()
        if self.record.steps:
            self.steps.setCurrentRow(0)
        else:
            self.picture.show_image(None, "This run has no steps: it ended before the first one.")

    def _split(self) -> None:
        """A run chosen: its steps and the replayed screen appear under the runs, which keep a good share."""
        if self.step_view.isVisible():
            return
        self.steps.show()
        self.step_view.show()
        height = max(self.body.height(), 600)
        self.body.setSizes([height * 2 // 5, height * 3 // 5])
        self.lists.setSizes([height // 5, height // 5])

    def show_step(self, row: int) -> None:
        if self.record is None or not 0 <= row < len(self.record.steps):
            return
        step = self.record.steps[row]
        self.picture.show_image(draw_step(self.store, step), withheld_text(step.withheld))
        text = [f"Step {step.step} · {step.app} · {step.model or step.source}"]
        if step.thinking:
            text += ["", "Thinking:", step.thinking]
        for action in step.actions:
            text.append(f"{'✓' if action.get('ok') else '✗'} {action.get('description')}: {action.get('message')}")
        text += ["", "Prompt:", step.prompt or "(none)", "", "Response:", step.response or "(none)"]
        self.details.setPlainText("\n".join(text))

    def ask_save_routine(self) -> SaveRoutineDialog | None:
        if self.record is None or self.routines is None or self.record.summary.outcome != "success":
            return None
        dialog = SaveRoutineDialog(self.record, self.routines, self)
        dialog.saved.connect(self._routine_saved)
        self.save_dialog = dialog
        dialog.show()          # non-modal: the phones and their runs go on while it is filled in
        return dialog

    def _routine_saved(self, routine: Any) -> None:
        text = f"Saved routine “{routine.name}” (version {routine.version})"
        self.status.setText(text)
        self.said.emit(text)

    def _recording(self) -> Path | None:
        path = self.record.settings.get("recording") if self.record is not None else None
        return Path(path) if path else None

    async def play_recording(self) -> bool:
        """Open the run's screen recording in the desktop's video player; when none opens it, say so in one line
        with the file's path, and offer its folder instead."""
        path = self._recording()
        if path is None:
            return False
        if not path.exists():
            self.status.setText(f"The recording is no longer at {path}")
            return False
        if await open_with_desktop(path):
            return True
        self.status.setText(f"No video player opened the recording {path}: Show in folder opens where it is.")
        self.show_folder_button.show()
        return False

    async def show_recording_folder(self) -> bool:
        path = self._recording()
        if path is None:
            return False
        if await open_with_desktop(path.parent):
            return True
        self.status.setText(f"Nothing opened the folder either: the recording is {path}")
        return False

    def _ask_export(self) -> None:
        if self.record is None:
            return
        dialog = QFileDialog(self, "Export run", f"run-{self.record.summary.id}.html", "HTML (*.html)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(lambda path: self._spawn(self.export(Path(path))))
        dialog.open()  # not exec(): the loop (and a run in progress) goes on

    async def export(self, path: Path) -> Path:
        assert self.record is not None
        out = await asyncio.to_thread(export_html, self.store, self.record.summary.id, path)
        self.status.setText(f"Exported to {out}")
        return out
