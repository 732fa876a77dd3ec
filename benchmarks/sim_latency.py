"""Latency of the virtual phone's main operations, in-process and through Google's adb server.

Run: .venv/bin/python benchmarks/sim_latency.py [--runs 20]
Prints medians (ms) of each operation; the adb server runs on a private port and is stopped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.private_adb import private_adb_server
from relay_desktop.sim.render import render
from relay_desktop.sim.service import VirtualPhoneService


async def median_ms(runs: int, operation: Callable[[], Awaitable[object]]) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        await operation()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


async def main(runs: int) -> None:
    with private_adb_server() as server:
        async with VirtualPhoneService(adb=server) as service:
            phone = service.phone
            device = await server.device(service.serial)
            phone.launch("com.android.settings")
            windows = phone.windows()
            rows = [
                ("render one frame (in-process)", await median_ms(runs, lambda: asyncio.to_thread(
                    render, windows, phone.display_size))),
                ("screencap PNG (in-process)", await median_ms(runs, phone.screencap_png)),
                ("uiautomator dump (in-process)", await median_ms(runs, phone.dump_hierarchy)),
                ("shell echo (adb)", await median_ms(runs, lambda: device.shell("echo hi"))),
                ("screenshot (adb exec-out screencap -p)", await median_ms(runs, device.screenshot)),
                ("dump_hierarchy (adb)", await median_ms(runs, device.dump_hierarchy)),
                ("tap (adb input tap)", await median_ms(runs, lambda: device.tap(540, 1300))),
                ("device_context (adb, 5 calls in parallel)", await median_ms(runs, device.device_context)),
            ]
    print(f"virtual phone latency, median of {runs} runs (instant profile, 1080x2400)")
    for name, value in rows:
        print(f"  {name:45} {value:8.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    asyncio.run(main(parser.parse_args().runs))
