"""Choosing the phone: the devices adb sees (with their state), the built-in virtual phone, or a phone over
the network (optionally through another computer's adb server), with progress while connecting."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.device.adb_server import AdbServer
from relay_desktop.device.models import DeviceInfo
from relay_desktop.ui.pairing_dialog import PairingDialog

__all__ = ["NETWORK", "VIRTUAL", "DevicePicker", "NetworkDialog", "state_hint"]

VIRTUAL = "virtual"
CHOOSE = "Choose a phone…"
NETWORK = "network"

_STATE_HINTS = {
    "device": "ready",
    "unauthorized": "unauthorized — accept the USB debugging prompt on the phone",
    "offline": "offline — replug the cable or run 'adb reconnect'",
    "authorizing": "authorizing — wait a moment",
    "no permissions": "no permission — check the udev rules for this phone",
}


def state_hint(state: str) -> str:
    return _STATE_HINTS.get(state, state)


def parse_address(text: str, default_port: int) -> tuple[str, int] | None:
    """``host:port`` (or a bare host, on the default port); None when it cannot be one."""
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(default_port)
    if not host or " " in host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


class NetworkDialog(QDialog):
    """A phone's address for ``adb connect``, and optionally a remote adb server to go through."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect over network")
        self.address = QLineEdit(self)
        self.address.setPlaceholderText("192.168.1.20:5555")
        self.address.setAccessibleName("The phone's address, host and port")
        self.remote = QCheckBox("Through a &remote adb server", self)
        self.server = QLineEdit(self)
        self.server.setPlaceholderText("buildbox.local:5037")
        self.server.setAccessibleName("The remote adb server, host and port")
        self.server.setEnabled(False)
        self.remote.toggled.connect(self.server.setEnabled)
        self.error = QLabel("", self)
        self.error.setWordWrap(True)
        self.error.setAccessibleName("What is wrong with the address")
        form = QFormLayout()
        form.addRow("&Phone (host:port):", self.address)
        form.addRow("", self.remote)
        form.addRow("adb &server (host:port):", self.server)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("&Connect")
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Turn on Wireless debugging on the phone (or run 'adb tcpip 5555' over USB "
                                "once); leave the phone empty to use the remote server's own phones.", self))
        layout.addLayout(form)
        layout.addWidget(self.error)
        # Android 11+ pairs once with a code before its first connection: beside Connect, through adb pair.
        self.pair_button = QPushButton("Pa&ir with a code (Android 11+)…", self)
        self.pair_button.clicked.connect(self._open_pairing)
        self.pairing: PairingDialog | None = None
        bottom = QHBoxLayout()
        bottom.addWidget(self.pair_button)
        bottom.addStretch(1)
        bottom.addWidget(buttons)
        layout.addLayout(bottom)

    def _open_pairing(self) -> None:
        _, server = self.values()
        remote = parse_address(server, 5037) if server else None
        self.pairing = PairingDialog(AdbServer(*remote) if remote else AdbServer(), self)
        self.pairing.connect_requested.connect(self._connect_paired)
        self.pairing.open()

    def _connect_paired(self, address: str) -> None:
        self.address.setText(address)
        self._check()

    def values(self) -> tuple[str, str]:
        """(phone address, adb server address); either may be empty."""
        return self.address.text().strip(), self.server.text().strip() if self.remote.isChecked() else ""

    def _check(self) -> None:
        address, server = self.values()
        if address and parse_address(address, 5555) is None:
            self.error.setText(f"'{address}' is not an address: write host:port, e.g. 192.168.1.20:5555.")
        elif self.remote.isChecked() and parse_address(server, 5037) is None:
            self.error.setText("Write the adb server as host:port, e.g. buildbox.local:5037.")
        elif not address and not server:
            self.error.setText("Write the phone's address (or choose a remote adb server).")
        else:
            self.accept()


class DevicePicker(QWidget):
    """The phone list, Connect and Refresh, and a progress line while connecting."""

    refresh_requested = Signal()
    connect_requested = Signal(str, str)    # (serial | VIRTUAL | NETWORK, unused | "address\\nserver")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice = QComboBox(self)
        self.choice.setAccessibleName("Phone to use")
        self.choice.setMinimumContentsLength(24)
        self.connect_button = QPushButton("C&onnect", self)
        self.connect_button.setAccessibleName("Connect to the chosen phone")
        self.refresh = QPushButton("Re&fresh", self)
        self.refresh.setAccessibleName("List the phones adb sees again")
        self.progress = QProgressBar(self)
        self.progress.setAccessibleName("Connection progress")
        self.progress.setTextVisible(True)
        self.progress.hide()
        label = QLabel("P&hone:", self)
        label.setBuddy(self.choice)
        row = QHBoxLayout()
        row.addWidget(label)
        row.addWidget(self.choice, 1)
        row.addWidget(self.connect_button)
        row.addWidget(self.refresh)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.progress)
        self.refresh.clicked.connect(self.refresh_requested)
        self.connect_button.clicked.connect(self._connect)
        self.choice.currentIndexChanged.connect(lambda _: self._enable_connect())
        self.connect_button.setToolTip("Connect the chosen phone beside the ones already connected (a tab each); "
                                       "a phone already connected is shown")
        self.connected: list[str] = []          # the entries of the phones in use (VIRTUAL once per virtual phone)
        self._current: str | None = None        # the entry of the phone shown now
        self._devices: list[DeviceInfo] = []
        self.show_devices([])

    def show_devices(self, devices: list[DeviceInfo]) -> None:
        self._devices = list(devices)
        current = self.choice.currentData()
        self.choice.clear()
        # Until a phone is connected the list starts with a prompt, so no entry reads as the phone in use.
        if not self.connected:
            self.choice.addItem(CHOOSE, None)
        for device in devices:
            name = device.model.replace("_", " ") or device.serial
            self.choice.addItem(f"{name} ({device.serial}) — {self._state(device.serial, state_hint(device.state))}",
                                device.serial)
        virtual, running = "Virtual phone (built-in)", self.connected.count(VIRTUAL)
        # Connect on it starts one more: each virtual phone is a phone of its own.
        self.choice.addItem(virtual if not running else f"{virtual} — connected" if running == 1 else
                            f"{virtual} — {running} connected", VIRTUAL)
        self.choice.addItem("Connect over network…", NETWORK)
        index = self.choice.findData(self._current if current is None else current)
        self.choice.setCurrentIndex(index if index >= 0 else 0)
        self._enable_connect()

    def _state(self, serial: str, hint: str) -> str:
        return "connected" if serial in self.connected else hint

    def set_connected(self, keys: list[str], current: str | None = None,
                      devices: list[DeviceInfo] | None = None) -> None:
        """The entries of the phones in use (serials, VIRTUAL once per virtual phone) and of the one shown now,
        which the list then selects; the list is redrawn to say so."""
        self.connected, self._current = list(keys), current
        self.show_devices(devices if devices is not None else self._devices)
        index = self.choice.findData(current) if current is not None else -1
        if index >= 0:
            self.choice.setCurrentIndex(index)

    def _enable_connect(self) -> None:
        self.connect_button.setEnabled(self.choice.currentData() is not None and self.progress.isHidden())

    def _connect(self) -> None:
        chosen = self.choice.currentData()
        if chosen is None:
            return
        if chosen == NETWORK:
            dialog = NetworkDialog(self)
            dialog.accepted.connect(lambda: self.connect_requested.emit(NETWORK, "\n".join(dialog.values())))
            dialog.open()       # not exec(): the mirror and any run go on while it is open
            self.network_dialog = dialog
        else:
            self.connect_requested.emit(chosen, "")

    def busy(self, text: str, fraction: float | None = None) -> None:
        """Show a connecting stage; an empty text hides the progress line."""
        self.choice.setEnabled(not text)
        if not text:
            self.progress.hide()
            self._enable_connect()
            return
        self.connect_button.setEnabled(False)
        self.progress.show()
        self.progress.setFormat(text)
        if fraction is None:
            self.progress.setRange(0, 0)        # a busy indicator: the stage has no measurable progress
        else:
            self.progress.setRange(0, 100)
            self.progress.setValue(int(fraction * 100))
