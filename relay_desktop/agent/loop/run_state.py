"""What one run shares between its parts: the collaborators and counters the step runner, the reviewer and
the recovery helpers need, without any of them holding the orchestrator itself."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from relay_desktop.agent.control import RunControl, RunFinishedSignal
from relay_desktop.agent.events import LogLine, Verification
from relay_desktop.agent.memory.facts import Memory

if TYPE_CHECKING:
    from relay_desktop.agent.loop.conversation import Conversation
    from relay_desktop.agent.loop.guards import LoopGuards
    from relay_desktop.agent.loop.observation import Observation
    from relay_desktop.agent.ports import Phone
    from relay_desktop.agent.settings import AgentSettings
    from relay_desktop.agent.steps.executor import Executor
    from relay_desktop.agent.steps.safety import Handlers
    from relay_desktop.agent.supervisors.coordination import PlanningCoordinator
    from relay_desktop.agent.supervisors.verifiers import CompletionVerifier
    from relay_desktop.perception import ElementMap

__all__ = ["RunState"]


@dataclass
class RunState:
    run_id: str
    task: str
    settings: AgentSettings
    phone: Phone
    control: RunControl
    handlers: Handlers
    conversation: Conversation
    guards: LoopGuards
    coordinator: PlanningCoordinator
    executor: Executor
    emit: Callable[[Any], None]
    capture: Callable[[ElementMap | None], Awaitable[Observation]]   # a full look: screenshot, dump, context
    completion: CompletionVerifier | None = None
    memory: Memory = field(default_factory=Memory)
    iteration: int = 0
    consecutive_errors: int = 0
    plan_latency_s: float = 0.0
    reader: int = 0          # which reader of the user's messages this loop is (see RunControl.take_messages)
    looker: Any = None       # agent.capture.ScreenCapture: reads text off a quick second look's picture

    def log(self, message: str, level: str = "info") -> None:
        self.emit(LogLine(run_id=self.run_id, message=message, level=level, step=self.iteration or None))

    def verification(self, check: str, ok: bool, reason: str, changed: bool | None = None) -> None:
        self.emit(Verification(run_id=self.run_id, step=self.iteration, check=check, ok=ok, reason=reason,
                               changed=changed))

    def count_error(self, what: str) -> None:
        """One more error in a row; the run ends once there are too many."""
        self.consecutive_errors += 1
        limit = self.settings.consecutive_error_limit
        if self.consecutive_errors >= limit:
            raise RunFinishedSignal("failed", f"{limit} errors in a row; the last: {what}")
