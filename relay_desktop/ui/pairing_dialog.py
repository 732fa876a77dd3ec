"""Android 11+ wireless pairing: "Pair device with pairing code", through adb's own ``adb pair HOST:PORT CODE``.

The phone's Wireless debugging screen shows an address with a pairing port and a six-digit code; adb pairs with
it once, then the phone is connected on its other port (shown on the same screen). adb prints the server's
answer and exits 0 whether or not the pairing worked ("Successfully paired to HOST:PORT [guid=…]", "Failed:
Wrong password or connection was dropped.", "Failed: Unable to start pairing client."), so the answer's text
decides. The command runs as a subprocess under a timeout (``AdbServer.run_adb``), never blocking the loop.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from relay_desktop.device.adb_server import AdbServer
from relay_desktop.device.errors import DeviceError
from relay_desktop.ui.tasks import spawn

__all__ = ["PairingDialog", "check_pairing_input"]

PAIR_TIMEOUT_S = 30          # adb gives up on an unreachable phone by itself; this is the backstop
_ADDRESS = re.compile(r"^\[?([^\s\[\]]+?)\]?:(\d{1,5})$")


def check_pairing_input(address: str, code: str) -> str | None:
    """None when ``address`` is host:port and ``code`` six digits, else the one line that says what is wrong."""
    match = _ADDRESS.match(address.strip())
    if match is None or not 0 < int(match.group(2)) < 65536:
        host = address.strip().rsplit(":", 1)[0] if ":" in address else address.strip()
        return f"Write the address with its port, as the phone shows it: {host or '192.168.1.5'}:37123."
    if not re.fullmatch(r"\d{6}", code.strip()):
        return "The pairing code is six digits, as the phone shows it."
    return None


def explain(address: str, reply: str) -> tuple[bool, str]:
    """(paired, one plain sentence or two) from adb's reply."""
    reply = reply.strip().splitlines()[-1] if reply.strip() else ""
    if reply.startswith("Successfully paired"):
        return True, (f"Paired with {address}. Now connect: the phone's Wireless debugging screen shows its "
                      "“IP address & Port” (another port than for pairing).")
    if "Wrong password" in reply:
        return False, (f"adb: “{reply}” The code was wrong, or the phone closed its pairing dialog: open “Pair "
                       "device with pairing code” again and type the new code.")
    if "Unable to start pairing client" in reply:
        return False, (f"adb: “{reply}” {address} did not answer: check that the phone is on the same network "
                       "and that its pairing dialog is still open.")
    return False, f"adb: “{reply or 'no answer'}” The phone was not paired."


class PairingDialog(QDialog):
    connect_requested = Signal(str)     # the phone's address (host:port) to connect to, once paired

    def __init__(self, server: AdbServer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.server = server
        self.setWindowTitle("Pair device with pairing code")
        self._tasks: set[asyncio.Task[Any]] = set()
        self.address = QLineEdit(self)
        self.address.setPlaceholderText("192.168.1.5:37123")
        self.address.setAccessibleName("The phone's IP address and pairing port")
        self.code = QLineEdit(self)
        self.code.setPlaceholderText("123456")
        self.code.setMaxLength(6)
        self.code.setAccessibleName("The six-digit Wi-Fi pairing code")
        self.pair_button = QPushButton("&Pair", self)
        self.pair_button.setDefault(True)
        self.pair_button.clicked.connect(self.pair)
        self.result = QLabel("", self)
        self.result.setWordWrap(True)
        self.result.setAccessibleName("What pairing did")
        self.connect_address = QLineEdit(self)
        self.connect_address.setAccessibleName("The phone's address and port to connect to")
        self.connect_address.setPlaceholderText("192.168.1.5:41234")
        self.connect_button = QPushButton("&Connect", self)
        self.connect_button.clicked.connect(self._connect)
        close = QPushButton("Close", self)
        close.clicked.connect(self.reject)
        form = QFormLayout()
        form.addRow("IP &address && port:", self.address)
        form.addRow("Wi-Fi pairing c&ode:", self.code)
        self.connect_row = QWidget(self)
        row = QHBoxLayout(self.connect_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Connect to:", self.connect_row))
        row.addWidget(self.connect_address, 1)
        row.addWidget(self.connect_button)
        self.connect_row.hide()
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.pair_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("On the phone (Android 11 or newer): Developer options → Wireless debugging → "
                                "Pair device with pairing code. Type what it shows.", self))
        layout.addLayout(form)
        layout.addWidget(self.result)
        layout.addWidget(self.connect_row)
        layout.addLayout(buttons)

    def pair(self) -> None:
        address, code = self.address.text().strip(), self.code.text().strip()
        problem = check_pairing_input(address, code)
        if problem is not None:
            self.result.setText(problem)
            return
        self.pair_button.setEnabled(False)
        self.connect_row.hide()
        self.result.setText(f"Pairing with {address}…")
        spawn(self._pair(address, code), self._tasks)

    async def _pair(self, address: str, code: str) -> None:
        try:
            reply = await self.server.run_adb("pair", address, code, timeout=PAIR_TIMEOUT_S)
        except DeviceError as exc:      # adb missing, or it failed or hung: its own words
            paired, text = False, f"The phone was not paired: {exc}"
        else:
            paired, text = explain(address, reply)
        self.result.setText(text)
        self.pair_button.setEnabled(True)
        if paired:
            self.connect_address.setText(address.rsplit(":", 1)[0] + ":")
            self.connect_row.show()
            self.connect_address.setFocus()

    def _connect(self) -> None:
        address = self.connect_address.text().strip()
        self.connect_requested.emit(address)
        self.accept()
