"""``relay-desktop run``: the agent on one task, without the window, its events on the terminal (or as JSON
lines), the run saved to the history. How the phone and the models are chosen is in phone_and_models.py; how
one run is driven from a terminal is in drive.py."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from relay_desktop.agent.settings import AgentSettings, task_problem
from relay_desktop.cli.drive import DriveOptions, drive
from relay_desktop.cli.options import number, whole
from relay_desktop.cli.output import EventPrinter
from relay_desktop.cli.phone_and_models import (
    add_chaos_option,
    add_model_options,
    add_phone_options,
    add_split_screen_option,
    models_from_args,
    open_phone,
)
from relay_desktop.device.errors import DeviceError
from relay_desktop.llm.router import ModelRouter

__all__ = ["register"]


def register(commands: Any) -> None:
    run = commands.add_parser(
        "run", help="carry out a task on a phone with the agent (no window)",
        description="Carry out TASK on a phone and print the agent's steps as they happen. Exits with 0 when "
                    "the task was completed. Without a model or API key the rule-based fallback planner drives.")
    run.add_argument("task", help='what to do, e.g. "turn on Wi-Fi"')
    add_phone_options(run)
    add_model_options(run)
    run.add_argument("--max-steps", type=whole(1, 500), default=50, help="give up after this many steps (default 50)")
    run.add_argument("--pace", type=number(0, 60), default=0.0, metavar="SECONDS",
                     help="make each step last at least this long, so a person can follow (default 0: full speed)")
    run.add_argument("--json", action="store_true", help="print events as JSON lines instead of a readable log")
    run.add_argument("--yes", action="store_true",
                     help="allow sensitive actions (send, pay, delete, install) without asking")
    run.add_argument("--no-screenshots", action="store_true", help="send element lists only, no screenshots")
    add_split_screen_option(run)
    run.add_argument("--no-mirror", action="store_true",
                     help="do not start the live mirror (scrcpy); screenshots then come over adb")
    run.add_argument("--record", metavar="FILE.mp4",
                     help="record the phone's screen during the run into this MP4 (needs the live mirror); the run's "
                          "history links to it")
    run.add_argument("--no-routines", action="store_true",
                     help="do not replay a saved routine even when the task matches one (see `relay-desktop routines`)")
    add_chaos_option(run, "with --sim: ")
    run.add_argument("--allow-shell", action="append", default=[], metavar="PREFIX",
                     help="let the agent run adb shell commands starting with PREFIX (repeatable; each command "
                          "is confirmed). Off by default")
    run.set_defaults(command="run", handler=_run_task)


async def _run_task(args: argparse.Namespace) -> int:
    out = EventPrinter(json_lines=args.json)
    try:
        problem = task_problem(args.task)
        if problem is not None:          # before a phone is touched or a run is saved
            raise ValueError(problem)
        if args.record:
            _check_recording_path(Path(args.record), args.no_mirror)
        if args.chaos is not None and not args.sim:
            raise ValueError("--chaos is for the virtual phone: add --sim")
        llm, which = models_from_args(args)
        # With no model at all the rule-based planner drives anyway: it also takes over from a routine.
        settings = AgentSettings(max_steps=args.max_steps, screenshots=not args.no_screenshots, pace_s=args.pace,
                                 allow_fallback=args.allow_fallback or llm is None,
                                 split_screen=not args.no_split_screen,
                                 shell_allowed=tuple(p.strip() for p in args.allow_shell if p.strip()))
    except ValueError as exc:
        print(f"relay-desktop run: {exc}", file=sys.stderr)
        return 2
    routine, routines = await _routine_for(args, out)
    try:
        phone_cm = open_phone(args.device, args.sim, args.chaos)
        device, service = await phone_cm.__aenter__()
    except DeviceError as exc:
        print(f"relay-desktop run: {exc}" + ("" if args.device else " (or try --sim for the virtual phone)"),
              file=sys.stderr)
        return 1
    # Retries, key rotation and fallbacks reach the run's log (and history) through the orchestrator.
    router = ModelRouter(llm) if llm is not None else None
    out.line(f"Models: {which}")
    options = DriveOptions(settings, router, llm.to_dict() if llm is not None else {"planner": "fallback"},
                           approve_all=args.yes, mirror=not args.no_mirror,
                           record=Path(args.record) if args.record else None)
    try:
        driven = await drive(device, service, args.task, options, out, routine=routine, routines=routines)
    finally:
        if router is not None:
            await router.aclose()
        await phone_cm.__aexit__(None, None, None)
        if routines is not None:
            routines.close()
    if driven is None:
        return 1
    if out.closed:
        return 141                  # as a command ended by a closed pipe (128 + SIGPIPE)
    result = driven.result
    return 0 if result.success else 130 if result.outcome == "stopped" else 1


async def _routine_for(args: argparse.Namespace, out: EventPrinter) -> tuple[Any, Any]:
    """The saved routine this task is (bound to the values it gives) and the store, unless routines are off
    (``--no-routines``, or the setting in the window); (None, None) otherwise."""
    from relay_desktop.app_settings import AppSettings
    from relay_desktop.routines.service import find_routine
    from relay_desktop.routines.store import RoutineStore

    if getattr(args, "no_routines", False) or not AppSettings.load().use_routines:
        return None, None
    store = RoutineStore()
    try:
        match = await asyncio.to_thread(find_routine, store, args.task)
    except Exception as exc:  # the routines could not be read: the run goes on without them, and says so
        out.line(f"Saved routines not used: {exc}")
        store.close()
        return None, None
    if match is None:
        store.close()
        return None, None
    routine = match.routine.bind(match.values)
    values = f" with {routine.describe_values()}" if routine.values else ""
    out.line(f'This task is the saved routine "{routine.name}" (version {match.routine.version}){values}: it '
             "replays without a model, and the agent takes over only where the phone differs (--no-routines "
             "turns this off).")
    return routine, store


def _check_recording_path(path: Path, no_mirror: bool) -> None:
    """Refuse a recording that cannot be made, before a phone is touched."""
    if no_mirror:
        raise ValueError("--record needs the live mirror: leave out --no-mirror")
    if path.suffix.lower() != ".mp4":
        raise ValueError(f"--record {path}: the recording is an MP4 video; give a file name ending in .mp4")
    if not path.parent.is_dir():
        raise ValueError(f"--record {path}: the folder {path.parent} does not exist")
