"""Light and dark: follow the desktop's colour scheme (and its changes), or the one chosen in Settings.

Fusion with explicit palettes looks the same on every platform; Qt reports the desktop's scheme on
Windows, macOS, GNOME and KDE. Where it cannot tell (a bare X session), GNOME's own setting and
``GTK_THEME`` are asked before assuming light.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

__all__ = ["ThemeFollower", "dark_palette", "desktop_prefers_dark"]


def _gnome_prefers_dark() -> bool | None:
    gsettings = shutil.which("gsettings")
    if gsettings is None:
        return None
    try:
        out = subprocess.run([gsettings, "get", "org.gnome.desktop.interface", "color-scheme"],
                             capture_output=True, text=True, timeout=1, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return "dark" in out if out.strip() else None


def desktop_prefers_dark(app: QGuiApplication) -> bool:
    scheme = app.styleHints().colorScheme()
    if scheme != Qt.ColorScheme.Unknown:
        return scheme == Qt.ColorScheme.Dark
    gtk_theme = os.environ.get("GTK_THEME", "")
    if gtk_theme:
        return gtk_theme.lower().endswith(":dark") or "dark" in gtk_theme.lower()
    return bool(_gnome_prefers_dark())


def dark_palette() -> QPalette:
    palette = QPalette()
    window, base, text = QColor(37, 37, 40), QColor(28, 28, 30), QColor(232, 232, 232)
    disabled = QColor(128, 128, 128)
    for role, colour in ((QPalette.ColorRole.Window, window), (QPalette.ColorRole.WindowText, text),
                         (QPalette.ColorRole.Base, base), (QPalette.ColorRole.AlternateBase, window),
                         (QPalette.ColorRole.ToolTipBase, window), (QPalette.ColorRole.ToolTipText, text),
                         (QPalette.ColorRole.PlaceholderText, QColor(150, 150, 150)),
                         (QPalette.ColorRole.Text, text), (QPalette.ColorRole.Button, QColor(50, 50, 54)),
                         (QPalette.ColorRole.ButtonText, text), (QPalette.ColorRole.BrightText, QColor(255, 82, 82)),
                         (QPalette.ColorRole.Link, QColor(100, 181, 246)),
                         (QPalette.ColorRole.Highlight, QColor(66, 133, 244)),
                         (QPalette.ColorRole.HighlightedText, QColor(255, 255, 255)),
                         (QPalette.ColorRole.Light, QColor(70, 70, 74)), (QPalette.ColorRole.Mid, QColor(45, 45, 48)),
                         (QPalette.ColorRole.Dark, QColor(20, 20, 22)), (QPalette.ColorRole.Shadow, QColor(0, 0, 0))):
        palette.setColor(role, colour)
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText, QPalette.ColorRole.WindowText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


# The outline of a check box on the dark palette: Fusion draws it from the window's colour made darker, which on
# a dark window left an unchecked box a few shades off its background (lightness 12 apart), nearly invisible.
DARK_INDICATOR_OUTLINE = QColor(150, 150, 158)
_INDICATORS = (QStyle.PrimitiveElement.PE_IndicatorCheckBox, QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck)


class IndicatorStyle(QProxyStyle):
    """Fusion, with a check box's outline drawn in a light grey while the theme is dark (the check itself, the
    light theme and everything else are Fusion's own)."""

    def __init__(self) -> None:
        super().__init__("Fusion")
        self.dark = False

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption, painter: QPainter,
                      widget: QWidget | None = None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if self.dark and element in _INDICATORS:
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(DARK_INDICATOR_OUTLINE)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(option.rect.adjusted(0, 0, -1, -1), 2, 2)
            painter.restore()


class ThemeFollower(QObject):
    """Applies the chosen theme to the application, and re-applies 'system' when the desktop switches.

    A QObject with the window as parent, so the connection to the desktop's signal ends with the window.
    """

    def __init__(self, app: QApplication, choice: str = "system", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.app = app
        self.choice = choice
        self.dark = False
        app.setStyle(IndicatorStyle())          # the application owns it (and deletes the one it replaces)
        app.styleHints().colorSchemeChanged.connect(self._desktop_changed)
        self.apply(choice)

    def apply(self, choice: str) -> bool:
        """Use ``choice`` ("system", "light" or "dark"); returns whether the window is now dark."""
        self.choice = choice
        self.dark = desktop_prefers_dark(self.app) if choice == "system" else choice == "dark"
        style = self.app.style()
        if isinstance(style, IndicatorStyle):
            style.dark = self.dark
        self.app.setPalette(dark_palette() if self.dark else style.standardPalette())
        return self.dark

    def _desktop_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self.choice == "system":
            self.apply("system")
