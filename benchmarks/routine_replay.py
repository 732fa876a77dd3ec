"""How fast a routine replays, next to the agent's own run of the same task.

Run: .venv/bin/python benchmarks/routine_replay.py [--repeats 3] [--model-latency 2.5]

On the virtual phone with the realistic profile (u2 dump 0.1 s, screencap 0.3 s, 0.35 s transitions, 50 ms input)
through Google's adb server on a private port and the live scrcpy mirror, as a user's run goes:

1. Step time: the agent's steps with a scripted model that answers at once (an agent step without its model:
   capture, element map, prompt, act, settle) against a replayed step (capture, find the target, check the last
   effect, act, settle). Medians of every step of every run.
2. Whole task with a model's latency: the same first runs with a model that takes ``--model-latency`` seconds
   per request (the model bridge's log.jsonl gives a real reader's figure), against the replay, which asks none.

The machine is noisy: compare numbers from one run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.private_adb import private_adb_server
from relay_desktop.agent.events import EventBus, RunFinished, StepStarted
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import virtual_phone_server
from relay_desktop.routines.learn import learn_routine
from relay_desktop.routines.service import RunActions
from relay_desktop.sim.config import REALISTIC, PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import text_agent, wifi_agent

TASKS = {"wifi_on": lambda: wifi_agent, "messages_text_bob": lambda: text_agent("Bob", "running late")}


async def _approve(description: str) -> bool:
    return True


class StepClock:
    """Each step's wall time, from its StepStarted to the next one (or the run's end)."""

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.durations: list[float] = []
        self.total = 0.0

    def on_event(self, event: Any) -> None:
        if isinstance(event, StepStarted | RunFinished):
            if self.starts:
                self.durations.append(event.time - self.starts[-1])
            if isinstance(event, StepStarted):
                self.starts.append(event.time)
            else:
                self.total = event.elapsed_s


async def _run(phone: Any, task: Any, models: Any, routine: Any = None) -> tuple[StepClock, RunActions, Any]:
    clock, actions, bus = StepClock(), RunActions(), EventBus()
    bus.subscribe(clock.on_event)
    actions.attach(bus)
    agent = Orchestrator(phone, models, bus=bus, routine=routine, handlers=Handlers(confirm=_approve),
                         settings=AgentSettings(max_steps=15))
    result = await agent.run(task.goal)
    if result.outcome != "success":
        raise SystemExit(f"{task.id}: {result.outcome}: {result.reason}")
    return clock, actions, models


async def main(repeats: int, latency: float) -> None:
    with private_adb_server() as adb:
        service = VirtualPhoneService(PhoneConfig(realism=REALISTIC), port=0, adb=adb)
        await service.start()
        device = await adb.device(service.serial)
        mirror = MirrorClient(device, virtual_phone_server())
        await mirror.start()
        await mirror.first_frame()
        phone = MirroredPhone(device, mirror)
        agent_steps: list[float] = []
        replay_steps: list[float] = []
        totals: list[tuple[str, float, float, int]] = []
        try:
            for task_id, agent_of in TASKS.items():
                task = TASKS_BY_ID[task_id]
                for _ in range(repeats):
                    task.setup(service.phone)
                    first, actions, _ = await _run(phone, task, ScriptedModels(agent_of()))
                    agent_steps += first.durations
                    routine = learn_routine(task_id, task.goal, actions.records())
                    task.setup(service.phone)
                    replayed, _, _ = await _run(phone, task, ScriptedModels(agent_of()), routine.bind())
                    replay_steps += replayed.durations
                    if latency:
                        task.setup(service.phone)
                        slow = ScriptedModels(agent_of(), latency=latency)
                        timed, _, _ = await _run(phone, task, slow)
                        totals.append((task_id, timed.total, replayed.total, len(slow.requests)))
        finally:
            await mirror.stop()
            await device.close()
            await service.stop()
    agent_median, replay_median = statistics.median(agent_steps), statistics.median(replay_steps)
    print(f"realistic profile, through the mirror; {repeats} runs of each of {', '.join(TASKS)}")
    print(f"agent step without its model: median {agent_median:.2f} s over {len(agent_steps)} steps")
    print(f"replayed step:                 median {replay_median:.2f} s over {len(replay_steps)} steps "
          f"({agent_median / replay_median:.2f}× faster)")
    if totals:
        print(f"\nwhole task, the model taking {latency:.1f} s a request:")
        for task_id in TASKS:
            rows = [t for t in totals if t[0] == task_id]
            first = statistics.median(t[1] for t in rows)
            replay = statistics.median(t[2] for t in rows)
            requests = statistics.median(t[3] for t in rows)
            print(f"  {task_id:20} first run {first:6.1f} s ({requests:g} requests), replay {replay:5.1f} s "
                  f"(0 requests): {first / replay:.1f}× faster")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each task (default 3)")
    parser.add_argument("--model-latency", type=float, default=2.5,
                        help="seconds a model takes per request for the whole-task comparison (0: skip it)")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.repeats, arguments.model_latency))
