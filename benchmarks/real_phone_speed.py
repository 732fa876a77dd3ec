"""What a step costs on a real phone, apart from the model: four figures on the virtual phone's realistic profile.

Run: .venv/bin/python benchmarks/real_phone_speed.py [--runs 7] [--steps 12]

The realistic profile (relay_desktop/sim/config.py) gives the phone a real phone's timings: `uiautomator dump`
1.5 s, `screencap` 0.3 s, an activity transition 0.35 s, an input command 0.05 s, uiautomator2's dump 0.1 s.
Everything goes through Google's adb server on a private port, and the mirror through the scrcpy protocol.

1. Per step, excluding the model: the agent (zero-latency scripted model, live mirror, uiautomator2 server)
   against a mobilerun-style baseline measured in the same run: `uiautomator dump` and `screencap` in
   sequence, the tap, then a fixed 1.0 s sleep. With OCR off and on (OCR runs on this computer's CPU).
2. Hierarchy: uiautomator2's dumpWindowHierarchy against `uiautomator dump`.
3. Settle after an action: until the mirror shows the screen still, against the fixed 1–2 s of other agents;
   and whether the picture then is the final one.
4. Connect → first mirrored frame (desktop scrcpy's own figure is about 1 s).

Medians (and ratios) from one run: the machine is noisy, compare numbers from the same run only.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.private_adb import private_adb_server
from relay_desktop.agent.events import EventBus, ScreenCaptured, StepStarted
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.cli.phone_and_models import start_mirror
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.perception.pixels import pixel_signature, pixels_changed
from relay_desktop.sim.config import REALISTIC, PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import act, element_id

SETTINGS = "com.android.settings"


async def timed(operation: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await operation()
    return time.perf_counter() - started


def median_s(samples: list[float]) -> str:
    return f"{statistics.median(samples):6.2f} s"


# ------------------------------------------------------------ 1. per step


def toggler(role: str, request: Any) -> dict[str, Any]:
    """Opens and leaves a Settings page, turn by turn: every step changes the screen, none ends the run."""
    if request.contract is not None and request.contract.name == "progress":
        return {"progressing": True, "reason": "fine"}
    if role == "planning":
        return {"approaches": [{"name": "x", "description": "y", "steps": ["z"], "confidence": 1}],
                "recommended_index": 0}
    if request.contract is not None and request.contract.name != "act":
        return {"notes": []}
    page = element_id(request, "Display")
    return act({"action": "tap", "element": page}) if page else act({"action": "back"})


async def agent_steps(device: Any, mirror: Any, phone: Any, steps: int, ocr: bool,
                      captures: list[float]) -> list[float]:
    os.environ["RELAY_DESKTOP_OCR"] = "on" if ocr else "off"
    starts: list[float] = []
    bus = EventBus()
    bus.subscribe(lambda e: starts.append(time.perf_counter()) if isinstance(e, StepStarted) else None)
    bus.subscribe(lambda e: captures.append(e.capture_ms / 1000) if isinstance(e, ScreenCaptured) else None)
    phone.launch(SETTINGS)
    agent = Orchestrator(MirroredPhone(device, mirror), ScriptedModels(toggler), bus=bus,
                         settings=AgentSettings(max_steps=steps, consecutive_error_limit=steps))
    await agent.run("Open and close the Display page")
    starts.append(time.perf_counter())
    return [b - a for a, b in itertools.pairwise(starts[1:])]   # the first step also starts the services


async def baseline_steps(device: Any, phone: Any, steps: int) -> list[float]:
    """mobilerun-style: dump, then screencap, then the action, then a fixed 1.0 s wait for the screen."""
    phone.launch(SETTINGS)
    await device.ui_server.stop()          # on a real phone its UiAutomation would make `uiautomator dump` fail
    durations = []
    for step in range(steps):
        started = time.perf_counter()
        xml = await device._uiautomator_dump(3, 0.3)
        await device.screenshot()
        if step % 2 == 0:
            start = xml.find('text="Display"')
            bounds = xml[xml.find('bounds="', start) + 8:xml.find('"', xml.find('bounds="', start) + 8)]
            left, top, right, bottom = (int(v) for v in bounds.replace("][", ",").strip("[]").split(","))
            await device.tap((left + right) // 2, (top + bottom) // 2)
        else:
            await device.press_key("BACK")
        await asyncio.sleep(1.0)
        durations.append(time.perf_counter() - started)
    return durations


# ------------------------------------------------------------ 2. hierarchy


async def hierarchy(device: Any, runs: int) -> tuple[list[float], list[float]]:
    assert await device.ui_server.start(), device.ui_server.error
    fast = [await timed(device.ui_server.dump_hierarchy) for _ in range(runs)]
    await device.ui_server.stop()
    slow = [await timed(lambda: device._uiautomator_dump(3, 0.3)) for _ in range(runs)]
    return fast, slow


# ------------------------------------------------------------ 3. settle


async def settle(device: Any, mirror: Any, sim_phone: Any, runs: int) -> tuple[list[float], int]:
    phone = MirroredPhone(device, mirror)
    waits, final = [], 0
    for run in range(runs):
        sim_phone.launch(SETTINGS)
        await asyncio.sleep(1.5)
        started = time.perf_counter()
        if run % 2:
            await device.press_key("BACK")
        xml = await device.dump_hierarchy()
        start = xml.find('text="Display"')
        bounds = xml[xml.find('bounds="', start) + 8:xml.find('"', xml.find('bounds="', start) + 8)]
        left, top, right, bottom = (int(v) for v in bounds.replace("][", ",").strip("[]").split(","))
        started = time.perf_counter()
        await device.tap((left + right) // 2, (top + bottom) // 2)     # opens a page: a 0.35 s transition
        await phone.wait_settled(timeout=4.0)
        waits.append(time.perf_counter() - started)
        seen = pixel_signature(await mirror.latest.screenshot())
        await asyncio.sleep(1.0)
        truth = pixel_signature(await sim_phone.screenshot())
        final += not pixels_changed(seen, truth)
    return waits, final


# ------------------------------------------------------------ 4. first frame


async def first_frames(device: Any, runs: int) -> list[float]:
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        mirror = await start_mirror(device, lambda _: None, built_in=True)
        if mirror is None:
            raise SystemExit("the mirror did not start")
        durations.append(time.perf_counter() - started)   # start_mirror returns once the first frame is in
        await mirror.stop()
    return durations


async def main(runs: int, steps: int) -> None:
    with private_adb_server() as server:
        async with VirtualPhoneService(PhoneConfig(realism=REALISTIC), adb=server) as service:
            device = await server.device(service.serial)
            connects = await first_frames(device, runs)
            fast, slow = await hierarchy(device, runs)
            mirror = await start_mirror(device, lambda _: None, built_in=True)
            try:
                waits, final = await settle(device, mirror, service.phone, runs)
                plain_captures: list[float] = []
                ocr_captures: list[float] = []
                plain = await agent_steps(device, mirror, service.phone, steps, False, plain_captures)
                with_ocr = await agent_steps(device, mirror, service.phone, steps, True, ocr_captures)
            finally:
                await mirror.stop()
            baseline = await baseline_steps(device, service.phone, steps)
            await device.close()

    base = statistics.median(baseline)
    print("1. per step, excluding the model (realistic profile)")
    print(f"   baseline: dump + screencap + tap + 1.0 s sleep   {median_s(baseline)}")
    print(f"   agent, mirror + uiautomator2 server, OCR off     {median_s(plain)}   "
          f"{statistics.median(plain) / base:.2f}× the baseline   (capture {median_s(plain_captures)})")
    print(f"   agent, mirror + uiautomator2 server, OCR on      {median_s(with_ocr)}   "
          f"{statistics.median(with_ocr) / base:.2f}× the baseline   (capture {median_s(ocr_captures)})")
    print("2. hierarchy")
    print(f"   uiautomator dump                {median_s(slow)}")
    ratio = statistics.median(fast) / statistics.median(slow)
    print(f"   uiautomator2 dumpWindowHierarchy {median_s(fast)}   {ratio:.2f}×")
    print("3. settle after a tap that opens a page (0.35 s transition)")
    wait = statistics.median(waits)
    print(f"   until the mirror shows it still {median_s(waits)}   {wait / 1.0:.2f}× a fixed 1 s, {wait / 2.0:.2f}× a "
          f"fixed 2 s; the final picture {final} of {len(waits)} times")
    print("4. connect → first mirrored frame")
    print(f"   {median_s(connects)}   (desktop scrcpy: about 1 s)")
    print(f"({runs} runs each; {steps - 1} agent steps and {steps} baseline steps)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--steps", type=int, default=12)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.steps))
