"""The live log: one entry per step (thinking, actions, results, checks, planning updates beneath it),
colour-coded, with the prompt, the response and the element map one click away; filter, copy and export.
In a run that replays a routine, each step says whether it was replayed or the agent's.

It follows the run unless the user has scrolled up to read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QTreeWidgetItemIterator,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.agent.events import (
    ActionResult,
    Event,
    GuidanceUpdated,
    LogLine,
    PlanReceived,
    RunFinished,
    RunStarted,
    ScreenCaptured,
    Verification,
)
from relay_desktop.cli.output import EventPrinter
from relay_desktop.llm.redaction import redact

__all__ = ["LogView"]

# (light background, dark background): the same meaning must stay readable in both themes.
_COLOURS = {
    "problem": (QColor(198, 40, 40), QColor(255, 138, 128)),
    "warning": (QColor(200, 100, 0), QColor(255, 183, 77)),
    "planning": (QColor(106, 27, 154), QColor(206, 147, 216)),
    "success": (QColor(46, 125, 50), QColor(129, 199, 132)),
    "step": (QColor(21, 101, 192), QColor(144, 202, 249)),
    "replayed": (QColor(0, 121, 107), QColor(128, 203, 196)),
}
# What each filter choice shows; None shows everything.
FILTERS: dict[str, set[str] | None] = {
    "Everything": None,
    "Actions": {"step", "plan", "replayed", "action", "problem", "success"},
    "Problems": {"problem", "warning"},
    "Planning": {"planning", "plan", "replayed"},
}
_KIND = Qt.ItemDataRole.UserRole
_DETAILS = Qt.ItemDataRole.UserRole + 1      # a callable giving the full text, built only when looked at


def _kind(event: Event | None, text: str) -> str:
    if isinstance(event, ScreenCaptured):
        return "step"
    if isinstance(event, PlanReceived):
        return "replayed" if event.source == "routine" else "plan"
    if isinstance(event, GuidanceUpdated):
        return "planning"
    if isinstance(event, ActionResult | Verification):
        return "action" if event.ok else "problem"
    if isinstance(event, LogLine):
        return {"warning": "warning", "error": "problem"}.get(event.level, "info")
    if isinstance(event, RunFinished):
        return "success" if event.outcome == "success" else "problem"
    return "problem" if text.startswith("✘") else "info"


def _details(event: Event | None) -> list[tuple[str, Callable[[], str]]]:
    """The expandable parts of an entry: what the model was told and said, and what it saw."""
    if isinstance(event, PlanReceived):
        parts = []
        if event.thinking:
            parts.append(("Thinking", lambda: event.thinking))
        if event.prompt:
            parts.append((f"Prompt ({len(event.prompt):,} characters)", lambda: event.prompt))
        if event.response:
            parts.append(("Response", lambda: event.response))
        return parts
    if isinstance(event, ScreenCaptured):
        def element_map() -> str:
            from relay_desktop.perception.render import to_prompt_text

            return to_prompt_text(event.element_map)
        parts = [(f"Element map ({len(event.element_map)} elements)", element_map)]
        if event.diff_text:
            parts.append(("What changed", lambda: event.diff_text))
        return parts
    if isinstance(event, GuidanceUpdated):
        return [("Guidance", lambda: event.guidance)]
    if isinstance(event, RunStarted):
        return [("Task", lambda: event.task)]
    return []


class LogView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.filter_text = QLineEdit(self)
        self.filter_text.setPlaceholderText("Filter the log…")
        self.filter_text.setAccessibleName("Filter the log by text")
        self.filter_text.setClearButtonEnabled(True)
        self.filter_kind = QComboBox(self)
        self.filter_kind.addItems(list(FILTERS))
        self.filter_kind.setAccessibleName("Which log entries to show")
        self.copy = QPushButton("&Copy", self)
        self.copy.setAccessibleName("Copy the log (or the selected entries) to the clipboard")
        self.export = QPushButton("E&xport…", self)
        self.export.setAccessibleName("Save the log to a text file")
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.tree.setAccessibleName("Run log")
        self.tree.setWordWrap(True)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.ExtendedSelection)
        self.detail = QPlainTextEdit(self)
        self.detail.setReadOnly(True)
        self.detail.setTabChangesFocus(True)
        self.detail.setAccessibleName("The selected log entry in full")
        self.detail.setPlaceholderText("Select an entry to read it in full; expand a plan for its prompt and "
                                       "response, a step for its element map.")
        bar = QHBoxLayout()
        bar.addWidget(self.filter_text, 1)
        bar.addWidget(self.filter_kind)
        bar.addWidget(self.copy)
        bar.addWidget(self.export)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self._step: QTreeWidgetItem | None = None        # entries of the current step go beneath it
        self._replaying = False                          # the run replays a routine: steps say who did them
        self.filter_text.textChanged.connect(self.apply_filter)
        self.filter_kind.currentTextChanged.connect(self.apply_filter)
        self.tree.currentItemChanged.connect(self._show_detail)
        self.copy.clicked.connect(self.copy_to_clipboard)
        self.export.clicked.connect(self._choose_export_file)

    # ------------------------------------------------------------ adding

    def add_event(self, event: Event) -> None:
        text = EventPrinter.format(event)
        if text is not None:
            self._add(text.strip(), event)

    def add_line(self, text: str) -> None:
        self._add(text, None)

    def _add(self, text: str, event: Event | None) -> None:
        # Keys are masked here as everywhere: a log on screen gets screenshotted, copied and exported.
        text = redact(text)
        bar = self.tree.verticalScrollBar()
        following = bar.value() >= bar.maximum() - 4      # scrolled up to read: do not jump away
        kind = _kind(event, text)
        item = QTreeWidgetItem([text])
        item.setData(0, _KIND, kind)
        item.setData(0, _DETAILS, lambda: text)
        item.setToolTip(0, text)
        self._colour(item, kind)
        for title, full in _details(event):
            child = QTreeWidgetItem([title])
            font = child.font(0)
            font.setItalic(True)         # a way into more, not something that happened
            child.setFont(0, font)
            child.setData(0, _KIND, "detail")
            self._colour(child, "detail")
            child.setData(0, _DETAILS, lambda full=full: redact(full()))
            item.addChild(child)
        if isinstance(event, RunStarted):
            self._replaying = "routine" in event.settings
        if isinstance(event, PlanReceived) and self._replaying and self._step is not None:
            self._mark_step(self._step, "replayed" if event.source == "routine" else "agent")
        if isinstance(event, ScreenCaptured):
            self.tree.addTopLevelItem(item)
            self._step = item
            item.setExpanded(True)
        elif isinstance(event, RunStarted | RunFinished) or self._step is None:
            self.tree.addTopLevelItem(item)
            self._step = None
        else:
            self._step.addChild(item)
        # A step shows when any entry beneath it matches: filter from the step down, the new entry included.
        self._filter_item(item.parent() or item)
        if following:
            self.tree.scrollToBottom()

    @staticmethod
    def _mark_step(step: QTreeWidgetItem, who: str) -> None:
        """``── step 3 · … · replayed`` (or ``· agent``): once, from the step's first plan."""
        text = step.text(0)
        if text.endswith((" · replayed", " · agent")):
            return
        text = f"{text} · {who}"
        step.setText(0, text)
        step.setToolTip(0, text)
        step.setData(0, _DETAILS, lambda: text)

    def _colour(self, item: QTreeWidgetItem, kind: str) -> None:
        palette = QApplication.palette()      # the application's: a hidden widget's own may lag behind
        if kind == "detail":
            item.setForeground(0, palette.brush(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText))
            return
        pair = _COLOURS.get(kind)
        if pair is not None:
            dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
            item.setForeground(0, QBrush(pair[dark]))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        # Light <-> dark: every entry's colour follows.
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            iterator = QTreeWidgetItemIterator(self.tree)
            while iterator.value() is not None:
                item = iterator.value()
                self._colour(item, item.data(0, _KIND))
                iterator += 1

    # ------------------------------------------------------------ reading

    def entries(self) -> list[QTreeWidgetItem]:
        """Every entry in order, steps before the lines beneath them; the expandable details left out."""
        out: list[QTreeWidgetItem] = []

        def walk(item: QTreeWidgetItem) -> None:
            if item.data(0, _KIND) == "detail":
                return
            out.append(item)
            for i in range(item.childCount()):
                walk(item.child(i))
        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i))
        return out

    def lines(self) -> list[str]:
        return [item.text(0) for item in self.entries()]

    def visible_lines(self) -> list[str]:
        return [item.text(0) for item in self.entries() if not item.isHidden()]

    def _show_detail(self, item: QTreeWidgetItem | None) -> None:
        full = item.data(0, _DETAILS) if item is not None else None
        self.detail.setPlainText(full() if callable(full) else "")

    # ------------------------------------------------------------ filtering

    def apply_filter(self) -> None:
        for i in range(self.tree.topLevelItemCount()):
            self._filter_item(self.tree.topLevelItem(i))

    def _filter_item(self, item: QTreeWidgetItem) -> bool:
        """Show an entry that matches, and a step with any matching entry beneath it."""
        if item.data(0, _KIND) == "detail":
            return False
        kinds = FILTERS[self.filter_kind.currentText()]
        needle = self.filter_text.text().strip().lower()
        matches = (kinds is None or item.data(0, _KIND) in kinds) and needle in item.text(0).lower()
        for i in range(item.childCount()):
            matches = self._filter_item(item.child(i)) or matches
        item.setHidden(not matches)
        return matches

    # ------------------------------------------------------------ copy and export

    def as_text(self, items: list[QTreeWidgetItem] | None = None, details: bool = False) -> str:
        lines = []
        for item in items if items is not None else [i for i in self.entries() if not i.isHidden()]:
            depth = 0
            parent = item.parent()
            while parent is not None:
                depth, parent = depth + 1, parent.parent()
            lines.append("  " * depth + item.text(0))
            for i in range(item.childCount() if details else 0):
                child = item.child(i)
                if child.data(0, _KIND) == "detail":
                    body = child.data(0, _DETAILS)()
                    lines.append("  " * (depth + 1) + f"[{child.text(0)}]")
                    lines.extend("  " * (depth + 2) + line for line in body.splitlines())
        return "\n".join(lines) + "\n"

    def copy_to_clipboard(self) -> str:
        selected = [i for i in self.tree.selectedItems() if i.data(0, _KIND) != "detail"]
        text = self.as_text(selected or None)
        QGuiApplication.clipboard().setText(text)
        return text

    def export_to(self, path: Path) -> Path:
        """The whole log with every detail (prompts, responses, element maps), as UTF-8 text."""
        path.write_text(self.as_text(self.entries(), details=True), encoding="utf-8")
        return path

    def _choose_export_file(self) -> None:
        dialog = QFileDialog(self, "Export the log", str(Path.home() / "relay-log.txt"), "Text (*.txt)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.fileSelected.connect(self._export_chosen)
        dialog.open()      # not exec(): the run and the mirror go on while the user picks a file

    def _export_chosen(self, name: str) -> None:
        try:
            self.export_to(Path(name))
        except OSError as exc:
            QMessageBox(QMessageBox.Icon.Warning, "Export the log", f"Could not save the log: {exc.strerror or exc}",
                        QMessageBox.StandardButton.Ok, self).open()

    def clear(self) -> None:
        self.tree.clear()
        self._step = None
        self.detail.clear()
