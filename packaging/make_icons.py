"""The app icon in every format a platform wants, from the one SVG in resources/.

Run it after editing the SVG: ``python packaging/make_icons.py`` re-renders the committed PNGs (Linux icon
themes and the window icon use them). The PyInstaller spec imports :func:`write_ico` and :func:`write_icns`
to make Windows' and macOS' formats at build time, so those binaries never need committing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ICONS = ROOT / "resources" / "icons" / "hicolor"
SVG = ICONS / "scalable" / "apps" / "relay-desktop.svg"
PNG_SIZES = (256, 512)
# Windows picks the nearest size for each place it shows the icon (title bar 16-32, Explorer up to 256).
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)


def png_path(size: int) -> Path:
    """Where the icon theme layout keeps the ``size`` px PNG (``cp -r resources/icons ~/.local/share/``)."""
    return ICONS / f"{size}x{size}" / "apps" / "relay-desktop.png"


def render_png(svg: Path, out: Path, size: int) -> None:
    """Rasterise with Qt's SVG renderer, the same one the app ships, so no extra tool is needed."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(out), "PNG"):
        raise OSError(f"could not write {out}")


def write_ico(png: Path, out: Path) -> Path:
    from PIL import Image

    out.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(png) as image:
        image.convert("RGBA").save(out, format="ICO", sizes=[(s, s) for s in ICO_SIZES])
    return out


def write_icns(png: Path, out: Path) -> Path:
    # Pillow writes ICNS itself (no macOS iconutil), so a Linux machine can prepare a macOS build too.
    from PIL import Image

    out.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(png) as image:
        image.convert("RGBA").save(out, format="ICNS")
    return out


def main() -> int:
    for size in PNG_SIZES:
        render_png(SVG, png_path(size), size)
        print(png_path(size).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
