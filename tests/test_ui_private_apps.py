"""The Settings dialog's Private apps tab (issue 24): the packages whose screens are never sent to a model as
images, edited and saved into AppSettings (and from there the agent's settings), with banking, payment and
sign-in apps suggested — those installed on the connected phone (the virtual phone behind Google's adb has
Northwind Bank), or well-known ones without a phone — each added with one click. Real widgets, every wait with a
deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import keyring.backends.fail
import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from relay_desktop.app_settings import AppSettings
from relay_desktop.device.models import AppInfo
from relay_desktop.llm.keys import KeyStore
from relay_desktop.ui.device_picker import VIRTUAL
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.private_apps_section import (
    EMPTY,
    EXPLANATION,
    KNOWN_PRIVATE_APPS,
    OFFLINE_SUGGESTIONS,
    PrivateAppsSection,
    looks_private,
)
from relay_desktop.ui.settings_dialog import SettingsDialog
from tests.waiting import until

TIMEOUT = 10
BANK = "com.northwind.bank"
AUTHENTICATOR = "com.google.android.apps.authenticator2"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    return tmp_path


def open_dialog(qtbot: QtBot, settings: AppSettings, installed: object = None) -> SettingsDialog:
    """The dialog on its Private apps tab, opened from the running loop as the window opens it."""
    dialog = SettingsDialog(settings, KeyStore(backend=keyring.backends.fail.Keyring(), environ={}),
                            installed_apps=installed)  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.tabs.setCurrentWidget(dialog.private_apps)
    dialog.show()
    return dialog


def rows(section: PrivateAppsSection) -> list[tuple[str, str]]:
    items = (section.list.topLevelItem(i) for i in range(section.list.topLevelItemCount()))
    return [(item.text(0), item.text(1)) for item in items]


def test_apps_are_added_by_package_or_name_removed_and_saved_into_the_settings(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, home: Path) -> None:
    async def scenario() -> SettingsDialog:
        dialog = open_dialog(qtbot, AppSettings())
        section = dialog.private_apps
        assert dialog.tabs.tabText(dialog.tabs.currentIndex()).replace("&", "") == "Private apps"
        assert section.explanation.text() == EXPLANATION
        assert section.packages() == () and rows(section)[0][0] == EMPTY      # said, not an empty box
        section.field.setText("com.example.mybank")
        section.add_button.click()
        assert section.packages() == ("com.example.mybank",) and section.field.text() == ""
        assert EMPTY not in [name for name, _ in rows(section)]
        section.field.setText("google authenticator")                      # a well-known app's name
        section.add_button.click()
        assert section.packages() == ("com.example.mybank", AUTHENTICATOR)
        assert rows(section)[1] == ("Google Authenticator", AUTHENTICATOR)
        section.field.setText(AUTHENTICATOR)                                # twice: said, not listed twice
        section.add_button.click()
        assert section.packages() == ("com.example.mybank", AUTHENTICATOR)
        assert "in the list already" in section.error.text() and section.error.isVisible()
        section.field.setText("My Bank")                                   # neither a package nor a known name
        assert section.add_typed() is False
        assert section.error.text().startswith("“My Bank” is not a package name")
        assert section.packages() == ("com.example.mybank", AUTHENTICATOR)
        assert not section.remove_button.isEnabled()
        section.select("com.example.mybank")
        assert section.remove_button.isEnabled()
        section.remove_button.click()
        assert section.packages() == (AUTHENTICATOR,) and not section.error.isVisible()
        saved = await dialog.save()
        assert saved is not None and saved.private_apps == (AUTHENTICATOR,)
        return dialog

    dialog = qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert dialog.result() == QDialog.DialogCode.Accepted
    loaded = AppSettings.load()
    assert loaded.private_apps == (AUTHENTICATOR,) and loaded.agent_settings().private_apps == (AUTHENTICATOR,)

    async def reopened() -> None:                                          # the round trip: listed again
        section = open_dialog(qtbot, loaded).private_apps
        assert rows(section) == [("Google Authenticator", AUTHENTICATOR)]
        section.select(AUTHENTICATOR)
        section.remove_selected()
        assert rows(section)[0][0] == EMPTY and section.packages() == ()

    qt_loop.run_until_complete(asyncio.wait_for(reopened(), TIMEOUT))


def test_saving_other_settings_keeps_the_list(qtbot: QtBot, qt_loop: qasync.QEventLoop, home: Path) -> None:
    async def scenario() -> AppSettings | None:
        dialog = open_dialog(qtbot, AppSettings(private_apps=(BANK, AUTHENTICATOR), max_steps=20))
        dialog.max_steps.setValue(33)
        return await dialog.save()

    saved = qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert saved is not None and saved.private_apps == (BANK, AUTHENTICATOR) and saved.max_steps == 33
    assert AppSettings.load() == saved


def test_enter_in_the_package_field_adds_and_does_not_save(qtbot: QtBot, qt_loop: qasync.QEventLoop,
                                                           home: Path) -> None:
    async def scenario() -> SettingsDialog:
        dialog = open_dialog(qtbot, AppSettings())
        section = dialog.private_apps
        dialog.activateWindow()
        section.field.setFocus()
        section.field.setText("com.example.wallet")
        qtbot.keyClick(section.field, Qt.Key.Key_Return)
        await asyncio.sleep(0.2)                              # a save would have been spawned by now
        assert section.packages() == ("com.example.wallet",)
        return dialog

    dialog = qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))
    assert dialog.isVisible() and dialog.saved is None and not (home / "settings.json").exists()


def test_without_a_phone_well_known_apps_are_suggested_and_added_with_one_click(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, home: Path) -> None:
    async def scenario() -> None:
        section = open_dialog(qtbot, AppSettings(private_apps=(AUTHENTICATOR,))).private_apps
        offered = list(KNOWN_PRIVATE_APPS)[:OFFLINE_SUGGESTIONS]
        await until(lambda: section.suggestions() != [], TIMEOUT)
        assert section.suggestion_status.text().startswith("No phone is connected.")
        assert section.suggestions() == [p for p in offered if p != AUTHENTICATOR]   # not one already listed
        assert section.suggestions()[0] == BANK
        button = section.suggestion_buttons[BANK]
        assert button.text() == "+ Northwind Bank" and button.isVisible() and BANK in button.toolTip()
        button.click()
        assert section.packages() == (AUTHENTICATOR, BANK) and BANK not in section.suggestions()
        assert rows(section)[1] == ("Northwind Bank", BANK)
        for package in section.suggestions():
            section.suggestion_buttons[package].click()
        assert section.suggestions() == [] and section.suggestion_status.text() == "Every suggested app is in the list."
        section.select(BANK)
        section.remove_selected()
        assert BANK in section.suggestions() and section.suggestion_status.text().startswith("No phone")

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))


def test_a_phone_that_cannot_list_its_apps_still_gets_well_known_suggestions(
        qtbot: QtBot, qt_loop: qasync.QEventLoop, home: Path) -> None:
    async def unplugged() -> Sequence[AppInfo]:
        raise ConnectionError("device 'emulator-5554' not found")

    async def scenario() -> None:
        section = open_dialog(qtbot, AppSettings(), unplugged).private_apps
        assert section.suggestion_status.text().startswith("Looking for banking")
        await until(lambda: section.suggestions() != [], TIMEOUT)
        assert section.suggestion_status.text().startswith(
            "The phone's apps could not be listed (ConnectionError: device 'emulator-5554' not found)")
        assert section.suggestions() == list(KNOWN_PRIVATE_APPS)[:OFFLINE_SUGGESTIONS]

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), TIMEOUT))


def test_the_connected_virtual_phones_bank_is_suggested_saved_and_reaches_the_agent(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    async def scenario() -> None:
        window.keys = KeyStore(backend=keyring.backends.fail.Keyring(), environ={})
        try:
            assert await window.connect_device(VIRTUAL)
            dialog = window.open_settings()
            section = dialog.private_apps
            dialog.tabs.setCurrentWidget(section)
            await until(lambda: section.suggestions() != [], TIMEOUT)     # read from the phone through adb
            assert section.suggestions() == [BANK]                         # and none of its other apps
            assert section.suggestion_status.text().startswith("On the phone, these look like banking")
            assert section.suggestion_buttons[BANK].text() == "+ Northwind Bank"
            section.suggestion_buttons[BANK].click()
            assert await dialog.save() is not None
            await until(lambda: window.app_settings.private_apps == (BANK,), TIMEOUT)
            assert window.settings.private_apps == (BANK,)                 # what the next run's agent gets
            again = window.open_settings()
            assert again.private_apps.packages() == (BANK,)
            await until(lambda: again.private_apps.suggestion_status.text() == "Every suggested app is in the "
                        "list.", TIMEOUT)
            again.reject()
        finally:
            await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert AppSettings.load().private_apps == (BANK,)


@pytest.mark.parametrize("package", [BANK, "com.chase.sig.android", "com.google.android.apps.walletnfcrel",
                                     "com.paypal.android.p2pmobile", "net.one97.paytm", "com.example.gpay",
                                     "org.fedorahosted.freeotp", "com.azure.authenticator", "com.squareup.cash",
                                     "com.x8bit.bitwarden", "de.dkb.banking", "com.example.otp"])
def test_banking_payment_and_sign_in_apps_look_private(package: str) -> None:
    assert looks_private(package)


@pytest.mark.parametrize("package", ["com.android.settings", "com.android.chrome", "com.relay.shop",
                                     "app.tempo.music", "com.pocketgames.tictactoe", "com.google.android.keep",
                                     "com.spotify.music", "jp.hotpepper.android", "com.ebay.mobile",
                                     "com.google.android.apps.messaging", "com.android.launcher3"])
def test_other_apps_do_not(package: str) -> None:
    assert not looks_private(package)
