"""``bench --replay``: each task the agent solved is saved as a routine and run again on a fresh phone with
routines on — the row's ``replay`` says whether it was solved, with how many model requests (0 for a clean
replay), in how long, and how many steps were replayed or planned by the agent.

``--perturb`` adds a run on a changed phone (sim/perturb.py: a pop-up first, the app left on another screen, a
new item at the top of its lists; one kind per task, in turn): the replay must find its way or hand over to the
agent, with no model request before the step that differed (``replay_requests``), and the agent's fix, saved as
the routine's next version, is then replayed once more on a phone changed the same way (``repaired``).

The routines live in a temporary store of the bench's own: a bench never adds to the user's routines.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relay_desktop.cli.bench_report import BenchRow

if TYPE_CHECKING:
    from relay_desktop.cli.bench import AgentRun, BenchRun

__all__ = ["ReplayBench", "replay_fields"]


def replay_fields(ran: AgentRun, task: Any) -> dict[str, Any]:
    """What a replay row says: solved (by the task's checker, and a question's answer), requests, seconds, steps
    replayed and planned."""
    from relay_desktop.routines.service import replay_summary

    summary = replay_summary(ran.agent) or {}
    answered = task.check_answer(getattr(ran.result, "answer", "")).ok
    return {"solved": ran.check.ok and ran.result.outcome == "success" and answered,
            "requests": ran.tally.total_requests,
            "seconds": round(ran.seconds, 3), "replayed_steps": summary.get("replayed_steps", 0),
            "agent_steps": summary.get("agent_steps", 0), "tokens": ran.tally.tokens}


class ReplayBench:
    def __init__(self, bench: BenchRun, perturb: str | None) -> None:
        self.bench = bench
        self.perturb = perturb
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self.store: Any = None

    def __enter__(self) -> ReplayBench:
        from relay_desktop.routines.store import RoutineStore
        from relay_desktop.runs import RunStore

        self._folder = tempfile.TemporaryDirectory(prefix="relay-bench-routines-")
        self.store = RoutineStore(RunStore(Path(self._folder.name)))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.store is not None:
            self.store.close()
        if self._folder is not None:
            self._folder.cleanup()

    async def after(self, row: BenchRow, task: Any, actions: Any, on: Any, store: Any,
                    describe_models: dict[str, Any], position: int) -> BenchRow:
        """The row with its replay (and perturbed replay), once the first run solved the task."""
        from relay_desktop.routines.learn import learn_routine
        from relay_desktop.routines.model import RoutineError

        phone = on.fresh or on
        try:
            routine = self.store.save(learn_routine(f"{task.id}", task.goal, actions.records(),
                                                    source_run=row.run_id))
        except RoutineError as exc:
            self.bench.say(f"{task.id}: no routine: {exc}")
            return replace(row, replay={"solved": False, "requests": 0, "seconds": 0.0, "replayed_steps": 0,
                                        "agent_steps": 0, "tokens": 0, "why": str(exc)})
        ran = await self.bench.run_agent(task, phone, store, describe_models, routine=routine.bind())
        row = replace(row, replay=replay_fields(ran, task))
        if self.perturb and not self.bench.interrupted:
            row = replace(row, perturbed=await self._perturbed(task, routine, phone, store, describe_models,
                                                               position))
        return row

    async def _perturbed(self, task: Any, routine: Any, phone: Any, store: Any, describe_models: dict[str, Any],
                         position: int) -> dict[str, Any]:
        from relay_desktop.routines.service import RoutineRun
        from relay_desktop.sim.perturb import KINDS, perturb

        kind = KINDS[position % len(KINDS)] if self.perturb in (None, "all") else str(self.perturb)
        done: list[Any] = []

        async def change(virtual_phone: Any) -> None:
            done.append(await perturb(virtual_phone, kind, task.apps))

        def undo(virtual_phone: Any) -> None:
            if done:
                done[-1].undo()

        around = RoutineRun(self.store, routine.bind())

        def watch(event: Any) -> None:
            around.actions.on_event(event)
        ran = await self.bench.run_agent(task, phone, store, describe_models, routine=routine.bind(), watch=watch,
                                         prepare=change, before_check=undo)
        await around.finish(ran.agent, ran.result.outcome)
        out = {"kind": kind, "what": done[0].what if done else "", **replay_fields(ran, task)}
        replay = ran.agent.replay
        ended = replay.ended_at if replay is not None else float("inf")
        out["replay_requests"] = sum(1 for t in ran.tally.request_times if t < ended)
        out["repaired"] = None
        if around.saved is not None and not self.bench.interrupted:
            again = await self.bench.run_agent(task, phone, store, describe_models, routine=around.saved.bind(),
                                               prepare=change, before_check=undo)
            out["repaired"] = {"version": around.saved.version, **replay_fields(again, task)}
        return out
