"""The clipboard shared both ways, as scrcpy shares it: through the scrcpy control channel of the virtual phone
(SET_CLIPBOARD, GET_CLIPBOARD, and the CLIPBOARD device message its clipboard listener sends), and in the window
with a real QClipboard (Qt's offscreen platform keeps one)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import keyring.backends.fail
import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from relay_desktop.app_settings import AppSettings
from relay_desktop.llm.keys import KeyStore
from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.sim.apps.keep import BODY_KEY, EDITOR, PACKAGE, KeepNotes
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find
from relay_desktop.sim.text_selection import caret_point
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.settings_dialog import SettingsDialog
from tests.conftest import AdbTestServer
from tests.waiting import until

BODY = "Call the plumber\nflat 3B, second floor"


@pytest.fixture
async def synced_mirror(adb_server: AdbTestServer, sim: VirtualPhoneService,
                        tmp_path: Path) -> AsyncIterator[MirrorClient]:
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"PK\x03\x04 the virtual phone runs its own server for this class")
    device = await adb_server.server().device(sim.serial)
    client = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200, clipboard_autosync=True)
    await asyncio.wait_for(client.start(), 20)
    try:
        yield client
    finally:
        await client.stop()


async def open_note(phone: VirtualPhone) -> int:
    keep: KeepNotes = phone.apps[PACKAGE]  # type: ignore[assignment]
    note = keep.add("Plumber", BODY)
    phone.launch(PACKAGE)
    title = find(await phone.dump_hierarchy(), text="Plumber")
    assert title is not None
    await phone.tap(*title.center)
    await until(lambda: phone.focused_activity() == (PACKAGE, EDITOR))
    return note.id


def note_body(phone: VirtualPhone, note_id: int) -> str:
    keep: KeepNotes = phone.apps[PACKAGE]  # type: ignore[assignment]
    note = keep.get(note_id)
    assert note is not None
    return note.body


def body_view(phone: VirtualPhone):  # type: ignore[no-untyped-def]
    for window in phone.windows():
        view = window.root.find(BODY_KEY)
        if view is not None:
            return view
    raise AssertionError("no note body on screen")


async def copy_word_on_the_phone(phone: VirtualPhone, word: str) -> None:
    """A long press on ``word`` in the open note, then the floating toolbar's Copy: the user's copy."""
    x, y = caret_point(phone, body_view(phone), BODY.index(word) + 2)
    await phone.long_press(x, y, 800)
    copy = find(await phone.dump_hierarchy(), desc="Copy")
    assert copy is not None
    await phone.tap(*copy.center)


# ---------------------------------------------------------------- the virtual phone's scrcpy server


async def test_the_phone_sends_its_clipboard_when_it_changes_but_not_what_the_computer_set(
        synced_mirror: MirrorClient, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    received: list[str] = []
    synced_mirror.clipboard_listeners.append(received.append)
    await until(lambda: synced_mirror.frame_size is not None)
    await open_note(phone)
    await copy_word_on_the_phone(phone, "plumber")
    await until(lambda: received == ["plumber"])
    # Set from the computer (no paste): the phone's clipboard takes it, acknowledged, and nothing comes back.
    await synced_mirror.set_clipboard("from the computer ✓")
    assert phone.clipboard == "from the computer ✓"
    await asyncio.sleep(0.3)
    assert received == ["plumber"]
    # With sync on, GET_CLIPBOARD only presses COPY (the listener sends the result), as the real server does.
    x, y = caret_point(phone, body_view(phone), BODY.index("floor") + 1)
    await phone.long_press(x, y, 800)
    await synced_mirror.press_clipboard_key("copy")
    await until(lambda: received == ["plumber", "floor"])


async def test_set_clipboard_with_paste_puts_the_text_into_the_focused_field(
        synced_mirror: MirrorClient, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    note_id = await open_note(phone)
    x, y = caret_point(phone, body_view(phone), len(BODY))
    await phone.tap(x, y)
    await synced_mirror.set_clipboard(" — Grüße 👋", paste=True)
    assert note_body(phone, note_id) == BODY + " — Grüße 👋"
    assert phone.clipboard == " — Grüße 👋"


# ---------------------------------------------------------------- the window


def _phone(window: MainWindow) -> VirtualPhone:
    return window.session.service.phone  # type: ignore[no-any-return]


def test_copies_on_either_side_reach_the_other_without_echo(window: MainWindow,
                                                             qt_loop: qasync.QEventLoop) -> None:
    clipboard = QGuiApplication.clipboard()
    clipboard.setText("before the phone")

    async def scenario() -> None:
        await window.connect_device("virtual")
        phone = _phone(window)
        sets: list[str] = []
        phone.clipboard_listeners.append(sets.append)
        clipboard.setText("Tür 4 – code 1234")                   # copied on the computer
        await until(lambda: phone.clipboard == "Tür 4 – code 1234")
        await open_note(phone)
        sets.clear()
        await copy_word_on_the_phone(phone, "plumber")            # copied on the phone
        await until(lambda: clipboard.text() == "plumber")
        await asyncio.sleep(0.4)
        assert sets == ["plumber"], "the computer sent the phone's own copy back to it"
        assert phone.clipboard == "plumber"
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_ctrl_v_pastes_the_computer_s_text_and_the_setting_turns_sync_off(
        window: MainWindow, qtbot: QtBot, qt_loop: qasync.QEventLoop) -> None:
    clipboard = QGuiApplication.clipboard()
    window.app_settings = replace(window.app_settings, clipboard_sync=False)

    async def scenario() -> None:
        await window.connect_device("virtual")
        phone = _phone(window)
        note_id = await open_note(phone)
        clipboard.setText("kept on the computer")
        await asyncio.sleep(0.4)
        assert phone.clipboard == "", "sync is off: a computer copy stays on the computer"
        await copy_word_on_the_phone(phone, "plumber")
        await asyncio.sleep(0.4)
        assert clipboard.text() == "kept on the computer", "sync is off: a phone copy stays on the phone"
        x, y = caret_point(phone, body_view(phone), len(BODY))
        await phone.tap(x, y)
        clipboard.setText(" Grüße")
        window.mirror_view.setFocus()
        qtbot.keyClick(window.mirror_view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        await until(lambda: note_body(phone, note_id) == BODY + " Grüße")
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_the_setting_is_saved_and_offered_in_settings(qtbot: QtBot, tmp_path: Path,
                                                      qt_loop: qasync.QEventLoop) -> None:

    path = AppSettings(clipboard_sync=False).save(tmp_path / "settings.json")
    loaded = AppSettings.load(path)
    assert loaded.clipboard_sync is False and AppSettings().clipboard_sync is True
    dialog = SettingsDialog(loaded, KeyStore(backend=keyring.backends.fail.Keyring(), environ={}))
    qtbot.addWidget(dialog)
    assert not dialog.clipboard_sync.isChecked()
    dialog.clipboard_sync.setChecked(True)
    assert dialog.build().clipboard_sync is True
    qt_loop.run_until_complete(asyncio.sleep(0.3))     # the dialog's own look-ups finish
