"""The agent: a typed task becomes actions on the phone until it is done.

`Orchestrator(phone, models).run(task)` runs the dual-agent loop of the design (fast agent per step, planning
agent in the background, verifiers, loop guards, recovery); `models=None` runs the rule-based fallback
planner. Everything a run does is an event on its `EventBus` (the window, the CLI and the run store all
listen); `RunControl` pauses, resumes, steers and stops it; `Handlers` answer its questions and confirm
sensitive actions. Plain asyncio, no Qt: the phone and the models come in through `ports.Phone`/`ports.Models`.
"""

from relay_desktop.agent.control import RunControl, RunStopped
from relay_desktop.agent.events import Event, EventBus
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings, RunResult
from relay_desktop.agent.steps.safety import Handlers

__all__ = ["AgentSettings", "Event", "EventBus", "Handlers", "Orchestrator", "RunControl", "RunResult", "RunStopped"]
