"""One phone in the window: its mirror with the overlays and cursor, its task, run, log, inspector and history,
its own run clock and token and cost counters, its screen recording and its history recorder.

The window holds one pane per connected phone (a tab or a tile each) and what they share: the settings, the
models, the run store, the device picker, the theme and speech (see ``main_window``). Each pane has its own
``Session`` and ``EventBus``, so two runs on two phones never see each other's events.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Protocol

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.agent import AgentSettings, EventBus, RunResult
from relay_desktop.app_settings import AppSettings
from relay_desktop.routines.model import BoundRoutine
from relay_desktop.runs import RunRecorder, RunStore
from relay_desktop.ui.clipboard_sync import ClipboardSync
from relay_desktop.ui.device_picker import NETWORK, VIRTUAL
from relay_desktop.ui.file_drop import FileDrop
from relay_desktop.ui.history import HistoryPanel
from relay_desktop.ui.inspector import InspectorPanel
from relay_desktop.ui.log_view import LogView
from relay_desktop.ui.mirror_view import MirrorView
from relay_desktop.ui.pane_events import PaneEvents
from relay_desktop.ui.pane_runs import PaneRuns
from relay_desktop.ui.routine_library import RoutineLibrary
from relay_desktop.ui.routines_panel import RoutinesPanel
from relay_desktop.ui.screen_recording import ScreenRecording
from relay_desktop.ui.screen_sink import ScreenSink
from relay_desktop.ui.session import Session
from relay_desktop.ui.task_panel import TaskPanel
from relay_desktop.ui.tasks import spawn

__all__ = ["NO_PHONE", "PaneHost", "PhonePane"]

REINSPECT_MS = 600   # a screen unchanged this long is read again for Inspect

NO_PHONE = ("No phone connected: plug one in with USB debugging on and press Connect, or choose “Virtual phone "
            "(built-in)” to try Relay Desktop without one.")

MARKERS = {"running": "● running", "paused": "⏸ paused", "stopping": "■ stopping"}


class PaneHost(Protocol):
    """What a pane takes from the window: the models and settings of the moment, the saved routines, the status
    line, and runs on every phone at once."""

    models: Any
    settings: AgentSettings
    app_settings: AppSettings
    routines: RoutineLibrary

    def status(self, text: str, pane: PhonePane | None = None) -> None: ...   # pane: whose news it is

    def open_settings(self) -> Any: ...

    def run_on_all(self, task: str, routine: BoundRoutine | None = None) -> None: ...


class PhonePane(QWidget):
    changed = Signal()            # its phone, state or title changed: the tab, the picker and the status bar follow
    close_requested = Signal()    # the tile's Disconnect button (a tab has its own close button)

    def __init__(self, host: PaneHost, store: RunStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.store = store
        self.bus = EventBus()
        self.sink = ScreenSink(self)
        self.mirror_view = MirrorView(self.sink, self)
        self.mirror_view.notice = NO_PHONE
        self.panel = TaskPanel(self)
        self.log_view = LogView(self)
        self.boxes_toggle = QCheckBox("Show element &boxes", self)
        self.boxes_toggle.setChecked(True)
        self.boxes_toggle.toggled.connect(self._toggle_boxes)
        self.recorder = RunRecorder(store)
        self.recorder.attach(self.bus)
        self.session = Session(self.bus, self.sink, self.say)
        self.session.on_connected = self._connected
        self.session.on_lost = self._lost
        self.screen_recording = ScreenRecording(
            self, lambda: self.session.mirror, store, self.say,
            lambda: self.session.agent.run_id if self.session.running and self.session.agent else None,
            lambda: self.recorder.flush())
        self.label = ""                      # the phone's name, once connected
        self.key: str | None = None          # its entry in the device picker: a serial, or VIRTUAL
        self.connecting = False
        self.lost: str | None = None         # why the phone went away, when it did
        self.run_state = "idle"
        self._tasks: set[asyncio.Task[Any]] = set()
        self._build()
        self.events = PaneEvents(self)
        self.bus.subscribe(self.events.on_event)
        self.runs = PaneRuns(self)
        self.clipboard_sync = ClipboardSync(self.mirror_view, lambda: self.host.app_settings.clipboard_sync,
                                            self._control, self.spawn, self)
        self.file_drop = FileDrop(self.mirror_view, lambda: self.session.device, self.say,
                                  lambda text: self.host.status(text, self), self.spawn, self)
        self.panel.start_requested.connect(self.start)
        self.panel.start_all_requested.connect(lambda task: self.host.run_on_all(task))
        self.panel.pause_requested.connect(lambda: self.session.agent and self.session.agent.control.pause())
        self.panel.resume_requested.connect(lambda: self.session.agent and self.session.agent.control.resume())
        self.panel.stop_requested.connect(self.runs.stop)
        self.panel.message_sent.connect(self.runs.steer)

    def _build(self) -> None:
        run_tab = QWidget(self)
        layout = QVBoxLayout(run_tab)
        layout.addWidget(self.panel)
        toggles = QHBoxLayout()
        toggles.addWidget(self.boxes_toggle)
        toggles.addStretch(1)
        toggles.addWidget(self.screen_recording.button)
        self.settings_button = QPushButton("Se&ttings…", run_tab)
        self.settings_button.setAccessibleName("Open the settings")
        self.settings_button.clicked.connect(lambda: self.host.open_settings())
        toggles.addWidget(self.settings_button)
        layout.addLayout(toggles)
        layout.addWidget(QLabel("Log", run_tab))
        layout.addWidget(self.log_view, 1)
        self.inspector = InspectorPanel(self)
        inspect_tab = QWidget(self)
        inspect_layout = QVBoxLayout(inspect_tab)
        self.refresh = QPushButton("&Read the screen again", inspect_tab)
        self.refresh.setAccessibleName("Read the phone's screen again")
        self.refresh.clicked.connect(lambda: self.spawn(self.refresh_elements()))
        inspect_layout.addWidget(self.refresh)
        inspect_layout.addWidget(self.inspector, 1)
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Task, inspector and history")
        self.tabs.addTab(run_tab, "&Task")
        self.tabs.addTab(inspect_tab, "&Inspect")
        self.history = HistoryPanel(self, self.store, self.host.routines)
        self.tabs.addTab(self.history, "&History")
        self.history.said.connect(lambda text: self.host.status(text, self))
        self.routines = RoutinesPanel(self.host.routines, self)
        self.tabs.addTab(self.routines, "Ro&utines")
        self.routines.run_requested.connect(self.run_routine)
        self.routines.said.connect(lambda text: self.host.status(text, self))
        self.tabs.currentChanged.connect(self._tab_changed)
        self.inspector.selected.connect(self._show_selected)
        self.inspector.hovered.connect(self._show_hovered)
        view = self.mirror_view
        view.clicked.connect(self._mirror_clicked)
        view.touched.connect(self._touched)
        view.scrolled.connect(lambda x, y, steps: self._control(lambda m, screen: m.scroll(x, y, screen, steps)))
        view.typed.connect(lambda text: self._control(lambda m, screen: m.type_text(text)))
        view.key_pressed.connect(lambda key: self._control(lambda m, screen: m.press_key(key)))
        # In Inspect, boxes taken down by a screen change come back from a fresh dump once the screen is still.
        self._reinspect = QTimer(self)
        self._reinspect.setSingleShot(True)
        self._reinspect.setInterval(REINSPECT_MS)
        self._reinspect.timeout.connect(lambda: self._reinspect_now())
        view.overlays_stale.connect(self._overlays_stale)
        # Side by side, each tile says whose phone it is and can be let go of; in a tab, the tab does that.
        self.header = QWidget(self)
        header = QHBoxLayout(self.header)
        header.setContentsMargins(4, 2, 4, 2)
        self.header_title = QLabel("", self.header)
        self.header_title.setAccessibleName("Phone of this tile")
        self.disconnect_button = QPushButton("Disconnect", self.header)
        self.disconnect_button.setAccessibleName("Disconnect this phone")
        self.disconnect_button.clicked.connect(self.close_requested)
        header.addWidget(self.header_title, 1)
        header.addWidget(self.disconnect_button)
        self.header.hide()
        side = QWidget(self)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        self.dock = QVBoxLayout()          # where the window puts the device picker while this phone is shown
        side_layout.addLayout(self.dock)
        side_layout.addWidget(self.tabs, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(view)
        self.splitter.addWidget(side)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.header)
        outer.addWidget(self.splitter, 1)

    # ------------------------------------------------------------ the phone

    @property
    def free(self) -> bool:
        """No phone here and none on its way: a new connection can use this pane."""
        return self.session.device is None and not self.connecting and not self.session.running

    def title(self) -> str:
        if self.connecting:
            return "Connecting…"
        if self.session.device is None and self.lost is None:
            return "No phone"
        name = self.label or "Phone"
        if self.lost is not None:
            return f"{name}  ⚠ disconnected"
        marker = MARKERS.get(self.run_state) if self.session.running else None
        return f"{name}  {marker}" if marker else name

    def set_tiled(self, tiled: bool, current: bool = False) -> None:
        """Side by side: the header shows (marked when this tile is the current one)."""
        if tiled and not self.header.isVisible():     # a narrow tile: the phone's screen keeps a fair share
            width = max(self.splitter.width(), 5)
            self.splitter.setSizes([width * 2 // 5, width - width * 2 // 5])
        self.header.setVisible(tiled)
        self.header_title.setText(self.title())
        self.header_title.setStyleSheet("font-weight: bold" if current else "")

    async def connect(self, kind: str, extra: str = "") -> bool:
        """Connect what the picker chose here: a serial, the virtual phone, or a network address."""
        self.connecting, self.lost = True, None
        self.mirror_view.notice = "Connecting…"
        self.mirror_view.clear_frame()
        self.changed.emit()
        try:
            if kind == VIRTUAL:
                await self.session.start_virtual_phone()
            elif kind == NETWORK:
                address, _, server = extra.partition("\n")
                await self.session.connect_network(address, server)
            else:
                await self.session.connect(kind)
        except Exception as exc:  # every way connecting fails ends here, as one plain sentence
            self.screen_recording.available(False)
            self.say(f"Could not connect: {exc}")
            self.label, self.key = "", None
            self.mirror_view.notice = f"Could not connect: {exc}\n\n{NO_PHONE}"
            self.mirror_view.update()
            return False
        finally:
            self.connecting = False
            self.changed.emit()
        self.screen_recording.available(self.session.mirror is not None)
        self.clipboard_sync.attach(self.session.mirror)
        device = self.session.device
        self.key = VIRTUAL if kind == VIRTUAL else device.serial if device else None
        self.changed.emit()
        return True

    def _connected(self, label: str) -> None:
        self.label = label
        self.mirror_view.display_size = self.session.display_size   # boxes map through the whole display
        self.changed.emit()

    def _lost(self, reason: str) -> None:
        """The live mirror ended by itself: say so here, and find out whether the phone itself is gone."""
        self.say(f"The live mirror of {self.label or 'the phone'} ended: {reason}")
        self.screen_recording.available(False)
        self.spawn(self._check_gone())

    async def _check_gone(self) -> None:
        device = self.session.device
        if device is None:
            return
        try:
            states = {d.serial: d.state for d in await self.session.adb.devices()}
        except Exception as exc:  # the adb server itself is gone: the phone is unreachable too
            states, why = {}, str(exc)
        else:
            why = f"adb lists it as {states[device.serial]}" if device.serial in states else "adb no longer lists it"
        if states.get(device.serial) != "device":
            self.mark_lost(f"{device.serial} was disconnected ({why})")

    def mark_lost(self, reason: str) -> None:
        if self.lost is None:
            self.lost = reason
            self.say(f"This phone is gone: {reason}. Close its tab, or plug it in and connect it again.")
            self.mirror_view.notice = f"Disconnected: {reason}"
            self.mirror_view.update()
            self.changed.emit()

    def say(self, text: str) -> None:
        self.host.status(text, self)
        self.log_view.add_line(f"· {text}")

    def _toggle_boxes(self, on: bool) -> None:
        self.mirror_view.show_boxes = on
        self.mirror_view.update()

    def spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    # ------------------------------------------------------------ inspect

    @property
    def inspecting(self) -> bool:
        return self.tabs.currentIndex() == 1

    def _tab_changed(self, index: int) -> None:
        if index == 2:
            self.spawn(self.history.refresh())
        if index == 3:
            self.spawn(self.routines.refresh())
        if index == 1:
            self.spawn(self.refresh_elements())
        elif not self.session.running:    # Inspect's boxes are for Inspect; a run draws its own
            self.mirror_view.hide_overlays()
        else:
            self.mirror_view.selected = self.mirror_view.hovered = None
            self.mirror_view.update()

    async def refresh_elements(self) -> None:
        """Dump the screen now (not only during runs) so any screen can be inspected."""
        from relay_desktop.perception import build_element_map

        if self.session.device is None:
            return
        began = time.time()
        xml = await self.session.device.dump_hierarchy()
        element_map = await asyncio.to_thread(build_element_map, xml, self.inspector.element_map)
        # A screen the user inspects while recording may hold a password field: the video is masked there too.
        display = self.session.display_size          # the panel's natural size; the dump says how it is turned
        if display is not None and element_map.tree.rotation % 2:
            display = (display[1], display[0])
        self.screen_recording.saw(began, time.time(), element_map.tree, display)
        self.mirror_view.show_elements(element_map)
        self.inspector.show_map(element_map)

    def _overlays_stale(self) -> None:
        if self.inspecting and not self.session.running:
            self._reinspect.start()               # restarted by every change: waits for a still screen

    def _reinspect_now(self) -> None:
        if self.inspecting and not self.session.running:
            self.spawn(self.refresh_elements())

    def _mirror_clicked(self, x: float, y: float) -> None:
        if self.inspecting and self.inspector.element_map is not None:
            self.inspector.select(self.inspector.element_map.element_at(x, y))

    def _show_selected(self, element: Any) -> None:
        self.mirror_view.selected = element.bounds if element is not None else None
        self.mirror_view.update()

    def _show_hovered(self, element: Any) -> None:
        self.mirror_view.hovered = element.bounds if element is not None else None
        self.mirror_view.update()

    # ------------------------------------------------------------ control (the user's hands on the phone)

    def _control(self, action: Any) -> None:
        """Send the user's input to the phone; during a run, the agent pauses first (takeover)."""
        mirror = self.session.mirror
        if self.inspecting or mirror is None or mirror.frame_size is None:
            return
        agent = self.session.agent
        if agent is not None and agent.control.state == "running":
            agent.control.pause("you took over the phone")
            self.say("You took over: the agent is paused. Press Resume to let it carry on.")
        self.spawn(action(mirror, self.mirror_view.screen_size()))

    def _touched(self, kind: str, x: float, y: float) -> None:
        from relay_desktop.mirror.protocol import MotionAction

        action = {"down": MotionAction.DOWN, "move": MotionAction.MOVE, "up": MotionAction.UP}[kind]
        self._control(lambda m, screen: m.touch(action, x, y, screen))

    # ------------------------------------------------------------ runs and routines

    def start(self, task: str, routine: BoundRoutine | None = None) -> asyncio.Task[RunResult] | None:
        """Start ``task`` here (replaying ``routine``, or the saved routine it matches): see ``PaneRuns``."""
        return self.runs.start(task, routine)

    def run_routine(self, routine: BoundRoutine, everywhere: bool = False) -> asyncio.Task[RunResult] | None:
        """A routine chosen in the Routines tab: run here (shown in the Task tab), or on every phone at once."""
        if everywhere:
            self.host.run_on_all(routine.task, routine)
            return None
        run = self.start(routine.task, routine)
        if run is not None:                 # (a run still going keeps its own task in the box)
            self.panel.task.setPlainText(routine.task)
            self.tabs.setCurrentIndex(0)
        return run

    def set_several(self, several: bool) -> None:
        """Two or more phones are connected: group control (run on all of them) is offered."""
        self.panel.all_phones.setVisible(several)
        self.routines.several_phones = several

    async def close(self) -> None:
        """Stop the run, let go of the phone (and its virtual phone), and write the last of its history."""
        self._reinspect.stop()
        self.events.stop_clock()
        ours = [t for t in self._tasks if t is not asyncio.current_task() and not t.done()]
        for task in ours:
            task.cancel()
        await asyncio.gather(*ours, return_exceptions=True)
        await self.screen_recording.stop()            # the video is finished before the phone is let go
        await self.session.close()
        await self.recorder.aclose()
