"""Files dropped on the mirror: pushed to the phone's Download folder through adb, an APK installed (pushed to
/data/local/tmp, then ``pm install -r``), with progress in the status bar and a plain result. Real Qt drop events
against the virtual phone, whose ``pm install`` reads the package name from the APK's binary manifest."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import qasync
import uiautomator2
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from relay_desktop.sim.apk import read_apk
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.ui.main_window import MainWindow
from tests.conftest import AdbTestServer
from tests.waiting import until

# A real APK (binary AndroidManifest.xml): the uiautomator2 package ships it to install on phones.
REAL_APK = Path(uiautomator2.__file__).parent / "assets" / "app-uiautomator.apk"


def drop(window: MainWindow, paths: list[Path]) -> bool:
    """Drag ``paths`` over the mirror and drop them, as a file manager does; True if the drag was accepted."""
    view = window.mirror_view
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    centre = QPointF(view.width() / 2, view.height() / 2)
    enter = QDragEnterEvent(centre.toPoint(), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(centre, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(view, event)
    return event.isAccepted()


def _phone(window: MainWindow) -> VirtualPhone:
    return window.session.service.phone  # type: ignore[no-any-return]


def test_dropped_files_go_to_download_with_progress_and_a_plain_result(
        window: MainWindow, qt_loop: qasync.QEventLoop, tmp_path: Path) -> None:
    photo = tmp_path / "photo.jpg"
    photo.write_bytes(os.urandom(600_000))
    notes = tmp_path / "notes.txt"
    notes.write_text("Call the plumber\n", encoding="utf-8")
    messages: list[str] = []
    window.statusBar().messageChanged.connect(messages.append)

    async def scenario() -> None:
        await window.connect_device("virtual")
        phone = _phone(window)
        assert drop(window, [photo, notes])
        await until(lambda: any("notes.txt → Download" in line for line in window.log_view.lines()), 30)
        assert phone.fs.read("/sdcard/Download/photo.jpg") == photo.read_bytes()
        assert phone.fs.read("/sdcard/Download/notes.txt") == notes.read_bytes()
        assert any("photo.jpg → Download" in line for line in window.log_view.lines())
        assert any("photo.jpg" in m and "%" in m for m in messages), messages
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_a_dropped_apk_is_installed_and_a_bad_one_gets_android_s_error(
        window: MainWindow, qt_loop: qasync.QEventLoop, tmp_path: Path, adb_server: AdbTestServer) -> None:
    apk = tmp_path / "uiautomator.apk"
    shutil.copy(REAL_APK, apk)
    package = read_apk(apk.read_bytes()).package
    bad = tmp_path / "broken.apk"
    bad.write_bytes(b"this is not a zip at all")

    async def scenario() -> None:
        await window.connect_device("virtual")
        phone = _phone(window)
        assert package not in phone.apps
        assert drop(window, [apk, bad])
        await until(lambda: any("broken.apk" in line for line in window.log_view.lines()), 40)
        listed = await asyncio.to_thread(adb_server.run, "-s", window.session.device.serial, "shell", "pm", "list",
                                         "packages")
        assert f"package:{package}" in listed.stdout.decode().split()
        lines = window.log_view.lines()
        assert any("uiautomator.apk installed" in line for line in lines), lines
        assert any("broken.apk was not installed: Failure [INSTALL_PARSE_FAILED_NOT_APK: " in line
                   for line in lines), lines
        assert not [p for p in phone.fs.listdir("/data/local/tmp") if p.endswith(".apk")], "APKs left behind"
        phone.launch(package)                    # the installed app opens
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 90))


def test_a_folder_is_refused_in_one_sentence_and_nothing_is_pushed(
        window: MainWindow, qt_loop: qasync.QEventLoop, tmp_path: Path) -> None:
    folder = tmp_path / "Holiday photos"
    folder.mkdir()
    (folder / "beach.jpg").write_bytes(b"\xff\xd8 beach")

    async def scenario() -> None:
        await window.connect_device("virtual")
        phone = _phone(window)
        assert drop(window, [folder])
        await asyncio.sleep(0.5)
        refusals = [line for line in window.log_view.lines() if "Holiday photos" in line]
        assert len(refusals) == 1 and "folder" in refusals[0] and refusals[0].count(". ") == 0, refusals
        assert not phone.fs.exists("/sdcard/Download/beach.jpg")
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


async def test_pm_install_of_a_pushed_apk_answers_as_android_does(adb_server: AdbTestServer,
                                                                   sim: VirtualPhoneService) -> None:
    def adb(*args: str) -> tuple[int, str]:
        done = adb_server.run("-s", sim.serial, *args, timeout=60)
        return done.returncode, (done.stdout + done.stderr).decode().strip()

    package = read_apk(REAL_APK.read_bytes()).package
    assert (await asyncio.to_thread(adb, "push", str(REAL_APK), "/data/local/tmp/u.apk"))[0] == 0
    assert await asyncio.to_thread(adb, "shell", "pm", "install", "/data/local/tmp/u.apk") == (0, "Success")
    code, text = await asyncio.to_thread(adb, "shell", "pm", "install", "/data/local/tmp/u.apk")
    assert code == 1 and text.startswith(f"Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {package}")
    assert await asyncio.to_thread(adb, "shell", "pm", "install", "-r", "/data/local/tmp/u.apk") == (0, "Success")
    code, text = await asyncio.to_thread(adb, "shell", "pm", "install", "/data/local/tmp/none.apk")
    assert code == 1 and text == "Error: Can't open file: /data/local/tmp/none.apk"
    code, listed = await asyncio.to_thread(adb, "shell", "pm", "list", "packages", "-3")
    assert f"package:{package}" in listed.split()
