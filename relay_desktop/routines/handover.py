"""A run that replays a routine: the replay first, the agent where it stops, and the replay again where the agent
only had to clear the way.

When the replay stops because a pop-up is in its way, nothing of the step it stopped at was done: the agent
closes the pop-up (a request or two), and the routine can go on from that very step without a model. So while
the agent's steps since the hand-over have all acted on a dialog, each of its turns first checks, with one look,
whether the routine's step fits the screen again; if it does, the replay resumes there. Anything else the
agent does ends that: from then on the agent finishes the task, with the routine's remaining steps as guidance.
"""

from __future__ import annotations

from typing import Any

from relay_desktop.perception import current_dialog
from relay_desktop.routines.model import BoundRoutine
from relay_desktop.routines.replay import ReplayOutcome, RoutineReplayer, handover_guidance

__all__ = ["RoutineDriver"]

Finished = tuple[str, str]          # (outcome, reason) when the routine settled the run


class RoutineDriver:
    def __init__(self, agent: Any, routine: BoundRoutine) -> None:
        self.agent = agent
        self.routine = routine
        self.first: ReplayOutcome | None = None      # how the first replay went
        self.replayed = 0                             # routine steps carried out, over every replay of the run
        self.handovers = 0                            # times the agent took over
        self.agent_steps = 0                          # run steps the agent planned
        self.resume_at: int | None = None             # the routine step to go on from, after a pop-up
        self._dialogs_only = False                    # every agent action since the hand-over was on a dialog
        self._seen: list[str] = []
        self._pictures: list[bytes] = []

    async def start(self) -> Finished | None:
        """The replay from the routine's first step; the run's result when it settled the run."""
        self.first = outcome = await self._replayer().run()
        assert outcome is not None
        self.replayed += outcome.replayed
        if outcome.finished:
            return "success", f"replayed the routine \"{self.routine.name}\" ({outcome.replayed} steps, end checked)"
        return self._hand_over(outcome)

    def _replayer(self) -> RoutineReplayer:
        # The texts and pictures every replay of the run saw stay known to the next: a password read on a screen
        # before the pop-up may be typed after it.
        return RoutineReplayer(self.agent, self.routine, seen=self._seen, pictures=self._pictures)

    def _hand_over(self, outcome: ReplayOutcome) -> Finished | None:
        agent = self.agent
        if agent.fallback_mode and not agent.settings.allow_fallback:
            return "error", (f"the routine \"{self.routine.name}\" could not be replayed past its step "
                             f"{(outcome.stopped_at or 0) + 1} ({outcome.reason}), and no model is set up to take "
                             "over: add an API key (Settings, or ANTHROPIC_API_KEY / OPENAI_API_KEY / GEMINI_API_KEY) "
                             "or choose a model with --provider")
        self.handovers += 1
        agent.conversation.routine = handover_guidance(self.routine, outcome)
        self.resume_at = outcome.stopped_at if outcome.interruption and outcome.remaining else None
        self._dialogs_only = self.resume_at is not None
        who = "the rule-based planner" if agent.fallback_mode else "the agent"
        then = " (the replay goes on once the pop-up is gone)" if self.resume_at is not None else ""
        agent.log(f"{who[0].upper()}{who[1:]} takes over from step {agent.iteration + 1}, with the routine's "
                  f"remaining {len(outcome.remaining)} steps as guidance{then}.", "warning")
        return None

    def planned(self, outcomes: list[Any]) -> None:
        """The agent's plan of this turn was carried out (``outcomes``: the step runner's)."""
        self.agent_steps += 1
        for outcome in outcomes:
            if outcome.status == "done" and current_dialog(outcome.before.element_map) is None:
                self._dialogs_only = False       # it did more than clear the way: the agent finishes the task

    @property
    def clearing_the_way(self) -> bool:
        """The agent was handed a pop-up to close and has done nothing else so far."""
        return self.resume_at is not None and self._dialogs_only

    @property
    def may_resume(self) -> bool:
        return self.clearing_the_way and self.agent_steps > 0

    async def resume(self) -> Finished | None:
        """The replay again from the step it stopped at, if that step fits the screen now (None: not yet, or it
        stopped again and the agent goes on)."""
        assert self.resume_at is not None
        outcome = await self._replayer().run(start=self.resume_at, probe=True)
        if outcome is None:
            return None                          # still not the routine's screen: the agent's turn
        self.replayed += outcome.replayed
        if outcome.finished:
            return "success", (f"replayed the routine \"{self.routine.name}\" ({self.replayed} steps, end checked; "
                               f"the agent cleared a pop-up in its way)")
        self.resume_at = None
        return self._hand_over(outcome)
