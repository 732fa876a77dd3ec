"""Several phones in one window (issue 18): a pane per phone, each with its own mirror, overlays, task, run, log,
inspector and counters; runs on two virtual phones at once; the picker adds a phone instead of replacing one; a
phone unplugged ends only its own run; closing a tab lets go of that phone only. Real widgets (Qt offscreen),
real virtual phones behind Google's adb, every wait with a deadline."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QTabBar
from pytestqt.qtbot import QtBot

from relay_desktop.agent.events import PlanReceived, RunFinished
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.ui.device_picker import VIRTUAL
from relay_desktop.ui.main_window import NO_PHONE, MainWindow
from relay_desktop.ui.phone_pane import PhonePane
from tests.agent_scripts import held_wifi_models
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.test_agent_e2e import wifi_model, wire_router
from tests.waiting import until


@dataclass
class Watch:
    """What one pane's run sent on its own event bus."""

    finished: list[RunFinished] = field(default_factory=list)
    plans: list[PlanReceived] = field(default_factory=list)
    calls: list[float] = field(default_factory=list)        # the held model's fast calls

    @classmethod
    def on(cls, pane: PhonePane) -> Watch:
        watch = cls()
        pane.bus.subscribe(lambda e: watch.finished.append(e) if isinstance(e, RunFinished) else None)
        pane.bus.subscribe(lambda e: watch.plans.append(e) if isinstance(e, PlanReceived) else None)
        return watch


async def _two_virtual_phones(window: MainWindow) -> tuple[PhonePane, PhonePane]:
    assert await window.connect_device(VIRTUAL)
    first = window.pane
    assert await window.connect_device(VIRTUAL)
    second = window.pane
    assert second is not first and window.panes == [first, second]
    return first, second


def test_two_phones_run_at_once_through_one_router_each_with_its_own_mirror_log_and_counters(
        window: MainWindow, qt_loop: qasync.QEventLoop, fake_llm: FakeLLMServer) -> None:
    fake_llm.default = Reply.from_request(wifi_model)
    both_running: list[bool] = []

    watch: dict[PhonePane, Watch] = {}

    async def scenario() -> tuple[PhonePane, PhonePane]:
        first, second = await _two_virtual_phones(window)
        window.side_by_side.setChecked(True)
        assert first.isVisible() and second.isVisible()           # both on screen at once
        for pane in (first, second):
            TASKS_BY_ID["wifi_on"].setup(pane.session.service.phone)
            await until(lambda pane=pane: pane.mirror_view.sink.painted > 0, 20)   # its own phone, mirrored
        window.models = wire_router(fake_llm, "openai")           # one router for both runs, as the window has
        for pane in (first, second):
            watch[pane] = Watch.on(pane)
            pane.panel.task.setPlainText("Turn on Wi-Fi")
            pane.panel.start.click()
        both_running.append(first.session.running and second.session.running)
        titles = (window.deck.tabs.tabText(0), first.header_title.text(), second.header_title.text())
        assert all("● running" in t for t in titles[1:]), titles
        await until(lambda: watch[first].finished and watch[second].finished, 60)
        for pane in (first, second):
            await pane.recorder.flush()
        return first, second

    try:
        first, second = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 90))
        router = window.models
        assert both_running == [True]
        serials = {pane: pane.session.device.serial for pane in (first, second)}  # type: ignore[union-attr]
        assert len(set(serials.values())) == 2
        for pane, other in ((first, second), (second, first)):
            done = watch[pane].finished[0]
            assert done.outcome == "success", done.reason
            assert pane.session.service.phone.setting("global", "wifi_on") == "1"
            # Its own counters: its own run's model calls, no more — the router served both runs at once.
            assert watch[pane].plans and {plan.run_id for plan in watch[pane].plans} == {done.run_id}
            tokens = done.input_tokens + done.output_tokens
            assert tokens > sum(plan.input_tokens + plan.output_tokens for plan in watch[pane].plans) > 0
            assert pane.panel.stats["tokens"].text() == f"{tokens:,}"
            assert pane.panel.stats["cost"].text() == f"${done.cost_usd:.4f}"
            assert pane.panel.stats["step"].text() == f"{done.steps} / 50"
            # Its own log: its own steps and outcome, never the other phone's run.
            lines = pane.log_view.lines()
            assert sum(line.startswith("── step") for line in lines) == done.steps
            assert sum(line.startswith("✔ success") for line in lines) == 1
            assert not any(watch[other].finished[0].run_id in line for line in lines)
            assert not any(serials[other] in line for line in lines), serials[other]
        total = sum(w.finished[0].input_tokens + w.finished[0].output_tokens for w in watch.values())
        assert router.meter.usage.input_tokens + router.meter.usage.output_tokens == total
        # The history has both runs, each with its own phone.
        runs = {run.serial: run for run in window.store.list_runs()}
        assert set(runs) == set(serials.values())
        for pane in (first, second):
            run, done = runs[serials[pane]], watch[pane].finished[0]
            assert (run.id, run.outcome, run.input_tokens) == (done.run_id, "success", done.input_tokens)
    finally:
        qt_loop.run_until_complete(asyncio.wait_for(window.shutdown(), 30))


def test_a_phone_unplugged_ends_only_its_own_run(window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    release = asyncio.Event()
    watch: dict[PhonePane, Watch] = {}

    async def scenario() -> tuple[PhonePane, PhonePane]:
        gone, stays = await _two_virtual_phones(window)
        for pane in (gone, stays):
            TASKS_BY_ID["wifi_on"].setup(pane.session.service.phone)
            watch[pane] = Watch.on(pane)
            window.models = held_wifi_models(release, watch[pane].calls)
            pane.panel.task.setPlainText("Turn on Wi-Fi")
            pane.panel.start.click()                               # each run keeps the models it started with
        assert gone.session.device is not None
        gone.session.device.reconnect_timeout = 1.0               # the test's patience, not the app's 8 s
        await until(lambda: len(watch[gone].calls) >= 2 and len(watch[stays].calls) >= 2, 20)
        gone.session.service.unplug()
        release.set()
        await until(lambda: watch[gone].finished and watch[stays].finished, 40)
        gone.session.service.replug()
        return gone, stays

    try:
        gone, stays = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 90))
        lost, done = watch[gone].finished[0], watch[stays].finished[0]
        assert lost.outcome == "error" and "disconnected" in lost.reason
        assert done.outcome == "success", done.reason
        assert stays.session.service.phone.setting("global", "wifi_on") == "1"
        # Each pane says what happened to its own phone, and only that.
        assert "disconnected" in window.deck.tabs.tabText(window.deck.tabs.indexOf(gone))
        assert "disconnected" not in window.deck.tabs.tabText(window.deck.tabs.indexOf(stays))
        assert any(line.startswith("· This phone is gone:") for line in gone.log_view.lines())
        assert not any("disconnected" in line for line in stays.log_view.lines())
        assert gone.panel.start.isEnabled() and stays.panel.start.isEnabled()
        assert gone.mirror_view.notice.startswith("Disconnected:")
    finally:
        qt_loop.run_until_complete(asyncio.wait_for(window.shutdown(), 30))


def test_a_phone_unplugged_without_a_run_is_said_in_its_own_pane(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    async def scenario() -> tuple[PhonePane, PhonePane]:
        gone, stays = await _two_virtual_phones(window)
        assert gone.session.device is not None
        gone.session.device.reconnect_timeout = 1.0
        gone.session.service.unplug()
        await until(lambda: gone.lost is not None, 30)           # the mirror gives up after its restarts
        gone.session.service.replug()
        return gone, stays

    try:
        gone, stays = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
        assert any(line.startswith("· The live mirror of Virtual phone") for line in gone.log_view.lines())
        assert "disconnected" in window.deck.tabs.tabText(window.deck.tabs.indexOf(gone))
        assert stays.lost is None and stays.session.mirror is not None and stays.session.mirror.live
        assert not any("mirror" in line and "ended" in line for line in stays.log_view.lines())
    finally:
        qt_loop.run_until_complete(asyncio.wait_for(window.shutdown(), 30))


def test_the_picker_adds_a_phone_and_shows_one_already_connected(
        window: MainWindow, adb_server: AdbTestServer, qt_loop: qasync.QEventLoop) -> None:
    picker = window.picker

    async def scenario() -> None:
        plugged = VirtualPhoneService(PhoneConfig(serial="PLUGGED1"), adb=adb_server.server())
        await plugged.start()
        try:
            picker.refresh.click()
            await until(lambda: picker.choice.findData(plugged.serial) >= 0, 20)
            picker.choice.setCurrentIndex(picker.choice.findData(plugged.serial))
            picker.connect_button.click()
            await until(lambda: window.pane.session.device is not None and picker.progress.isHidden(), 30)
            usb = window.pane
            picker.choice.setCurrentIndex(picker.choice.findData(VIRTUAL))
            picker.connect_button.click()
            await until(lambda: len(window.panes) == 2 and window.pane.session.device is not None
                        and picker.progress.isHidden(), 30)
            virtual = window.pane
            assert virtual is not usb and usb.session.device is not None       # added, not replaced
            items = [picker.choice.itemText(i) for i in range(picker.choice.count())]
            assert any(plugged.serial in t and t.endswith("— connected") for t in items), items
            assert "Virtual phone (built-in) — connected" in items
            assert window.status_device.text().endswith(" · 2 phones")
            assert not window.deck.tabs.tabBar().isHidden()                   # two phones: two tabs
            # The phone already connected again: its tab comes forward, nothing else happens.
            picker.choice.setCurrentIndex(picker.choice.findData(plugged.serial))
            picker.connect_button.click()
            await until(lambda: window.pane is usb, 10)
            assert len(window.panes) == 2
            assert window.status_device.text() == f"{plugged.serial} · 2 phones"
            # Another virtual phone is a phone of its own.
            assert await window.connect_device(VIRTUAL)
            assert len(window.panes) == 3 and window.pane.session.device is not None
            assert window.pane.session.device.serial != virtual.session.device.serial  # type: ignore[union-attr]
            assert picker.choice.currentText() == "Virtual phone (built-in) — 2 connected"
            await window.shutdown()
        finally:
            await plugged.stop()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 90))


def test_a_phone_that_cannot_connect_leaves_no_empty_tab(window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    async def scenario() -> None:
        assert await window.connect_device(VIRTUAL)
        first = window.pane
        assert not await window.connect_device("NOSUCHPHONE")
        assert window.panes == [first] and window.pane is first and first.session.device is not None
        assert any("Could not connect" in line for line in first.log_view.lines())
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))


def test_closing_a_tab_lets_go_of_that_phone_and_asks_first_during_a_run(
        window: MainWindow, adb_server: AdbTestServer, qt_loop: qasync.QEventLoop) -> None:
    def open_box() -> QMessageBox | None:
        shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        return shown[0] if shown else None

    def close_tab(pane: PhonePane) -> None:
        tabs = window.deck.tabs
        button = tabs.tabBar().tabButton(tabs.indexOf(pane), QTabBar.ButtonPosition.RightSide)
        assert button is not None and button.isVisible()
        button.click()

    async def scenario() -> None:
        stays, closed = await _two_virtual_phones(window)
        closed_serial = closed.session.service.serial
        finished = Watch.on(closed).finished
        window.settings = window.settings.__class__(pace_s=2.0)     # a slow rule-based run
        closed.panel.task.setPlainText("Turn on Bluetooth")
        closed.panel.start.click()
        await until(lambda: closed.session.running, 20)
        close_tab(closed)
        await until(lambda: open_box() is not None, 10)
        close_tab(closed)                                          # pressed twice: still one question
        await asyncio.sleep(0.2)
        assert len([w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]) == 1
        box = open_box()
        assert box is not None and "Stop it and disconnect" in box.text()
        box.button(QMessageBox.StandardButton.No).click()           # changed its mind: nothing happens
        await asyncio.sleep(0.3)
        assert window.panes == [stays, closed] and closed.session.running
        close_tab(closed)
        await until(lambda: open_box() is not None, 10)
        open_box().button(QMessageBox.StandardButton.Yes).click()   # type: ignore[union-attr]
        await until(lambda: window.panes == [stays], 20)
        assert finished and finished[0].outcome == "stopped"
        listed = {d.serial: d.state for d in await adb_server.server().devices()}
        assert listed.get(closed_serial) != "device"                 # that virtual phone is gone
        assert stays.session.device is not None and stays.session.mirror is not None and stays.session.mirror.live
        assert window.pane is stays and window.deck.tabs.tabBar().isHidden()   # one phone: no tab bar
        assert window.status_device.text().startswith("Virtual phone (127.0.0.1:")
        # The last phone let go of (from its tile): the window says what to do, as with none at start.
        window.side_by_side.setChecked(True)
        stays.disconnect_button.click()
        await until(lambda: window.pane is not stays, 20)
        assert window.session.device is None and window.mirror_view.notice == NO_PHONE
        assert window.status_device.text() == "No phone"
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 90))


def test_side_by_side_shows_every_pane_and_the_one_used_is_current(window: MainWindow, qtbot: QtBot) -> None:
    first = window.pane
    second = window.add_pane()
    assert window.pane is first and not second.isVisible()             # tabs: one pane at a time
    window.side_by_side.setChecked(True)
    assert first.isVisible() and second.isVisible() and second.header.isVisible()
    window.activateWindow()
    second.panel.task.setFocus()
    qtbot.waitUntil(lambda: window.pane is second, timeout=2000)       # the tile worked in is the current one
    assert second.header_title.styleSheet() == "font-weight: bold"
    window.side_by_side.setChecked(False)
    assert window.pane is second and second.isVisible() and not first.isVisible()
    assert window.deck.tabs.currentWidget() is second


def test_ctrl_enter_starts_the_task_of_the_tile_it_is_typed_in(window: MainWindow, qtbot: QtBot) -> None:
    first = window.pane
    second = window.add_pane()
    window.side_by_side.setChecked(True)
    window.activateWindow()
    second.panel.task.setPlainText("Turn on Wi-Fi")
    second.panel.task.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is second.panel.task, timeout=2000)
    qtbot.keyClick(second.panel.task, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    # No phone there yet: its own log says so (two panes' shortcuts on one key did nothing at all).
    assert any(line.startswith("· Connect a phone first") for line in second.log_view.lines())
    assert not any(line.startswith("· Connect a phone first") for line in first.log_view.lines())



def test_one_phone_looks_as_before_and_the_picker_follows_the_phone_shown(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    first = window.pane
    # One phone: no tab bar, no side-by-side switch, the picker above its task, as the window always was.
    assert window.deck.tabs.tabBar().isHidden() and not window.side_by_side.isVisible()
    assert first.isAncestorOf(window.picker) and window.picker.isVisible()
    second = window.add_pane()
    window.deck.set_current(second)
    assert second.isAncestorOf(window.picker) and window.picker.isVisible() and window.side_by_side.isVisible()
    window.side_by_side.setChecked(True)                     # side by side: above both, in neither
    assert not first.isAncestorOf(window.picker) and not second.isAncestorOf(window.picker)
    assert window.picker.isVisible()
    window.side_by_side.setChecked(False)
    assert second.isAncestorOf(window.picker)
    # The pane that holds the picker goes: the picker stays, with the phone shown next.
    assert qt_loop.run_until_complete(asyncio.wait_for(window.close_phone(second), 10))
    QApplication.processEvents()                             # the pane's deferred deletion happens
    assert window.panes == [first] and first.isAncestorOf(window.picker) and window.picker.isVisible()
    assert window.picker.choice.count() > 0 and not window.side_by_side.isVisible()
