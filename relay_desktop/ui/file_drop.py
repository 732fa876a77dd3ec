"""Files dropped on the mirror go to the phone, as in scrcpy and QtScrcpy: a file is pushed to
``/sdcard/Download/``; an ``.apk`` is installed the way ``adb install`` does it (pushed to ``/data/local/tmp``,
then ``pm install -r``, then removed). Several files go one after the other; a folder is refused.

The push goes through adbutils' sync service on a worker thread (``Device.push``), reading the file through a
counter that reports how far it got, so the status bar shows the progress while the event loop stays free.
Each file ends with one plain line in the log: "photo.jpg → Download", "app.apk installed", or Android's own
failure text ("Failure [INSTALL_PARSE_FAILED_NOT_APK: …]").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QWidget

from relay_desktop.device.device import Device
from relay_desktop.device.errors import DeviceError

__all__ = ["DOWNLOAD", "FileDrop"]

log = logging.getLogger(__name__)

DOWNLOAD = "/sdcard/Download/"
STAGING = "/data/local/tmp/"
INSTALL_TIMEOUT_S = 120


class _CountingReader:
    """A file read by adbutils' push loop, telling ``seen(done, total)`` as the bytes go (on the push thread)."""

    def __init__(self, file: BinaryIO, total: int, seen: Callable[[int, int], None]) -> None:
        self.file, self.total, self.seen, self.done = file, total, seen, 0

    def read(self, size: int = -1) -> bytes:
        chunk = self.file.read(size)
        self.done += len(chunk)
        self.seen(self.done, self.total)
        return chunk


class FileDrop(QObject):
    def __init__(self, view: QWidget, device: Callable[[], Device | None], say: Callable[[str], None],
                 status: Callable[[str], None], spawn: Callable[[Any], None], parent: QObject | None = None) -> None:
        """``say``: a result (status bar and log); ``status``: progress (status bar only)."""
        super().__init__(parent)
        self.device, self.say, self.status, self.spawn = device, say, status, spawn
        self.busy = False
        self._queue: list[Path] = []
        view.setAcceptDrops(True)
        view.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            drag: QDragEnterEvent = event  # type: ignore[assignment]
            if drag.mimeData().hasUrls() and any(url.isLocalFile() for url in drag.mimeData().urls()):
                drag.acceptProposedAction()
                return True
        elif event.type() == QEvent.Type.Drop:
            dropped: QDropEvent = event  # type: ignore[assignment]
            paths = [Path(url.toLocalFile()) for url in dropped.mimeData().urls() if url.isLocalFile()]
            if paths:
                dropped.acceptProposedAction()
                self.drop(paths)
                return True
        return super().eventFilter(watched, event)

    def drop(self, paths: list[Path]) -> None:
        """Send these files to the phone (after any still going); folders are refused, each in one sentence."""
        if self.device() is None:
            self.say("Connect a phone first, then drop the files on its screen.")
            return
        for path in paths:
            if path.is_dir():
                self.say(f"“{path.name}” is a folder: only files can be dropped on the phone, so drop the files "
                         "inside it instead.")
        files = [p for p in paths if not p.is_dir()]
        self._queue.extend(files)
        if files and not self.busy:
            self.busy = True
            self.spawn(self._send_all())

    async def _send_all(self) -> None:
        try:
            while self._queue:
                path = self._queue.pop(0)
                device = self.device()
                if device is None:
                    self.say(f"{path.name} was not sent: the phone is gone.")
                    continue
                try:
                    if path.suffix.lower() == ".apk":
                        await self._install(device, path)
                    else:
                        await self._push(device, path, DOWNLOAD + path.name)
                        self.say(f"{path.name} → Download")
                except (OSError, DeviceError) as exc:
                    self.say(f"{path.name} was not sent: {exc}")
        finally:
            self.busy = False

    async def _push(self, device: Device, path: Path, remote: str) -> None:
        loop = asyncio.get_running_loop()
        total = path.stat().st_size
        shown = [-1]

        def seen(done: int, size: int) -> None:
            percent = done * 100 // size if size else 100
            if percent >= shown[0] + 5 or done == size:       # a status line every 5 %, not every 4 kB
                shown[0] = percent
                loop.call_soon_threadsafe(self.status, f"Sending {path.name} to the phone… {percent}%")

        with path.open("rb") as file:
            await device.push(_CountingReader(file, total, seen), remote)  # type: ignore[arg-type]  (reads)

    async def _install(self, device: Device, path: Path) -> None:
        # A name the shell takes as it is (no quotes, spaces or $ to escape); the phone keeps it only briefly.
        staged = STAGING + "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in path.name)
        await self._push(device, path, staged)
        self.status(f"Installing {path.name}…")
        try:
            result = await device.shell(f"pm install -r {staged}", timeout=INSTALL_TIMEOUT_S)
        finally:
            await device.shell(f"rm -f {staged}")
        output = (result.stdout.strip() or result.stderr.strip()).splitlines()
        if result.exit_code == 0 and output and output[-1] == "Success":
            self.say(f"{path.name} installed")
        else:
            self.say(f"{path.name} was not installed: {output[-1] if output else f'exit {result.exit_code}'}")
