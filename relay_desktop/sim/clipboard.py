"""The virtual phone's one clipboard: plain text whose every change is told to the phone's listeners.

Android's ClipboardService calls each ``IOnPrimaryClipChangedListener`` on every ``setPrimaryClip``, even when
the text is the same; scrcpy's server registers one to send the new text to the computer (its ``CLIPBOARD``
device message). ``VirtualPhone.clipboard`` stays a plain ``str`` attribute for everyone who reads or sets it
(the text-selection toolbar, uiautomator2's ``setClipboard``, a task's reset); only setting it is noticed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["ClipboardListener", "PrimaryClip"]

ClipboardListener = Callable[[str], None]


class PrimaryClip:
    """A descriptor for the phone's clipboard: set → stored, then each of ``clipboard_listeners`` is called."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name}_text"

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        return instance.__dict__.get(self._slot, "")

    def __set__(self, instance: Any, text: str) -> None:
        instance.__dict__[self._slot] = text
        listeners: list[ClipboardListener] = instance.__dict__.get("clipboard_listeners", [])
        for listener in list(listeners):
            listener(text)
