"""The orchestrator's own cost per step, and how much the concurrent capture saves.

Run: .venv/bin/python benchmarks/agent_overhead.py [--steps 40]

1. Per-step overhead: a run on the instant virtual phone (through Google's adb server on a private port) with
   a zero-latency scripted model. Every device call and model call is timed; a step's overhead is its wall
   time minus the time when at least one device or model call was in flight — what is left is the loop's own
   work: element map, diff, hashes, guards, prompt, screenshot JPEG, events.
2. Capture concurrency: on the realistic profile (dump 1.5 s, screencap 0.3 s), the capture's wall time next
   to the screenshot alone, the dump alone, and their sum.
Prints medians; the machine is noisy, so compare numbers from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.private_adb import private_adb_server
from relay_desktop.agent.events import EventBus, StepStarted
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.sim.config import REALISTIC, PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import act, element_id


class Timed:
    """Wraps an object; every awaited method call is recorded as a (start, end) interval."""

    def __init__(self, inner: Any, intervals: list[tuple[float, float]]) -> None:
        self._inner = inner
        self._intervals = intervals
        self.serial = getattr(inner, "serial", "")

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        async def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await attr(*args, **kwargs)
            finally:
                self._intervals.append((start, time.perf_counter()))
        return call


def busy_time(intervals: list[tuple[float, float]], start: float, end: float) -> float:
    """Length of the union of the intervals, clipped to [start, end]."""
    clipped = sorted((max(a, start), min(b, end)) for a, b in intervals if b > start and a < end)
    total, cursor = 0.0, start
    for a, b in clipped:
        if b > cursor:
            total += b - max(a, cursor)
            cursor = b
    return total


def scroller(role: str, request: Any) -> dict[str, Any]:
    """Scrolls the Settings list up and down: every step changes the screen, none ends the run."""
    if request.contract is not None and request.contract.name == "progress":
        return {"progressing": True, "reason": "fine"}
    if role == "planning":
        return {"approaches": [{"name": "x", "description": "y", "steps": ["z"], "confidence": 1}],
                "recommended_index": 0}
    scroll = element_id(request, "", "scroll") or "e1"
    direction = "down" if len(request.messages) % 4 < 2 else "up"
    return act({"action": "scroll", "direction": direction, "element": scroll})


async def overhead(device: Any, phone: Any, steps: int) -> list[float]:
    intervals: list[tuple[float, float]] = []
    starts: list[float] = []
    bus = EventBus()
    bus.subscribe(lambda e: starts.append(time.perf_counter()) if isinstance(e, StepStarted) else None)
    models = Timed(ScriptedModels(scroller), intervals)
    phone.launch("com.android.settings")
    agent = Orchestrator(Timed(device, intervals), models, bus=bus,
                         settings=AgentSettings(max_steps=steps, consecutive_error_limit=steps))
    await agent.run("Scroll through Settings")
    starts.append(time.perf_counter())
    return [(b - a - busy_time(intervals, a, b)) * 1000 for a, b in itertools.pairwise(starts[1:])]


async def capture_concurrency(device: Any, runs: int) -> tuple[float, float, float]:
    agent = Orchestrator(device, None)
    shots, dumps, captures = [], [], []
    for _ in range(runs):
        for samples, operation in ((shots, device.screenshot), (dumps, device.dump_hierarchy),
                                   (captures, lambda: agent.capture(None))):
            started = time.perf_counter()
            await operation()
            samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(shots), statistics.median(dumps), statistics.median(captures)


async def main(steps: int, runs: int) -> None:
    with private_adb_server() as server:
        async with VirtualPhoneService(adb=server) as service:
            device = await server.device(service.serial)
            per_step = await overhead(device, service.phone, steps)
        async with VirtualPhoneService(PhoneConfig(realism=REALISTIC), adb=server) as service:
            device = await server.device(service.serial)
            shot, dump, capture = await capture_concurrency(device, runs)
    per_step.sort()
    print(f"orchestrator overhead per step (instant virtual phone, zero-latency model, {len(per_step)} steps)")
    print(f"  median {statistics.median(per_step):6.1f} ms   p90 {per_step[int(len(per_step) * 0.9)]:6.1f} ms"
          f"   max {per_step[-1]:6.1f} ms")
    print(f"capture on the realistic profile, median of {runs}")
    print(f"  screenshot alone {shot:7.0f} ms   dump alone {dump:7.0f} ms   sum {shot + dump:7.0f} ms")
    print(f"  concurrent capture {capture:5.0f} ms = {capture / max(shot, dump):.2f}× the slower, "
          f"{capture / (shot + dump):.2f}× the sum")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.steps, arguments.runs))
