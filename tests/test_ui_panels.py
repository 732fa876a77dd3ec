"""The window's parts around a run: the device picker on real adb, guidance with no phone or key, the log's
auto-scroll, spoken progress, light/dark, and reaching every control by keyboard. Qt offscreen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import keyring
import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget
from pytestqt.qtbot import QtBot

from relay_desktop.agent.events import ActionStarted, HumanInput, RunFinished
from relay_desktop.agent.steps.actions import Step
from relay_desktop.app_settings import AppSettings
from relay_desktop.llm.keys import KeyStore
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.ui.device_picker import NETWORK, VIRTUAL, NetworkDialog
from relay_desktop.ui.log_view import LogView
from relay_desktop.ui.main_window import NO_KEY, NO_PHONE, MainWindow
from relay_desktop.ui.speech import Speaker, spoken_text
from relay_desktop.ui.theme import ThemeFollower
from tests.conftest import AdbTestServer
from tests.waiting import until

# ------------------------------------------------------------ the device picker


def test_the_picker_lists_adb_devices_with_their_state_and_connects_the_chosen_one(
        window: MainWindow, adb_server: AdbTestServer, qt_loop: qasync.QEventLoop) -> None:
    stages: list[str] = []
    busy = window.picker.busy
    window.session.on_progress = lambda text, fraction: (stages.append(text), busy(text, fraction))

    async def scenario() -> list[str]:
        ready = VirtualPhoneService(PhoneConfig(serial="READY1"), adb=adb_server.server())
        locked = VirtualPhoneService(PhoneConfig(serial="LOCKED1"), adb=adb_server.server(), require_auth=True)
        await ready.start()
        await locked.start(wait_ready=False)
        try:
            await adb_server.server().wait_for_state(locked.serial, "unauthorized", timeout=15)
            window.picker.refresh.click()
            await until(lambda: window.picker.choice.findData(locked.serial) >= 0, 20)
            items = [window.picker.choice.itemText(i) for i in range(window.picker.choice.count())]
            # An unauthorized phone cannot be used: connecting says what to do on the phone.
            window.picker.choice.setCurrentIndex(window.picker.choice.findData(locked.serial))
            assert not await window.connect_device(locked.serial)
            assert "accept" in window.mirror_view.notice.lower() and window.session.device is None
            window.picker.choice.setCurrentIndex(window.picker.choice.findData(ready.serial))
            window.picker.connect_button.click()
            # A phone without a scrcpy server at hand (offline here) is mirrored by screenshots instead.
            await until(lambda: window.mirror_view.sink.painted > 0, 20)
            assert window.status_device.text() == ready.serial
            assert window.picker.progress.isHidden() and window.picker.connect_button.isEnabled()
            await window.shutdown()
            return items
        finally:
            await ready.stop()
            await locked.stop()

    items = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert any(t.startswith("Relay Virtual Phone (127.0.0.1:") and t.endswith("— ready") for t in items), items
    assert any("unauthorized — accept the USB debugging prompt on the phone" in t for t in items), items
    assert items[-2:] == ["Virtual phone (built-in)", "Connect over network…"]
    serial = next(t for t in items if t.endswith("— ready")).split("(")[1].split(")")[0]
    # Each stage shown while connecting, and the progress line gone at the end.
    assert stages[-4:] == ["Starting adb…", f"Connecting to {serial}…", "Finding the scrcpy server…", ""]


def test_connect_over_network_with_a_remote_adb_server(window: MainWindow, adb_server: AdbTestServer,
                                                        qtbot: QtBot, qt_loop: qasync.QEventLoop) -> None:
    async def scenario() -> None:
        phone = VirtualPhoneService(PhoneConfig(serial="NET1"))       # listening, but adb does not know it yet
        await phone.start()
        try:
            window.picker.choice.setCurrentIndex(window.picker.choice.findData(NETWORK))
            window.picker.connect_button.click()
            dialog = window.picker.network_dialog
            assert isinstance(dialog, NetworkDialog) and dialog.isVisible()
            dialog.address.setText("not an address:x")
            connect = next(b for b in dialog.findChildren(QAbstractButton) if b.text() == "&Connect")
            connect.click()
            assert dialog.isVisible() and "is not an address" in dialog.error.text()
            dialog.address.setText(phone.serial)
            dialog.remote.setChecked(True)
            dialog.server.setText(f"127.0.0.1:{adb_server.port}")
            connect.click()
            assert not dialog.isVisible()
            await until(lambda: window.mirror_view.sink.painted > 0, 20)
            assert window.session.device is not None and window.session.device.serial == phone.serial
            assert window.session.adb.port == adb_server.port
            await window.shutdown()
            await adb_server.server().disconnect(phone.serial)
        finally:
            await phone.stop()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


# ------------------------------------------------------------ guidance


def test_with_no_phone_and_no_key_the_window_says_what_to_do(window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    assert window.mirror_view.notice == NO_PHONE and window.session.device is None
    window.keys = KeyStore(backend=keyring.backends.fail.Keyring(), environ={})
    qt_loop.run_until_complete(asyncio.wait_for(window.choose_models(), 20))
    assert window.key_notice.isVisible() and window.key_notice.text() == NO_KEY
    for sentence in (NO_PHONE, NO_KEY):
        assert sentence.count(". ") == 0 and sentence.endswith(".")      # one sentence each
    image = window.mirror_view.grab().toImage()
    assert not image.isNull()


# ------------------------------------------------------------ the log


def test_the_log_follows_new_entries_until_the_user_scrolls_up(qtbot: QtBot) -> None:
    log = LogView()
    qtbot.addWidget(log)
    log.resize(400, 300)
    log.show()
    for i in range(200):
        log.add_line(f"· line {i}")
    bar = log.tree.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    bar.setValue(bar.maximum() // 2)                          # the user scrolls up to read
    log.add_line("· another")
    assert bar.value() == bar.maximum() // 2 or bar.value() < bar.maximum() - 4
    bar.setValue(bar.maximum())                               # back at the bottom: following again
    log.add_line("· and another")
    assert bar.value() == bar.maximum()


def test_exporting_the_log_to_an_unwritable_place_says_so(qtbot: QtBot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QMessageBox

    log = LogView()
    qtbot.addWidget(log)
    log.add_line("· something")
    log._export_chosen(str(tmp_path / "missing" / "log.txt"))
    box = log.findChild(QMessageBox)
    assert box is not None and "Could not save the log" in box.text()
    box.close()


# ------------------------------------------------------------ spoken progress


def test_spoken_progress_phrases() -> None:
    tap = ActionStarted(run_id="r", step=3, index=0, action=Step("tap", {"element": "e4"}),
                        description="tap e4", bounds=None, point=(1, 2))
    assert spoken_text(tap, "Wi-Fi") == "step 3: tapping Wi-Fi"
    back = ActionStarted(run_id="r", step=4, index=0, action=Step("back", {}), description="back", bounds=None,
                         point=None)
    assert spoken_text(back) == "step 4: going back"
    done = RunFinished(run_id="r", outcome="success", reason="", steps=4, elapsed_s=1, input_tokens=0,
                       output_tokens=0, cost_usd=0)
    assert spoken_text(done) == "Task done."
    assert spoken_text(HumanInput(run_id="r", step=1, purpose="confirmation", prompt="send", answer="")) \
        == "The agent needs your confirmation."


def test_without_text_to_speech_the_option_says_why_and_is_off(window: MainWindow) -> None:
    window.speaker = Speaker(None, probe=False)
    window.speaker.enabled = True
    window.speaker.say("step 1: tapping Wi-Fi")              # nothing to say it with: no error, nothing recorded
    assert not window.speaker.said
    dialog = window.open_settings()
    assert not dialog.speak.isEnabled() and "PySide6-Addons" in dialog.speak.toolTip()
    dialog.reject()


# ------------------------------------------------------------ light and dark


def test_the_theme_follows_the_desktop_and_the_settings(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    holder = QWidget()
    qtbot.addWidget(holder)
    monkeypatch.setenv("PATH", str(tmp_path))                 # no gsettings: the environment decides
    monkeypatch.setenv("GTK_THEME", "Adwaita")
    follower = ThemeFollower(app, "system", holder)
    log = LogView()
    qtbot.addWidget(log)
    log.show()
    log.add_line("✘ written while light")
    try:
        assert not follower.dark
        assert app.palette().color(QPalette.ColorRole.Window).lightness() > 128
        monkeypatch.setenv("GTK_THEME", "Adwaita:dark")       # the desktop switches to dark
        app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
        assert follower.dark and app.palette().color(QPalette.ColorRole.Window).lightness() < 128
        log.add_line("✘ the tap did nothing")
        QApplication.processEvents()                          # the palette change reaches widgets as an event
        # Readable on dark: the new entry, and the one written while the theme was light.
        assert all(log.tree.topLevelItem(i).foreground(0).color().lightness() > 128 for i in (0, 1)), \
            [log.tree.topLevelItem(i).foreground(0).color().name() for i in (0, 1)]
        assert follower.apply("light") is False                  # the user's choice wins over the desktop
        app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
        assert not follower.dark
    finally:
        follower.apply("light")
    saved = AppSettings(theme="dark").save(tmp_path / "settings.json")
    assert AppSettings.load(saved).theme == "dark"
    with pytest.raises(ValueError, match="theme"):
        AppSettings(theme="purple")


# ------------------------------------------------------------ keyboard and screen readers


def _focusable(root: QWidget) -> list[QWidget]:
    return [w for w in root.findChildren(QWidget)
            if w.isVisibleTo(root) and w.isEnabled() and w.focusPolicy() & Qt.FocusPolicy.TabFocus
            and not w.objectName().startswith("qt_")]


def _name(widget: QWidget) -> str:
    if widget.accessibleName():
        return widget.accessibleName()
    if isinstance(widget, QAbstractButton):
        return widget.text().replace("&", "")
    return ""


def test_every_control_has_a_name_and_is_reached_by_tab(window: MainWindow, qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QTabBar

    unnamed: list[str] = []
    for tab in (1, 2, 0):                 # each tab's controls, ending on the Task tab for the Tab walk
        window.tabs.setCurrentIndex(tab)
        controls = [w for w in _focusable(window) if not isinstance(w.parent(), QTabBar)]
        unnamed += [f"{type(w).__name__} on tab {tab}" for w in controls
                    if not _name(w) and type(w).__name__ not in ("QTabBar", "QScrollBar")]
    settings, network = window.open_settings(), NetworkDialog(window)
    network.remote.setChecked(True)
    for dialog in (settings, network):
        unnamed += [f"{type(w).__name__} in {dialog.windowTitle()}" for w in _focusable(dialog) if not _name(w)]
        dialog.reject()
    assert not unnamed, unnamed
    window.activateWindow()
    window.panel.task.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.panel.task, timeout=2000)
    reached: set[int] = set()
    for _ in range(len(controls) * 2 + 5):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        reached.add(id(QApplication.focusWidget()))
    wanted = {"task input": window.panel.task, "start": window.panel.start, "message": window.panel.message,
              "settings": window.settings_button, "phone list": window.picker.choice,
              "connect": window.picker.connect_button, "log filter": window.log_view.filter_text,
              "log": window.log_view.tree, "export": window.log_view.export, "phone screen": window.mirror_view}
    missed = [name for name, widget in wanted.items() if widget.isEnabled() and id(widget) not in reached]
    assert not missed, f"Tab never reaches: {missed}"


def test_the_phone_screen_shows_when_it_has_the_keyboard(window: MainWindow, qtbot: QtBot) -> None:
    view = window.mirror_view
    window.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    image = view.grab().toImage()
    edge = image.pixelColor(1, image.height() // 2)
    assert edge == view.palette().highlight().color()
    window.panel.task.setFocus()
    qtbot.waitUntil(lambda: not view.hasFocus(), timeout=2000)
    assert view.grab().toImage().pixelColor(1, image.height() // 2) != view.palette().highlight().color()


def test_a_crash_in_another_thread_is_reported_in_the_window(window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    import threading

    from relay_desktop.ui.app import report_crashes_in

    uninstall = report_crashes_in(window, qt_loop)
    try:
        def boom() -> None:
            raise RuntimeError("the decoder fell over with key sk-ant-api03-CRASHcanary0000aaaa1111bbbb")
        thread = threading.Thread(target=boom)
        thread.start()
        thread.join(10)

        async def told() -> None:
            await until(lambda: any(line.startswith("· Something went wrong") for line in window.log_view.lines()),
                        20)
        qt_loop.run_until_complete(asyncio.wait_for(told(), 10))
    finally:
        uninstall()
    line = next(line for line in window.log_view.lines() if line.startswith("· Something went wrong"))
    assert "RuntimeError" in line and "(report: " in line and "CRASHcanary" not in line
    report = Path(line.split("(report: ")[1].rstrip(")"))
    assert report.exists() and "CRASHcanary" not in report.read_text(encoding="utf-8")


def test_the_log_masks_keys_on_screen_in_copies_and_in_exports(qtbot: QtBot, tmp_path: Path) -> None:
    from relay_desktop.agent.events import RunStarted

    key = "sk-ant-api03-LOGcanaryAAAA1111bbbb2222CCCC3333"
    log = LogView()
    qtbot.addWidget(log)
    log.add_event(RunStarted(run_id="r", task=f"use my key {key} to sign in", serial="s", max_steps=5, settings={}))
    log.add_line(f"· pasted {key}")
    assert not any("LOGcanary" in line for line in log.lines())
    assert "LOGcanary" not in log.copy_to_clipboard()
    assert "LOGcanary" not in log.export_to(tmp_path / "log.txt").read_text(encoding="utf-8")


def test_no_phone_reads_as_connected_until_one_is(window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    from relay_desktop.ui.device_picker import CHOOSE

    choice = window.picker.choice
    assert choice.currentText() == CHOOSE and not window.picker.connect_button.isEnabled()
    choice.setCurrentIndex(choice.findData(VIRTUAL))
    assert window.picker.connect_button.isEnabled()

    async def scenario() -> None:
        try:
            assert await window.connect_device(VIRTUAL)
            assert choice.currentText() == "Virtual phone (built-in) — connected"
            assert choice.findText(CHOOSE) < 0
        finally:
            await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
