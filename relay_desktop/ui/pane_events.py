"""A phone pane's run as it happens: its own events drive its log, overlays, cursor, stats, run clock and token
and cost counters. Every pane has one, on its own event bus, so two runs never add to each other's figures."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

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
from relay_desktop.agent.loop.observation import PROTECTED
from relay_desktop.agent.steps.actions import finger_vector

if TYPE_CHECKING:
    from relay_desktop.ui.phone_pane import PhonePane

__all__ = ["PaneEvents"]


class PaneEvents(QObject):
    def __init__(self, pane: PhonePane) -> None:
        super().__init__(pane)
        self.pane = pane
        self.run_started: float | None = None      # live stats of the run in progress
        self.tokens, self.cost = 0, 0.0
        # Elapsed time ticks by itself (a pause or a long model call sends no events), in whole seconds so the
        # final figure (tenths, measured from just before the start) never reads lower than the last tick. Four
        # ticks a second: Qt's coarse timers may fire up to 5% early, so a 1 s tick can land at 0.95 s, still
        # read "0 s", and leave the figure a whole second behind until the next one.
        self.clock = QTimer(self)
        self.clock.setInterval(250)
        self.clock.timeout.connect(lambda: self.tick())   # a bound slot here did not always fire

    def stop_clock(self) -> None:
        self.clock.stop()

    def on_event(self, event: Event) -> None:
        pane = self.pane
        panel, view = pane.panel, pane.mirror_view
        pane.log_view.add_event(event)
        if isinstance(event, RunStarted):
            self.run_started, self.tokens, self.cost = event.time, 0, 0.0
            pane.screen_recording.covers(event.run_id)
            for name in ("step", "tokens", "cost", "approach"):
                panel.set_stat(name, "–")
            self.clock.start()
            pane.run_state = "running"
            pane.changed.emit()
        if self.run_started is not None:
            self.tick()
        if isinstance(event, ScreenCaptured):
            if all(event.display):
                view.display_size = event.display
            view.show_elements(event.element_map)
            view.set_protected(event.withheld == PROTECTED)
            # The dump was read while the capture ran: its password fields are masked in a recording from then.
            pane.screen_recording.saw(event.time - event.capture_ms / 1000, event.time, event.element_map.tree,
                                      event.display)
            pane.inspector.show_map(event.element_map)
        elif isinstance(event, StepStarted):
            panel.set_stat("step", f"{event.step} / {event.max_steps}")
        elif isinstance(event, ActionStarted):
            view.show_target(event.bounds)
            if event.point is not None:
                view.animate_cursor(*event.point)
            elif event.action.action in ("swipe", "scroll") and event.bounds is not None:
                self._animate_swipe(event)
            view.update()
        elif isinstance(event, PlanReceived):
            self.tokens += event.input_tokens + event.output_tokens
            self.cost += event.cost_usd or 0.0
            panel.set_stat("tokens", f"{self.tokens:,}")
            panel.set_stat("cost", f"${self.cost:.4f}")
        elif isinstance(event, GuidanceUpdated):
            panel.set_stat("approach", event.approach)
        elif isinstance(event, RunStateChanged):
            panel.set_state(event.state)
            pane.run_state = event.state
            pane.changed.emit()
            if event.state != "running":     # paused or stopping: what was drawn is about to be out of date
                view.hide_overlays()
        elif isinstance(event, RunFinished):
            self._finished(event)

    def _finished(self, event: RunFinished) -> None:
        pane = self.pane
        self.clock.stop()
        pane.mirror_view.hide_overlays()
        pane.mirror_view.cursor.hide()
        pane.panel.set_state("finished")
        pane.panel.show_answer(event.answer)
        pane.run_state = "finished"
        self.run_started = None
        pane.panel.set_stat("elapsed", f"{event.elapsed_s:.1f} s")
        pane.panel.set_stat("tokens", f"{event.input_tokens + event.output_tokens:,}")
        pane.panel.set_stat("cost", f"${event.cost_usd:.4f}")
        pane.say(f"Run {event.outcome}: {event.reason}" + (f" — Answer: {event.answer}" if event.answer else ""))
        if pane.recorder.error:
            pane.say(f"History not saved: {pane.recorder.error}")
        if event.outcome == "error" and "disconnected" in event.reason:
            pane.mark_lost(event.reason)        # this phone only: the other phones' runs go on
        pane.changed.emit()

    def tick(self) -> None:
        if self.run_started is not None:
            self.pane.panel.set_stat("elapsed", f"{int(time.time() - self.run_started)} s")

    def _animate_swipe(self, event: ActionStarted) -> None:
        assert event.bounds is not None
        left, top, right, bottom = event.bounds
        cx, cy = (left + right) / 2, (top + bottom) / 2
        dx, dy = finger_vector(event.action.action, str(event.action.params.get("direction", "up")))
        span_x, span_y = (right - left) * 0.3, (bottom - top) * 0.3
        self.pane.mirror_view.animate_cursor(cx + dx * span_x, cy + dy * span_y,
                                             swipe_from=(cx - dx * span_x, cy - dy * span_y))
