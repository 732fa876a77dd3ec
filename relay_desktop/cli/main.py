"""The ``relay-desktop`` command: the window with no command, else one of the commands, each in its own module
of this package (sim, devices, tasks, elements, check-provider, run, runs, routines, secrets, bench, mcp)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence

from relay_desktop import __version__
from relay_desktop.app_settings import AppSettings
from relay_desktop.cli import (
    bench,
    check_provider,
    devices,
    elements,
    mcp,
    routines,
    run,
    runs,
    secrets,
    sim,
    tasks,
)
from relay_desktop.cli.options import OneLineParser
from relay_desktop.cli.output import silence_stdout
from relay_desktop.crash import install_crash_handler, with_crash_reports
from relay_desktop.llm.redaction import install_redaction

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
    _say_settings_problem()
    try:
        return asyncio.run(with_crash_reports(args.handler(args)))
    except KeyboardInterrupt:
        print("\nStopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:         # any command piped into `head`: the reader had enough
        silence_stdout()
        return 141


def _say_settings_problem() -> None:
    """A settings file that cannot be read is moved aside at its first load: said here once, on stderr (the
    window says it in its own status bar)."""
    problem = AppSettings.load().problem
    if problem:
        print(f"relay-desktop: {problem}", file=sys.stderr)


def _has_display() -> bool:
    """Whether Qt can show a window: always on Windows and macOS; on Linux an X or Wayland display, or a Qt
    platform chosen explicitly (offscreen, vnc)."""
    if not sys.platform.startswith("linux"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="relay-desktop",
        description="Watch an LLM agent carry out tasks on your Android phone.")
    parser.add_argument("--version", action="version", version=f"relay-desktop {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    parser.add_argument("--demo", action="store_true",
                        help="open the window on the built-in virtual phone and run a sample task (no phone or key)")
    parser.set_defaults(command=None)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    # In the order `relay-desktop --help` lists them.
    for command in (sim, devices, tasks, elements, check_provider, run, runs, routines, secrets, bench, mcp):
        command.register(commands)
    return parser
