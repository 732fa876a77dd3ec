"""Runs of the orchestrator for tests: a scripted fast agent per screen, every event kept."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from relay_desktop.agent.events import Event, EventBus
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings, RunResult
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.llm.types import LLMRequest, Role
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import act

E = TypeVar("E", bound=Event)

PLAN = {"approaches": [{"name": "Direct", "description": "Do it directly", "steps": ["Open the app", "Do it"],
                        "confidence": 0.8}], "recommended_index": 0}
Fast = Callable[[int, LLMRequest], Any]


@dataclass
class Script:
    """Answers per role; ``fast`` gets (fast call number from 1, request)."""

    fast: Fast
    planning: Callable[[LLMRequest], Any] = lambda request: PLAN
    progress: Callable[[LLMRequest], Any] = lambda request: {"progressing": True, "reason": "fine"}
    verifier: Callable[[LLMRequest], Any] = lambda request: {"done": True, "reason": "done"}
    fast_calls: int = 0

    def __call__(self, role: Role, request: LLMRequest) -> Any:
        name = request.contract.name if request.contract else ""
        if role == "planning":
            return self.planning(request)
        if role == "verifier":
            return self.verifier(request)
        if name == "progress":
            return self.progress(request)
        if name != "act":
            return {"notes": []}
        self.fast_calls += 1
        return self.fast(self.fast_calls, request)


@dataclass
class Run:
    agent: Orchestrator
    models: ScriptedModels | None
    events: list[Event] = field(default_factory=list)
    result: RunResult | None = None

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]

    def fast_requests(self) -> list[LLMRequest]:
        assert self.models is not None
        return [r for role, r in self.models.requests if role == "fast" and r.contract and r.contract.name == "act"]

    def fast_texts(self) -> list[str]:
        return [r.messages[-1].text for r in self.fast_requests()]


def make_run(phone: Any, script: Any | None, *, handlers: Handlers | None = None, latency: float = 0.0,
             **settings: Any) -> Run:
    models = ScriptedModels(script, latency=latency) if script is not None else None
    bus = EventBus()
    agent = Orchestrator(phone, models, settings=AgentSettings(**settings), bus=bus, handlers=handlers)
    run = Run(agent, models)
    bus.subscribe(run.events.append)
    return run


async def run_task(phone: Any, script: Any | None, task: str = "Do the thing", *, timeout: float = 20,
                   **kwargs: Any) -> Run:
    run = make_run(phone, script, **kwargs)
    run.result = await asyncio.wait_for(run.agent.run(task), timeout)
    return run


def tap(element: str) -> dict[str, Any]:
    return act({"action": "tap", "element": element})


def complete(summary: str = "done") -> dict[str, Any]:
    return act({"action": "complete", "summary": summary})


async def later(value: Any, gate: asyncio.Event, timeout: float = 10) -> Any:
    await asyncio.wait_for(gate.wait(), timeout)
    return value


def after(awaitable: Awaitable[Any], value: Any) -> Awaitable[Any]:
    async def wrapped() -> Any:
        await awaitable
        return value
    return wrapped()
