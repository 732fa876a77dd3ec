"""The keys stored for one provider, as Settings shows them: masked ("sk-…7f3a"), never whole, with where each
comes from, and a Remove button for those the keyring (or this session) holds.

A key typed into Settings could not be seen to exist, nor removed: a wrong one went on failing every run. The
masked form gives away only a key's usual prefix and its last four characters, which is what providers' own
consoles show to tell keys apart. Keyring calls are awaited (``KeyStore``'s ``a…`` methods), never blocking.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from relay_desktop.llm.keys import ApiKey, KeyStore
from relay_desktop.ui.tasks import spawn

__all__ = ["NONE_SAVED", "StoredKeys", "masked"]

NONE_SAVED = "No key saved"
_OURS = ("keyring", "session")          # the sources Remove can take a key from (not environment variables)
_SOURCES = {"keyring": "keyring", "session": "this session only"}


def masked(key: ApiKey) -> str:
    """"sk-…7f3a": the prefix up to its first dash (or four characters) and the last four; only "…" for a key
    too short to show any of it safely."""
    secret = key.reveal()
    if len(secret) < 16:
        return "…"
    dash = secret.find("-", 0, 8)
    prefix = secret[:dash + 1] if dash > 0 else secret[:4]
    return f"{prefix}…{secret[-4:]}"


def _where(key: ApiKey) -> str:
    return _SOURCES.get(key.source, f"from ${key.source}, not removable here")


class StoredKeys(QWidget):
    """One provider's stored keys (a line of text) and its Remove button."""

    changed = Signal()          # keys were removed: whoever built a model router from them builds it again

    def __init__(self, keys: KeyStore, provider: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.keys = keys
        self.provider = provider
        self.label = QLabel("Checking…", self)
        self.label.setAccessibleName(f"Stored {provider} keys")
        self.remove = QPushButton("Remove", self)
        self.remove.setAccessibleName(f"Remove the stored {provider} keys")
        self.remove.setToolTip(f"Delete the {provider} keys from the keyring (and this session)")
        self.remove.setEnabled(False)
        self.remove.clicked.connect(lambda: spawn(self.remove_keys(), self._tasks))
        self._tasks: set = set()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.remove)

    async def refresh(self) -> None:
        found = await self.keys.akeys(self.provider)
        if not found:
            self.label.setText(NONE_SAVED)
        else:
            self.label.setText("Saved: " + ", ".join(f"{masked(k)} ({_where(k)})" for k in found))
        self.label.setToolTip(self.label.text())
        self.remove.setEnabled(any(k.source in _OURS for k in found))

    async def remove_keys(self) -> None:
        self.remove.setEnabled(False)
        try:
            await self.keys.adelete(self.provider)
        except Exception as exc:      # a keyring refusal (locked, D-Bus gone): said, the keys stay listed
            self.label.setText(f"Not removed: {exc}")
            return
        await self.refresh()
        self.changed.emit()
