"""How smooth the window stays, and how fast Stop stops.

Run: .venv/bin/python benchmarks/window_stall.py [--seconds 20]   (Qt offscreen; no display needed)

1. Event-loop stall: a 5 ms timer probe in the window while the virtual phone is mirrored at 60 fps (its screen
   is redrawn every 16 ms) and the agent runs tasks back to back; prints p50/p99/max of the probe's lateness.
2. Stop latency: from the Stop button to the run's end and to the last command sent to the phone, with a
   model call in flight (a model that never answers) and with the rule-based planner acting.
Medians of one run; the machine has 2 cores and is noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from benchmarks.private_adb import private_adb_server
from relay_desktop.agent import AgentSettings
from relay_desktop.agent.events import RunFinished
from relay_desktop.ui.app import freeze_startup_objects
from relay_desktop.ui.main_window import MainWindow
from tests.agent_fakes import ScriptedModels


class Probe:
    def __init__(self, interval_ms: int = 5) -> None:
        self.interval = interval_ms / 1000
        self.late: list[float] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.late.append(max(0.0, now - self._last - self.interval) * 1000)
        self._last = now


async def stall(window: MainWindow, seconds: float) -> list[float]:
    phone = window.session.service.phone
    from relay_desktop.sim.tasks import TASKS_BY_ID

    async def redraw() -> None:  # 60 fps: the screen changes every frame
        while True:
            phone.invalidate()
            await asyncio.sleep(1 / 60)

    drawing = asyncio.ensure_future(redraw())
    probe = Probe()
    probe.timer.start()
    deadline = time.monotonic() + seconds
    tasks = ["wifi_on", "bluetooth_off", "about_phone", "clock_disable_8am"]
    n = 0
    try:
        while time.monotonic() < deadline:
            task = TASKS_BY_ID[tasks[n % len(tasks)]]
            task.setup(phone)
            done = asyncio.Event()
            unsubscribe = window.bus.subscribe(
                lambda e, done=done: done.set() if isinstance(e, RunFinished) else None)
            window.session.start_run(task.goal, None, AgentSettings(max_steps=10), window_handlers(window))
            await done.wait()
            unsubscribe()
            n += 1
    finally:
        probe.timer.stop()
        drawing.cancel()
    print(f"  {n} runs; the phone's screen redrawn at 60 Hz, the mirror delivering {window.mirror_view.fps:.0f} fps "
          "(the virtual phone renders and encodes 1080x2400 on this machine's 2 cores)")
    return probe.late


def window_handlers(window: MainWindow) -> Any:
    from relay_desktop.agent import Handlers

    async def yes(_: str) -> bool:
        return True
    return Handlers(confirm=yes)


async def stop_latency(window: MainWindow, hanging_model: bool, repeats: int) -> tuple[list[float], list[float]]:
    device = window.session.device
    assert device is not None
    sent: list[float] = []
    original = device.shell

    async def counted(*args: Any, **kwargs: Any) -> Any:
        sent.append(time.perf_counter())
        return await original(*args, **kwargs)

    device.shell = counted  # type: ignore[method-assign]
    ends, lasts = [], []
    try:
        for _ in range(repeats):
            never = asyncio.Event()

            async def hang(never: asyncio.Event = never) -> dict[str, Any]:
                await never.wait()
                return {}

            models = ScriptedModels(lambda role, request: hang()) if hanging_model else None
            window.session.start_run("Turn on Wi-Fi", models, AgentSettings(planning=False), window_handlers(window))
            await asyncio.sleep(0.5 if hanging_model else 0.15)
            clicked = time.perf_counter()
            window.panel.stop.setEnabled(True)
            window.panel.stop.click()
            assert window.session.run_task is not None
            await window.session.run_task
            ended = time.perf_counter()
            await asyncio.sleep(0.3)
            ends.append((ended - clicked) * 1000)
            after = [t for t in sent if t >= clicked]
            lasts.append(((max(after) - clicked) * 1000) if after else 0.0)
    finally:
        device.shell = original  # type: ignore[method-assign]
    return ends, lasts


async def main(seconds: float, repeats: int) -> None:
    window = MainWindow()
    window.show()
    freeze_startup_objects()                      # as run_window() does
    await window.session.start_virtual_phone()
    print(f"event-loop stall, {seconds:g} s of agent runs while mirroring a constantly changing screen (5 ms probe)")
    late = sorted(await stall(window, seconds))
    print(f"  p50 {statistics.median(late):5.1f} ms   p99 {late[int(len(late) * 0.99)]:5.1f} ms   "
          f"max {late[-1]:5.1f} ms   ({len(late):,} ticks)")
    for hanging, name in ((True, "model call in flight"), (False, "fallback planner acting")):
        ends, lasts = await stop_latency(window, hanging, repeats)
        print(f"stop latency, {name} ({repeats} runs): run ended after median {statistics.median(ends):5.1f} ms "
              f"(max {max(ends):5.1f}); last device command median {statistics.median(lasts):5.1f} ms "
              f"(max {max(lasts):5.1f}) after Stop")
    await window.shutdown()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--repeats", type=int, default=7)
    arguments = parser.parse_args()
    os.environ.setdefault("RELAY_DESKTOP_HOME", tempfile.mkdtemp(prefix="relay-bench-"))
    os.environ.setdefault("RELAY_SCRCPY_SERVER_URL", "http://127.0.0.1:9/none")  # the virtual phone's own server
    with private_adb_server():
        app = QApplication(sys.argv)
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            loop.run_until_complete(main(arguments.seconds, arguments.repeats))
