"""The one call the agent makes: `await router.generate(role, request)`.

Around a single provider call it adds, in this order: the role's fallback chain of models; for each model,
key rotation and bounded retries with backoff; a switch to a plain-JSON text format when an OpenAI-compatible
server has no tool calling; parsing and schema validation with one repair round-trip; and cost accounting.
Cancelling the awaiting task aborts whatever HTTP request is in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from relay_desktop.llm.config import LLMSettings, ModelRef
from relay_desktop.llm.costs import CostMeter, PriceTable
from relay_desktop.llm.errors import (
    AllProvidersFailed,
    BadRequest,
    InvalidApiKey,
    InvalidOutput,
    LLMError,
    NoModelConfigured,
    PermissionDenied,
    QuotaExhausted,
    RateLimited,
)
from relay_desktop.llm.keys import KeyPool, KeyStore, no_key_error
from relay_desktop.llm.output import parse_completion, repair_prompt
from relay_desktop.llm.providers import Provider, create_provider
from relay_desktop.llm.redaction import redact
from relay_desktop.llm.retry import backoff_delay
from relay_desktop.llm.types import Completion, LLMRequest, LLMResponse, Message, OutputMode, Role, Usage

log = logging.getLogger(__name__)

EventKind = Literal["retry", "rotate_key", "fallback", "repair", "mode_switch"]


@dataclass(frozen=True)
class LLMEvent:
    """Something the user should see in the run log: why a call is taking longer than usual."""

    kind: EventKind
    provider: str
    model: str
    message: str
    delay_s: float = 0.0


LLMListener = Callable[[LLMEvent], None]
_listeners: ContextVar[tuple[LLMListener, ...]] = ContextVar("relay_llm_listeners", default=())


@contextlib.contextmanager
def reporting_to(listener: LLMListener) -> Iterator[None]:
    """Also hand `listener` the events of every model call made in this context, and in tasks started from it.

    A run wraps itself in this so its own retries, key rotations and fallbacks reach its log, whichever router
    serves it and whoever else (another run, the settings window) shares that router.
    """
    token = _listeners.set((*_listeners.get(), listener))
    try:
        yield
    finally:
        _listeners.reset(token)


class ModelRouter:
    def __init__(self, settings: LLMSettings, keys: KeyStore | None = None, prices: PriceTable | None = None, *,
                 on_event: Callable[[LLMEvent], None] | None = None, rng: random.Random | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.keys = keys if keys is not None else KeyStore()
        self.prices = prices if prices is not None else PriceTable.defaults()
        self.meter = CostMeter()  # everything this router spent; runs keep their own meters too
        self._on_event = on_event
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._clock = clock
        self._providers: dict[str, Provider] = {}
        self._pools: dict[str, KeyPool] = {}
        self._modes: dict[ModelRef, OutputMode] = {}  # a mode learned to work better than the default

    async def aclose(self) -> None:
        providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            await provider.aclose()

    def forget_keys(self) -> None:
        """Read keys again on the next call (after the user changed them in Settings)."""
        self._pools.clear()

    async def generate(self, role: Role, request: LLMRequest, *, meter: CostMeter | None = None) -> LLMResponse:
        chain = self.settings.chain(role)
        if not chain:
            raise NoModelConfigured(f"No model is configured for the {role} role: add a provider in Settings.")
        failures: list[LLMError] = []
        for index, ref in enumerate(chain):
            try:
                return await self.generate_with(ref, request, meter=meter)
            except LLMError as error:
                if not type(error).try_next_provider:
                    raise
                failures.append(error)
                if index + 1 < len(chain):
                    self._emit("fallback", ref, f"{ref} failed ({error.status_word}); trying {chain[index + 1]}")
        if len(failures) == 1:
            raise failures[0]
        raise AllProvidersFailed(role, failures)

    async def generate_with(self, ref: ModelRef, request: LLMRequest, *,
                            meter: CostMeter | None = None) -> LLMResponse:
        # Nothing secret leaves in a prompt: a saved secret a field shows, a key pasted into a task, a sign-in
        # answer — whatever the redaction filter knows is masked here, the one door every request goes through.
        request = request.with_texts(redact)
        provider = self._provider(ref.provider)
        started = self._clock()
        mode = self._modes.get(ref) or provider.default_mode()
        completion, mode, calls = await self._complete(provider, ref, request, mode)
        usage, repaired = completion.usage, False
        data = None
        if request.contract is not None:
            parsed = parse_completion(completion, request.contract)
            if not parsed.ok:
                self._emit("repair", ref, f"{ref} answered in the wrong shape ({parsed.problems[0]}); asking it "
                                          "to correct itself")
                retry = request.with_messages(Message.assistant(_answer_text(completion)),
                                              Message.user(repair_prompt(parsed.problems, mode)))
                completion, mode, more_calls = await self._complete(provider, ref, retry, mode)
                calls += more_calls
                usage += completion.usage
                repaired = True
                parsed = parse_completion(completion, request.contract)
                if not parsed.ok:
                    self._account(ref, usage, meter)
                    raise InvalidOutput(
                        f"{ref} did not answer in the required shape, even when shown its error: "
                        f"{'; '.join(parsed.problems)}", provider=ref.provider, model=ref.model,
                        text=_answer_text(completion), problems=parsed.problems)
            data = parsed.data
            thinking = parsed.thinking
        else:
            thinking = completion.thinking
        cost = self._account(ref, usage, meter)
        return LLMResponse(data=data, text=_answer_text(completion), thinking=thinking, usage=usage,
                           latency_s=self._clock() - started, provider=ref.provider,
                           model=completion.model or ref.model, mode=mode, attempts=calls, repaired=repaired,
                           cost_usd=cost)

    def _account(self, ref: ModelRef, usage: Usage, meter: CostMeter | None) -> float | None:
        cost = self.prices.cost(ref.provider, ref.model, usage)
        self.meter.add(ref.provider, ref.model, usage, cost)
        if meter is not None:
            meter.add(ref.provider, ref.model, usage, cost)
        return cost

    async def _complete(self, provider: Provider, ref: ModelRef, request: LLMRequest,
                        mode: OutputMode) -> tuple[Completion, OutputMode, int]:
        try:
            completion, calls = await self._call_with_retries(provider, ref, request, mode)
        except BadRequest as error:
            if not error.unsupported_tools or mode not in (OutputMode.TOOL, OutputMode.JSON_SCHEMA):
                raise
            # A server without tool calling or schema output: ask for JSON in plain text from now on.
            self._modes[ref] = OutputMode.JSON_TEXT
            self._emit("mode_switch", ref, f"{ref} has no {mode.value} support; asking for plain JSON instead")
            completion, calls = await self._call_with_retries(provider, ref, request, OutputMode.JSON_TEXT)
            return completion, OutputMode.JSON_TEXT, calls + 1
        return completion, mode, calls

    async def _call_with_retries(self, provider: Provider, ref: ModelRef, request: LLMRequest,
                                 mode: OutputMode) -> tuple[Completion, int]:
        policy = self.settings.retry
        try:
            pool = await self._pool(provider)
        except LLMError as error:       # a provider without a key: the error names the model that needed it
            error.provider, error.model = error.provider or ref.provider, error.model or ref.model
            raise
        deadline = self._clock() + policy.max_total
        max_calls = policy.max_attempts * max(1, pool.size if pool is not None else 1)
        last_error: LLMError | None = None
        retries = calls = 0
        while True:
            key = None
            if pool is not None:
                key = pool.acquire()
                if key is None:
                    wait = pool.next_ready_in()
                    if wait is None:  # every key was refused
                        raise last_error or no_key_error(provider.name)
                    retries += 1
                    await self._pause(last_error or RateLimited(f"{ref}: every key is cooling down after rate "
                                                                "limits", provider=ref.provider, model=ref.model),
                                      wait + self._rng.uniform(0, 0.1), retries, deadline, ref)
                    continue
            if calls >= max_calls:
                raise last_error or RateLimited(f"{ref}: gave up after {calls} calls", provider=ref.provider,
                                                model=ref.model)
            calls += 1
            try:
                completion = await provider.complete(request, ref.model, key.reveal() if key else None, mode)
            except (InvalidApiKey, QuotaExhausted, PermissionDenied) as error:
                if pool is None or key is None or pool.size < 2:
                    raise
                pool.report_invalid(key)
                last_error = error
                self._emit("rotate_key", ref, f"{ref}: a key failed ({error.status_word}); trying the next one")
                continue
            except RateLimited as error:
                last_error = error
                if pool is not None and key is not None:
                    # Cool this key down; the loop takes the next key at once, or waits for the first to be ready.
                    pool.report_rate_limited(key, error.retry_after if error.retry_after is not None
                                             else backoff_delay(policy, retries + 1, rng=self._rng))
                    if pool.size > 1 and pool.next_ready_in() == 0:
                        self._emit("rotate_key", ref, f"{ref}: rate limited; switching to another key")
                    continue
                retries += 1
                await self._pause(error, backoff_delay(policy, retries, error.retry_after, self._rng), retries,
                                  deadline, ref)
                continue
            except LLMError as error:
                if not error.retryable:
                    raise
                last_error = error
                retries += 1
                await self._pause(error, backoff_delay(policy, retries, rng=self._rng), retries, deadline, ref)
                continue
            if pool is not None and key is not None:
                pool.report_ok(key)
            return completion, calls

    async def _pause(self, error: LLMError, delay: float, retries: int, deadline: float, ref: ModelRef) -> None:
        """Wait before retry number `retries`, or raise `error` when the retry budget does not allow it."""
        policy = self.settings.retry
        if retries >= policy.max_attempts:
            raise error
        if delay > policy.max_retry_after or self._clock() + delay > deadline:
            raise error  # waiting that long is worse than failing over to the next model
        self._emit("retry", ref, f"{ref}: {error.status_word}; retrying in {delay:.1f} s "
                                 f"(retry {retries} of {policy.max_attempts - 1})", delay)
        await self._sleep(delay)

    def _provider(self, name: str) -> Provider:
        if name not in self._providers:
            settings = self.settings.providers.get(name)
            if settings is None:
                raise NoModelConfigured(f"No provider named {name!r} is configured.")
            self._providers[name] = create_provider(settings)
        return self._providers[name]

    async def _pool(self, provider: Provider) -> KeyPool | None:
        name = provider.name
        if name not in self._pools:
            keys = await self.keys.akeys(name)
            if not keys:
                if not provider.settings.needs_key:
                    return None
                raise await self.keys.amissing_key_error(name)
            self._pools[name] = KeyPool(keys, clock=self._clock)
        return self._pools[name]

    def _emit(self, kind: EventKind, ref: ModelRef, message: str, delay: float = 0.0) -> None:
        log.info("%s", message)
        event = LLMEvent(kind, ref.provider, ref.model, message, delay)
        for listener in (*((self._on_event,) if self._on_event is not None else ()), *_listeners.get()):
            try:
                listener(event)
            except Exception:  # a broken log view must not fail the model call it reports on
                log.exception("LLM event listener %r failed", listener)


def _answer_text(completion: Completion) -> str:
    """What the model said, as text: its tool arguments as JSON when it answered with a tool call."""
    if isinstance(completion.tool_args, dict):
        return json.dumps(completion.tool_args, ensure_ascii=False)
    if isinstance(completion.tool_args, str):
        return completion.tool_args
    return completion.text
