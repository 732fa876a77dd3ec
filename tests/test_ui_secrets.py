"""The Settings dialog's Secrets tab, with real widgets and the real keyring (gnome-keyring on a private bus):
names listed with where they come from and never a value, Add… saves in the keyring, Remove asks first and only
removes keyring secrets, and a keyring that cannot be used (none, or locked) is said in words while the
environment's secrets are still listed."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring.backends.fail
import pytest
import qasync
from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit, QMessageBox, QTreeWidget, QWidget
from pytestqt.qtbot import QtBot

from relay_desktop.app_settings import AppSettings
from relay_desktop.llm.keys import KeyStore
from relay_desktop.ui.secrets_section import EXPLANATION, SecretsSection, keyring_words
from relay_desktop.ui.settings_dialog import SettingsDialog
from relay_desktop.user_secrets import SERVICE, SecretError, SecretName, SecretStore
from tests.keyring_fixtures import _clear
from tests.waiting import until

PIN = "8642-VALUE-NEVER-SHOWN"
WIFI = "sunflower-WIFI-VALUE-42"
TIMEOUT = 8


@pytest.fixture
def keyring_backend(secret_service: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The real Secret Service with no saved secrets before or after the test (secret_service clears only the
    API keys' service)."""
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    _clear(SERVICE)
    try:
        yield secret_service
    finally:
        _clear(SERVICE)


def open_dialog(qtbot: QtBot, backend: Any, environ: dict[str, str] | None = None) -> SettingsDialog:
    """The dialog as the window opens it: from the running loop (its first reading is started there)."""
    dialog = SettingsDialog(AppSettings(), KeyStore(backend=backend, environ={}),
                            secrets=SecretStore(backend, environ=environ or {}))
    qtbot.addWidget(dialog)
    dialog.tabs.setCurrentWidget(dialog.secrets_section)     # Settings → Secrets
    dialog.show()
    return dialog


async def listed(section: SecretsSection) -> None:
    """The first reading of the list has landed."""
    await until(lambda: section.status.text() != "Checking the keyring…", TIMEOUT)


def shown_texts(dialog: QWidget) -> list[str]:
    """Every text a widget of the dialog (or of its Add form and questions) holds: labels, fields — a password
    field's text() is its real value — buttons, titles, tooltips, placeholders and the list's cells."""
    texts: list[str] = []
    for widget in [dialog, *dialog.findChildren(QWidget)]:
        texts += [widget.windowTitle(), widget.toolTip(), widget.accessibleName()]
        if isinstance(widget, QLabel | QAbstractButton | QMessageBox):
            texts.append(widget.text())
        if isinstance(widget, QLineEdit):
            texts += [widget.text(), widget.placeholderText(), widget.displayText()]
        if isinstance(widget, QTreeWidget):
            for index in range(widget.topLevelItemCount()):
                item = widget.topLevelItem(index)
                texts += [item.text(c) for c in range(widget.columnCount())]
                texts += [item.toolTip(c) for c in range(widget.columnCount())]
    return texts



def test_adding_a_secret_saves_it_in_the_keyring_and_lists_only_its_name(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def scenario() -> SettingsDialog:
        dialog = open_dialog(qtbot, keyring_backend)
        section = dialog.secrets_section
        assert dialog.tabs.tabText(dialog.tabs.currentIndex()).replace("&", "") == "Secrets"
        assert not section.add_button.isEnabled()                   # until the keyring is known to take one
        await listed(section)
        assert EXPLANATION in section.explanation.text()
        assert section.status.text() == "Secrets are saved in your system's keyring."
        assert section.available is True and section.add_button.isEnabled()
        assert section.names() == []
        assert section.list.topLevelItem(0).text(0) == "No secrets yet"   # said, not an empty box
        section.add_button.click()
        form = section.form
        assert form.isVisible() and not form.isModal()
        assert form.value.echoMode() == QLineEdit.EchoMode.Password
        form.name.setText("bank_pin")
        form.value.setText(PIN)
        assert PIN not in form.value.displayText()                  # dots on screen
        form.save_button.click()
        await until(lambda: section.names() == [("bank_pin", "Keyring")], TIMEOUT)
        assert not form.isVisible() and form.value.text() == ""     # not left in a hidden field
        assert section.chosen() == SecretName("bank_pin", "keyring")  # the new one is selected
        return dialog

    dialog = qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    saved = SecretStore(keyring_backend, environ={}).get("bank_pin")
    assert saved is not None and saved.reveal() == PIN
    texts = shown_texts(dialog)
    assert any("bank_pin" in text for text in texts)          # the walk does see what the dialog shows
    assert not [text for text in texts if PIN in text]
    section = dialog.secrets_section
    assert PIN not in repr(section) + repr(section.form) + repr(dialog)
    assert not [r for r in caplog.records if PIN in r.getMessage()]


def test_a_cancelled_form_forgets_the_value(qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any) -> None:
    async def scenario() -> None:
        section = open_dialog(qtbot, keyring_backend).secrets_section
        await listed(section)
        section.add_button.click()
        section.form.name.setText("bank_pin")
        section.form.value.setText(PIN)
        section.form.buttons.rejected.emit()                         # Cancel
        await until(lambda: not section.form.isVisible(), TIMEOUT)
        assert section.form.value.text() == ""
        section.add_button.click()                                   # opened again: empty
        assert section.form.name.text() == "" and section.form.value.text() == ""
        assert not section.form.error.isVisible()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert SecretStore(keyring_backend, environ={}).names() == []


def test_a_bad_name_is_refused_in_one_sentence_and_nothing_is_saved(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any) -> None:
    async def scenario() -> None:
        section = open_dialog(qtbot, keyring_backend).secrets_section
        await listed(section)
        section.add_button.click()
        form = section.form
        form.name.setText("Bank PIN")
        form.value.setText(PIN)
        form.save_button.click()
        await until(lambda: form.error.text() != "", TIMEOUT)
        assert form.error.text().startswith("'Bank PIN' cannot be a secret's name: use lower-case letters, digits")
        assert "Traceback" not in form.error.text() and form.isVisible() and form.error.isVisible()
        assert PIN not in form.error.text()
        await until(lambda: form.error.height() >= form.error.heightForWidth(form.error.width()), TIMEOUT)
        form.name.setText("bank_pin")
        form.value.clear()
        assert await section.save_new() is False
        assert form.error.text() == "The secret bank_pin needs a value"
        assert form.save_button.isEnabled()                          # ready for another try

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert SecretStore(keyring_backend, environ={}).names() == []


def test_removing_asks_first_and_deletes_from_the_keyring(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any) -> None:
    store = SecretStore(keyring_backend, environ={})
    store.set("bank_pin", PIN)
    store.set("door_code", "4711")

    async def answer(section: SecretsSection, button: QMessageBox.StandardButton) -> None:
        await until(lambda: section.confirm is not None and section.confirm.isVisible(), TIMEOUT)
        assert section.confirm is not None and "door_code" in section.confirm.text()
        assert section.confirm.defaultButton() is section.confirm.button(QMessageBox.StandardButton.No)
        assert await asyncio.to_thread(store.get, "door_code") is not None   # asked before deleting anything
        section.confirm.button(button).click()

    async def scenario() -> SecretsSection:
        section = open_dialog(qtbot, keyring_backend).secrets_section
        await listed(section)
        assert section.names() == [("bank_pin", "Keyring"), ("door_code", "Keyring")]
        assert not section.remove_button.isEnabled()               # nothing chosen yet
        section.select("door_code")
        assert section.remove_button.isEnabled()
        section.remove_button.click()
        await answer(section, QMessageBox.StandardButton.No)
        await until(lambda: section.confirm is None, TIMEOUT)
        assert section.names() == [("bank_pin", "Keyring"), ("door_code", "Keyring")]
        assert await asyncio.to_thread(store.get, "door_code") is not None
        section.remove_button.click()
        await answer(section, QMessageBox.StandardButton.Yes)
        await until(lambda: section.names() == [("bank_pin", "Keyring")], TIMEOUT)
        return section

    section = qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert store.get("door_code") is None
    kept = store.get("bank_pin")
    assert [n.name for n in store.names()] == ["bank_pin"] and kept is not None and kept.reveal() == PIN
    assert section.error.text() == ""


def test_a_secret_removed_elsewhere_meanwhile_is_said_and_the_list_read_again(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any) -> None:
    store = SecretStore(keyring_backend, environ={})
    store.set("door_code", "4711")

    async def scenario() -> None:
        section = open_dialog(qtbot, keyring_backend).secrets_section
        await listed(section)
        section.select("door_code")
        await asyncio.to_thread(store.delete, "door_code")          # `relay-desktop secrets delete` in a terminal
        section.remove_button.click()
        await until(lambda: section.confirm is not None and section.confirm.isVisible(), TIMEOUT)
        assert section.confirm is not None
        section.confirm.button(QMessageBox.StandardButton.Yes).click()
        await until(lambda: section.error.isVisible(), TIMEOUT)
        assert section.error.text().startswith("No secret called door_code is saved in the keyring")
        await until(lambda: section.names() == [], TIMEOUT)

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))


def test_an_environment_secret_is_listed_but_cannot_be_removed_here(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any) -> None:
    SecretStore(keyring_backend, environ={}).set("bank_pin", PIN)

    async def scenario() -> SettingsDialog:
        dialog = open_dialog(qtbot, keyring_backend, {"RELAY_SECRET_WIFI_GUEST": WIFI})
        section = dialog.secrets_section
        await listed(section)
        assert section.names() == [("bank_pin", "Keyring"), ("wifi_guest", "Environment (RELAY_SECRET_WIFI_GUEST)")]
        section.select("bank_pin")
        assert section.remove_button.isEnabled()
        section.select("wifi_guest")
        assert not section.remove_button.isEnabled()
        tip = section.remove_button.toolTip()
        assert "comes from the environment" in tip and "RELAY_SECRET_WIFI_GUEST" in tip
        assert "comes from the environment" in section.list.selectedItems()[0].toolTip(0)
        assert await section.remove() is False and section.confirm is None   # not even asked
        return dialog

    dialog = qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert SecretStore(keyring_backend, environ={}).get("bank_pin") is not None
    assert not [text for text in shown_texts(dialog) if WIFI in text or PIN in text]


def test_without_a_keyring_it_says_so_lists_the_environment_and_adding_is_off(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))

    async def scenario() -> None:
        section = open_dialog(qtbot, keyring.backends.fail.Keyring(), {"RELAY_SECRET_BANK_PIN": PIN}).secrets_section
        await listed(section)
        status = section.status.text()
        assert status.startswith("No keyring backend is available (no system keyring was found).")
        assert "Secrets cannot be saved here" in status and "RELAY_SECRET_BANK_PIN for the secret bank_pin" in status
        assert "keys for this session" not in status                # the API keys' advice is not for secrets
        await until(lambda: section.status.height() >= section.status.heightForWidth(section.status.width()),
                    TIMEOUT)                                         # the whole reason shows
        assert section.names() == [("bank_pin", "Environment (RELAY_SECRET_BANK_PIN)")]
        assert not section.add_button.isEnabled() and "RELAY_SECRET_<NAME>" in section.add_button.toolTip()
        # Should a save still be tried (the keyring went away after the list was read), the form says why.
        section.form.start()
        section.form.name.setText("door_code")
        section.form.value.setText("4711")
        assert await section.save_new() is False
        assert "No keyring backend is available" in section.form.error.text()
        assert "Give the secret in the environment instead: RELAY_SECRET_NAME=value" in section.form.error.text()
        assert section.form.isVisible() and section.names() == [("bank_pin", "Environment (RELAY_SECRET_BANK_PIN)")]
        section.form.reject()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))


def test_a_locked_keyring_is_said_and_the_environment_still_listed(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        locked_secret_service: Any) -> None:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))

    async def scenario() -> None:
        section = open_dialog(qtbot, locked_secret_service, {"RELAY_SECRET_WIFI_GUEST": WIFI}).secrets_section
        await listed(section)
        assert "is locked. Unlock it (log in again, or open the keyring app)." in section.status.text()
        assert "Secrets cannot be saved here" in section.status.text()
        assert section.names() == [("wifi_guest", "Environment (RELAY_SECRET_WIFI_GUEST)")]
        assert not section.add_button.isEnabled()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 20))


def test_the_keyring_is_read_off_the_event_loop_when_the_dialog_opens_and_after_a_change(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, keyring_backend: Any) -> None:
    readers: list[threading.Thread] = []

    class WatchedStore(SecretStore):
        def names(self) -> list[SecretName]:
            readers.append(threading.current_thread())
            return super().names()

    async def scenario() -> None:
        dialog = SettingsDialog(AppSettings(), KeyStore(backend=keyring_backend, environ={}),
                                secrets=WatchedStore(keyring_backend, environ={}))
        qtbot.addWidget(dialog)
        section = dialog.secrets_section
        await until(lambda: len(readers) == 1 and section.add_button.isEnabled(), TIMEOUT)
        section.add_button.click()
        section.form.name.setText("door_code")
        section.form.value.setText("4711")
        section.form.save_button.click()
        await until(lambda: section.names() == [("door_code", "Keyring")], TIMEOUT)

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert len(readers) >= 2 and threading.main_thread() not in readers


def test_keyring_words() -> None:
    store = SecretStore(keyring.backends.fail.Keyring(), environ={})
    available, words = keyring_words(store.status())
    assert not available and words.count("RELAY_SECRET_") == 2 and "keys for this session" not in words
    assert keyring_words("Secrets are stored in the OS keyring (keyring.backends.SecretService.Keyring).") == \
        (True, "Secrets are saved in your system's keyring.")
    with pytest.raises(SecretError):
        store.set("bank_pin", PIN)
