"""`relay-desktop sim`: the virtual phone as an Android device for adb, and its demo."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from relay_desktop.cli.options import port, whole

if TYPE_CHECKING:
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.sim.service import VirtualPhoneService

__all__ = ["DEFAULT_SIM_PORT", "demo", "register"]

DEFAULT_SIM_PORT = 15555

def register(commands: Any) -> None:
    sim = commands.add_parser("sim", help="run the built-in virtual phone (an Android device for adb)",
                              description="Run the virtual phone and connect it to the adb server, so that "
                                          "adb and Relay Desktop see it like a real phone.")
    sim.add_argument("--port", type=port, default=DEFAULT_SIM_PORT,
                     help=f"TCP port of the phone's adb endpoint (default {DEFAULT_SIM_PORT}; 0 = any free port)")
    sim.add_argument("--size", default="1080x2400", help="screen size WIDTHxHEIGHT (default 1080x2400)")
    sim.add_argument("--density", type=whole(120, 640), default=420, help="screen density in dpi (default 420)")
    sim.add_argument("--realistic", action="store_true",
                     help="behave like a real phone's timings (dump 1.5 s, screencap 0.3 s, animations)")
    sim.add_argument("--require-auth", action="store_true",
                     help="refuse adb's key, so the phone shows as 'unauthorized'")
    sim.add_argument("--no-connect", action="store_true", help="do not 'adb connect' the phone automatically")
    sim.add_argument("--demo", action="store_true",
                     help="solve every built-in task once through adb, showing each step's result")
    sim.add_argument("--chaos", type=whole(0), metavar="SEED",
                     help="interrupt as a real phone does (permission requests, heads-up notifications, 'isn't "
                          "responding', rating prompts, cookie banners, the keyboard's suggestions, low battery), "
                          "the same way each time for a SEED")
    sim.set_defaults(command="sim", handler=run)


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"relay-desktop sim: --size must look like 1080x2400, not {text!r}") from None
    return width, height


async def run(args: argparse.Namespace) -> int:
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.device.errors import DeviceError
    from relay_desktop.sim.config import INSTANT, REALISTIC, PhoneConfig
    from relay_desktop.sim.service import VirtualPhoneService

    width, height = _size(args.size)
    try:
        config = PhoneConfig(width=width, height=height, density=args.density,
                             realism=REALISTIC if args.realistic else INSTANT)
    except ValueError as exc:
        print(f"relay-desktop sim: {exc}", file=sys.stderr)
        return 2
    adb = None if args.no_connect else AdbServer()
    service = VirtualPhoneService(config, port=args.port, adb=adb, require_auth=args.require_auth)
    if args.chaos is not None:
        from relay_desktop.sim.chaos import enable

        enable(service.phone, args.chaos)
    try:
        await service.start(wait_ready=not args.require_auth)
    except OSError as exc:
        print(f"relay-desktop sim: cannot listen on port {args.port}: {exc.strerror or exc}. "
              f"Another virtual phone may be running; try --port 0.", file=sys.stderr)
        return 1
    except DeviceError as exc:
        await service.stop()
        print(f"relay-desktop sim: {exc}", file=sys.stderr)
        return 1
    try:
        _print_banner(service, adb)
        if args.demo and adb is not None and not args.require_auth:
            # The demo is a finite command: it ends (and the phone with it) once every task was tried.
            return 0 if await demo(service, adb) else 1
        print("Press Ctrl+C to stop.", flush=True)
        stopped = asyncio.Event()
        # A script's background job ignores Ctrl+C and is stopped with SIGTERM: the phone still leaves adb
        # cleanly (no stale 'offline' device) instead of dying mid-connection.
        with _on_sigterm(stopped.set):
            await stopped.wait()
    finally:
        await service.stop()
    return 0


@contextmanager
def _on_sigterm(callback: Callable[[], None]) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, callback)
    except (NotImplementedError, RuntimeError):     # Windows: Ctrl+C only
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def _print_banner(service: VirtualPhoneService, adb: AdbServer | None) -> None:
    phone = service.phone
    width, height = phone.display_size
    adb_cmd = "adb" if shutil.which("adb") else None
    if adb_cmd is None and adb is not None:
        adb_cmd = adb.adb_path
    adb_cmd = adb_cmd or "adb"
    print(f"Relay virtual phone is running: {phone.config.model}, {width}x{height} at "
          f"{phone.physical_density} dpi, Android {phone.props['ro.build.version.release']} "
          f"({phone.config.realism.name} timing).")
    if phone.chaos is not None:
        print(f"  Chaos mode (seed {phone.chaos.seed}): it interrupts as a real phone does.")
    if adb is not None:
        print(f"  Connected to the adb server on {adb.host}:{adb.port} as {service.serial}.")
    else:
        print(f"  Connect it with:  {adb_cmd} connect {service.serial}")
    print("  Try:")
    print(f"    {adb_cmd} -s {service.serial} shell getprop ro.product.model")
    print(f"    {adb_cmd} -s {service.serial} exec-out screencap -p > phone.png")
    print(f"    {adb_cmd} -s {service.serial} shell uiautomator dump /dev/tty")
    print(f"    {adb_cmd} -s {service.serial} shell input tap 540 1200", flush=True)


async def demo(service: VirtualPhoneService, adb: AdbServer) -> bool:
    """Every built-in task solved by its scripted solution; True when all were. In chaos mode the solutions get
    past the interruptions as a user would (tasks.base.ClearingDriver)."""
    from relay_desktop.sim.chaos import begin_task
    from relay_desktop.sim.tasks import ALL_TASKS
    from relay_desktop.sim.tasks.base import ClearingDriver

    device = await adb.device(service.serial)
    print(f"\nSolving {len(ALL_TASKS)} tasks through adb with their scripted solutions:")
    solved = 0
    chaos = service.phone.chaos
    for task in ALL_TASKS:
        task.setup(service.phone)
        begin_task(service.phone, task.id)
        driver = ClearingDriver(device) if chaos is not None else device
        started = time.monotonic()
        try:
            answer = await task.oracle(driver)
            if isinstance(driver, ClearingDriver):
                await driver.settle()      # what the last step brought (a hang on the final Save)
            result = task.check(service.phone)
            if result.ok and task.expected_answer is not None:    # a question: the phone unchanged and the answer
                result = task.check_answer(answer or "")
        except Exception as exc:  # the demo reports every failure and goes on
            print(f"  ✗ {task.goal}: {exc}", flush=True)
            continue
        mark = "✓" if result.ok else "✗"
        solved += result.ok
        got_past = f"; got past: {', '.join(driver.cleared)}" if isinstance(driver, ClearingDriver) and driver.cleared \
            else ""
        print(f"  {mark} {task.goal}  ({time.monotonic() - started:.1f} s: {result.detail}{got_past})", flush=True)
    print(f"{solved}/{len(ALL_TASKS)} tasks solved.")
    service.phone.go_home()
    return solved == len(ALL_TASKS)
