"""The main window: the phone on the left, the task, controls and live log on the right."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from relay_desktop.agent import EventBus, Handlers
from relay_desktop.agent.actions import finger_vector
from relay_desktop.agent.events import (
    ActionStarted,
    Event,
    GuidanceUpdated,
    PlanReceived,
    RunFinished,
    RunStarted,
    RunStateChanged,
    ScreenCaptured,
    StepStarted,
)
from relay_desktop.agent.settings import task_problem
from relay_desktop.app_settings import AppSettings
from relay_desktop.device.models import DeviceInfo
from relay_desktop.llm.keys import BUILTIN_PROVIDERS, KeyStore
from relay_desktop.runs import RunRecorder, RunStore
from relay_desktop.ui.device_picker import NETWORK, VIRTUAL, DevicePicker
from relay_desktop.ui.history import HistoryPanel
from relay_desktop.ui.inspector import InspectorPanel
from relay_desktop.ui.log_view import LogView
from relay_desktop.ui.mirror_view import MirrorView
from relay_desktop.ui.screen_recording import ScreenRecording
from relay_desktop.ui.screen_sink import ScreenSink
from relay_desktop.ui.session import Session
from relay_desktop.ui.settings_dialog import SettingsDialog
from relay_desktop.ui.speech import Speaker, spoken_text
from relay_desktop.ui.task_panel import TaskPanel
from relay_desktop.ui.tasks import spawn
from relay_desktop.ui.theme import ThemeFollower

__all__ = ["NO_KEY", "NO_PHONE", "MainWindow"]

REINSPECT_MS = 600   # a screen unchanged this long is read again for Inspect

NO_PHONE = ("No phone connected: plug one in with USB debugging on and press Connect, or choose “Virtual phone "
            "(built-in)” to try Relay Desktop without one.")
NO_KEY = ("No API key yet, so the simple rule-based planner drives runs: add a key in Settings to let a model "
          "drive.")


class MainWindow(QMainWindow):
    closing = Signal()        # the user closed the window: the app shuts down (see ``app.run_window``)

    def __init__(self) -> None:
        super().__init__()
        self._shutdown: asyncio.Task[None] | None = None
        self.setWindowTitle("Relay Desktop")
        self.app_settings = AppSettings.load()
        app = QApplication.instance()
        self.theme = ThemeFollower(app, self.app_settings.theme, self) if isinstance(app, QApplication) else None
        self.bus = EventBus()
        self.sink = ScreenSink(self)
        self.mirror_view = MirrorView(self.sink, self)
        self.panel = TaskPanel(self)
        self.log_view = LogView(self)
        self.settings_button = QPushButton("Se&ttings…", self)
        self.settings_button.setAccessibleName("Open the settings")
        self.settings_button.clicked.connect(self.open_settings)
        self.boxes_toggle = QCheckBox("Show element &boxes", self)
        self.boxes_toggle.setChecked(True)
        self.boxes_toggle.toggled.connect(self._toggle_boxes)
        self.store = RunStore()
        self.screen_recording = ScreenRecording(
            self, lambda: self.session.mirror, self.store, self.say,
            lambda: self.session.agent.run_id if self.session.running and self.session.agent else None,
            lambda: self.recorder.flush())
        run_tab = QWidget(self)
        layout = QVBoxLayout(run_tab)
        layout.addWidget(self.panel)
        toggles = QHBoxLayout()
        toggles.addWidget(self.boxes_toggle)
        toggles.addStretch(1)
        toggles.addWidget(self.record_button)
        toggles.addWidget(self.settings_button)
        layout.addLayout(toggles)
        layout.addWidget(QLabel("Log", run_tab))
        layout.addWidget(self.log_view, 1)
        self.inspector = InspectorPanel(self)
        inspect_tab = QWidget(self)
        inspect_layout = QVBoxLayout(inspect_tab)
        self.refresh = QPushButton("&Read the screen again", inspect_tab)
        self.refresh.setAccessibleName("Read the phone's screen again")
        self.refresh.clicked.connect(lambda: self._spawn(self.refresh_elements()))
        inspect_layout.addWidget(self.refresh)
        inspect_layout.addWidget(self.inspector, 1)
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Task, inspector and history")
        self.tabs.addTab(run_tab, "&Task")
        self.tabs.addTab(inspect_tab, "&Inspect")
        self.recorder = RunRecorder(self.store)
        self.recorder.attach(self.bus)
        self.history = HistoryPanel(self, self.store)
        self.tabs.addTab(self.history, "&History")
        self.tabs.currentChanged.connect(self._tab_changed)
        self.picker = DevicePicker(self)
        self.picker.refresh_requested.connect(lambda: self._spawn(self.refresh_devices()))
        self.picker.connect_requested.connect(lambda kind, extra: self._spawn(self.connect_device(kind, extra)))
        self.key_notice = QLabel(NO_KEY, self)
        self.key_notice.setWordWrap(True)
        self.key_notice.setAccessibleName("No API key")
        self.key_notice.hide()
        side = QWidget(self)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.picker)
        side_layout.addWidget(self.key_notice)
        side_layout.addWidget(self.tabs, 1)
        self.inspector.selected.connect(self._show_selected)
        self.inspector.hovered.connect(self._show_hovered)
        self.mirror_view.clicked.connect(self._mirror_clicked)
        self.mirror_view.touched.connect(self._touched)
        self.mirror_view.scrolled.connect(lambda x, y, steps: self._control(
            lambda m, screen: m.scroll(x, y, screen, steps)))
        self.mirror_view.typed.connect(lambda text: self._control(lambda m, screen: m.type_text(text)))
        self.mirror_view.key_pressed.connect(lambda key: self._control(lambda m, screen: m.press_key(key)))
        # In Inspect, boxes taken down by a screen change come back from a fresh dump once the screen is still.
        self._reinspect = QTimer(self)
        self._reinspect.setSingleShot(True)
        self._reinspect.setInterval(REINSPECT_MS)
        self._reinspect.timeout.connect(lambda: self._reinspect_now())
        self.mirror_view.overlays_stale.connect(self._overlays_stale)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.mirror_view)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)
        self.status_device = QLabel("No phone", self)
        self.status_fps = QLabel("", self)
        self.status_llm = QLabel("", self)
        for label in (self.screen_recording.status, self.status_device, self.status_fps, self.status_llm):
            self.statusBar().addPermanentWidget(label)
        self.session = Session(self.bus, self.sink, self.say)
        self.session.on_connected = self._connected
        self.session.on_progress = self.picker.busy
        self.mirror_view.notice = NO_PHONE
        self.speaker = Speaker()
        self.speaker.enabled = self.app_settings.speak_progress
        self.keys = KeyStore()
        self.models: Any = None
        self.settings = self.app_settings.agent_settings()
        self.bus.subscribe(self._on_event)
        self.panel.start_requested.connect(self._start)
        self.panel.pause_requested.connect(lambda: self.session.agent and self.session.agent.control.pause())
        self.panel.resume_requested.connect(lambda: self.session.agent and self.session.agent.control.resume())
        self.panel.stop_requested.connect(self._stop)
        self.panel.message_sent.connect(self._steer)
        self.sink.frame_ready.connect(lambda: self.status_fps.setText(f"{self.mirror_view.fps:.0f} fps"))
        self._tasks: set[asyncio.Task[Any]] = set()
        self._run_started: float | None = None      # live stats of the run in progress
        # Elapsed time ticks by itself (a pause or a long model call sends no events), in whole seconds so the
        # final figure (tenths, measured from just before the start) never reads lower than the last tick. Four
        # ticks a second: Qt's coarse timers may fire up to 5% early, so a 1 s tick can land at 0.95 s, still
        # read "0 s", and leave the figure a whole second behind until the next one.
        self._clock = QTimer(self)
        self._clock.setInterval(250)
        self._clock.timeout.connect(lambda: self._tick())   # a bound slot here did not always fire
        self._tokens, self._cost = 0, 0.0
        self.resize(1200, 860)

    # ------------------------------------------------------------ the phone

    async def refresh_devices(self) -> list[DeviceInfo]:
        try:
            devices = await self.session.list_devices()
        except Exception as exc:  # adb missing or a remote server gone: the picker still offers the virtual phone
            self.say(f"Could not list phones: {exc}")
            devices = []
        self.picker.show_devices(devices)
        return devices

    async def connect_device(self, kind: str, extra: str = "") -> bool:
        """Connect what the picker chose: a serial, the virtual phone, or a network address."""
        if self.session.running:
            self.say("Stop the run before switching phones.")
            return False
        index = self.picker.choice.findData(kind)
        if index >= 0:
            self.picker.choice.setCurrentIndex(index)
        self.mirror_view.notice = "Connecting…"
        self.mirror_view.clear_frame()
        try:
            if kind == VIRTUAL:
                await self.session.start_virtual_phone()
            elif kind == NETWORK:
                address, _, server = extra.partition("\n")
                await self.session.connect_network(address, server)
            else:
                await self.session.connect(kind)
        except Exception as exc:  # every way connecting fails ends here, as one plain sentence
            self.picker.set_connected(None)
            self.screen_recording.available(False)
            self.say(f"Could not connect: {exc}")
            self.status_device.setText("No phone")
            self.mirror_view.notice = f"Could not connect: {exc}\n\n{NO_PHONE}"
            self.mirror_view.update()
            return False
        finally:
            self.picker.busy("")
        self.screen_recording.available(self.session.mirror is not None)
        device = self.session.device
        self.picker.set_connected(VIRTUAL if kind == VIRTUAL else device.serial if device else None)
        if kind == NETWORK:           # a phone reached over the network joins the list it was not in
            self._spawn(self.refresh_devices())
        return True

    # The Record button's parts, as the window shows them.
    @property
    def record_button(self) -> QPushButton:
        return self.screen_recording.button

    @property
    def record_status(self) -> QLabel:
        return self.screen_recording.status

    @property
    def recording(self) -> Any:
        return self.screen_recording.recorder

    @property
    def last_recording(self) -> Any:
        return self.screen_recording.last_path

    def _connected(self, label: str) -> None:
        self.status_device.setText(label)
        self.mirror_view.display_size = self.session.display_size   # boxes map through the whole display

    async def startup(self) -> None:
        """What a plain start does: models from the settings, and the phone if exactly one is plugged in."""
        await self.choose_models()
        ready = [device.serial for device in await self.refresh_devices() if device.ready]
        if len(ready) == 1:
            await self.connect_device(ready[0])
        else:
            self.say(NO_PHONE if not ready else "Several phones are plugged in: choose one and press Connect.")

    def say(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)
        self.log_view.add_line(f"· {text}")

    def _toggle_boxes(self, on: bool) -> None:
        self.mirror_view.show_boxes = on
        self.mirror_view.update()

    def _spawn(self, coroutine: Any) -> None:
        spawn(coroutine, self._tasks)

    # ------------------------------------------------------------ inspect

    @property
    def inspecting(self) -> bool:
        return self.tabs.currentIndex() == 1

    def _tab_changed(self, index: int) -> None:
        if index == 2:
            self._spawn(self.history.refresh())
        if index == 1:
            self._spawn(self.refresh_elements())
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
        xml = await self.session.device.dump_hierarchy()
        element_map = await asyncio.to_thread(build_element_map, xml, self.inspector.element_map)
        self.mirror_view.show_elements(element_map)
        self.inspector.show_map(element_map)

    def _overlays_stale(self) -> None:
        if self.inspecting and not self.session.running:
            self._reinspect.start()               # restarted by every change: waits for a still screen

    def _reinspect_now(self) -> None:
        if self.inspecting and not self.session.running:
            self._spawn(self.refresh_elements())

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
        screen = self._phone_size()
        self._spawn(action(mirror, screen))

    def _phone_size(self) -> tuple[int, int]:
        # The same size the view used to turn the pointer into device pixels.
        return self.mirror_view.screen_size()

    def _touched(self, kind: str, x: float, y: float) -> None:
        from relay_desktop.mirror.protocol import MotionAction

        action = {"down": MotionAction.DOWN, "move": MotionAction.MOVE, "up": MotionAction.UP}[kind]
        self._control(lambda m, screen: m.touch(action, x, y, screen))

    # ------------------------------------------------------------ settings

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self.app_settings, self.keys, self)
        if not self.speaker.available:
            dialog.speak.setEnabled(False)
            dialog.speak.setToolTip(self.speaker.why_unavailable())
            dialog.speak.setText(f"Speak progress aloud (unavailable: {self.speaker.why_unavailable()})")
        dialog.accepted.connect(lambda: self._apply_settings(dialog.saved))
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

    def _start(self, task: str) -> None:
        problem = task_problem(task)
        if problem is not None:
            self.say(f"Cannot start: {problem}.")
            self.panel.task.setFocus()
            return
        if self.session.device is None:
            self.say("Connect a phone first (or start the virtual phone).")
            return
        self.panel.set_state("running")
        self.session.start_run(task, self.models, self.settings, Handlers(ask_user=self._ask, confirm=self._confirm))

    def _stop(self) -> None:
        if self.session.agent is not None:
            self._spawn(self.session.agent.control.stop())

    def _steer(self, text: str) -> None:
        if self.session.agent is not None:
            self.session.agent.control.steer(text)
            self.log_view.add_line(f"· you: {text}")

    async def _dialog(self, box: QMessageBox) -> int:
        # open() does not block the event loop the way exec() would: the agent, the mirror and the log go on.
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        box.finished.connect(lambda result: done.done() or done.set_result(result))
        box.open()
        return await done

    async def _ask(self, question: str) -> str | None:
        from PySide6.QtWidgets import QInputDialog

        dialog = QInputDialog(self)
        dialog.setWindowTitle("The agent asks")
        dialog.setLabelText(question)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        dialog.finished.connect(lambda result: done.done() or done.set_result(bool(result)))
        dialog.open()
        return dialog.textValue().strip() or None if await done else None

    async def _confirm(self, description: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "Confirm", f"Allow the agent to {description}?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        return await self._dialog(box) == QMessageBox.StandardButton.Yes

    # ------------------------------------------------------------ events

    def _on_event(self, event: Event) -> None:
        self.log_view.add_event(event)
        self._speak(event)
        if isinstance(event, RunStarted):
            self._run_started, self._tokens, self._cost = event.time, 0, 0.0
            self.screen_recording.covers(event.run_id)
            for name in ("step", "tokens", "cost", "approach"):
                self.panel.set_stat(name, "–")
            self._clock.start()
        if self._run_started is not None:
            self._tick()
        view = self.mirror_view
        if isinstance(event, ScreenCaptured):
            if all(event.display):
                view.display_size = event.display
            view.show_elements(event.element_map)
            self.inspector.show_map(event.element_map)
        elif isinstance(event, StepStarted):
            self.panel.set_stat("step", f"{event.step} / {event.max_steps}")
        elif isinstance(event, ActionStarted):
            view.show_target(event.bounds)
            if event.point is not None:
                view.animate_cursor(*event.point)
            elif event.action.action in ("swipe", "scroll") and event.bounds is not None:
                self._animate_swipe(event)
            view.update()
        elif isinstance(event, PlanReceived):
            self._tokens += event.input_tokens + event.output_tokens
            self._cost += event.cost_usd or 0.0
            self.panel.set_stat("tokens", f"{self._tokens:,}")
            self.panel.set_stat("cost", f"${self._cost:.4f}")
            if event.source == "model":
                self.status_llm.setText(f"LLM {event.latency_ms / 1000:.1f} s")
        elif isinstance(event, GuidanceUpdated):
            self.panel.set_stat("approach", event.approach)
        elif isinstance(event, RunStateChanged):
            self.panel.set_state(event.state)
            if event.state != "running":     # paused or stopping: what was drawn is about to be out of date
                view.hide_overlays()
        elif isinstance(event, RunFinished):
            self._clock.stop()
            view.hide_overlays()
            view.cursor.hide()
            self.panel.set_state("finished")
            self._run_started = None
            self.panel.set_stat("elapsed", f"{event.elapsed_s:.1f} s")
            self.panel.set_stat("tokens", f"{event.input_tokens + event.output_tokens:,}")
            self.panel.set_stat("cost", f"${event.cost_usd:.4f}")
            self.say(f"Run {event.outcome}: {event.reason}")
            if self.recorder.error:
                self.say(f"History not saved: {self.recorder.error}")

    def _tick(self) -> None:
        if self._run_started is not None:
            self.panel.set_stat("elapsed", f"{int(time.time() - self._run_started)} s")

    def _speak(self, event: Event) -> None:
        name = None
        element_map = self.inspector.element_map
        if isinstance(event, ActionStarted) and event.action.element and element_map is not None:
            element = element_map.get(event.action.element)
            # The label's first part: "Network & internet", not its whole summary line.
            name = element.name.split(" · ")[0] if element is not None else None
        text = spoken_text(event, name)
        if text is not None:
            self.speaker.say(text)

    def _animate_swipe(self, event: ActionStarted) -> None:
        assert event.bounds is not None
        left, top, right, bottom = event.bounds
        cx, cy = (left + right) / 2, (top + bottom) / 2
        dx, dy = finger_vector(event.action.action, str(event.action.params.get("direction", "up")))
        span_x, span_y = (right - left) * 0.3, (bottom - top) * 0.3
        self.mirror_view.animate_cursor(cx + dx * span_x, cy + dy * span_y,
                                        swipe_from=(cx - dx * span_x, cy - dy * span_y))

    async def shutdown(self) -> None:
        """Stop the run, let go of the phone, and write the last of the history. Once, however often asked
        (the close event and the app's own exit both ask)."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(self._shutdown)

    async def _shut_down(self) -> None:
        self._reinspect.stop()
        # What the window started for itself (a screen read for Inspect, a device list) ends with it: left
        # running, a read against a phone being let go waits for it to come back and outlives the window.
        ours = [t for t in self._tasks if t is not asyncio.current_task() and not t.done()]
        for task in ours:
            task.cancel()
        await asyncio.gather(*ours, return_exceptions=True)
        await self.screen_recording.stop()            # the video is finished before the phone is let go
        await self.session.close()
        await self.recorder.aclose()
        if self.models is not None:
            await self.models.aclose()
            self.models = None

    def closeEvent(self, event: QCloseEvent) -> None:
        # The shutdown itself is awaited by whoever runs the loop (``app.run_window``), which keeps the loop
        # going until the run is stopped and the phone let go; stopping the loop first crashed every close.
        self.sink.stop()
        self.closing.emit()
        super().closeEvent(event)
