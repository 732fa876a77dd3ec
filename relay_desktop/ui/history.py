"""Past runs: pick one, then step through it — the screenshot with the element boxes and the action drawn,
the model's prompt and answer beside it — and export it as one HTML report.

Reading the store happens in a thread; the panel never blocks the loop.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.runs import RunRecord, RunStore, export_html
from relay_desktop.runs.store import StepRecord
from relay_desktop.ui.tasks import spawn

__all__ = ["HistoryPanel", "draw_step"]


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
        self.setMinimumSize(160, 200)

    def show_image(self, image: QImage | None) -> None:
        self.image = image
        if image is None:
            self.setText("(no screenshot)")
        self._fit()

    def _fit(self) -> None:
        if self.image is not None:
            room = self.size().expandedTo(self.minimumSize())
            self.setPixmap(QPixmap.fromImage(self.image).scaled(
                room, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()


class HistoryPanel(QWidget):
    def __init__(self, parent: QWidget | None = None, store: RunStore | None = None) -> None:
        super().__init__(parent)
        self.store = store or RunStore()
        self.record: RunRecord | None = None
        self.runs = QListWidget(self)
        self.runs.setAccessibleName("Past runs")
        self.steps = QListWidget(self)
        self.steps.setAccessibleName("Steps of the run")
        self.picture = Picture(self)
        self.picture.setAccessibleName("Screen at this step")
        self.details = QPlainTextEdit(self)
        self.details.setReadOnly(True)
        self.details.setAccessibleName("Prompt and response of this step")
        self.refresh_button = QPushButton("&Refresh", self)
        self.export_button = QPushButton("&Export HTML…", self)
        self.export_button.setEnabled(False)
        self.status = QLabel("", self)
        top = QHBoxLayout()
        top.addWidget(self.refresh_button)
        top.addWidget(self.export_button)
        top.addWidget(self.status, 1)
        lists = QSplitter(Qt.Orientation.Vertical, self)
        lists.addWidget(self.runs)
        lists.addWidget(self.steps)
        step_view = QSplitter(Qt.Orientation.Horizontal, self)
        step_view.addWidget(self.picture)
        step_view.addWidget(self.details)
        body = QSplitter(Qt.Orientation.Vertical, self)
        body.addWidget(lists)
        body.addWidget(step_view)
        body.setStretchFactor(0, 1)             # the replayed step gets most of the room
        body.setStretchFactor(1, 3)
        step_view.setStretchFactor(0, 2)
        step_view.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(body, 1)
        self._tasks: set[asyncio.Task[object]] = set()
        self.refresh_button.clicked.connect(lambda: self._spawn(self.refresh()))
        self.runs.currentItemChanged.connect(lambda item, _: item and self._spawn(self.open(item.data(256))))
        self.steps.currentRowChanged.connect(self.show_step)
        self.export_button.clicked.connect(self._ask_export)

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    async def refresh(self) -> None:
        runs = await self.store.alist_runs(100)
        self.runs.clear()
        for run in runs:
            started = time.strftime("%m-%d %H:%M", time.localtime(run.started_at))
            item = QListWidgetItem(f"{started}  {run.outcome:<11} {run.steps:>2} steps  {run.task[:60]}")
            item.setData(256, run.id)
            self.runs.addItem(item)
        self.status.setText(f"{len(runs)} runs" if runs else "No runs yet")

    async def open(self, run_id: str) -> None:
        self.record = await self.store.aget_run(run_id)
        self.export_button.setEnabled(True)
        self.steps.clear()
        for step in self.record.steps:
            actions = "; ".join(a.get("description", "") for a in step.actions) or "(no action)"
            self.steps.addItem(f"{step.step}. {step.app}  {actions}")
        summary = self.record.summary
        self.status.setText(f"{summary.outcome}: {summary.reason}")
        if self.record.steps:
            self.steps.setCurrentRow(0)

    def show_step(self, row: int) -> None:
        if self.record is None or not 0 <= row < len(self.record.steps):
            return
        step = self.record.steps[row]
        self.picture.show_image(draw_step(self.store, step))
        text = [f"Step {step.step} · {step.app} · {step.model or step.source}"]
        if step.thinking:
            text += ["", "Thinking:", step.thinking]
        for action in step.actions:
            text.append(f"{'✓' if action.get('ok') else '✗'} {action.get('description')}: {action.get('message')}")
        text += ["", "Prompt:", step.prompt or "(none)", "", "Response:", step.response or "(none)"]
        self.details.setPlainText("\n".join(text))

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
