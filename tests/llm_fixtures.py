"""Building routers that talk to the fake LLM server: one per provider target, with keys held in memory."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import keyring.backends.fail

from relay_desktop.llm.config import LLMSettings, ModelRef, ProviderSettings
from relay_desktop.llm.keys import KeyStore
from relay_desktop.llm.retry import RetryPolicy
from relay_desktop.llm.router import LLMEvent, ModelRouter
from relay_desktop.llm.types import OutputContract, OutputMode
from tests.fake_llm import FakeLLMServer

# The four ways the app reaches a model: three official APIs and an OpenAI-compatible server (Ollama, vLLM...).
TARGETS = ("anthropic", "openai", "gemini", "compatible")
MODELS = {"anthropic": "claude-haiku-4-5", "openai": "gpt-4.1-mini", "gemini": "gemini-2.5-flash",
          "compatible": "qwen2.5-vl:7b"}
KEY = "sk-test-0123456789abcdefghijKLMNOP"

PLAN = OutputContract("submit_plan", "the next steps of the plan", {
    "type": "object",
    "properties": {
        "steps": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "properties": {"action": {"enum": ["tap", "type", "back", "home"]},
                           "element": {"type": "string", "pattern": "^e[0-9]+$"},
                           "text": {"type": "string"}},
            "required": ["action"], "additionalProperties": False}},
        "reason": {"type": "string"},
    },
    "required": ["steps"],
})
GOOD_PLAN = {"steps": [{"action": "tap", "element": "e4"}], "reason": "Wi-Fi is in the list"}
BAD_PLAN = {"steps": [{"action": "tapp", "element": "4"}]}


def provider_settings(server: FakeLLMServer, target: str, *, name: str | None = None, timeout: float = 5.0,
                      mode: OutputMode | None = None) -> ProviderSettings:
    if target == "compatible":
        return ProviderSettings(name or "local", "openai", base_url=server.base_url_for("openai"), timeout=timeout,
                                output_mode=mode, needs_key=False)
    kind = "openai" if target == "openai" else target
    return ProviderSettings(name or target, kind, base_url=server.base_url_for(kind),  # type: ignore[arg-type]
                            timeout=timeout, output_mode=mode)


def memory_keys(keys: dict[str, list[str]]) -> KeyStore:
    """Keys held for this session only, with no keyring behind them (the real keyring has its own tests)."""
    store = KeyStore(backend=keyring.backends.fail.Keyring())
    for provider, values in keys.items():
        store.set_session_keys(provider, values)
    return store


@dataclass
class Sleeps:
    """Stands in for asyncio.sleep in the router: records each backoff and moves the router's clock past it
    instead of waiting it out (key cool-downs are measured on that clock)."""

    delays: list[float] = field(default_factory=list)
    skipped: float = 0.0

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        self.skipped += seconds

    def clock(self) -> float:
        return time.monotonic() + self.skipped


@dataclass
class Harness:
    router: ModelRouter
    sleeps: Sleeps
    events: list[LLMEvent]
    ref: ModelRef


def make_router(server: FakeLLMServer, target: str, *, keys: list[str] | None = None, timeout: float = 5.0,
                mode: OutputMode | None = None, retry: RetryPolicy | None = None, real_sleep: bool = False,
                fallback: list[tuple[str, str]] | None = None) -> Harness:
    """A router whose fast role uses `target` on the fake server, then any `fallback` (target, name) entries."""
    main = provider_settings(server, target, timeout=timeout, mode=mode)
    providers = {main.name: main}
    chain = [ModelRef(main.name, MODELS[target])]
    for fallback_target, name in fallback or []:
        extra = provider_settings(server, fallback_target, name=name, timeout=timeout)
        providers[name] = extra
        chain.append(ModelRef(name, MODELS[fallback_target]))
    key_map = {name: ([] if p.needs_key is False and keys is None else list(keys or [KEY]))
               for name, p in providers.items()}
    settings = LLMSettings(providers, {"fast": tuple(chain)},
                           retry or RetryPolicy(max_attempts=4, base_delay=0.2, max_delay=2.0, max_total=30.0))
    sleeps, events = Sleeps(), []
    router = ModelRouter(settings, memory_keys(key_map), on_event=events.append,
                         **({} if real_sleep else {"sleep": sleeps, "clock": sleeps.clock}))
    return Harness(router, sleeps, events, chain[0])
