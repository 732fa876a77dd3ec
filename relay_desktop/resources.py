"""The app's files outside the Python package (the icon, the .desktop entry), wherever the app was installed.

They live in the repository's top-level ``resources/`` folder, which reaches a user three ways: a source
checkout or editable install reads it in place; the PyInstaller bundle copies it next to the code
(``sys._MEIPASS``); a wheel installs the icons into ``<prefix>/share/icons`` (pyproject's data-files), where
desktop environments look for them too.
"""

from __future__ import annotations

import site
import sys
from pathlib import Path

ICON_NAME = "relay-desktop"
_ICON_SIZES = (512, 256)  # largest first: Qt scales down smoothly, up blurrily


def resource_dirs() -> list[Path]:
    """Folders that may hold ``resources/``'s contents, most specific first."""
    dirs: list[Path] = []
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        dirs.append(Path(bundle) / "resources")
    dirs.append(Path(__file__).resolve().parent.parent / "resources")
    # A wheel's data-files land in share/ of the prefix it was installed into: the venv's, or ~/.local's for
    # `pip install --user`. Both mirror resources/'s layout from icons/ down.
    for prefix in (sys.prefix, site.getuserbase()):
        dirs.append(Path(prefix) / "share")
    return dirs


def app_icon_path() -> Path | None:
    """The app icon as a PNG (for ``QIcon(str(path))``), or None when no copy of it can be found."""
    for folder in resource_dirs():
        for size in _ICON_SIZES:
            path = folder / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"
            if path.is_file():
                return path
    return None
