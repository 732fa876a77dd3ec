"""The connected phones' panes: a tab each (the tab bar hides while there is only one, so one phone looks as it
always did), or side by side as tiles. Which pane is current follows the chosen tab, or the tile last used."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QSplitter, QStackedLayout, QTabWidget, QWidget

from relay_desktop.ui.phone_pane import PhonePane

__all__ = ["PhoneDeck"]


class PhoneDeck(QWidget):
    current_changed = Signal()
    close_requested = Signal(object)        # PhonePane: its tab's close button, or its tile's Disconnect

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Connected phones")
        self.tabs.setTabsClosable(True)
        self.tabs.setTabBarAutoHide(True)
        self.tabs.setDocumentMode(True)
        self.tabs.currentChanged.connect(self._tab_chosen)
        self.tabs.tabCloseRequested.connect(lambda index: self.close_requested.emit(self.tabs.widget(index)))
        self.tiles = QSplitter(Qt.Orientation.Horizontal, self)
        self.tiles.setChildrenCollapsible(False)
        # The tiles share the window's width; when even narrowed mirrors do not fit (three phones on a laptop's
        # screen) they scroll, where their minimum widths used to widen the window off the screen's edge.
        self.tiles_area = QScrollArea(self)
        self.tiles_area.setWidgetResizable(True)
        self.tiles_area.setFrameShape(QFrame.Shape.NoFrame)
        self.tiles_area.setWidget(self.tiles)
        self._stack = QStackedLayout(self)
        self._stack.setContentsMargins(0, 0, 0, 0)
        self._stack.addWidget(self.tabs)
        self._stack.addWidget(self.tiles_area)
        self.panes: list[PhonePane] = []
        self._current: PhonePane | None = None
        self._moving = False
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_moved)

    @property
    def side_by_side(self) -> bool:
        return self._stack.currentWidget() is self.tiles_area

    @property
    def current(self) -> PhonePane | None:
        return self._current

    def add(self, pane: PhonePane) -> None:
        self.panes.append(pane)
        pane.changed.connect(lambda: self.retitle(pane))
        pane.close_requested.connect(lambda: self.close_requested.emit(pane))
        self._moving = True
        try:
            if self.side_by_side:
                self.tiles.addWidget(pane)
                pane.show()
                self._even_tiles()
            else:
                self.tabs.addTab(pane, pane.title())
        finally:
            self._moving = False
        self._tab_focus()
        if self._current is None:
            self.set_current(pane)
        self.retitle(pane)

    def remove(self, pane: PhonePane) -> None:
        if pane not in self.panes:
            return
        self.panes.remove(pane)
        self._moving = True
        try:
            index = self.tabs.indexOf(pane)
            if index >= 0:
                self.tabs.removeTab(index)
            pane.hide()
            pane.setParent(None)
        finally:
            self._moving = False
        self._tab_focus()
        if self._current is pane:
            self._current = None
            widget = self.tabs.currentWidget()
            self.set_current(widget if isinstance(widget, PhonePane) else self.panes[0] if self.panes else None)
        self._even_tiles()

    def set_current(self, pane: PhonePane | None) -> None:
        if pane is not None and not self.side_by_side and self.tabs.currentWidget() is not pane:
            self._moving = True
            self.tabs.setCurrentWidget(pane)
            self._moving = False
        if pane is self._current:
            return
        self._current = pane
        for each in self.panes:
            self.retitle(each)
        self.current_changed.emit()

    def set_side_by_side(self, on: bool) -> None:
        if on == self.side_by_side:
            return
        current = self._current
        self._moving = True
        try:
            if on:
                while self.tabs.count():
                    self.tabs.removeTab(0)
                for pane in self.panes:
                    self.tiles.addWidget(pane)
                    pane.show()
                self._stack.setCurrentWidget(self.tiles_area)
                self._even_tiles()
            else:
                for pane in self.panes:
                    self.tabs.addTab(pane, pane.title())
                self._stack.setCurrentWidget(self.tabs)
                if current is not None:
                    self.tabs.setCurrentWidget(current)
        finally:
            self._moving = False
        self._tab_focus()
        for pane in self.panes:
            self.retitle(pane)

    def _tab_focus(self) -> None:
        """The tab bar takes Tab's focus only while it shows: a hidden one (a single phone) took it and kept it."""
        policy = Qt.FocusPolicy.TabFocus if self.tabs.count() > 1 else Qt.FocusPolicy.NoFocus
        self.tabs.setFocusPolicy(policy)
        self.tabs.tabBar().setFocusPolicy(policy)

    def retitle(self, pane: PhonePane) -> None:
        title = pane.title()
        index = self.tabs.indexOf(pane)
        if index >= 0:
            self.tabs.setTabText(index, title)
            self.tabs.setTabToolTip(index, pane.lost or title)
        pane.set_tiled(self.side_by_side, pane is self._current and len(self.panes) > 1)

    def _even_tiles(self) -> None:
        if self.side_by_side and self.panes:
            width = max(self.tiles_area.viewport().width(), self.tiles.width(), 1)
            self.tiles.setSizes([width // len(self.panes)] * len(self.panes))

    def _tab_chosen(self, index: int) -> None:
        if self._moving:
            return
        widget = self.tabs.widget(index)
        if isinstance(widget, PhonePane):
            self.set_current(widget)

    def _focus_moved(self, old: QWidget | None, new: QWidget | None) -> None:
        """Side by side, the tile the user works in (typing a task, clicking its phone) is the current one."""
        if not self.side_by_side or new is None:
            return
        for pane in self.panes:
            if pane.isAncestorOf(new):
                self.set_current(pane)
                return
