"""Opening a file or folder with the desktop's own application, and knowing whether anything opened it.

``QDesktopServices.openUrl`` only says whether it could hand the URL on: on Linux it starts ``xdg-open`` and
reports success even when ``xdg-open`` then finds no application (it exits 3 or 4), so *Play recording* did
nothing, silently. Where ``xdg-open`` is on PATH it is run here and its exit code read; elsewhere (Windows,
macOS, no xdg-open) ``openUrl``'s answer is taken. The wait happens in a thread: the loop never blocks.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

__all__ = ["open_with_desktop"]

# xdg-open returns once the application is started, except in its generic mode, where it runs the application
# in the foreground: still running after this long means something opened the file.
STILL_RUNNING_MEANS_OPENED_S = 3.0


def _xdg_open(path: Path, command: str) -> bool:
    try:
        process = subprocess.Popen([command, str(path)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return False
    try:
        return process.wait(timeout=STILL_RUNNING_MEANS_OPENED_S) == 0
    except subprocess.TimeoutExpired:
        return True


async def open_with_desktop(path: Path) -> bool:
    """Open ``path`` (a file or a folder) as a double click would; False when nothing opened it."""
    command = shutil.which("xdg-open") if sys.platform.startswith(("linux", "freebsd", "openbsd")) else None
    if command is not None:
        return await asyncio.to_thread(_xdg_open, path, command)
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
