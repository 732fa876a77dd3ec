"""In-process fakes for agent tests: models that answer from a script, with no server and no network.

`ScriptedModels` has the shape of `relay_desktop.agent.ports.Models`. A test gives it a responder, a function
of (role, request) that returns the answer's data (a dict), an exception to raise, an `LLMResponse` to pass
through, or an awaitable of any of those (so a test can hold an answer back on an event). Like the real router,
the data is checked against the request's contract, so a script that drifts from the schema fails loudly
instead of testing a shape the agent never gets.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from relay_desktop.llm.costs import CostMeter
from relay_desktop.llm.errors import InvalidOutput
from relay_desktop.llm.output import validate
from relay_desktop.llm.types import LLMRequest, LLMResponse, OutputMode, Role, Usage

__all__ = ["Answer", "Responder", "ScriptedModels", "by_role", "make_response", "sequence"]

Answer = dict[str, Any] | Exception | LLMResponse
Responder = Callable[[Role, LLMRequest], Answer | Awaitable[Answer]]

FAKE_USAGE = Usage(100, 20)


def make_response(data: dict[str, Any] | None, *, latency_s: float = 0.0, thinking: str = "",
                  usage: Usage = FAKE_USAGE, cost_usd: float | None = None) -> LLMResponse:
    return LLMResponse(data=data, text=json.dumps(data), thinking=thinking, usage=usage, latency_s=latency_s,
                       provider="fake", model="fake-model", mode=OutputMode.TOOL, cost_usd=cost_usd)


class ScriptedModels:
    """Answers every request with the responder's answer, after `latency` seconds; records what was asked."""

    def __init__(self, responder: Responder, latency: float = 0.0, *, check_contract: bool = True,
                 cost_usd: float | None = None) -> None:
        self.responder = responder
        self.latency = latency
        self.check_contract = check_contract
        self.cost_usd = cost_usd
        self.requests: list[tuple[Role, LLMRequest]] = []
        self.closed = False

    async def generate(self, role: Role, request: LLMRequest, *, meter: CostMeter | None = None) -> LLMResponse:
        # Recorded before answering, so a test can see a request that is still in flight.
        self.requests.append((role, request))
        answer = self.responder(role, request)
        if inspect.isawaitable(answer):
            answer = await answer
        if self.latency:
            await asyncio.sleep(self.latency)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, LLMResponse):
            response = answer
        else:
            if self.check_contract and request.contract is not None:
                problems = validate(answer, request.contract.schema)
                if problems:
                    raise InvalidOutput("; ".join(problems), provider="fake", model="fake-model",
                                        text=json.dumps(answer), problems=problems)
            response = make_response(answer, latency_s=self.latency, cost_usd=self.cost_usd)
        if meter is not None:
            meter.add(response.provider, response.model, response.usage, response.cost_usd)
        return response

    async def aclose(self) -> None:
        """Like the router's: the window closes the models it was given."""
        self.closed = True

    def roles(self) -> list[Role]:
        return [role for role, _ in self.requests]

    def requests_for(self, role: Role) -> list[LLMRequest]:
        return [request for r, request in self.requests if r == role]

    @staticmethod
    def last_text(request: LLMRequest) -> str:
        """The text of the request's last message (where agents put this turn's prompt)."""
        return request.messages[-1].text if request.messages else ""


def sequence(answers: Iterable[Answer | Awaitable[Answer]]) -> Responder:
    """A responder that gives the answers in order, whatever the role; running out fails the test loudly."""
    queue = list(answers)

    def respond(role: Role, request: LLMRequest) -> Answer | Awaitable[Answer]:
        if not queue:
            raise AssertionError(f"ScriptedModels: no scripted answer left for a {role} request")
        return queue.pop(0)

    return respond


def by_role(**responders: Responder | Answer) -> Responder:
    """A responder per role (fast=..., planning=..., verifier=...): a function, or one fixed answer."""

    def respond(role: Role, request: LLMRequest) -> Answer | Awaitable[Answer]:
        if role not in responders:
            raise AssertionError(f"ScriptedModels: nothing scripted for the {role} role")
        chosen = responders[role]
        return chosen(role, request) if callable(chosen) else chosen

    return respond
