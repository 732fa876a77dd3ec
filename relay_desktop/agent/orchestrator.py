"""The orchestrator: the agent loop of a run (loop/agent_loop.py), which hands the rest of the run to two loops side
by side when the planning agent recommends split screen (split_screen/coordinator.py).

The split is taken up here rather than in the loop itself because each half runs an agent loop of its own
(split_screen/window_loop.py): the loop knows nothing of split screen, and nothing imports back up.
"""

from __future__ import annotations

from relay_desktop.agent.control import RunFinishedSignal
from relay_desktop.agent.loop.agent_loop import AgentLoop
from relay_desktop.agent.split_screen.coordinator import SplitScreenCoordinator

__all__ = ["Orchestrator", "RunFinishedSignal"]


class Orchestrator(AgentLoop):
    """One run of the agent on one phone (see AgentLoop), split screen included."""

    async def _split_screen_if_recommended(self) -> None:
        """The planning agent recommended two apps side by side: the split-screen coordinator takes the rest of
        the run (once; if the phone cannot enter split screen, this loop carries on, told why)."""
        plan = self.coordinator.current
        if (plan is None or plan.split_screen is None or self.split_screen_tried or not self.settings.split_screen
                or self.fallback_mode):
            return
        self.split_screen_tried = True
        finished = await SplitScreenCoordinator(self, plan.split_screen).run()
        if finished is not None:
            raise RunFinishedSignal(*finished)
