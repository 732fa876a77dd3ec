"""The phone on screen: the mirror's latest frame, aspect-correct, with the overlays drawn over it.

Paints only when a frame or an overlay changed. Device pixels map to widget pixels through one transform,
used both for drawing and for turning a click into a device point (inspect mode).
"""

from __future__ import annotations

import itertools
import time

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QImage,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from relay_desktop.perception import ElementMap
from relay_desktop.perception.pixels import PIXEL_GRID, STATUS_BAR_SHARE, pixels_changed
from relay_desktop.ui.overlays import CursorModel, ElementBoxes
from relay_desktop.ui.screen_geometry import ScreenGeometry
from relay_desktop.ui.screen_sink import ScreenSink

__all__ = ["MirrorView", "frame_signature"]

_BLACK = 8      # the brightest a grid cell of a protected (black) frame is
_KIND_COLOURS = {"clickable": QColor(30, 136, 229), "editable": QColor(67, 160, 71), "scrollable": QColor(251, 140, 0),
                 "text": QColor(158, 158, 158)}


def frame_signature(image: QImage) -> bytes:
    """The picture as the same small grey grid the agent compares screens by (status bar left out)."""
    top = int(image.height() * STATUS_BAR_SHARE)
    columns, rows = PIXEL_GRID
    small = image.copy(0, top, image.width(), image.height() - top).convertToFormat(
        QImage.Format.Format_Grayscale8).scaled(columns, rows, Qt.AspectRatioMode.IgnoreAspectRatio,
                                                Qt.TransformationMode.SmoothTransformation)
    bits, line = bytes(small.constBits()), small.bytesPerLine()
    return b"".join(bits[y * line:y * line + columns] for y in range(rows))


class MirrorView(QWidget):
    clicked = Signal(float, float)          # device pixels
    touched = Signal(str, float, float)     # "down" / "move" / "up", device pixels
    scrolled = Signal(float, float, float)  # device x, y, wheel steps (positive: up)
    typed = Signal(str)                     # text typed while the mirror has focus
    key_pressed = Signal(str)               # an Android key name (ENTER, DEL, ...)
    paste_requested = Signal()              # Ctrl+V: the computer's clipboard is pasted on the phone
    overlays_stale = Signal()               # the screen changed under the boxes: they were taken down

    def __init__(self, sink: ScreenSink, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sink = sink
        self.boxes = ElementBoxes()
        self.cursor = CursorModel()
        self.show_boxes = True
        self.notice = ""
        # The agent found the screen protected (FLAG_SECURE: the app forbids capture, so the mirror is black):
        # said over the picture until the phone shows something else.
        self.protected = False
        # The whole display's size in device pixels (``wm size`` or a run's capture); None until known.
        self.display_size: tuple[int, int] | None = None
        self.selected: object | None = None    # bounds of the element picked in inspect mode
        self.hovered: object | None = None     # bounds of the tree row under the pointer
        self._image: QImage | None = None
        self._overlay_screen: bytes | None = None  # the picture the boxes were computed for
        self._frames: list[float] = []
        self.setAccessibleName("Phone screen")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(240, 420)
        sink.frame_ready.connect(self._on_frame)
        self._animation = QTimer(self)
        self._animation.setInterval(16)
        self._animation.timeout.connect(self._animate)
        self._last_tick = time.monotonic()

    # ------------------------------------------------------------ state

    @property
    def fps(self) -> float:
        now = time.monotonic()
        self._frames = [t for t in self._frames if now - t < 1.0]
        return float(len(self._frames))

    def _on_frame(self) -> None:
        self._image = self.sink.image()
        self._frames.append(time.monotonic())
        if self.protected and self._image is not None and max(frame_signature(self._image)) > _BLACK:
            self.protected = False        # a picture again: the protected screen is gone
        # Boxes belong to the screen they were read from: once the picture moves on, they would sit on
        # something else, so they go (a fresh dump brings new ones).
        if self._overlay_screen is not None and self._image is not None \
                and pixels_changed(self._overlay_screen, frame_signature(self._image)):
            self.hide_overlays()
            self.overlays_stale.emit()
        self.update()

    def set_protected(self, protected: bool) -> None:
        if protected != self.protected:
            self.protected = protected
            self.update()

    def show_elements(self, element_map: ElementMap) -> None:
        """Boxes for this element map, which was read from the screen showing now."""
        self.boxes.update(element_map)
        self._overlay_screen = frame_signature(self._image) if self._image is not None else None
        self.update()

    def show_target(self, bounds: object | None) -> None:
        """The red box on the element the agent acts on now (on the screen showing now)."""
        self.boxes.target = bounds  # type: ignore[assignment]
        if self._overlay_screen is None and self._image is not None:
            self._overlay_screen = frame_signature(self._image)
        self.update()

    def hide_overlays(self) -> None:
        """Take down everything drawn for a screen (boxes, the target, the inspected element); the cursor keeps
        its own fade."""
        self.boxes.clear()
        self.selected = self.hovered = None
        self._overlay_screen = None
        self.update()

    def clear_frame(self) -> None:
        """Forget the last phone's screen (switching phones): the notice shows until the next frame."""
        self._image = None
        self.cursor.hide()
        self.hide_overlays()

    def animate_cursor(self, x: float, y: float, swipe_from: tuple[float, float] | None = None) -> None:
        self.cursor.move_to(x, y, swipe_from)
        self._last_tick = time.monotonic()
        if not self._animation.isActive():
            self._animation.start()

    def _animate(self) -> None:
        now = time.monotonic()
        moving = self.cursor.advance(now - self._last_tick)
        self._last_tick = now
        self.update()
        if not moving:
            self._animation.stop()

    # ------------------------------------------------------------ geometry

    def geometry_now(self) -> ScreenGeometry:
        """How device pixels map to this widget now: by the display's whole size, the picture's own aspect."""
        picture = (self._image.width(), self._image.height()) if self._image is not None else None
        return ScreenGeometry.of(self.display_size, picture, (self.width(), self.height()))

    def screen_size(self) -> tuple[int, int]:
        """The display's size in device pixels, turned as it shows now (what touches are measured against)."""
        return self.geometry_now().device

    def _target_rect(self) -> QRectF:
        return QRectF(*self.geometry_now().rect)

    def to_widget(self, x: float, y: float) -> QPointF:
        return QPointF(*self.geometry_now().to_area(x, y))

    def to_device(self, point: QPointF) -> tuple[float, float] | None:
        return self.geometry_now().to_device(point.x(), point.y())

    # ------------------------------------------------------------ events

    def mousePressEvent(self, event: QMouseEvent) -> None:
        device = self.to_device(event.position())
        if device is not None:
            self.clicked.emit(*device)
            self.touched.emit("down", *device)
            self._dragging = True

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        device = self.to_device(event.position())
        if device is not None and getattr(self, "_dragging", False):
            self.touched.emit("move", *device)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if getattr(self, "_dragging", False):
            self._dragging = False
            device = self.to_device(event.position()) or self.cursor.position or (0.0, 0.0)
            self.touched.emit("up", *device)

    def wheelEvent(self, event: QWheelEvent) -> None:
        device = self.to_device(event.position())
        if device is not None:
            self.scrolled.emit(device[0], device[1], event.angleDelta().y() / 120)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Paste):
            self.paste_requested.emit()
            return
        special = {Qt.Key.Key_Return: "ENTER", Qt.Key.Key_Enter: "ENTER", Qt.Key.Key_Backspace: "DEL",
                   Qt.Key.Key_Delete: "FORWARD_DEL", Qt.Key.Key_Escape: "BACK", Qt.Key.Key_Tab: "TAB",
                   Qt.Key.Key_Left: "DPAD_LEFT", Qt.Key.Key_Right: "DPAD_RIGHT", Qt.Key.Key_Up: "DPAD_UP",
                   Qt.Key.Key_Down: "DPAD_DOWN", Qt.Key.Key_Home: "MOVE_HOME", Qt.Key.Key_End: "MOVE_END"}
        name = special.get(Qt.Key(event.key()))
        if name is not None:
            self.key_pressed.emit(name)
        elif event.text() and event.text().isprintable():
            self.typed.emit(event.text())
        else:
            super().keyPressEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.fillRect(self.rect(), self.palette().window())
        rect = self._target_rect()
        if self._image is not None:
            painter.drawImage(rect, self._image)
        else:
            painter.fillRect(rect, QColor(20, 20, 20))
            painter.setPen(QColor(220, 220, 220))
            painter.drawText(rect.adjusted(24, 24, -24, -24),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             self.notice or "Waiting for the phone's screen…")
        if self.protected:
            self._paint_protected(painter, rect)
        self._paint_overlays(painter)
        if self.hasFocus():
            painter.setPen(QPen(self.palette().highlight().color(), 2))
            painter.drawRect(self.rect().adjusted(1, 1, -1, -1))
        painter.end()

    def _paint_protected(self, painter: QPainter, rect: QRectF) -> None:
        """"Protected screen" in the middle of the black picture, with what it means for the agent."""
        font = painter.font()
        title, body = QFont(font), QFont(font)
        title.setPointSizeF(font.pointSizeF() * 1.4)
        title.setBold(True)
        card = QRectF(0, 0, min(rect.width() - 32, 320), 118)
        card.moveCenter(rect.center())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(38, 50, 56, 235))
        painter.drawRoundedRect(card, 12, 12)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QColor(255, 255, 255))
        painter.setFont(title)
        painter.drawText(card.adjusted(12, 14, -12, -70), Qt.AlignmentFlag.AlignCenter, "🔒 Protected screen")
        painter.setFont(body)
        painter.setPen(QColor(207, 216, 220))
        painter.drawText(card.adjusted(16, 50, -16, -10), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                         "This app forbids screenshots. The agent works from its elements; no picture is sent.")
        painter.setFont(font)

    def box_rect(self, bounds: object, geometry: ScreenGeometry | None = None) -> QRectF:
        """Device bounds (left, top, right, bottom) as the rectangle drawn over the picture."""
        x1, y1, x2, y2 = (geometry or self.geometry_now()).bounds_to_area(tuple(bounds))  # type: ignore[arg-type]
        return QRectF(QPointF(x1, y1), QPointF(x2, y2))

    def _paint_overlays(self, painter: QPainter) -> None:
        geometry = self.geometry_now()
        if self.show_boxes:
            for box in self.boxes.boxes:
                colour = QColor(_KIND_COLOURS[box.kind])
                colour.setAlpha(170)
                painter.setPen(QPen(colour, 1.5))
                painter.drawRect(self.box_rect(box.bounds, geometry))
        if self.boxes.keyboard is not None:
            painter.fillRect(self.box_rect(self.boxes.keyboard), QColor(0, 0, 0, 40))
        if self.hovered is not None:
            painter.fillRect(self.box_rect(self.hovered), QColor(255, 193, 7, 70))
        if self.selected is not None:
            painter.setPen(QPen(QColor(0, 150, 136), 4))
            painter.drawRect(self.box_rect(self.selected))
        if self.boxes.target is not None:
            painter.setPen(QPen(QColor(229, 57, 53), 3))
            painter.drawRect(self.box_rect(self.boxes.target))
        cursor = self.cursor
        if cursor.visible and cursor.position is not None:
            painter.setOpacity(cursor.opacity)
            if len(cursor.trail) > 1:
                painter.setPen(QPen(QColor(229, 57, 53, 160), 4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
                points = [self.to_widget(*p) for p in cursor.trail]
                for a, b in itertools.pairwise(points):
                    painter.drawLine(a, b)
            centre = self.to_widget(*cursor.position)
            if cursor.ripple < 1.0:
                radius = 10 + 30 * cursor.ripple
                painter.setPen(QPen(QColor(229, 57, 53, int(200 * (1 - cursor.ripple))), 3))
                painter.drawEllipse(centre, radius, radius)
            painter.setPen(QPen(QColor(255, 255, 255), 2))
            painter.setBrush(QColor(229, 57, 53, 220))
            painter.drawEllipse(centre, 9, 9)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setOpacity(1.0)
