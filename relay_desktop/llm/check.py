""""Test connection": one tiny request per key, and a plain answer to "does this provider work?"

The point is telling apart what a user must fix differently: a wrong key, no network, a model id that does not
exist, or a key that works but is rate limited right now.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from relay_desktop.llm.config import DEFAULT_MODELS, ProviderSettings
from relay_desktop.llm.errors import LLMError, RateLimited
from relay_desktop.llm.keys import ApiKey, KeyStore
from relay_desktop.llm.providers import Provider, create_provider
from relay_desktop.llm.types import LLMRequest, Message, OutputMode

_PROBE = LLMRequest(system="This is a connection test.", messages=(Message.user("Reply with the word OK."),),
                    max_tokens=16)


@dataclass(frozen=True)
class CheckResult:
    ok: bool  # the provider answered
    status: str  # "ok", or the error's status word: "invalid key", "no network", "unknown model", ...
    message: str  # one plain sentence for the user
    provider: str
    model: str
    key: str = ""  # which key was tried, as its safe label (never the key itself)
    latency_s: float | None = None


async def check_provider(settings: ProviderSettings, model: str | None = None, keys: KeyStore | None = None, *,
                         timeout: float = 20.0) -> list[CheckResult]:
    """Try every key of the provider (or no key, for a local server) with a one-word request."""
    model = model or DEFAULT_MODELS[settings.kind]["fast"]
    store = keys if keys is not None else KeyStore()
    found: list[ApiKey | None] = list(await store.akeys(settings.name))
    if not found:
        if settings.needs_key:
            error = await store.amissing_key_error(settings.name)
            return [CheckResult(False, error.status_word, str(error), settings.name, model)]
        found = [None]
    provider = create_provider(replace(settings, timeout=min(settings.timeout, timeout)))
    try:
        return [await _check_one(provider, model, key) for key in found]
    finally:
        await provider.aclose()


async def _check_one(provider: Provider, model: str, key: ApiKey | None) -> CheckResult:
    label = str(key) if key is not None else "no key"
    started = time.monotonic()
    try:
        completion = await provider.complete(_PROBE, model, key.reveal() if key else None, OutputMode.JSON_TEXT)
    except RateLimited as error:
        # A 429 comes after the key was accepted: the settings are right, only the moment is not.
        return CheckResult(False, error.status_word, f"The key works, but {provider.name} is rate limiting it right "
                           f"now; try again in a minute. ({error})", provider.name, model, label)
    except LLMError as error:
        return CheckResult(False, error.status_word, str(error), provider.name, model, label)
    latency = time.monotonic() - started
    answered = completion.model or model
    return CheckResult(True, "ok", f"{provider.name} answered with {answered} in {latency:.2f} s.", provider.name,
                       model, label, latency)
