"""Take the README's picture of the Routines tab, with routines saved from demo runs.

    ../shared/tools/xshot /tmp/screen.png 90 .venv/bin/python docs/routines_screenshot.py docs/images

On the built-in virtual phone, with a temporary data folder and the rule-based planner (no key, nothing paid):
runs 'Text Bob "running late"' and "Turn on Wi-Fi", saves each from History as a routine through the Save as
routine dialog (the first with its parameters name and message), runs the first again from the Routines tab
with other values (Grace, "on my way"), and saves the Routines tab with it chosen as window-routines.png.
Pictures of the dialogs go to the temporary folder, for checking the layout.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from relay_desktop.agent.events import Event, RunFinished

TEXT_TASK, WIFI_TASK = 'Text Bob "running late"', "Turn on Wi-Fi"


async def _answer_confirmations(stop: asyncio.Event) -> None:
    """Say yes to the agent's confirmations (sending the text) as a person would."""
    while not stop.is_set():
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QMessageBox) and widget.isVisible() and "Allow the agent" in widget.text():
                widget.button(QMessageBox.StandardButton.Yes).click()
        await asyncio.sleep(0.1)


async def take(out: Path) -> None:
    from relay_desktop.sim.tasks import TASKS_BY_ID
    from relay_desktop.ui.device_picker import VIRTUAL
    from relay_desktop.ui.main_window import MainWindow
    from relay_desktop.ui.routine_dialogs import RunRoutineDialog

    scratch = Path(os.environ.get("RELAY_SHOT_SCRATCH") or tempfile.mkdtemp(prefix="relay-shots-dialogs-"))
    window = MainWindow()
    window.resize(1280, 860)
    window.show()
    await window.choose_models()
    window.models = None                                   # the rule-based planner: no key, nothing paid
    if not await window.connect_device(VIRTUAL):
        raise SystemExit("could not start the virtual phone:\n" + "\n".join(window.log_view.lines()))
    phone = window.session.service.phone
    finished: list[RunFinished] = []

    def watch(event: Event) -> None:
        if isinstance(event, RunFinished):
            finished.append(event)
    window.bus.subscribe(watch)
    stop = asyncio.Event()
    answering = asyncio.ensure_future(_answer_confirmations(stop))

    async def run(task_id: str, goal: str) -> str:
        TASKS_BY_ID[task_id].setup(phone)
        window.tabs.setCurrentIndex(0)
        window.panel.task.setPlainText(goal)
        count = len(finished)
        window.panel.start.click()
        while len(finished) == count:
            await asyncio.sleep(0.05)
        if finished[-1].outcome != "success":
            raise SystemExit(f"{goal}: {finished[-1].outcome}: {finished[-1].reason}")
        await window.recorder.flush()
        return finished[-1].run_id

    async def save_from_history(run_id: str, name: str, dont_ask: bool, picture: str) -> None:
        window.tabs.setCurrentIndex(2)
        await window.history.refresh()
        await window.history.open(run_id)
        window.history.save_routine_button.click()
        dialog = window.history.save_dialog
        assert dialog is not None
        dialog.name.setText(name)
        dialog.dont_ask.setChecked(dont_ask)
        await asyncio.sleep(0.4)
        dialog.grab().save(str(scratch / picture))
        print("saved", scratch / picture, flush=True)
        saved = await dialog.save()
        if saved is None:
            raise SystemExit(f"could not save {name}: {dialog.error.text()}")

    await save_from_history(await run("messages_text_bob", TEXT_TASK), "Text someone", True, "save-routine.png")
    await save_from_history(await run("wifi_on", WIFI_TASK), "Wi-Fi on", False, "save-routine-wifi.png")
    # The texting routine again, from the Routines tab, with other values: no model is asked.
    panel = window.routines_panel
    window.tabs.setCurrentIndex(3)
    await panel.refresh()
    panel.routines.setCurrentRow(panel.names().index("Text someone"))
    form = await panel.ask_run()
    assert isinstance(form, RunRoutineDialog)
    form.fields["name"].setText("Grace")
    form.fields["message"].setText("on my way")
    await asyncio.sleep(0.4)
    form.grab().save(str(scratch / "run-routine.png"))
    print("saved", scratch / "run-routine.png", flush=True)
    TASKS_BY_ID["messages_text_bob"].setup(phone)
    count = len(finished)
    form.run_here.click()
    while len(finished) == count:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    window.grab().save(str(scratch / "replayed-log.png"))
    print("saved", scratch / "replayed-log.png", flush=True)
    window.tabs.setCurrentIndex(3)
    await panel.refresh()
    panel.routines.setCurrentRow(panel.names().index("Text someone"))
    while panel.steps.count() < 4:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    path = out / "window-routines.png"
    window.grab().save(str(path))
    print("saved", path, flush=True)
    versions = await panel.show_versions()
    if versions is not None:
        await asyncio.sleep(0.4)
        versions.grab().save(str(scratch / "versions.png"))
        print("saved", scratch / "versions.png", flush=True)
        versions.close()
    stop.set()
    await answering
    await window.shutdown()
    window.close()


def main() -> int:
    from screenshots import shoot  # docs/screenshots.py, beside this script

    return shoot(take, 150)


if __name__ == "__main__":
    raise SystemExit(main())
