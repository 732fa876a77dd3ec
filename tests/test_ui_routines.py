"""Routines in the window (issue 23): Save as routine from History, the Routines tab (run with other values,
rename, delete, export and import, versions), a typed task replaying the routine it matches (and not with the
setting off), the agent taking over where the phone differs (its steps marked, its fix saved as the next version),
and Run on all phones with its table. Real widgets (Qt offscreen), real virtual phones behind
Google's adb; models that must not be asked record every request; every wait has a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox, QWidget

from relay_desktop.agent.events import EventBus, PlanReceived, RunFinished, RunStarted
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import virtual_phone_server
from relay_desktop.routines.learn import learn_routine
from relay_desktop.routines.model import Routine
from relay_desktop.routines.service import RunActions
from relay_desktop.routines.yaml_format import from_yaml, to_yaml
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.ui.device_picker import VIRTUAL
from relay_desktop.ui.group_run import COLUMNS
from relay_desktop.ui.history import RUN_ID
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.phone_pane import PhonePane
from relay_desktop.ui.routine_dialogs import DONT_ASK, RunRoutineDialog, VersionsDialog
from relay_desktop.ui.routines_panel import EMPTY
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import text_agent
from tests.conftest import AdbTestServer
from tests.waiting import until

MESSAGES = "com.google.android.apps.messaging"
TEXT_BOB = TASKS_BY_ID["messages_text_bob"]          # 'Text Bob "running late"', from a fresh Messages
ROUTINE = "Text someone"
HISTORY, ROUTINES = 2, 3                              # the pane's tabs


def no_model() -> ScriptedModels:
    """Models that must not be asked: every request is recorded (and answered with an error)."""
    return ScriptedModels(lambda role, request: AssertionError("a replay that goes as recorded asks no model"))


def sent(pane: PhonePane) -> list[tuple[str, str]]:
    return [(m.name, m.text) for m in pane.session.service.phone.apps[MESSAGES].sent]


def shown(kind: type[QWidget], text: str = "") -> Any:
    """The visible top-level dialog of this kind (whose text holds ``text``), or None."""
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, kind) and widget.isVisible():
            label = widget.text() if isinstance(widget, QMessageBox) else ""
            if text in label:
                return widget
    return None


def finished_on(pane: PhonePane) -> list[RunFinished]:
    done: list[RunFinished] = []
    pane.bus.subscribe(lambda e: done.append(e) if isinstance(e, RunFinished) else None)
    return done


@pytest.fixture(scope="module")
async def texting_routine(adb_server: AdbTestServer) -> Routine:
    """'Text Bob "running late"' solved once by the rule-based planner on a virtual phone of its own, learnt as
    the routine "Text someone" (parameters name=Bob, message=running late) that does not ask before sending.
    Through the live mirror, as in the window: screenshots over adb took seconds a step on a busy machine."""
    service = VirtualPhoneService(PhoneConfig(), adb=adb_server.server())
    await service.start()
    device = await adb_server.server().device(service.serial)
    mirror = MirrorClient(device, virtual_phone_server(), max_size=1200)
    try:
        await asyncio.wait_for(mirror.start(), 20)
        assert await asyncio.wait_for(mirror.first_frame(10), 15)
        TEXT_BOB.setup(service.phone)
        bus = EventBus()
        actions = RunActions()
        actions.attach(bus)

        async def approve(description: str) -> bool:
            return True
        # No OCR: this module-wide fixture is set up before conftest's per-test switch turns it off.
        agent = Orchestrator(MirroredPhone(device, mirror), None, bus=bus, handlers=Handlers(confirm=approve),
                             settings=AgentSettings(max_steps=10, ocr=False))
        result = await asyncio.wait_for(agent.run(TEXT_BOB.goal), 40)
        assert result.outcome == "success", result.reason
    finally:
        await mirror.stop()
        await device.close()
        await service.stop()
    return learn_routine(ROUTINE, TEXT_BOB.goal, actions.records(), source_run=result.run_id, confirm=False)


def test_save_as_routine_takes_a_successful_run_with_its_parameters_and_not_a_failed_one(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    async def scenario() -> None:
        assert await window.connect_device(VIRTUAL)
        phone = window.session.service.phone
        done = finished_on(window.pane)
        window.models = None                                     # the rule-based planner
        window.settings = AgentSettings(max_steps=1)             # not enough to text anyone: a failed run
        TEXT_BOB.setup(phone)
        window.panel.task.setPlainText(TEXT_BOB.goal)
        window.panel.start.click()
        await until(lambda: done, 30)
        assert done[0].outcome != "success"
        window.settings = window.app_settings.agent_settings()
        TEXT_BOB.setup(phone)
        window.panel.start.click()
        await until(lambda: shown(QMessageBox, "Send SMS") is not None, 30)
        shown(QMessageBox, "Send SMS").button(QMessageBox.StandardButton.Yes).click()
        await until(lambda: len(done) == 2, 30)
        assert done[1].outcome == "success", done[1].reason
        await window.recorder.flush()
        history = window.history
        window.tabs.setCurrentIndex(HISTORY)
        await until(lambda: history.runs.count() == 2, 10)
        runs = {history.runs.item(i).data(0, RUN_ID): history.runs.item(i) for i in range(2)}
        failed, succeeded = done[0].run_id, done[1].run_id
        assert runs[failed].text(1) != "success" and runs[succeeded].text(1) == "success"
        await history.open(failed)
        assert not history.save_routine_button.isEnabled()
        await history.open(succeeded)
        assert history.save_routine_button.isEnabled()
        history.save_routine_button.click()
        dialog = history.save_dialog
        assert dialog is not None and dialog.isVisible() and not dialog.isModal()
        assert dialog.name.text() == TEXT_BOB.goal
        rows = [[dialog.parameters.item(r, c).text() for c in (0, 1)] for r in range(dialog.parameters.rowCount())]
        assert rows == [["name", "Bob"], ["message", "running late"]]
        assert dialog.dont_ask.text() == DONT_ASK
        # A value the task never gave: one sentence in the dialog, which stays open; nothing is saved.
        dialog.add_button.click()
        dialog.parameters.item(2, 0).setText("city")
        dialog.parameters.item(2, 1).setText("Paris")
        dialog.save_button.click()
        await until(lambda: dialog.error.text(), 10)
        assert "'Paris' is not in the task" in dialog.error.text() and "Traceback" not in dialog.error.text()
        assert dialog.isVisible() and window.routines.store.list() == []
        dialog.parameters.setCurrentCell(2, 0)
        dialog.remove_button.click()
        dialog.name.setText(ROUTINE)
        dialog.dont_ask.setChecked(True)
        dialog.save_button.click()
        await until(lambda: not dialog.isVisible(), 10)
        assert window.statusBar().currentMessage() == f"Saved routine “{ROUTINE}” (version 1)"
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 55))
    saved = window.routines.store.get(ROUTINE)
    assert [(p.name, p.default) for p in saved.parameters] == [("name", "Bob"), ("message", "running late")]
    assert saved.task == 'Text {name} "{message}"' and saved.confirm is False and saved.version == 1
    assert len(saved.steps) == 4


def test_the_routines_tab_runs_a_routine_with_other_values_and_no_model(
        window: MainWindow, qt_loop: qasync.QEventLoop, texting_routine: Routine) -> None:
    window.routines.store.save(texting_routine)
    models = no_model()

    async def scenario() -> None:
        assert await window.connect_device(VIRTUAL)
        TEXT_BOB.setup(window.session.service.phone)
        done = finished_on(window.pane)
        plans: list[PlanReceived] = []
        window.bus.subscribe(lambda e: plans.append(e) if isinstance(e, PlanReceived) else None)
        window.models = models
        panel = window.routines_panel
        window.tabs.setCurrentIndex(ROUTINES)                     # the list is read when the tab is shown
        await until(lambda: panel.names() == [ROUTINE], 10)
        row = panel.routines.item(0)
        assert [row.text(c) for c in range(6)] == [ROUTINE, "1", "4", "name=Bob, message=running late", "0",
                                                   'Text {name} "{message}"']
        await until(lambda: panel.steps.count() == 4, 10)
        assert panel.steps.item(0).text(1).startswith("launch app Messages")
        panel.run_button.click()
        await until(lambda: isinstance(panel.dialog, RunRoutineDialog) and panel.dialog.isVisible(), 10)
        form = panel.dialog
        assert not form.run_everywhere.isVisible()                 # one phone: nothing to run it on besides
        assert {name: field.text() for name, field in form.fields.items()} == {"name": "Bob",
                                                                                "message": "running late"}
        form.fields["name"].setText("Grace")
        form.fields["message"].setText("on my way")
        form.run_here.click()
        assert window.tabs.currentIndex() == 0 and window.session.running
        await until(lambda: done, 40)
        assert done[0].outcome == "success", done[0].reason
        assert {plan.source for plan in plans} == {"routine"}
        lines = window.log_view.lines()
        assert any(line.startswith(f"· Running the routine “{ROUTINE}” (version 1) with name=Grace, "
                                   "message=on my way") for line in lines), lines
        replayed = [line for line in lines if line.startswith(f"replayed (routine {ROUTINE} v1): ")]
        assert len(replayed) == 4 and 'showing "Grace"' in replayed[1] and '"on my way"' in replayed[2]
        steps = [line for line in lines if line.startswith("── step")]
        assert len(steps) == 4 and all(line.endswith(" · replayed") for line in steps), steps
        # The run is noted: the list (shown again) counts it.
        window.tabs.setCurrentIndex(ROUTINES)
        await until(lambda: panel.routines.count() == 1 and panel.routines.item(0).text(4).startswith(
            "1 (last success"), 10)
        assert sent(window.pane) == [("Grace Liu", "on my way")]
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 55))
    assert models.requests == []


def test_the_routines_tab_renames_exports_imports_shows_versions_and_deletes(
        window: MainWindow, qt_loop: qasync.QEventLoop, texting_routine: Routine, tmp_path: Path) -> None:
    store = window.routines.store
    panel = window.routines_panel

    def pick_file(path: Path) -> None:
        dialog = panel.dialog
        assert isinstance(dialog, QFileDialog) and dialog.isVisible()
        dialog.selectFile(str(path))
        dialog.accept()

    async def answer(kind: type[QWidget], act: Callable[[Any], None]) -> None:
        await until(lambda: isinstance(panel.dialog, kind) and panel.dialog.isVisible(), 10)
        act(panel.dialog)

    async def scenario() -> None:
        window.tabs.setCurrentIndex(ROUTINES)
        await until(lambda: panel.empty.isVisible(), 10)           # none yet: how to make one
        assert panel.empty.text() == EMPTY and "Save a successful run from History as a routine" in EMPTY
        assert not panel.run_button.isEnabled() and not panel.delete_button.isEnabled()
        await window.routines.save(texting_routine)               # saved elsewhere: the list follows
        await until(lambda: panel.names() == [ROUTINE] and panel.routines.isVisible(), 10)
        # Export, then import the file back: the same routine, as its version 2.
        exported = tmp_path / "texting.yaml"
        panel.export_button.click()
        pick_file(exported)
        await until(lambda: panel.status.text().startswith("Exported"), 10)     # written in full, not begun
        assert exported.read_text(encoding="utf-8") == to_yaml(store.get(ROUTINE))
        panel.import_button.click()
        pick_file(exported)
        await until(lambda: panel.routines.count() == 1 and panel.routines.item(0).text(1) == "2", 10)
        assert panel.status.text() == f"Imported the routine “{ROUTINE}” as version 2 (version 1 is kept)."
        again = store.get(ROUTINE)
        assert (again.steps, again.parameters, again.task) == (texting_routine.steps, texting_routine.parameters,
                                                                texting_routine.task)
        assert from_yaml(exported.read_text(encoding="utf-8")).steps == texting_routine.steps
        # A file that is not a routine: one plain sentence saying where, nothing saved.
        broken = tmp_path / "broken.yaml"
        broken.write_text("name: [unclosed\n", encoding="utf-8")
        panel.import_button.click()
        pick_file(broken)
        await until(lambda: panel.status.text().startswith("Could not import broken.yaml: "), 10)
        assert "line" in panel.status.text() and "Traceback" not in panel.status.text()
        assert [v.version for v in store.versions(ROUTINE)] == [1, 2]
        # Versions: each with its date, steps and note; the current one marked.
        panel.versions_button.click()
        await answer(VersionsDialog, lambda dialog: None)
        rows = panel.dialog.rows()
        assert [row[0] for row in rows] == ["1", "2 (current)"] and [row[2] for row in rows] == ["4", "4"]
        assert rows[0][3] == f"saved from run {texting_routine.source_run}"
        assert not panel.dialog.isModal()
        panel.dialog.close()
        # Rename.
        panel.rename_button.click()
        await answer(QInputDialog, lambda dialog: (dialog.setTextValue("Text a friend"), dialog.accept()))
        await until(lambda: panel.names() == ["Text a friend"], 10)
        assert store.get("Text a friend").version == 2
        # Delete asks first: No keeps it, Yes deletes it (all its versions).
        panel.delete_button.click()
        await answer(QMessageBox, lambda box: box.button(QMessageBox.StandardButton.No).click())
        await asyncio.sleep(0.2)
        assert panel.names() == ["Text a friend"]
        panel.delete_button.click()
        await answer(QMessageBox, lambda box: box.button(QMessageBox.StandardButton.Yes).click())
        await until(lambda: panel.empty.isVisible(), 10)
        assert store.list() == []
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 40))


def test_a_typed_task_that_matches_a_routine_replays_it_unless_the_setting_is_off(
        window: MainWindow, qt_loop: qasync.QEventLoop, texting_routine: Routine) -> None:
    window.routines.store.save(texting_routine)
    models = no_model()
    plans: list[PlanReceived] = []
    started: list[RunStarted] = []

    async def scenario() -> None:
        assert await window.connect_device(VIRTUAL)
        pane = window.pane
        TEXT_BOB.setup(pane.session.service.phone)
        done = finished_on(pane)
        pane.bus.subscribe(lambda e: plans.append(e) if isinstance(e, PlanReceived) else None)
        pane.bus.subscribe(lambda e: started.append(e) if isinstance(e, RunStarted) else None)
        window.models = models
        window.panel.task.setPlainText("Text Grace 'on my way'")
        window.panel.start.click()
        assert window.session.running                             # at once: the routine is looked up in the run
        await until(lambda: done, 40)
        assert done[0].outcome == "success", done[0].reason
        assert {plan.source for plan in plans} == {"routine"} and len(plans) == 4
        lines = window.log_view.lines()
        assert (f"· Using the saved routine “{ROUTINE}” (version 1) with name=Grace, message=on my way: it "
                "replays without a model.") in lines
        assert all(line.endswith(" · replayed") for line in lines if line.startswith("── step"))
        assert sent(pane) == [("Grace Liu", "on my way")]
        # The setting, off in Settings: the same task is the agent's (here the rule-based planner's) to do.
        dialog = window.open_settings()
        assert dialog.use_routines.text().replace("&", "") == "Use saved routines when a task matches one"
        assert dialog.use_routines.isChecked()
        dialog.use_routines.setChecked(False)
        await dialog.save()
        await until(lambda: not window._tasks, 10)               # the models chosen again after the save
        assert window.app_settings.use_routines is False
        window.models = None
        TEXT_BOB.setup(pane.session.service.phone)
        plans.clear()
        window.panel.start.click()
        await until(lambda: plans, 30)
        window.panel.stop.click()
        await until(lambda: len(done) == 2, 20)
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 55))
    assert models.requests == []
    assert "routine" in started[0].settings and "routine" not in started[1].settings
    assert plans and all(plan.source != "routine" for plan in plans)
    assert window.log_view.lines().count(
        f"· Using the saved routine “{ROUTINE}” (version 1) with name=Grace, message=on my way: it replays without "
        "a model.") == 1


def test_where_the_phone_differs_the_agent_takes_over_its_steps_are_marked_and_its_fix_saved(
        window: MainWindow, qt_loop: qasync.QEventLoop, texting_routine: Routine) -> None:
    window.routines.store.save(texting_routine)
    models = ScriptedModels(text_agent("Grace", "on my way"))

    async def scenario() -> None:
        assert await window.connect_device(VIRTUAL)
        phone = window.session.service.phone
        TEXT_BOB.setup(phone)
        phone.report_background_crash("com.google.android.deskclock")     # "Clock keeps stopping" in the way
        done = finished_on(window.pane)
        window.models = models
        window.panel.task.setPlainText("Text Grace 'on my way'")
        window.panel.start.click()
        await until(lambda: shown(QMessageBox, "Send SMS") is not None or done, 40)
        if not done:                              # the agent's own send asks (the routine's would not have)
            shown(QMessageBox, "Send SMS").button(QMessageBox.StandardButton.Yes).click()
        await until(lambda: done, 30)
        assert done[0].outcome == "success", done[0].reason
        await until(lambda: any("is repaired" in line for line in window.log_view.lines()), 10)
        assert sent(window.pane) == [("Grace Liu", "on my way")]
        await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 55))
    lines = window.log_view.lines()
    steps = [line for line in lines if line.startswith("── step")]
    assert steps[0].endswith(" · replayed"), steps
    # The agent's one turn closed the pop-up; the routine then went on by itself, without a model.
    agent = [line for line in steps if line.endswith(" · agent")]
    assert len(agent) == 1 and steps.index(agent[0]) == 1, steps
    assert all(line.endswith(" · replayed") for line in steps[2:]) and len(steps) > 2, steps
    assert any(line.startswith("plan (fake/fake-model") for line in lines)
    repaired = next(line for line in lines if "is repaired" in line)
    assert repaired.startswith(f"· The routine \"{ROUTINE}\" is repaired") and "saved as version 2" in repaired
    assert [v.version for v in window.routines.store.versions(ROUTINE)] == [1, 2]


def test_run_on_all_phones_replays_on_both_and_ends_with_a_table_of_two_successes(
        window: MainWindow, qt_loop: qasync.QEventLoop, texting_routine: Routine) -> None:
    window.routines.store.save(texting_routine)
    models = no_model()

    texted: list[list[tuple[str, str]]] = []

    async def scenario() -> list[PhonePane]:
        assert await window.connect_device(VIRTUAL)
        first = window.pane
        assert not first.panel.all_phones.isVisible()             # one phone: no group control
        assert await window.connect_device(VIRTUAL)
        second = window.pane
        window.deck.set_current(first)
        assert first.panel.all_phones.isVisible()
        window.tabs.setCurrentIndex(ROUTINES)                      # a routine, too, can run on every phone
        await until(lambda: first.routines.names() == [ROUTINE], 10)
        first.routines.run_button.click()
        await until(lambda: isinstance(first.routines.dialog, RunRoutineDialog), 10)
        assert first.routines.dialog.run_everywhere.isVisible()
        first.routines.dialog.reject()
        window.tabs.setCurrentIndex(0)
        for pane in (first, second):
            TEXT_BOB.setup(pane.session.service.phone)
        window.models = models
        first.panel.task.setPlainText("Text Grace 'on my way'")
        first.panel.all_phones.click()
        await until(lambda: first.session.running and second.session.running, 10)
        assert second.panel.task.toPlainText() == "Text Grace 'on my way'"
        await until(lambda: window.group.dialog is not None and window.group.dialog.isVisible(), 50)
        texted.extend(sent(pane) for pane in (first, second))
        # Inside the loop: what the runs still had to do (their history, the routine's note) must not be left
        # for qasync's last pass of Qt events after the loop stops, where no asyncio loop is running.
        await window.shutdown()
        return [first, second]

    try:
        first, second = qt_loop.run_until_complete(asyncio.wait_for(scenario(), 58))
    finally:
        qt_loop.run_until_complete(asyncio.wait_for(window.shutdown(), 30))
    dialog = window.group.dialog
    assert dialog is not None and not dialog.isModal()
    assert [dialog.table.horizontalHeaderItem(c).text() for c in range(dialog.table.columnCount())] == COLUMNS
    rows = dialog.rows()
    assert sorted(row[0] for row in rows) == sorted([first.label, second.label])
    assert [row[1:4] for row in rows] == [["success", "4", "0"]] * 2, [r.reason for r in window.group.results]
    assert all(row[4].endswith(" s") for row in rows)
    assert dialog.summary.text().endswith("2 of 2 phones succeeded.")
    assert models.requests == []
    assert texted == [[("Grace Liu", "on my way")]] * 2
