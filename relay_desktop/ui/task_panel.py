"""Task input, the run buttons with their enabled states, a line to steer the agent, run stats, and the answer to a
question task once its run ends."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

__all__ = ["TaskPanel"]


class TaskPanel(QWidget):
    start_requested = Signal(str)
    start_all_requested = Signal(str)      # the same task on every connected phone that is idle
    pause_requested = Signal()
    resume_requested = Signal()
    stop_requested = Signal()
    message_sent = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.task = QPlainTextEdit(self)
        self.task.setPlaceholderText('What should the agent do? e.g. "Turn on Wi-Fi"  (Ctrl+Enter to start)')
        self.task.setAccessibleName("Task")
        self.task.setMaximumHeight(90)
        self.task.setTabChangesFocus(True)      # Tab leaves the box (keyboard reach); tasks need no tab characters
        self.start = QPushButton("&Start", self)
        self.pause = QPushButton("&Pause", self)
        self.resume = QPushButton("&Resume", self)
        self.stop = QPushButton("S&top", self)
        self.all_phones = QPushButton("Run on &all phones", self)
        self.all_phones.setToolTip("Start this task on every connected phone that is not running one, each in its "
                                   "own tab; a table of the results follows")
        self.all_phones.hide()                  # one phone: nothing to run it on besides this one
        for button, name in ((self.start, "Start the task"), (self.pause, "Pause the agent"),
                             (self.resume, "Resume the agent"), (self.stop, "Stop the run"),
                             (self.all_phones, "Run the task on all phones")):
            button.setAccessibleName(name)
        self.message = QLineEdit(self)
        self.message.setPlaceholderText("Tell the running agent something…")
        self.message.setAccessibleName("Message to the agent")
        self.stats = {name: QLabel("–", self) for name in ("step", "elapsed", "tokens", "cost", "approach")}
        self.answer_box = self._answer_row()
        buttons = QHBoxLayout()
        for button in (self.start, self.pause, self.resume, self.stop, self.all_phones):
            buttons.addWidget(button)
        grid = QGridLayout()
        for row, (name, label) in enumerate(self.stats.items()):
            title = QLabel(name.capitalize() + ":", self)
            title.setBuddy(label)
            grid.addWidget(title, row // 2, (row % 2) * 2)
            grid.addWidget(label, row // 2, (row % 2) * 2 + 1)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.task)
        layout.addWidget(self.answer_box)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        layout.addLayout(grid)
        self.start.clicked.connect(self._start)
        self.all_phones.clicked.connect(lambda: self.start_all_requested.emit(self.task.toPlainText().strip()))
        self.pause.clicked.connect(self.pause_requested)
        self.resume.clicked.connect(self.resume_requested)
        self.stop.clicked.connect(self.stop_requested)
        self.message.returnPressed.connect(self._send)
        # Only while the task box has the focus: side by side, every phone's panel has this shortcut, and one
        # key bound in several places of a window does nothing at all.
        start = QShortcut(QKeySequence("Ctrl+Return"), self.task, self._start)
        start.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.set_state("idle")

    def _answer_row(self) -> QWidget:
        """What a question task asked for, big and selectable under the task it answers, with a copy button;
        hidden until a run ends with an answer."""
        box = QWidget(self)
        title = QLabel("Answer:", box)
        self.answer = QLabel("", box)
        self.answer.setAccessibleName("Answer")
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.PlainText)     # the model's words, never markup
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                            | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        font = self.answer.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.answer.setFont(font)
        title.setFont(font)
        title.setBuddy(self.answer)
        self.copy_answer = QPushButton("Cop&y", box)
        self.copy_answer.setAccessibleName("Copy the answer")
        self.copy_answer.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.answer.text()))
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(title)
        row.addWidget(self.answer, 1)
        row.addWidget(self.copy_answer)
        box.hide()
        return box

    def show_answer(self, answer: str) -> None:
        """The run's answer ("" hides the row: the task asked no question)."""
        self.answer.setText(answer)
        self.answer_box.setVisible(bool(answer))

    def _start(self) -> None:
        # Even an empty task is passed on: the window says why it cannot start, rather than nothing happening.
        if self.start.isEnabled():
            self.start_requested.emit(self.task.toPlainText().strip())

    def _send(self) -> None:
        text = self.message.text().strip()
        if text:
            self.message_sent.emit(text)
            self.message.clear()

    def set_state(self, state: str) -> None:
        """idle, running, paused, stopping, finished: which buttons make sense now."""
        running = state in ("running", "paused", "stopping")
        if running:
            self.show_answer("")          # the last run's answer is not this one's
        self.start.setEnabled(not running)
        self.all_phones.setEnabled(not running)
        self.task.setReadOnly(running)
        self.pause.setEnabled(state == "running")
        self.resume.setEnabled(state == "paused")
        self.stop.setEnabled(state in ("running", "paused"))
        self.message.setEnabled(state in ("running", "paused"))

    def set_stat(self, name: str, value: str) -> None:
        self.stats[name].setText(value)
