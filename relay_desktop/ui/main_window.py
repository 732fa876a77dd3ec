"""The main window: one pane per connected phone — its mirror on the left; the device picker, its task, controls,
live log, inspector and history on the right — as tabs (no tab bar while there is one phone) or side by side.

The window holds what the phones share — the settings, the API keys and the model router, the run store, the
device picker, the theme, speech and the status bar — and each ``PhonePane`` the rest. The attributes of one
phone (``session``, ``panel``, ``mirror_view``, ``log_view``, …) are the current pane's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.agent.events import ActionStarted, Event, PlanReceived
from relay_desktop.app_settings import AppSettings
from relay_desktop.device.models import DeviceInfo
from relay_desktop.llm.keys import BUILTIN_PROVIDERS, KeyStore
from relay_desktop.routines.model import BoundRoutine
from relay_desktop.runs import RunStore
from relay_desktop.ui.device_picker import NETWORK, VIRTUAL, DevicePicker
from relay_desktop.ui.group_run import GroupControl
from relay_desktop.ui.phone_deck import PhoneDeck
from relay_desktop.ui.phone_pane import NO_PHONE, PhonePane
from relay_desktop.ui.routine_library import RoutineLibrary
from relay_desktop.ui.settings_dialog import SettingsDialog
from relay_desktop.ui.speech import Speaker, spoken_text
from relay_desktop.ui.status_line import show_elided
from relay_desktop.ui.tasks import spawn
from relay_desktop.ui.theme import ThemeFollower

__all__ = ["NO_KEY", "NO_PHONE", "MainWindow"]

NO_KEY = ("No API key yet, so the simple rule-based planner drives runs: add a key in Settings to let a model "
          "drive.")


def _current(name: str) -> Any:
    """An attribute of the current phone's pane, read through the window (``window.session``, ``window.panel``)."""
    return property(lambda self: getattr(self.pane, name), doc=f"The current phone's {name}.")


class MainWindow(QMainWindow):
    closing = Signal()        # the user closed the window: the app shuts down (see ``app.run_window``)

    session = _current("session")
    settings_button = _current("settings_button")
    bus = _current("bus")
    sink = _current("sink")
    mirror_view = _current("mirror_view")
    panel = _current("panel")
    log_view = _current("log_view")
    inspector = _current("inspector")
    refresh = _current("refresh")
    tabs = _current("tabs")
    history = _current("history")
    routines_panel = _current("routines")
    recorder = _current("recorder")
    boxes_toggle = _current("boxes_toggle")
    screen_recording = _current("screen_recording")
    inspecting = _current("inspecting")
    refresh_elements = _current("refresh_elements")

    def __init__(self) -> None:
        super().__init__()
        self._shutdown: asyncio.Task[None] | None = None
        self.setWindowTitle("Relay Desktop")
        self.app_settings = AppSettings.load()
        app = QApplication.instance()
        self.theme = ThemeFollower(app, self.app_settings.theme, self) if isinstance(app, QApplication) else None
        self.store = RunStore()
        self.routines = RoutineLibrary(self.store, self)     # beside the history, in the same database file
        self.group = GroupControl(lambda: self.panes, self.say, self)
        self.keys = KeyStore()
        self.models: Any = None                    # one router for every phone's runs (each run has its own meter)
        self._retired: list[Any] = []              # routers replaced while a run still used them: closed at the end
        self.settings = self.app_settings.agent_settings()
        self.speaker = Speaker()
        self.speaker.enabled = self.app_settings.speak_progress
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing: set[PhonePane] = set()      # phones being let go of (their tab's close was pressed)
        self._asking_to_quit = False               # the window's close asked "Stop it and quit?"; not answered yet
        self._quit_agreed = False                  # the user agreed to stop the runs and quit
        self.side_by_side = QCheckBox("Side by si&de", self)
        self.side_by_side.setAccessibleName("Show the phones side by side")
        self.side_by_side.setToolTip("Show every connected phone at once, side by side, instead of a tab each")
        self.side_by_side.hide()                   # one phone: nothing to put beside it
        self.picker = DevicePicker(self)
        self.picker.refresh_requested.connect(lambda: self._spawn(self.refresh_devices()))
        self.picker.connect_requested.connect(lambda kind, extra: self._spawn(self.connect_device(kind, extra)))
        self.key_notice = QLabel(NO_KEY, self)
        self.key_notice.setWordWrap(True)
        self.key_notice.setAccessibleName("No API key")
        self.key_notice.hide()
        # The picker and the key notice: above the current phone's task (as with one phone), or above all of
        # them side by side.
        self.top = QWidget(self)
        top = QVBoxLayout(self.top)
        top.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.picker, 1)
        row.addWidget(self.side_by_side)
        top.addLayout(row)
        top.addWidget(self.key_notice)
        # A settings file moved aside at this load: said where it stays in view (the status line soon moves on).
        self.settings_notice = QLabel(self.app_settings.problem, self)
        self.settings_notice.setWordWrap(True)
        self.settings_notice.setAccessibleName("Settings file unreadable")
        self.settings_notice.setVisible(bool(self.app_settings.problem))
        top.addWidget(self.settings_notice)
        self.deck = PhoneDeck(self)
        self.deck.current_changed.connect(self._pane_changed)
        self.deck.close_requested.connect(lambda pane: self._spawn(self.close_phone(pane)))
        self.side_by_side.toggled.connect(self._set_side_by_side)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        self._top_slot = QVBoxLayout()
        self._top_slot.setContentsMargins(6, 4, 6, 4)      # side by side, the picker is not flush with the edge
        layout.addLayout(self._top_slot)
        layout.addWidget(self.deck, 1)
        self._top_in: QVBoxLayout | None = None
        self.setCentralWidget(central)
        self.status_device = QLabel("No phone", self)
        self.status_fps = QLabel("", self)
        self.status_llm = QLabel("", self)
        for label in (self.status_device, self.status_fps, self.status_llm):
            self.statusBar().addPermanentWidget(label)
        self.add_pane()
        room = self.screen().availableGeometry()         # a laptop's 1366x768: the whole window on the screen
        self.resize(min(1200, room.width()), min(860, room.height() - 40))
        if self.app_settings.problem:       # the file was moved aside at this load: said once, here
            self.say(self.app_settings.problem)

    # ------------------------------------------------------------ the phones

    @property
    def pane(self) -> PhonePane:
        """The current phone's pane (the chosen tab, or the tile last used); there is always one."""
        current = self.deck.current
        assert current is not None
        return current

    @property
    def panes(self) -> list[PhonePane]:
        return list(self.deck.panes)

    def add_pane(self) -> PhonePane:
        pane = PhonePane(self, self.store, self)
        pane.session.on_progress = self.picker.busy
        pane.bus.subscribe(lambda event: self._pane_event(pane, event))
        pane.sink.frame_ready.connect(lambda: self._show_fps(pane))
        pane.changed.connect(self._phones_changed)
        self.statusBar().insertPermanentWidget(0, pane.screen_recording.status)
        self.deck.add(pane)
        return pane

    async def refresh_devices(self) -> list[DeviceInfo]:
        own = {pane.session.service.serial for pane in self.deck.panes if pane.session.service is not None}
        try:
            devices = [d for d in await self.pane.session.list_devices() if d.serial not in own]
        except Exception as exc:  # adb missing or a remote server gone: the picker still offers the virtual phone
            self.say(f"Could not list phones: {exc}")
            devices = []
        self.picker.show_devices(devices)
        return devices

    async def connect_device(self, kind: str, extra: str = "") -> bool:
        """Connect what the picker chose — a serial, the virtual phone, or a network address — beside the phones
        already connected: in the current pane while it has no phone, else in a new one. A phone already
        connected is shown instead."""
        index = self.picker.choice.findData(kind)
        if index >= 0:
            self.picker.choice.setCurrentIndex(index)
        there = next((p for p in self.deck.panes if kind not in (VIRTUAL, NETWORK) and p.key == kind), None)
        if there is not None:
            self.deck.set_current(there)
            there.say(f"{kind} is already connected: this is its tab.")
            return True
        previous = self.pane
        new = not previous.free
        pane = self.add_pane() if new else previous
        self.deck.set_current(pane)
        try:
            connected = await pane.connect(kind, extra)
        finally:
            self.picker.busy("")
        if not connected and new and pane in self.deck.panes:   # no empty tab for a phone that never came
            message = pane.log_view.lines()[-1] if pane.log_view.lines() else ""
            await self._drop(pane)
            self.deck.set_current(previous)
            previous.log_view.add_line(message)
        if connected and kind == NETWORK:       # a phone reached over the network joins the list it was not in
            self._spawn(self.refresh_devices())
        return connected

    async def close_phone(self, pane: PhonePane) -> bool:
        """Let go of one phone (its tab's close button): during a run, only once the user agrees to stop it."""
        if pane in self._closing:               # asked again (a second click) while the first is under way
            return False
        self._closing.add(pane)
        try:
            return await self._close_phone(pane)
        finally:
            self._closing.discard(pane)

    async def _close_phone(self, pane: PhonePane) -> bool:
        if pane.session.running:
            box = QMessageBox(QMessageBox.Icon.Question, "Disconnect",
                              f"{pane.label} has a run going on. Stop it and disconnect the phone?",
                              QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
            if await self._dialog(box) != QMessageBox.StandardButton.Yes:
                return False
        if pane not in self.deck.panes:
            return False
        await self._drop(pane)
        return True

    async def _drop(self, pane: PhonePane) -> None:
        await pane.close()
        self.deck.remove(pane)                  # the next current pane takes the picker before this one goes
        self.statusBar().removeWidget(pane.screen_recording.status)
        pane.screen_recording.status.deleteLater()
        pane.deleteLater()
        if not self.deck.panes:                 # the window always shows one, if only to say what to do
            self.add_pane()
        self._phones_changed()

    def _set_side_by_side(self, on: bool) -> None:
        self.deck.set_side_by_side(on)
        self._place_top()

    def _place_top(self) -> None:
        slot = self._top_slot if self.deck.side_by_side or self.deck.current is None else self.pane.dock
        if slot is not self._top_in:
            if self._top_in is not None:
                self._top_in.removeWidget(self.top)
            slot.insertWidget(0, self.top)
            self._top_in = slot
            self.top.show()

    def _pane_changed(self) -> None:
        self._place_top()
        self._phones_changed()
        if self.deck.current is not None:
            self._show_fps(self.pane)

    def _phones_changed(self) -> None:
        """The status bar and the picker follow the phones: which are connected, which one is shown."""
        if self.deck.current is None:
            return
        pane = self.pane
        self.side_by_side.setVisible(len(self.deck.panes) > 1 or self.side_by_side.isChecked())
        phones = [p for p in self.deck.panes if p.key is not None]
        for each in self.deck.panes:
            each.set_several(len(phones) > 1)
        label = pane.label if pane.key is not None else "No phone"
        self.status_device.setText(label if len(phones) < 2 else f"{label} · {len(phones)} phones")
        self.picker.set_connected([p.key for p in phones if p.key is not None], pane.key)

    def run_on_all(self, task: str, routine: BoundRoutine | None = None) -> None:
        """Group control: ``task`` (or ``routine``) on every connected, idle phone at once; a table at the end."""
        self._spawn(self.group.run(task, routine))

    def _show_fps(self, pane: PhonePane) -> None:
        if pane is self.deck.current:
            self.status_fps.setText(f"{pane.mirror_view.fps:.0f} fps" if pane.session.mirror else "")

    def _pane_event(self, pane: PhonePane, event: Event) -> None:
        """One voice and one model-latency figure: the current phone's."""
        if pane is not self.deck.current:
            return
        if isinstance(event, PlanReceived) and event.source == "model":
            self.status_llm.setText(f"LLM {event.latency_ms / 1000:.1f} s")
        self._speak(pane, event)

    # The Record button's parts, as the current pane shows them.
    record_button = property(lambda self: self.pane.screen_recording.button)
    record_status = property(lambda self: self.pane.screen_recording.status)
    recording = property(lambda self: self.pane.screen_recording.recorder)
    last_recording = property(lambda self: self.pane.screen_recording.last_path)

    async def startup(self) -> None:
        """What a plain start does: models from the settings, and the phone if exactly one is plugged in."""
        await self.choose_models()
        ready = [device.serial for device in await self.refresh_devices() if device.ready]
        if len(ready) == 1:
            await self.connect_device(ready[0])
        else:
            self.say(NO_PHONE if not ready else "Several phones are plugged in: choose one and press Connect.")

    def status(self, text: str, pane: PhonePane | None = None) -> None:
        """The status line; with several phones, news from one of them names it."""
        several = sum(p.key is not None for p in self.deck.panes) > 1
        show_elided(self.statusBar(), f"{pane.label}: {text}" if pane and pane.label and several else text, 8000)

    def say(self, text: str) -> None:
        """A sentence for the status line and the current phone's log."""
        self.status(text)
        self.pane.log_view.add_line(f"· {text}")

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    # ------------------------------------------------------------ settings

    def open_settings(self) -> SettingsDialog:
        phone = self.pane.session.device       # its apps are read for the private apps' suggestions
        dialog = SettingsDialog(self.app_settings, self.keys, self,
                                installed_apps=phone.installed_apps if phone is not None else None)
        if not self.speaker.available:
            dialog.speak.setEnabled(False)
            dialog.speak.setToolTip(self.speaker.why_unavailable())
            # The reason is long (what to install): in the tooltip, so the line fits the dialog.
            dialog.speak.setText("Speak progress aloud (unavailable here: no text-to-speech; point at it for why)")
        dialog.accepted.connect(lambda: self._apply_settings(dialog.saved))
        dialog.keys_changed.connect(lambda: self._spawn(self.choose_models()))   # a key removed: at once
        dialog.open()  # not exec(): runs and the mirror go on while it is open
        return dialog

    def _apply_settings(self, saved: AppSettings | None) -> None:
        if saved is None:
            return
        self.app_settings = saved
        self.settings = saved.agent_settings()
        self.speaker.enabled = saved.speak_progress
        if self.theme is not None:
            self.theme.apply(saved.theme)
        self._spawn(self.choose_models())
        self.say("Settings saved.")

    async def choose_models(self) -> None:
        """The router for the saved models when their provider has a key; else the rule-based planner."""
        from relay_desktop.llm.router import ModelRouter

        llm = self.app_settings.llm
        first = llm.chain("fast")[0] if llm.chain("fast") else None
        provider = llm.providers.get(first.provider) if first else None
        has_key = provider is not None and (not provider.needs_key or bool(await self.keys.akeys(provider.name)))
        if self.models is not None:
            if any(pane.session.running for pane in self.deck.panes):
                self._retired.append(self.models)    # a run still going keeps the router it started with
            else:
                await self.models.aclose()
        self.models = ModelRouter(llm, self.keys) if has_key else None
        notice = NO_KEY
        if not has_key and first is not None:
            # A key saved for another provider than the models use must not read as "no key yet".
            others = [name for name in BUILTIN_PROVIDERS if name != first.provider and await self.keys.akeys(name)]
            if others:
                notice = (f"The models in Settings use {first.provider} ({first}), which has no API key; there is "
                          f"a key for {', '.join(others)}: choose its models in Settings. Until then the simple "
                          "rule-based planner drives runs.")
        self.key_notice.setText(notice)
        self.key_notice.setVisible(not has_key)
        self.say(f"Models: {first}" if has_key else notice)

    # ------------------------------------------------------------ runs

    async def _dialog(self, box: QMessageBox) -> int:
        # open() does not block the event loop the way exec() would: the agents, the mirrors and the logs go on.
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        box.finished.connect(lambda result: done.done() or done.set_result(result))
        box.open()
        return await done

    def _speak(self, pane: PhonePane, event: Event) -> None:
        name = None
        element_map = pane.inspector.element_map
        if isinstance(event, ActionStarted) and event.action.element and element_map is not None:
            element = element_map.get(event.action.element)
            # The label's first part: "Network & internet", not its whole summary line.
            name = element.name.split(" · ")[0] if element is not None else None
        text = spoken_text(event, name)
        if text is not None:
            self.speaker.say(text)

    async def shutdown(self) -> None:
        """Stop every run, let go of every phone, and write the last of the history. Once, however often asked
        (the close event and the app's own exit both ask)."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._shutdown)

    async def _shut_down(self) -> None:
        # What the window started for itself (a device list, a connection) ends with it: left running, a read
        # against a phone being let go waits for it to come back and outlives the window.
        ours = [t for t in self._tasks if t is not asyncio.current_task() and not t.done()]
        for task in ours:
            task.cancel()
        await asyncio.gather(*ours, return_exceptions=True)
        await asyncio.gather(*(pane.close() for pane in self.deck.panes))
        for models in (*self._retired, self.models):
            if models is not None:
                await models.aclose()
        self._retired, self.models = [], None

    async def _ask_to_quit(self) -> None:
        """During a run, the window closes (Alt+F4, its title bar's ×) only once the user agrees to stop it, as
        closing a tab asks; the runs themselves are stopped by the shutdown that follows the close."""
        self._asking_to_quit = True
        try:
            box = QMessageBox(QMessageBox.Icon.Question, "Quit", "A run is going on. Stop it and quit?",
                              QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
            if await self._dialog(box) != QMessageBox.StandardButton.Yes:
                return
        finally:
            self._asking_to_quit = False
        self._quit_agreed = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._quit_agreed and any(pane.session.running for pane in self.deck.panes):
            event.ignore()                     # asked, not closed: the run, the mirrors and the window go on
            if not self._asking_to_quit:       # pressed twice: still one question
                self._spawn(self._ask_to_quit())
            return
        # The shutdown itself is awaited by whoever runs the loop (``app.run_window``), which keeps the loop
        # going until the runs are stopped and the phones let go; stopping the loop first crashed every close.
        for pane in self.deck.panes:
            pane.sink.stop()
        self.closing.emit()
        super().closeEvent(event)
