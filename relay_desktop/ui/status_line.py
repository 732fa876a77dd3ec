"""The status bar's message, kept clear of the right-hand status (the phone, fps, the model's latency): a long
message ran into them. It is elided to the room left of them; the whole text is the bar's tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStatusBar, QWidget

__all__ = ["show_elided"]

GAP = 16            # between the message's end and the first right-hand label (the bar's own margins included)


def _room(bar: QStatusBar) -> int:
    """From the bar's left edge to the first visible widget on it (the permanent labels sit on the right)."""
    children = bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
    lefts = [child.geometry().left() for child in children
             if child.isVisible() and child.width() > 0 and child.geometry().left() > 0]
    return (min(lefts) if lefts else bar.width()) - GAP


def show_elided(bar: QStatusBar, text: str, timeout_ms: int = 0) -> str:
    """Show ``text`` as the bar's message, elided to fit; the elided text as shown."""
    shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(_room(bar), 40))
    bar.setToolTip(text)
    bar.showMessage(shown, timeout_ms)
    return shown
