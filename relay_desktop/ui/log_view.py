"""The live log: one line per thing the agent did, colour-coded, following the run unless the user scrolls up."""

from __future__ import annotations

from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

from relay_desktop.agent.events import Event
from relay_desktop.cli_output import EventPrinter

__all__ = ["LogView"]

_COLOURS = {"✘": QColor(198, 40, 40), "✗": QColor(198, 40, 40), "!": QColor(230, 124, 0), "★": QColor(106, 27, 154),
            "✔": QColor(46, 125, 50), "✓": QColor(46, 125, 50), "─": QColor(21, 101, 192)}


class LogView(QListWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Run log")
        self.setWordWrap(True)
        self.setUniformItemSizes(False)

    def add_event(self, event: Event) -> None:
        text = EventPrinter.format(event)
        if text is None:
            return
        self.add_line(text.strip())

    def add_line(self, text: str) -> None:
        bar = self.verticalScrollBar()
        following = bar.value() >= bar.maximum() - 4   # scrolled up to read: do not jump away
        item = QListWidgetItem(text)
        colour = _COLOURS.get(text[:1])
        if colour is not None:
            item.setForeground(QBrush(colour))
        self.addItem(item)
        if following:
            self.scrollToBottom()

    def lines(self) -> list[str]:
        return [self.item(i).text() for i in range(self.count())]
