"""The ``relay-desktop`` command."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from relay_desktop import __version__
from relay_desktop.cli_options import OneLineParser, number, port, whole
from relay_desktop.cli_output import silence_stdout
from relay_desktop.crash import install_crash_handler, with_crash_reports
from relay_desktop.llm.redaction import install_redaction

if TYPE_CHECKING:
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.sim.service import VirtualPhoneService

DEFAULT_SIM_PORT = 15555


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    # The terminal gets the commands' own words; raw log lines only with -v (what matters reaches the run's log).
    verbose = getattr(args, "verbose", False)
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        handlers=None if verbose else [logging.NullHandler()])
    install_redaction()  # before anything can log a key
    install_crash_handler()  # an uncaught exception: a redacted report in the data folder, and where it is
    if args.command is None:
        if not _has_display():
            print("relay-desktop: there is no display to open the window on. Without one, try:\n"
                  '  relay-desktop run "Turn on Wi-Fi" --sim    the agent in the terminal, on the virtual phone\n'
                  "  relay-desktop sim                         the virtual phone for adb\n"
                  "  relay-desktop --help                      everything else", file=sys.stderr)
            return 1
        from relay_desktop.ui.app import run_window

        return run_window(demo=args.demo)
    try:
        return asyncio.run(with_crash_reports(args.handler(args)))
    except KeyboardInterrupt:
        print("\nStopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:         # any command piped into `head`: the reader had enough
        silence_stdout()
        return 141


def _has_display() -> bool:
    """Whether Qt can show a window: always on Windows and macOS; on Linux an X or Wayland display, or a Qt
    platform chosen explicitly (offscreen, vnc)."""
    if not sys.platform.startswith("linux"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="relay-desktop",
        description="Watch an LLM agent carry out tasks on your Android phone.")
    parser.add_argument("--version", action="version", version=f"relay-desktop {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    parser.add_argument("--demo", action="store_true",
                        help="open the window on the built-in virtual phone and run a sample task (no phone or key)")
    parser.set_defaults(command=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

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
    sim.set_defaults(command="sim", handler=_run_sim)

    devices = commands.add_parser("devices", help="list the phones adb can see")
    devices.set_defaults(command="devices", handler=_run_devices)

    tasks = commands.add_parser("tasks", help="list the virtual phone's task suite")
    tasks.set_defaults(command="tasks", handler=_run_tasks)

    elements = commands.add_parser(
        "elements", help="print the element map of a saved UI dump",
        description="Print what the agent would be told about a screen: the element map of a uiautomator, "
                    "uiautomator2 or Appium XML dump, as prompt text or JSON; with a screenshot, also draw "
                    "the element IDs on it (set-of-marks).")
    elements.add_argument("dump", help="the XML dump ('-' reads standard input)")
    elements.add_argument("--json", action="store_true", help="print JSON with every attribute and bounds")
    elements.add_argument("--screenshot", metavar="PNG", help="the screenshot taken with the dump")
    elements.add_argument("--marks", metavar="OUT.png", help="write the screenshot with element IDs drawn on it")
    elements.set_defaults(command="elements", handler=_run_elements)

    check = commands.add_parser(
        "check-provider", help="test an LLM provider's API key and model",
        description="Send a one-word request with each API key of a provider and say plainly whether it "
                    "answered: invalid key, no network, unknown model or rate limited. Keys come from the OS "
                    "keyring (service relay-desktop) or ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY / "
                    "GOOGLE_API_KEY. Exits with 0 only when the provider answered.")
    check.add_argument("provider", help="anthropic, openai or gemini; or any name for an OpenAI-compatible "
                                        "server given with --base-url (Ollama, vLLM, LM Studio, OpenRouter)")
    check.add_argument("--model", help="the model id to try (default: the provider's default fast model)")
    check.add_argument("--base-url", help="the server's URL, e.g. http://localhost:11434/v1 for Ollama")
    check.add_argument("--timeout", type=number(0.1, 600), default=20.0,
                       help="seconds to wait for an answer (default 20)")
    check.set_defaults(command="check-provider", handler=_run_check_provider)

    from relay_desktop import cli_bench, cli_mcp, cli_run, cli_secrets
    from relay_desktop.routines import commands as routines_commands
    from relay_desktop.runs import commands as runs_commands

    cli_run.register(commands)
    runs_commands.register(commands)
    routines_commands.register(commands)
    cli_secrets.register(commands)
    cli_bench.register(commands)
    cli_mcp.register(commands)
    return parser


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise SystemExit(f"relay-desktop sim: --size must look like 1080x2400, not {text!r}") from None
    return width, height


async def _run_sim(args: argparse.Namespace) -> int:
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
            return 0 if await _demo(service, adb) else 1
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


async def _demo(service: VirtualPhoneService, adb: AdbServer) -> bool:
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


async def _run_devices(args: argparse.Namespace) -> int:
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.device.errors import DeviceError

    adb = AdbServer()
    try:
        await adb.ensure_running()
        devices = await adb.devices()
    except DeviceError as exc:
        print(f"relay-desktop devices: {exc}", file=sys.stderr)
        return 1
    if not devices:
        print("No devices. Plug in a phone with USB debugging on, or run: relay-desktop sim")
    for d in devices:
        print(f"{d.serial:24} {d.state:13} {d.model.replace('_', ' ')}")
    return 0


async def _run_elements(args: argparse.Namespace) -> int:
    from relay_desktop.perception import HierarchyParseError, build_element_map, to_json_text, to_prompt_text

    if args.marks and not args.screenshot:
        print("relay-desktop elements: --marks needs --screenshot (the picture to draw on)", file=sys.stderr)
        return 2
    try:
        data = sys.stdin.buffer.read() if args.dump == "-" else Path(args.dump).read_bytes()
    except OSError as exc:
        print(f"relay-desktop elements: cannot read {args.dump}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        element_map = build_element_map(data)
    except HierarchyParseError as exc:
        source = "standard input" if args.dump == "-" else args.dump
        print(f"relay-desktop elements: {source}: {exc}", file=sys.stderr)
        return 1
    for warning in element_map.tree.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(to_json_text(element_map) if args.json else to_prompt_text(element_map))
    if args.marks:
        return await asyncio.to_thread(_write_marks, element_map, args.screenshot, args.marks)
    return 0


def _write_marks(element_map: object, screenshot: str, out: str) -> int:
    from PIL import Image, UnidentifiedImageError

    from relay_desktop.perception import ElementMap
    from relay_desktop.perception.marks import draw_marks

    assert isinstance(element_map, ElementMap)
    try:
        with Image.open(screenshot) as image:
            marked = draw_marks(image, element_map)
    except (OSError, UnidentifiedImageError) as exc:
        print(f"relay-desktop elements: cannot read the screenshot {screenshot}: {exc}", file=sys.stderr)
        return 2
    try:
        marked.save(out)
    except (OSError, ValueError) as exc:
        print(f"relay-desktop elements: cannot write {out}: {exc}", file=sys.stderr)
        return 2
    print(f"marks written to {out}", file=sys.stderr)
    return 0


async def _run_check_provider(args: argparse.Namespace) -> int:
    from relay_desktop.llm.check import check_provider
    from relay_desktop.llm.config import builtin_provider

    try:
        settings = builtin_provider(args.provider.strip().lower(), args.base_url)
    except ValueError as exc:
        print(f"relay-desktop check-provider: {exc}", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print("relay-desktop check-provider: --timeout must be positive", file=sys.stderr)
        return 2
    results = await check_provider(settings, args.model, timeout=args.timeout)
    for result in results:
        mark = "✓" if result.ok else "✗"
        key = f" ({result.key})" if result.key else ""
        verdict = "" if result.ok else f"{result.status}: "
        print(f"{mark} {result.provider}/{result.model}{key}: {verdict}{result.message}", flush=True)
    return 0 if results and all(r.ok for r in results) else 1


async def _run_tasks(args: argparse.Namespace) -> int:
    from relay_desktop.sim.tasks import ALL_TASKS

    for task in ALL_TASKS:
        print(f"{task.id:24} {task.goal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
