"""``relay-desktop run`` and ``relay-desktop bench``: the agent without the window.

Both share how a phone is chosen (``--device``, ``--sim`` or the only phone attached), how models are chosen
(``--provider``, ``--model ROLE=PROVIDER/MODEL``, or the providers that have a key; none → the rule-based
fallback planner), and the run history every run is saved to.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from relay_desktop.agent.control import STOPPED_BY_THE_USER
from relay_desktop.agent.events import Event
from relay_desktop.agent.settings import AgentSettings, task_problem
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.cli_options import number, whole
from relay_desktop.cli_output import EventPrinter
from relay_desktop.device.errors import DeviceError
from relay_desktop.llm.config import DEFAULT_MODELS, ROLES, LLMSettings, ModelRef, builtin_provider
from relay_desktop.llm.keys import KeyStore
from relay_desktop.llm.router import ModelRouter

__all__ = ["TerminalHandlers", "add_model_options", "add_phone_options", "link_recording", "models_from_args",
           "open_phone", "register", "start_mirror", "stop_on_interrupt", "suite_task_for"]

BUILTIN = ("anthropic", "openai", "gemini")


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


def add_chaos_option(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    parser.add_argument("--chaos", type=whole(0), metavar="SEED",
                        help=f"{prefix}the virtual phone interrupts as a real one does (permission requests, "
                             "heads-up notifications, 'isn't responding', rating prompts, cookie banners, the "
                             "keyboard's suggestions, low battery), the same way each time for a SEED")


def add_split_screen_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-split-screen", action="store_true",
                        help="never put two apps side by side in split screen, even when the planning model "
                             "recommends it")


def add_phone_options(parser: argparse.ArgumentParser) -> None:
    """``--device SERIAL`` or ``--sim`` (else the only phone attached), as :func:`open_phone` takes them."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--device", metavar="SERIAL", help="the phone to use (default: the only one attached)")
    where.add_argument("--sim", action="store_true", help="use a built-in virtual phone")


def add_model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", action="append", default=[], metavar="NAME",
                        help="use this provider's default models (anthropic, openai, gemini; or a name for an "
                             "OpenAI-compatible server with --base-url); repeat for fallbacks")
    parser.add_argument("--base-url", help="URL of an OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter)")
    parser.add_argument("--model", action="append", default=[], metavar="[ROLE=]PROVIDER/MODEL",
                        help="the model for a role (fast, planning, verifier) or for all roles; repeatable")
    parser.add_argument("--fallback", action="store_true", help="use the rule-based planner, no model")
    parser.add_argument("--allow-fallback", action="store_true",
                        help="if the model cannot be used (no key, server down), let the rule-based planner carry "
                             "on instead of ending with an error")


def models_from_args(args: argparse.Namespace, keys: KeyStore | None = None) -> tuple[LLMSettings | None, str]:
    """The model settings the options ask for, or None for the fallback planner; plus a line saying which."""
    if args.fallback:
        return None, "rule-based fallback planner (--fallback)"
    keys = keys or KeyStore()
    names = [n.strip().lower() for n in args.provider]
    refs: dict[str, list[ModelRef]] = {}
    for item in args.model:
        role, _, spec = item.rpartition("=")
        if role and role not in ROLES:
            raise ValueError(f"--model {item}: the role must be one of {', '.join(ROLES)}")
        ref = ModelRef.parse(spec)
        for r in ([role] if role else ROLES):
            refs.setdefault(r, []).append(ref)
        if ref.provider not in names:
            names.append(ref.provider)
    if not names:
        names = [n for n in BUILTIN if keys.keys(n)]
        if not names:
            status = keys.status()  # a locked or missing keyring hides the keys saved in it: say so
            why = "see `relay-desktop check-provider`" if status.available else \
                f"{status.message} For this command: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY"
            return None, f"rule-based fallback planner (no API key found: {why})"
    # A name that is not a built-in provider is an OpenAI-compatible server at --base-url.
    providers = {n: builtin_provider(n, args.base_url if n not in BUILTIN or len(names) == 1 else None)
                 for n in names}
    roles = {r: tuple(refs.get(r) or [ModelRef(n, DEFAULT_MODELS[providers[n].kind][r])
                                     for n in names if n in BUILTIN]) for r in ROLES}
    settings = LLMSettings(providers, {r: chain for r, chain in roles.items() if chain})
    missing = [r for r in ROLES if not settings.chain(r)]
    if missing:
        raise ValueError(f"no model for the {', '.join(missing)} role: give --model ROLE=PROVIDER/MODEL")
    chains = ", ".join(f"{r} {settings.chain(r)[0]}" for r in ROLES)
    return settings, chains


class TerminalHandlers(Handlers):
    """Questions and confirmations on the terminal; without one, the answers are 'none' and 'no'."""

    def __init__(self, approve_all: bool, printer: Callable[[str], None]) -> None:
        super().__init__(ask_user=self._ask, confirm=self._confirm)
        self.approve_all = approve_all
        self._print = printer

    async def _ask(self, question: str) -> str | None:
        if not sys.stdin.isatty():
            self._print(f"? {question}\n  (no terminal to answer on: the agent carries on without an answer)")
            return None
        answer = await asyncio.to_thread(input, f"? {question}\n> ")
        return answer.strip() or None

    async def _confirm(self, description: str) -> bool:
        if self.approve_all:
            return True
        if not sys.stdin.isatty():
            self._print(f"! Not allowed without confirmation: {description} (run with --yes to allow)")
            return False
        answer = await asyncio.to_thread(input, f"! Allow the agent to {description}? [y/N] ")
        return answer.strip().lower() in ("y", "yes")


@asynccontextmanager
async def open_phone(serial: str | None, use_sim: bool, chaos: int | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """(device, virtual phone service or None): a started virtual phone (in chaos mode with the seed ``chaos``),
    or the chosen real one."""
    from relay_desktop.device.adb_server import AdbServer

    adb = AdbServer()
    if use_sim:
        from relay_desktop.sim.chaos import enable
        from relay_desktop.sim.service import VirtualPhoneService

        service = VirtualPhoneService(port=0, adb=adb)
        if chaos is not None:
            enable(service.phone, chaos)
        await service.start()
        try:
            yield await adb.device(service.serial), service
        finally:
            await service.stop()
        return
    await adb.ensure_running()
    yield await adb.device(serial), None


async def _run_task(args: argparse.Namespace) -> int:
    from relay_desktop.cli_drive import DriveOptions, drive

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


async def link_recording(store: Any, run_id: str, recording: Any, say: Callable[[str], None]) -> None:
    if not recording.packets:
        say(f"No recording saved: the mirror sent no picture to {recording.path}")
        return
    say(f"Recording saved: {recording.path} ({recording.duration_s:.1f} s)")
    try:
        await store.alink_recording(run_id, recording.path)
    except Exception as exc:  # the video is there; only the history's link to it is missing
        say(f"The history could not link the recording: {exc}")


async def start_mirror(device: Any, say: Callable[[str], None], built_in: bool = False) -> Any:
    """A running scrcpy mirror of the device (its first frame in), or None with the reason said."""
    from relay_desktop.mirror.client import MirrorClient, MirrorError
    from relay_desktop.mirror.provisioning import ProvisioningError, provide_server, virtual_phone_server

    shown: set[int] = set()

    def progress(done: int, total: int | None) -> None:
        quarter = done * 4 // total if total else 0
        if total and quarter not in shown:
            shown.add(quarter)
            say(f"Downloading the scrcpy server: {done * 100 // total}%")

    try:
        server = virtual_phone_server() if built_in else await provide_server(progress=progress)
        mirror = MirrorClient(device, server)
        await mirror.start()
    except (ProvisioningError, MirrorError) as exc:
        say(f"No live mirror: {exc}")
        return None
    await mirror.first_frame()
    return mirror


def stop_on_interrupt(task: asyncio.Future[Any], agent: Any) -> Callable[..., None]:
    """Ctrl+C stops the run cleanly (history saved, no further device commands) instead of killing it; returns
    the function that does that, for other reasons to stop (given as its ``reason``)."""
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def interrupt(reason: str = STOPPED_BY_THE_USER) -> None:
        stopper = loop.create_task(agent.control.stop(reason=reason))
        stopping.add(stopper)
        stopper.add_done_callback(stopping.discard)
    try:
        loop.add_signal_handler(signal.SIGINT, interrupt)
        task.add_done_callback(lambda _: loop.remove_signal_handler(signal.SIGINT))
    except (NotImplementedError, RuntimeError):  # Windows' loop, or not the main thread
        pass
    return interrupt


def suite_task_for(text: str) -> Any:
    """The virtual phone's suite task with this goal, so `run --sim` starts from its initial state."""
    from relay_desktop.sim.tasks import ALL_TASKS

    wanted = " ".join(text.lower().split()).rstrip(".")
    return next((t for t in ALL_TASKS if " ".join(t.goal.lower().split()).rstrip(".") == wanted), None)


def event_json(event: Event) -> str:
    return json.dumps(event.to_json(), ensure_ascii=False, default=str)
