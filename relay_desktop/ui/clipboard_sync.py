"""The computer's clipboard and the phone's, shared both ways as scrcpy shares them.

A copy on the phone comes from the mirror's scrcpy server (its ``CLIPBOARD`` device message, sent whenever the
phone's clipboard changes) and is put on the computer's clipboard; a copy on the computer (``QClipboard``
changed) is set on the phone (``SET_CLIPBOARD``, no paste). Ctrl+V in the mirror sets the computer's text on
the phone and pastes it into the focused field (``SET_CLIPBOARD`` with paste), as scrcpy does without
``--legacy-paste``; like a tap, that is the user's hand on the phone, so a run pauses.

No echo: the text that last went either way is remembered, so the computer's clipboard changing because the
phone's copy was put there is not sent back (the phone's server, for its part, never reports the change a
``SET_CLIPBOARD`` made). The setting ``clipboard_sync`` turns the automatic sharing off at once (the mirror
keeps running); Ctrl+V still pastes, being asked for.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QClipboard, QGuiApplication

from relay_desktop.mirror.client import MirrorClient, MirrorError
from relay_desktop.ui.mirror_view import MirrorView

__all__ = ["ClipboardSync"]

log = logging.getLogger(__name__)

Control = Callable[[Callable[[MirrorClient, tuple[int, int]], Awaitable[None]]], None]


class ClipboardSync(QObject):
    def __init__(self, view: MirrorView, enabled: Callable[[], bool], control: Control,
                 spawn: Callable[[Any], None], parent: QObject | None = None) -> None:
        """``enabled``: the setting, read at each change; ``control``: sends the user's input to the phone (and
        pauses a run); ``spawn``: runs a coroutine as the pane's task."""
        super().__init__(parent)
        self.enabled = enabled
        self.control = control
        self.spawn = spawn
        self.mirror: MirrorClient | None = None
        self.last_shared: str | None = None     # the text that last went either way
        self.clipboard: QClipboard = QGuiApplication.clipboard()
        self.clipboard.dataChanged.connect(self._computer_copied)
        view.paste_requested.connect(self.paste)

    def attach(self, mirror: MirrorClient | None) -> None:
        """Share with this mirror's phone from now on (None: the phone was let go)."""
        if self.mirror is not None and self._phone_copied in self.mirror.clipboard_listeners:
            self.mirror.clipboard_listeners.remove(self._phone_copied)
        self.mirror = mirror
        if mirror is not None:
            mirror.clipboard_listeners.append(self._phone_copied)

    def _phone_copied(self, text: str) -> None:
        if not self.enabled() or self.mirror is None:
            return
        self.last_shared = text
        if self.clipboard.text() != text:     # as scrcpy: an unchanged computer clipboard is left alone
            self.clipboard.setText(text)

    def _computer_copied(self) -> None:
        text = self.clipboard.text()
        mirror = self.mirror
        if not text or text == self.last_shared or mirror is None or not self.enabled() or not mirror.live:
            return
        self.last_shared = text
        self.spawn(self._set_on_phone(mirror, text))

    async def _set_on_phone(self, mirror: MirrorClient, text: str) -> None:
        try:
            await mirror.set_clipboard(text)
        except MirrorError as exc:     # the mirror went away meanwhile: its end is said elsewhere
            log.info("the computer's clipboard could not be set on the phone: %s", exc)

    def paste(self) -> None:
        """Ctrl+V in the mirror: the computer's text, set on the phone and pasted into its focused field."""
        text = self.clipboard.text()
        if not text:
            return
        self.last_shared = text
        self.control(lambda mirror, _screen: mirror.set_clipboard(text, paste=True))
