"""``relay-desktop bench``: the agent on every task of the virtual phone's suite, one table of results.

Success is the task's own checker reading the phone's state, not the agent's claim: an agent that says
"complete" on the wrong screen scores a failure. Each task starts from its own initial state on one
virtual phone; sensitive actions are approved (the suite texts, buys and deletes on purpose) and questions
to the user go unanswered.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from relay_desktop.cli_run import add_model_options, models_from_args

__all__ = ["BenchRow", "register", "run_bench"]


@dataclass(frozen=True)
class BenchRow:
    task: str
    tags: str
    solved: bool
    outcome: str
    steps: int
    seconds: float
    tokens: int
    cost_usd: float
    detail: str


def register(commands: Any) -> None:
    bench = commands.add_parser(
        "bench", help="run the agent on the virtual phone's task suite and print a table",
        description="Run the agent on the built-in virtual phone's tasks and print, per task: solved (by the "
                    "task's own checker), steps, wall time, tokens and cost.")
    bench.add_argument("--task", action="append", default=[], metavar="ID", help="only this task (repeatable)")
    bench.add_argument("--tag", action="append", default=[], help="only tasks with this tag (repeatable)")
    add_model_options(bench)
    bench.add_argument("--max-steps", type=int, help="override each task's step budget")
    bench.add_argument("--realistic", action="store_true", help="the virtual phone's real-phone timings")
    bench.add_argument("--json", action="store_true", help="one JSON object per task instead of a table")
    bench.add_argument("--no-history", action="store_true", help="do not save the runs in the run history")
    bench.set_defaults(command="bench", handler=_run_bench_command)


async def _run_bench_command(args: argparse.Namespace) -> int:
    from relay_desktop.sim.tasks import ALL_TASKS

    tasks = [t for t in ALL_TASKS if (not args.task or t.id in args.task)
             and (not args.tag or set(args.tag) & set(t.tags))]
    unknown = set(args.task) - {t.id for t in ALL_TASKS}
    if unknown or not tasks:
        names = ", ".join(sorted(unknown)) or "the filters"
        print(f"relay-desktop bench: no task matches {names}; see `relay-desktop tasks`", file=sys.stderr)
        return 2
    try:
        llm, which = models_from_args(args)
    except ValueError as exc:
        print(f"relay-desktop bench: {exc}", file=sys.stderr)
        return 2
    if not args.json:
        print(f"Models: {which}\n{len(tasks)} tasks on the virtual phone\n")
        print(_header())
    rows = await run_bench(tasks, llm, max_steps=args.max_steps, realistic=args.realistic,
                           history=not args.no_history,
                           on_row=lambda row: print(json.dumps(asdict(row)) if args.json else _format(row),
                                                    flush=True))
    if not args.json:
        print(_summary(rows))
    return 0


async def run_bench(tasks: list[Any], llm: Any, *, max_steps: int | None = None, realistic: bool = False,
                    history: bool = True, on_row: Any = None) -> list[BenchRow]:
    from relay_desktop.agent.events import EventBus
    from relay_desktop.agent.knowledge import AppKnowledgeCache
    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.safety import Handlers
    from relay_desktop.agent.settings import AgentSettings
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.llm.router import ModelRouter
    from relay_desktop.runs import RunRecorder, RunStore
    from relay_desktop.sim.config import INSTANT, REALISTIC, PhoneConfig
    from relay_desktop.sim.service import VirtualPhoneService

    async def approve(_: str) -> bool:
        return True

    async def no_answer(_: str) -> str | None:
        return None

    rows = []
    adb = AdbServer()
    config = PhoneConfig(realism=REALISTIC if realistic else INSTANT)
    router = ModelRouter(llm) if llm is not None else None
    knowledge = AppKnowledgeCache(models=router) if router is not None else None
    store = RunStore() if history else None
    async with VirtualPhoneService(config, port=0, adb=adb) as service:
        device = await adb.device(service.serial)
        for task in tasks:
            task.setup(service.phone)
            bus = EventBus()
            recorder = RunRecorder(store) if store is not None else None
            detach = recorder.attach(bus) if recorder is not None else None
            agent = Orchestrator(device, router, settings=AgentSettings(max_steps=max_steps or task.max_steps),
                                 bus=bus, handlers=Handlers(ask_user=no_answer, confirm=approve), knowledge=knowledge,
                                 describe_models=llm.to_dict() if llm is not None else {"planner": "fallback"})
            started = time.monotonic()
            result = await agent.run(task.goal)
            seconds = time.monotonic() - started
            if detach is not None and recorder is not None:
                detach()
                await recorder.aclose()
            check = task.check(service.phone)
            row = BenchRow(task.id, ",".join(task.tags), check.ok, result.outcome, result.steps, seconds,
                           result.input_tokens + result.output_tokens, result.cost_usd,
                           check.detail if check.ok else f"{check.detail}; agent: {result.reason}")
            rows.append(row)
            if on_row is not None:
                on_row(row)
    if router is not None:
        await router.aclose()
    return rows


def _header() -> str:
    return (f"{'task':28} {'tags':22} {'result':6} {'agent':9} {'steps':>5} {'time':>7} {'tokens':>8} "
            f"{'cost':>8}\n" + "─" * 100)


def _format(row: BenchRow) -> str:
    mark = "✔ pass" if row.solved else "✘ fail"
    return (f"{row.task[:28]:28} {row.tags[:22]:22} {mark:6} {row.outcome:9} {row.steps:5d} {row.seconds:6.1f}s "
            f"{row.tokens:8,d} ${row.cost_usd:7.4f}")


def _summary(rows: list[BenchRow]) -> str:
    solved = sum(r.solved for r in rows)
    steps = statistics.median(r.steps for r in rows) if rows else 0
    seconds = statistics.median(r.seconds for r in rows) if rows else 0.0
    tokens = sum(r.tokens for r in rows)
    cost = sum(r.cost_usd for r in rows)
    share = 100 * solved / len(rows) if rows else 0
    return ("─" * 100 + f"\nSolved {solved}/{len(rows)} ({share:.0f}%) · median {steps:g} steps · median "
            f"{seconds:.1f} s per task · {tokens:,} tokens · ${cost:.4f}")
