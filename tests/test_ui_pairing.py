"""Wireless pairing (Android 11+ "Pair device with pairing code") through adb's own ``adb pair``, against a fake
``adb`` on PATH that answers exactly as adb does (packages/modules/adb, client/adb_wifi.cpp: the server's reply
is printed on stdout and adb exits 0 whether or not pairing worked)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from relay_desktop.device.adb_server import AdbServer
from relay_desktop.ui.device_picker import NetworkDialog
from relay_desktop.ui.pairing_dialog import PairingDialog
from tests.waiting import until

FAKE_ADB = """#!{python}
import pathlib, sys
args = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(" ".join(args) + "\\n")
while args and args[0] in ("-P", "-H"):
    args = args[2:]
if args[:1] == ["pair"]:
    address, code = args[1], args[2]
    if address.startswith("10.0.0.9"):
        print("Failed: Unable to start pairing client.")
    elif code == "123456":
        print(f"Successfully paired to {{address}} [guid=adb-R5CR1234ABC-x7Yk2q]")
    else:
        print("Failed: Wrong password or connection was dropped.")
    sys.exit(0)
print("adb: unknown command " + " ".join(args), file=sys.stderr)
sys.exit(1)
"""


@pytest.fixture
def fake_adb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake ``adb`` first on PATH (and named by $ADB, which the app honours first); returns its call log."""
    folder = tmp_path / "bin"
    folder.mkdir()
    log = tmp_path / "adb-calls.txt"
    log.write_text("")
    adb = folder / "adb"
    adb.write_text(FAKE_ADB.format(python=sys.executable, log=str(log)))
    adb.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ADB", str(adb))
    return log


def pair(dialog: PairingDialog, qtbot: QtBot, address: str, code: str) -> None:
    dialog.address.setText(address)
    dialog.code.setText(code)
    qtbot.mouseClick(dialog.pair_button, Qt.MouseButton.LeftButton)


def test_a_right_code_pairs_and_then_offers_to_connect(qtbot: QtBot, qt_loop: qasync.QEventLoop,
                                                        fake_adb: Path) -> None:
    dialog = PairingDialog(AdbServer(port=5037))
    qtbot.addWidget(dialog)
    dialog.show()
    wanted: list[str] = []
    dialog.connect_requested.connect(wanted.append)

    async def scenario() -> None:       # clicked while the loop runs, as in the app
        pair(dialog, qtbot, "192.168.1.5:37123", "123456")
        await until(lambda: dialog.connect_button.isVisible(), 15)

    qt_loop.run_until_complete(scenario())
    assert fake_adb.read_text().splitlines() == ["-P 5037 pair 192.168.1.5:37123 123456"]
    assert dialog.result.text().startswith("Paired with 192.168.1.5:37123.")
    # The connection port is another one (the phone shows it on its Wireless debugging screen).
    assert dialog.connect_address.text() == "192.168.1.5:"
    dialog.connect_address.setText("192.168.1.5:41234")
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    assert wanted == ["192.168.1.5:41234"]


@pytest.mark.parametrize(("address", "code", "said"), [
    ("192.168.1.5:37123", "654321", "adb: “Failed: Wrong password or connection was dropped.” The code was wrong"),
    ("10.0.0.9:37123", "123456", "adb: “Failed: Unable to start pairing client.” 10.0.0.9:37123 did not answer"),
])
def test_a_wrong_code_or_an_unreachable_phone_says_so_and_offers_no_connect(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, fake_adb: Path, address: str, code: str, said: str) -> None:
    dialog = PairingDialog(AdbServer(port=5037))
    qtbot.addWidget(dialog)
    dialog.show()

    async def scenario() -> None:
        pair(dialog, qtbot, address, code)
        await until(lambda: dialog.pair_button.isEnabled() and not dialog.result.text().startswith("Pairing"), 15)

    qt_loop.run_until_complete(scenario())
    assert dialog.result.text().startswith(said), dialog.result.text()
    assert not dialog.connect_button.isVisible()
    assert len(fake_adb.read_text().splitlines()) == 1


@pytest.mark.parametrize(("address", "code", "said"), [
    ("192.168.1.5", "123456", "Write the address with its port, as the phone shows it: 192.168.1.5:37123."),
    ("192.168.1.5:37123", "12345", "The pairing code is six digits, as the phone shows it."),
    ("192.168.1.5:37123", "12a456", "The pairing code is six digits, as the phone shows it."),
    ("192.168.1.5:99999", "123456", "Write the address with its port, as the phone shows it: 192.168.1.5:37123."),
])
def test_bad_input_is_refused_in_one_line_before_adb_runs(qtbot: QtBot, qt_loop: qasync.QEventLoop,
                                                          fake_adb: Path, address: str, code: str,
                                                          said: str) -> None:
    dialog = PairingDialog(AdbServer(port=5037))
    qtbot.addWidget(dialog)
    pair(dialog, qtbot, address, code)
    assert dialog.result.text() == said
    assert fake_adb.read_text() == ""


def test_connect_over_network_offers_pairing(qtbot: QtBot) -> None:
    dialog = NetworkDialog()
    qtbot.addWidget(dialog)
    assert dialog.pair_button.text().replace("&", "") == "Pair with a code (Android 11+)…"
    qtbot.mouseClick(dialog.pair_button, Qt.MouseButton.LeftButton)
    assert isinstance(dialog.pairing, PairingDialog) and dialog.pairing.isVisible()
    # Connect, offered once paired, is this dialog's own Connect with the phone's address.
    accepted: list[bool] = []
    dialog.accepted.connect(lambda: accepted.append(True))
    dialog.pairing.connect_requested.emit("192.168.1.5:41234")
    assert accepted == [True] and dialog.values() == ("192.168.1.5:41234", "")
