"""A run in the window driven by a scripted model on the virtual phone: the log (steps, details, filter, copy,
export), the stats, spoken progress, and Pause and Stop while the model is thinking. Qt offscreen."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import qasync

from relay_desktop.agent.events import ActionStarted, PlanReceived, RunFinished, RunStateChanged
from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.speech import Speaker
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import held_wifi_models, wifi_agent
from tests.waiting import until


class FakeEngine:
    """Stands in for QTextToSpeech, which the Essentials wheel does not ship."""

    def __init__(self) -> None:
        self.spoken: list[str] = []

    def say(self, text: str) -> None:
        self.spoken.append(text)

    def stop(self) -> None:
        pass


def test_a_scripted_run_fills_the_log_with_steps_details_and_stats(
        window: MainWindow, qt_loop: qasync.QEventLoop, tmp_path: Path) -> None:
    from PySide6.QtGui import QGuiApplication

    finished: list[RunFinished] = []
    started: list[ActionStarted] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)
    window.bus.subscribe(lambda e: started.append(e) if isinstance(e, ActionStarted) else None)
    live: list[str] = []          # the stats as they read during the run, at each action
    window.bus.subscribe(lambda e: live.append(window.panel.stats["tokens"].text() + " | " +
                                               window.panel.stats["elapsed"].text())
                         if isinstance(e, ActionStarted) else None)
    window.speaker = Speaker(FakeEngine())
    window.speaker.enabled = True

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        TASKS_BY_ID["wifi_on"].setup(window.session.service.phone)      # Wi-Fi off, Settings closed
        window.models = ScriptedModels(wifi_agent)
        window.panel.task.setPlainText("Turn on Wi-Fi")
        window.panel.start.click()
        while not finished:
            await asyncio.sleep(0.05)
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert finished[0].outcome == "success", finished[0].reason
    log = window.log_view
    steps = [i for i in range(log.tree.topLevelItemCount()) if log.tree.topLevelItem(i).text(0).startswith("── step")]
    assert len(steps) == finished[0].steps >= 3
    # Each step holds its plan and action lines; the plan expands into the prompt and the raw response.
    first_step = log.tree.topLevelItem(steps[0])
    children = [first_step.child(i).text(0) for i in range(first_step.childCount())]
    assert children[0].startswith("Element map (") and any(c.startswith("plan (fake/fake-model") for c in children), \
        children
    plan = next(first_step.child(i) for i in range(first_step.childCount())
                if first_step.child(i).text(0).startswith("plan ("))
    details = {plan.child(i).text(0).split(" (")[0]: plan.child(i) for i in range(plan.childCount())}
    assert {"Prompt", "Response"} <= set(details)
    log.tree.setCurrentItem(details["Prompt"])
    assert "Turn on Wi-Fi" in log.detail.toPlainText()
    log.tree.setCurrentItem(details["Response"])
    assert '"launch_app"' in log.detail.toPlainText()
    log.tree.setCurrentItem(first_step.child(0))
    assert "Settings" in log.detail.toPlainText()           # the launcher's element map names the app
    # Filters: problems only hides the plan lines; text narrows to matching entries and their steps.
    log.filter_kind.setCurrentText("Problems")
    assert not any(line.startswith("plan (") for line in log.visible_lines())
    log.filter_kind.setCurrentText("Everything")
    log.filter_text.setText("launch_app")
    visible = log.visible_lines()
    assert any("launch_app Settings" in line for line in visible)
    assert not any("tap " in line for line in visible)
    log.filter_text.clear()
    assert log.visible_lines() == log.lines()
    # Copy takes what is shown; export writes everything with the details.
    assert log.copy_to_clipboard() == QGuiApplication.clipboard().text()
    assert "✔ success" in QGuiApplication.clipboard().text()
    exported = log.export_to(tmp_path / "log.txt").read_text(encoding="utf-8")
    assert "[Prompt (" in exported and "[Element map (" in exported and "Turn on Wi-Fi" in exported
    # Stats during the run (tokens so far, seconds so far) and after; the cursor; spoken progress.
    assert live and all(entry.split(" | ")[0] not in ("–", "0") and entry.endswith(" s") for entry in live), live
    assert window.panel.stats["tokens"].text() not in ("–", "0")
    assert window.panel.stats["step"].text() == f"{finished[0].steps} / 50"
    assert window.status_llm.text().startswith("LLM ")
    assert window.mirror_view.cursor.position is not None
    # The run is over: nothing stays drawn over a screen the agent no longer looks at.
    assert not window.mirror_view.boxes.boxes and window.mirror_view.boxes.target is None
    assert not window.mirror_view.cursor.visible
    spoken = list(window.speaker.said)
    assert spoken[:2] == ["step 1: opening Settings", "step 2: tapping Network & internet"]
    assert any(s.startswith("step ") and s.endswith("tapping Wi-Fi") for s in spoken), spoken
    assert spoken[-1] == "Task done."


def test_stop_during_a_model_call_ends_the_run_at_once_and_sends_nothing_more(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    release = asyncio.Event()
    calls: list[float] = []
    finished: list[RunFinished] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)

    actions: list[float] = []
    window.bus.subscribe(lambda e: actions.append(time.monotonic()) if isinstance(e, ActionStarted) else None)

    async def scenario() -> float:
        assert await window.connect_device("virtual")
        phone = window.session.service.phone
        TASKS_BY_ID["wifi_on"].setup(phone)
        window.models = held_wifi_models(release, calls)
        window.panel.task.setPlainText("Turn on Wi-Fi")
        window.panel.start.click()
        while len(calls) < 2:
            await asyncio.sleep(0.02)
        screen = phone.focused_activity()
        assert window.panel.stop.isEnabled()
        pressed = time.monotonic()
        window.panel.stop.click()
        while not finished:
            await asyncio.sleep(0.01)
        took = time.monotonic() - pressed
        release.set()                                        # the model answers late: nothing may act on it
        await asyncio.sleep(0.3)
        assert phone.focused_activity() == screen and not [t for t in actions if t >= pressed]
        await window.shutdown()
        return took

    took = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert finished[0].outcome == "stopped"
    assert took < 1.0, f"stop took {took:.2f} s"
    assert window.panel.start.isEnabled() and not window.panel.stop.isEnabled()
    assert not window.panel.pause.isEnabled()


def test_pause_during_a_model_call_holds_after_it_and_resume_finishes_the_task(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    release = asyncio.Event()
    calls: list[float] = []
    finished: list[RunFinished] = []
    states: list[str] = []
    plans: list[PlanReceived] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)
    window.bus.subscribe(lambda e: states.append(e.state) if isinstance(e, RunStateChanged) else None)
    window.bus.subscribe(lambda e: plans.append(e) if isinstance(e, PlanReceived) else None)

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        TASKS_BY_ID["wifi_on"].setup(window.session.service.phone)
        window.models = held_wifi_models(release, calls)
        window.panel.task.setPlainText("Turn on Wi-Fi")
        window.panel.start.click()
        while len(calls) < 2:
            await asyncio.sleep(0.02)
        window.panel.pause.click()
        assert states[-1] == "paused" and window.panel.resume.isEnabled() and not window.panel.pause.isEnabled()
        assert not window.mirror_view.boxes.boxes, "boxes stay drawn over a paused run's screen"
        assert any(line.startswith("⏸ Paused") for line in window.log_view.lines())
        ticked = window.panel.stats["elapsed"].text()
        release.set()
        await asyncio.sleep(1.3)
        assert window.panel.stats["elapsed"].text() != ticked, \
            f"elapsed time froze during the pause ({time.time() - (window.pane.events.run_started or 0):.2f} s since " \
            f"the start, clock {'on' if window.pane.events.clock.isActive() else 'off'})"
        assert len(calls) == 2 and not finished, "the agent went on while paused"
        assert not window.mirror_view.boxes.boxes and window.mirror_view.boxes.target is None
        window.panel.resume.click()
        while not finished:
            await asyncio.sleep(0.05)
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert finished[0].outcome == "success"
    assert "running" in states[states.index("paused"):]
    assert "▶ Resumed" in window.log_view.lines()


def test_the_agents_question_and_confirmation_are_dialogs_that_leave_the_loop_running(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

    from relay_desktop.agent.events import ActionResult, HumanInput
    from tests.agent_harness import Script
    from tests.agent_scripts import act

    def fast(call: int, request: LLMRequest) -> object:
        if call == 1:
            return act({"action": "ask_user", "question": "Which contact should I text?"})
        if call == 2:
            return act({"action": "shell", "command": "getprop ro.product.model"})
        return act({"action": "complete", "summary": "asked and was refused"})

    finished: list[RunFinished] = []
    asked: list[HumanInput] = []
    results: list[ActionResult] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)
    window.bus.subscribe(lambda e: asked.append(e) if isinstance(e, HumanInput) else None)
    window.bus.subscribe(lambda e: results.append(e) if isinstance(e, ActionResult) else None)
    models = ScriptedModels(Script(fast))

    def open_dialog(kind: type) -> object:
        shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, kind) and w.isVisible()]
        return shown[0] if shown else None

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        window.models = models
        window.settings = window.settings.__class__(shell_allowed=("getprop",))
        window.panel.task.setPlainText("Text my friend that I'm late")
        window.panel.start.click()
        await until(lambda: open_dialog(QInputDialog) is not None, 20)
        question = open_dialog(QInputDialog)
        assert question.labelText() == "Which contact should I text?"
        # The window goes on while the question waits: the phone keeps painting and the log can be used.
        painted = window.mirror_view.sink.painted
        window.session.service.phone.launch("com.android.settings")
        await until(lambda: window.mirror_view.sink.painted > painted, 20)
        question.setTextValue("Bob")
        question.accept()
        await until(lambda: open_dialog(QMessageBox) is not None, 20)
        box = open_dialog(QMessageBox)
        assert "getprop ro.product.model" in box.text()
        box.button(QMessageBox.StandardButton.No).click()
        await until(lambda: bool(finished), 20)
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert [(h.purpose, h.answer) for h in asked][:1] == [("question", "Bob")]
    assert any(h.purpose == "confirmation" for h in asked)
    # Refused: the command never ran (no result of it), and the log says why.
    assert not [r for r in results if r.action.action == "shell"]
    assert any(line.startswith("! Not confirmed by the user: run `getprop") for line in window.log_view.lines())
    assert any("Bob" in ScriptedModels.last_text(request) for request in models.requests_for("fast")[1:])


def test_a_phone_unplugged_mid_run_ends_the_run_with_a_plain_reason_in_the_window(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    """Fault matrix, in the window: the cable comes out during a run; the run ends as an error naming the phone,
    the buttons return to idle, the log and the status line say why, and the window stays usable."""
    release = asyncio.Event()
    calls: list[float] = []
    finished: list[RunFinished] = []
    window.bus.subscribe(lambda e: finished.append(e) if isinstance(e, RunFinished) else None)

    async def scenario() -> None:
        assert await window.connect_device("virtual")
        service = window.session.service
        TASKS_BY_ID["wifi_on"].setup(service.phone)
        assert window.session.device is not None
        window.session.device.reconnect_timeout = 1.0          # the test's patience, not the app's 8 s
        window.models = held_wifi_models(release, calls)
        window.panel.task.setPlainText("Turn on Wi-Fi")
        window.panel.start.click()
        await until(lambda: len(calls) >= 2, 20)
        service.unplug()
        release.set()
        await until(lambda: bool(finished), 30)
        service.replug()
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
    assert finished[0].outcome == "error"
    assert "disconnected" in finished[0].reason
    assert window.panel.start.isEnabled() and not window.panel.stop.isEnabled()
    assert any(line.startswith("✘ error after") and "disconnected" in line for line in window.log_view.lines())
