"""Take the README's picture of two phones side by side, each running its own task.

    XSHOT_SIZE=1700x1000 ../shared/tools/xshot /tmp/screen.png 60 \
        .venv/bin/python docs/two_phones_screenshot.py docs/images

Starts two built-in virtual phones in one window, shows them side by side, and runs "Turn on Wi-Fi" on one and
"Turn off Bluetooth" on the other with the rule-based planner (no key, nothing paid), slowed so a person can
follow. Saves the window itself once both runs have drawn their element boxes, with a temporary data folder.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from relay_desktop.agent.events import ActionStarted, Event, RunFinished

TASKS = (("wifi_on", "Turn on Wi-Fi"), ("bluetooth_off", "Turn off Bluetooth"))


async def take(out: Path) -> None:
    from relay_desktop.sim.tasks import TASKS_BY_ID
    from relay_desktop.ui.device_picker import VIRTUAL
    from relay_desktop.ui.main_window import MainWindow

    window = MainWindow()
    window.resize(1680, 960)
    window.show()
    await window.choose_models()
    window.models = None                                       # the rule-based planner drives both
    window.settings = window.app_settings.agent_settings(pace_s=2.0)
    panes = []
    for _ in TASKS:
        if not await window.connect_device(VIRTUAL):
            raise SystemExit("could not start a virtual phone:\n" + "\n".join(window.log_view.lines()))
        panes.append(window.pane)
    window.side_by_side.setChecked(True)
    actions = [0 for _ in panes]
    finished = [asyncio.Event() for _ in panes]

    def watch(index: int, event: Event) -> None:
        if isinstance(event, ActionStarted):
            actions[index] += 1
        elif isinstance(event, RunFinished):
            finished[index].set()
    for index, (pane, (task_id, goal)) in enumerate(zip(panes, TASKS, strict=True)):
        TASKS_BY_ID[task_id].setup(pane.session.service.phone)
        pane.bus.subscribe(lambda event, index=index: watch(index, event))
        pane.panel.task.setPlainText(goal)
        pane.panel.start.click()
    # Both runs under way, each showing the boxes of the screen it read (a moment that comes at each step).
    for _ in range(6000):
        if all(actions[i] >= 2 and pane.mirror_view.boxes.boxes for i, pane in enumerate(panes)):
            break
        await asyncio.sleep(0.005)
    path = out / "window-two-phones.png"
    window.grab().save(str(path))
    print("saved", path, flush=True)
    await asyncio.wait_for(asyncio.gather(*(event.wait() for event in finished)), 90)
    for pane in panes:
        print(pane.label, [line for line in pane.log_view.lines() if line.startswith(("✔", "✘"))], flush=True)
    await asyncio.sleep(float(os.environ.get("RELAY_SHOT_LINGER", "0")))
    await window.shutdown()
    window.close()


def main() -> int:
    from screenshots import shoot  # docs/screenshots.py, beside this script

    return shoot(take, 150)


if __name__ == "__main__":
    raise SystemExit(main())
