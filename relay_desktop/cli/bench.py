"""``relay-desktop bench``: the agent on every task of the virtual phone's suite, one table of results.

Each task runs the way a user's run does: through the live scrcpy mirror of the bench's one virtual phone,
as ``relay-desktop run --sim`` (``--no-mirror`` compares with the adb-only path). Success is the task's own
checker reading the phone's state, not the agent's claim: an agent that says "complete" on the wrong screen
scores a failure, an infeasible task scores only when the agent ends with "failed", an ambiguous one only when
it asked. The user is scripted per task (see :mod:`relay_desktop.cli.bench_report`). Ctrl+C stops the task that
is running, prints what was measured so far and ends the bench; a second Ctrl+C ends it at once.

``--phones N`` runs the suite on N virtual phones at once (each with its own mirror and agent, taking the next
task when it is free), as a device farm does; each row says which phone ran it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass, replace
from typing import Any

from relay_desktop.agent.events import Event
from relay_desktop.agent.ports import Models
from relay_desktop.cli.bench_report import (
    BenchRow,
    BenchSummary,
    CountingModels,
    ScriptedUser,
    TaskTally,
    format_row,
    header,
)
from relay_desktop.cli.options import whole
from relay_desktop.cli.phone_and_models import (
    add_chaos_option,
    add_model_options,
    add_split_screen_option,
    models_from_args,
    start_mirror,
)

__all__ = ["BenchRow", "BenchRun", "register", "run_bench"]

MAX_PHONES = 8


def register(commands: Any) -> None:
    bench = commands.add_parser(
        "bench", help="run the agent on the virtual phone's task suite and print a table",
        description="Run the agent on the built-in virtual phone's tasks, through its live mirror as a user's run "
                    "does, and print per task: solved (by the task's own checker), the agent's outcome, steps, "
                    "model requests, steps that changed nothing, prompt tokens per step, tokens, time and cost.")
    bench.add_argument("--task", action="append", default=[], metavar="ID", help="only this task (repeatable)")
    bench.add_argument("--tag", action="append", default=[], help="only tasks with this tag (repeatable)")
    add_model_options(bench)
    bench.add_argument("--max-steps", type=whole(1, 500), help="override each task's step budget")
    bench.add_argument("--realistic", action="store_true", help="the virtual phone's real-phone timings")
    add_chaos_option(bench)
    bench.add_argument("--no-mirror", action="store_true",
                       help="drive the phone over adb only, without the live mirror (to compare)")
    bench.add_argument("--json", action="store_true",
                       help="one JSON object per task, then {\"summary\": {...}}, instead of a table")
    bench.add_argument("--no-history", action="store_true", help="do not save the runs in the run history")
    add_split_screen_option(bench)
    bench.add_argument("--no-screenshots", action="store_true",
                       help="send the models the element list only, never a screenshot (as run --no-screenshots)")
    bench.add_argument("--phones", type=whole(1, MAX_PHONES), default=1, metavar="N",
                       help="run the tasks on N virtual phones at once (default 1)")
    bench.add_argument("--replay", action="store_true",
                       help="save each solved task as a routine and run it again on a fresh phone with routines on "
                            "(each row gets the replay's result; the summary a replay line)")
    bench.add_argument("--perturb", nargs="?", const="all", choices=("all", "popup", "elsewhere", "moved"),
                       metavar="KIND",
                       help="with --replay: also replay on a changed phone, which the replay must get past or hand "
                            "over from, then the repaired routine once more. KIND: popup (a crash dialog first), "
                            "elsewhere (the app left on another screen), moved (a new item at the top of its lists), "
                            "or all (the default: one kind per task, in turn)")
    bench.set_defaults(command="bench", handler=_run_bench_command)


async def _run_bench_command(args: argparse.Namespace) -> int:
    from relay_desktop.llm.router import ModelRouter
    from relay_desktop.sim.tasks import ALL_TASKS

    tasks = [t for t in ALL_TASKS if (not args.task or t.id in args.task)
             and (not args.tag or set(args.tag) & set(t.tags))]
    unknown = set(args.task) - {t.id for t in ALL_TASKS}
    if unknown or not tasks:
        names = ", ".join(sorted(unknown)) or "the filters"
        print(f"relay-desktop bench: no task matches {names}; see `relay-desktop tasks`", file=sys.stderr)
        return 2
    if args.perturb and not args.replay:
        print("relay-desktop bench: --perturb goes with --replay", file=sys.stderr)
        return 2
    if not 1 <= args.phones <= MAX_PHONES:     # (argparse checks it; a caller may build args itself)
        print(f"relay-desktop bench: --phones takes 1 to {MAX_PHONES}", file=sys.stderr)
        return 2
    try:
        llm, which = models_from_args(args)
    except ValueError as exc:
        print(f"relay-desktop bench: {exc}", file=sys.stderr)
        return 2
    # With --json, stdout holds only the JSON objects; what the bench says goes to stderr.
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if args.json else \
        (lambda line: print(line, flush=True))
    phones = "the virtual phone" if args.phones == 1 else f"{args.phones} virtual phones at once"
    chaos = f", in chaos mode (seed {args.chaos})" if args.chaos is not None else ""
    say(f"Models: {which}\n{len(tasks)} task{'s' if len(tasks) != 1 else ''} on {phones}{chaos}")
    bench = BenchRun(say=say, mirror=not args.no_mirror, max_steps=args.max_steps, realistic=args.realistic,
                     history=not args.no_history, allow_fallback=args.allow_fallback, phones=args.phones,
                     split_screen=not args.no_split_screen, screenshots=not args.no_screenshots,
                     replay=args.replay, perturb=args.perturb, chaos=args.chaos,
                     on_row=lambda row: print(json.dumps(row.to_json(), ensure_ascii=False) if args.json
                                              else format_row(row, args.phones > 1, args.replay), flush=True),
                     on_start=None if args.json else
                     lambda mirrored: print(f"\n{header(mirrored, args.phones > 1, args.replay)}", flush=True))
    router = ModelRouter(llm) if llm is not None else None
    try:
        rows = await bench.run(tasks, router, describe_models=llm.to_dict() if llm is not None else None)
    finally:
        if router is not None:
            await router.aclose()
    summary = BenchSummary.of(rows, mirror=bench.mirrored, interrupted=bench.interrupted)
    print(json.dumps(summary.to_json()) if args.json else summary.text(), flush=True)
    if bench.interrupted:
        say(f"Interrupted: {len(rows)} of {len(tasks)} tasks ran")
        return 130
    return 0


async def run_bench(tasks: list[Any], models: Models | None, *, describe_models: dict[str, Any] | None = None,
                    **options: Any) -> list[BenchRow]:
    """Each task on one virtual phone (``options``: those of :class:`BenchRun`); the rows in order."""
    return await BenchRun(**options).run(tasks, models, describe_models=describe_models)




@dataclass
class AgentRun:
    """One task carried out once: the agent's result, what was counted, and the task's own check."""

    result: Any
    tally: TaskTally
    seconds: float
    check: Any
    mirrored: bool
    agent: Any
    bus: Any


@dataclass
class _Phone:
    """One of the bench's virtual phones, with what its tasks run through."""

    name: str
    service: Any
    device: Any
    mirror: Any
    counting: CountingModels | None       # its own: requests are counted for the task running on this phone
    knowledge: Any
    fresh: _Phone | None = None           # with --replay: another phone, for the routine's replays


class BenchRun:
    """One bench: virtual phones (one by default, each with its mirror) taking the tasks in turn, one scripted
    user per task."""

    def __init__(self, *, say: Callable[[str], None] = print, mirror: bool = True, max_steps: int | None = None,
                 realistic: bool = False, history: bool = True, on_row: Callable[[BenchRow], None] | None = None,
                 on_event: Callable[[Event], None] | None = None,
                 on_start: Callable[[bool], None] | None = None, allow_fallback: bool = False,
                 phones: int = 1, split_screen: bool = True, screenshots: bool = True, replay: bool = False,
                 perturb: str | None = None, chaos: int | None = None) -> None:
        from relay_desktop.cli.bench_replay import ReplayBench

        self.say = say
        self.chaos = chaos                     # the seed of every phone's chaos mode (sim/chaos.py), or None
        # --replay: each solved task saved as a routine and replayed on a fresh phone (--perturb: a changed one)
        self.replay = ReplayBench(self, perturb) if replay else None
        self.split_screen = split_screen       # the planning model may put two apps side by side
        self.screenshots = screenshots         # False: the models get element lists only
        self.phones = phones
        self.allow_fallback = allow_fallback   # the rule-based planner may finish a task whose model failed
        self.use_mirror = mirror
        self.max_steps = max_steps
        self.realistic = realistic
        self.history = history
        self.on_row = on_row
        self.on_event = on_event           # every event of every task (tests, progress displays)
        self.on_start = on_start           # called once the phone is up, with whether the mirror runs
        self.mirrored = False              # the mirror started
        self.interrupted = False
        self._agents: set[Any] = set()     # the tasks' agents while they run (one per phone)
        self._stopping: set[asyncio.Task[None]] = set()

    def interrupt(self) -> None:
        """Stop the tasks that are running and run no more (what Ctrl+C does)."""
        self.interrupted = True
        for agent in list(self._agents):
            stopper = asyncio.get_running_loop().create_task(agent.control.stop())
            self._stopping.add(stopper)
            stopper.add_done_callback(self._stopping.discard)

    async def run(self, tasks: list[Any], models: Models | None, *,
                  describe_models: dict[str, Any] | None = None) -> list[BenchRow]:
        from relay_desktop.device.adb_server import AdbServer
        from relay_desktop.runs import RunStore

        store = RunStore() if self.history else None
        adb = AdbServer()
        done: dict[int, BenchRow] = {}
        queue: asyncio.Queue[tuple[int, Any]] = asyncio.Queue()
        for item in enumerate(tasks):
            queue.put_nowait(item)

        async def work(phone: _Phone) -> None:
            while not self.interrupted and not queue.empty():
                index, task = queue.get_nowait()
                row = await self._run_task(task, phone, store, describe_models or {"planner": "fallback"}, index)
                done[index] = row
                if self.on_row is not None:
                    self.on_row(row)

        # Ctrl+C from the start: while the phones or the mirrors start, the bench then ends before the first task.
        with self._ctrl_c_stops():
            async with AsyncExitStack() as stack:
                if self.replay is not None:
                    stack.enter_context(self.replay)
                phones = [await self._start_phone(stack, adb, models) for _ in range(self.phones)]
                self.mirrored = all(p.mirror is not None for p in phones)
                if self.on_start is not None:
                    self.on_start(self.mirrored)
                await asyncio.gather(*(work(phone) for phone in phones))
        return [done[index] for index in sorted(done)]

    async def _start_phone(self, stack: AsyncExitStack, adb: Any, models: Models | None,
                           fresh: bool = True) -> _Phone:
        """A virtual phone, its mirror and its counters; stopped (mirror, then device, then phone) on exit."""
        from relay_desktop.agent.supervisors.knowledge import AppKnowledgeCache
        from relay_desktop.sim.config import INSTANT, REALISTIC, PhoneConfig
        from relay_desktop.sim.service import VirtualPhoneService

        config = PhoneConfig(realism=REALISTIC if self.realistic else INSTANT)
        service = await stack.enter_async_context(VirtualPhoneService(config, port=0, adb=adb))
        if self.chaos is not None:
            from relay_desktop.sim.chaos import enable

            enable(service.phone, self.chaos)
        device = await adb.device(service.serial)
        stack.push_async_callback(device.close)
        mirror = await self._start_mirror(device) if self.use_mirror else None
        if mirror is not None:
            stack.push_async_callback(mirror.stop)
        counting = CountingModels(models) if models is not None else None
        knowledge = AppKnowledgeCache(models=counting) if counting is not None else None
        name = service.serial if self.phones > 1 else ""
        phone = _Phone(name, service, device, mirror, counting, knowledge)
        if self.replay is not None and fresh:
            # Replays run on a phone of their own: a routine must not depend on what the first run left behind.
            phone.fresh = await self._start_phone(stack, adb, models, fresh=False)
            phone.fresh.counting, phone.fresh.knowledge = counting, knowledge
        return phone

    async def _start_mirror(self, device: Any) -> Any:
        from relay_desktop.device.errors import DeviceError

        try:
            return await start_mirror(device, self.say, built_in=True)
        except DeviceError as exc:   # pushing the server can fail before the mirror's own error handling
            self.say(f"No live mirror: {exc}")
            return None

    async def _run_task(self, task: Any, on: _Phone, store: Any, describe_models: dict[str, Any],
                        position: int = 0) -> BenchRow:
        from relay_desktop.routines.service import RunActions

        actions = RunActions()
        ran = await self.run_agent(task, on, store, describe_models, watch=actions.on_event)
        row = BenchRow.of(task, ran.result, ran.tally, seconds=ran.seconds, check_ok=ran.check.ok,
                          check_detail=ran.check.detail, mirrored=ran.mirrored)
        row = replace(row, phone=on.name)
        # Only a run that ended in success becomes a routine (an infeasible task "solved" by failing does not).
        if self.replay is not None and row.solved and row.outcome == "success" and not self.interrupted:
            row = await self.replay.after(row, task, actions, on, store, describe_models, position)
        return row

    async def run_agent(self, task: Any, on: _Phone, store: Any, describe_models: dict[str, Any], *,
                        routine: Any = None, watch: Callable[[Event], None] | None = None,
                        prepare: Callable[[Any], Any] | None = None,
                        before_check: Callable[[Any], None] | None = None) -> AgentRun:
        """The task once on ``on``'s phone, set up as the task says (then ``prepare``d, when given), replaying
        ``routine`` first when given; ``before_check`` runs on the virtual phone before the task's checker."""
        from relay_desktop.agent.events import EventBus
        from relay_desktop.agent.orchestrator import Orchestrator
        from relay_desktop.agent.settings import AgentSettings
        from relay_desktop.mirror.mirrored_phone import MirroredPhone
        from relay_desktop.runs import RunRecorder
        from relay_desktop.sim.chaos import begin_task
        from relay_desktop.sim.tasks.base import factory_reset
        service, device, mirror, counting, knowledge = on.service, on.device, on.mirror, on.counting, on.knowledge
        # Every task starts from the same factory state: the last task's airplane mode or dark theme is not its.
        factory_reset(service.phone)
        task.setup(service.phone)
        if prepare is not None:
            await prepare(service.phone)
        # Each task's interruptions come from the seed and the task alone: the same whichever phone runs it.
        begin_task(service.phone, task.id)
        tally = TaskTally()
        bus = EventBus()
        bus.subscribe(tally.on_event)
        if watch is not None:
            bus.subscribe(watch)
        if self.on_event is not None:
            bus.subscribe(self.on_event)
        recorder = RunRecorder(store) if store is not None else None
        detach = recorder.attach(bus) if recorder is not None else None
        phone = MirroredPhone(device, mirror)
        agent = Orchestrator(phone, counting, settings=AgentSettings(max_steps=self.max_steps or task.max_steps,
                                                                    allow_fallback=self.allow_fallback,
                                                                    split_screen=self.split_screen,
                                                                    screenshots=self.screenshots),
                             bus=bus, handlers=ScriptedUser(task.answers), knowledge=knowledge,
                             describe_models=describe_models, routine=routine, secrets=_task_secrets(task))
        if counting is not None:
            counting.tally = tally
        self._agents.add(agent)
        started = time.monotonic()
        try:
            # Its own asyncio task, as `run` does: stopping it (Ctrl+C) cancels the run, not the bench.
            result = await asyncio.ensure_future(agent.run(task.goal))
        finally:
            self._agents.discard(agent)
            if counting is not None:
                counting.tally = None
            if detach is not None and recorder is not None:
                detach()
                await recorder.aclose()
        seconds = time.monotonic() - started
        if before_check is not None:
            before_check(service.phone)
        return AgentRun(result, tally, seconds, task.check(service.phone), phone.mirroring, agent, bus)

    @contextmanager
    def _ctrl_c_stops(self) -> Iterator[None]:
        """The first Ctrl+C stops the bench cleanly; the handler is then removed, so a second one ends it at once
        (the mirror and the phone are still stopped on the way out)."""
        loop = asyncio.get_running_loop()

        def first_interrupt() -> None:
            loop.remove_signal_handler(signal.SIGINT)
            self.say("Stopping (Ctrl+C again to end at once)")
            self.interrupt()
        try:
            loop.add_signal_handler(signal.SIGINT, first_interrupt)
        except (NotImplementedError, RuntimeError):  # Windows' loop, or not the main thread
            yield
            return
        try:
            yield
        finally:
            loop.remove_signal_handler(signal.SIGINT)


def _task_secrets(task: Any) -> Any:
    """The user's saved secrets, plus those the task's user has (a bank PIN), given as the environment would."""
    from relay_desktop.user_secrets import SecretStore

    given = {f"RELAY_SECRET_{name.upper()}": value for name, value in getattr(task, "secrets", ())}
    return SecretStore(environ={**os.environ, **given})
