"""One app's agent loop in a split screen (the spec's WindowAgentLoop).

It is the fast agent's loop (the orchestrator's), on a :class:`WindowPhone`: it sees and acts in its own half
only. What differs from a whole run:

- its task is its part of the user's task, with the whole task and the other half's part beside it, so the
  completion check judges the part and the model knows what the other agent is doing;
- its facts are a note shared with the other loop: what one notes ("the password is heron-Quartz-4471"), the
  other reads in its next request;
- it takes turns on the phone with the other loop (looking, then acting), while the models think in parallel;
- the run itself (start, end, the phone's claim, the cost meter, pause and stop) is the parent's: this loop
  reports its outcome to the coordinator and its log lines name its app.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from relay_desktop.agent.control import RunFinishedSignal
from relay_desktop.agent.events import LogLine, Outcome, StepStarted
from relay_desktop.agent.loop.agent_loop import AgentLoop
from relay_desktop.agent.loop.prompts import as_data
from relay_desktop.agent.memory.facts import Memory
from relay_desktop.agent.supervisors.planning import Approach, PlanningResult

if TYPE_CHECKING:
    from relay_desktop.agent.loop.observation import Observation
    from relay_desktop.agent.split_screen.window_phone import WindowPhone

__all__ = ["SHARED_NOTE", "StepCounter", "WindowAgentLoop", "part_task"]

SHARED_NOTE = ("SHARED NOTE (facts noted by you and by the agent in the other half, each with the app it was "
               "noted in; add to it with \"remember\"):")
MIN_STEPS = 5


def part_task(task: str, goal: str, mine: WindowPhone, other: WindowPhone, other_goal: str) -> str:
    """The loop's task: its part first (what the completion check judges), then where it stands."""
    return (f"{goal}\n\n"
            f"This is your part of the user's task: \"{task}\". The phone is in split screen. You work in "
            f"{mine.label}, in {mine.describe_half()} of the screen; you see and act only there. Another agent works "
            f"in {other.label}, in {other.describe_half()}, on: {other_goal}\n"
            f"What either of you notes with \"remember\" is shared: note what the other agent needs as soon as you "
            f"read it, and if you need something it has not noted yet, wait a few seconds and look again. Do not "
            f"go home, open Recents or another app: that ends split screen for both. Say complete when your "
            f"part is done, not the other's.")


class StepCounter:
    """The run's step numbers, shared by the loops of a split screen."""

    def __init__(self, start: int) -> None:
        self.value = start

    def next(self) -> int:
        self.value += 1
        return self.value


class WindowAgentLoop(AgentLoop):
    def __init__(self, parent: AgentLoop, window: WindowPhone, task: str, note: Memory, steps: int,
                 counter: StepCounter) -> None:
        settings = replace(parent.settings, max_steps=max(MIN_STEPS, steps), split_screen=False)
        on_change = parent.control.on_change
        super().__init__(window, parent.models, settings=settings, bus=parent.bus, handlers=parent.handlers,
                         knowledge=parent.knowledge, control=parent.control, run_id=parent.run_id,
                         describe_models=parent.describe_models, secrets=parent.secrets)
        parent.control.on_change = on_change     # pause and stop are reported once, by the run
        self.window = window
        self.parent = parent
        self.counter = counter
        self.numbers: dict[int, int] = {}        # this loop's iteration → the run's step number
        self.part = task
        self.meter = parent.meter                # one bill for the run
        self.memory = note
        self.ocr = parent.ocr
        self.context.installed_apps = parent.context.installed_apps    # type: ignore[method-assign]
        self.device_turn = lambda: window.focus.lock

    def emit(self, event: Any) -> None:
        # Steps are numbered run-wide, so the history keeps both halves' steps (each loop counts its own).
        if isinstance(event, StepStarted):
            self.numbers[event.step] = self.counter.next()
            event = replace(event, window=self.window.label, max_steps=self.parent.settings.max_steps)
        if isinstance(getattr(event, "step", None), int) and event.step in self.numbers:
            event = replace(event, step=self.numbers[event.step])
        if isinstance(event, LogLine):
            event = replace(event, message=f"[{self.window.label}] {event.message}")
        super().emit(event)

    async def run_part(self) -> tuple[Outcome, str, str]:
        """Work on the part until it is done, failed or out of steps: the outcome, its reason and the answer the
        part gave (a question answered in this half), for the coordinator."""
        try:
            outcome, reason = await self._run_checked(self.part)
            return outcome, reason, ""
        except RunFinishedSignal as signal:
            return signal.outcome, signal.reason, signal.answer  # type: ignore[return-value]
        finally:
            coordinator = getattr(self, "coordinator", None)
            if coordinator is not None:
                coordinator.cancel()

    def _build(self, task: str) -> None:
        super()._build(task)
        # The run's planner already chose the approach (this split): no initial consultation for the part. A
        # part that goes wrong still calls for recovery plans of its own.
        self.coordinator.current = PlanningResult(
            (Approach(f"Your part, in {self.window.label}", self.part.split("\n", 1)[0], (), 1.0),), 0)
        assert self.state is not None
        self.state.reader = self.control.new_reader()     # both halves hear what the user says from now on

    async def _announce(self) -> None:
        """The run has said how it plans and reads the screen; a part has nothing to add."""

    async def _refresh_pinned(self, observation: Observation) -> None:
        await super()._refresh_pinned(observation)
        self.conversation.facts = as_data(self.memory.text(SHARED_NOTE))
