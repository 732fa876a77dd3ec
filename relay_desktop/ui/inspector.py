"""Inspect mode: the element tree and every attribute of the element picked on the mirror or in the tree.

Picking works both ways: a click on the mirror selects the smallest element under the pointer (and its row
in the tree); hovering a row highlights the element on the mirror, clicking it selects it.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.perception import Element, ElementMap
from relay_desktop.perception.render import element_json

__all__ = ["InspectorPanel"]


def _same_element(element: Element, element_map: ElementMap) -> Element | None:
    """``element`` as ``element_map`` shows it, or None. Ids are numbered per map (Inspect's dumps, a run's maps
    start again at e1): an id is kept only where it names the same thing — app, class, resource id, label and
    list row — so a selection does not jump to whatever another screen numbered alike (its place may move)."""
    found = element_map.get(element.id)
    if found is None:
        return None
    was, now = element.identity, found.identity
    same = (was.package, was.cls, was.resource_id, was.label, was.row) == \
        (now.package, now.cls, now.resource_id, now.label, now.row)
    return found if same else None


class InspectorPanel(QWidget):
    hovered = Signal(object)        # Element | None
    selected = Signal(object)       # Element | None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.element_map: ElementMap | None = None
        self.current: Element | None = None
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Element", "Role", "Label"])
        self.tree.setAccessibleName("Element tree")
        self.tree.setMouseTracking(True)
        self.tree.itemEntered.connect(lambda item, _column: self.hovered.emit(self._element(item)))
        self.tree.currentItemChanged.connect(lambda item, _previous: self._pick(self._element(item), from_tree=True))
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels(["Attribute", "Value"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.setAccessibleName("Element attributes")
        self.title = QLabel("Click an element on the phone's screen, or pick one in the tree.", self)
        self.title.setWordWrap(True)
        self.copy = QPushButton("&Copy as JSON", self)
        self.copy.setAccessibleName("Copy the element's attributes as JSON")
        self.copy.setEnabled(False)
        self.copy.clicked.connect(self._copy)
        details = QWidget(self)
        column = QVBoxLayout(details)
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.copy)
        column.addLayout(header)
        column.addWidget(self.table)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.tree)
        splitter.addWidget(details)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

    def _element(self, item: QTreeWidgetItem | None) -> Element | None:
        if item is None or self.element_map is None:
            return None
        return self.element_map.get(item.data(0, Qt.ItemDataRole.UserRole))

    def show_map(self, element_map: ElementMap) -> None:
        self.element_map = element_map
        self.tree.blockSignals(True)
        self.tree.clear()
        for element in element_map.elements:
            item = QTreeWidgetItem([element.id, element.role, element.name])
            item.setData(0, Qt.ItemDataRole.UserRole, element.id)
            self.tree.addTopLevelItem(item)
        self.tree.blockSignals(False)
        if self.current is not None:
            self.select(_same_element(self.current, element_map))

    def select(self, element: Element | None) -> None:
        """Select from outside (a click on the mirror): the tree follows."""
        self._pick(element, from_tree=False)

    def _pick(self, element: Element | None, from_tree: bool) -> None:
        self.current = element
        if not from_tree:
            self.tree.blockSignals(True)
            match = self.tree.findItems(element.id, Qt.MatchFlag.MatchExactly, 0) if element else []
            self.tree.setCurrentItem(match[0] if match else None)
            self.tree.blockSignals(False)
        self._fill(element)
        self.selected.emit(element)

    def _fill(self, element: Element | None) -> None:
        self.copy.setEnabled(element is not None)
        if element is None:
            self.title.setText("Nothing selected.")
            self.table.setRowCount(0)
            return
        self.title.setText(f'{element.id} {element.role} "{element.name}" — the id the agent sees')
        data = element_json(element)
        rows = [(key, json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value))
                for key, value in data.items()]
        self.table.setRowCount(len(rows))
        for row, (key, value) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(key))
            self.table.setItem(row, 1, QTableWidgetItem(value))

    def attributes(self) -> dict[str, str]:
        return {self.table.item(r, 0).text(): self.table.item(r, 1).text() for r in range(self.table.rowCount())}

    def _copy(self) -> None:
        if self.current is not None:
            QGuiApplication.clipboard().setText(json.dumps(element_json(self.current), ensure_ascii=False, indent=1))
