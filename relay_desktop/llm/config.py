"""Which providers exist, which model each role uses, and in what order to fall back.

Plain data with `to_dict`/`from_dict`, so the settings window can persist it (keys are never part of it:
they live in the keyring, see `keys.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from relay_desktop.llm.keys import check_provider
from relay_desktop.llm.retry import RetryPolicy
from relay_desktop.llm.types import ROLES, OutputMode, Role

ProviderKind = Literal["anthropic", "openai", "gemini"]
PROVIDER_KINDS: tuple[ProviderKind, ...] = ("anthropic", "openai", "gemini")

# Sensible defaults per role, used when a provider is picked without naming models. The settings window and
# `check-provider --model` override them; newer models work as soon as their id is typed in.
DEFAULT_MODELS: dict[ProviderKind, dict[Role, str]] = {
    "anthropic": {"fast": "claude-haiku-4-5", "planning": "claude-sonnet-4-6", "verifier": "claude-haiku-4-5"},
    "openai": {"fast": "gpt-4.1-mini", "planning": "gpt-4.1", "verifier": "gpt-4.1-mini"},
    "gemini": {"fast": "gemini-2.5-flash", "planning": "gemini-2.5-pro", "verifier": "gemini-2.5-flash"},
}


@dataclass(frozen=True)
class ProviderSettings:
    name: str  # "anthropic", "openai", "gemini", or a name the user gave an OpenAI-compatible server
    kind: ProviderKind
    base_url: str | None = None  # an OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter) or a proxy
    timeout: float = 60.0  # seconds for one HTTP call
    output_mode: OutputMode | None = None  # None: the best mode the provider supports
    needs_key: bool = True  # local servers take no key

    def __post_init__(self) -> None:
        check_provider(self.name)  # it names the keyring entry too, so one rule serves both
        if self.kind not in PROVIDER_KINDS:
            raise ValueError(f"unknown provider kind {self.kind!r}; expected one of {', '.join(PROVIDER_KINDS)}")
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")
        if self.base_url is not None and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base URL {self.base_url!r} must start with http:// or https://")


def builtin_provider(name: str, base_url: str | None = None) -> ProviderSettings:
    """Settings for one of the three built-in providers, or an OpenAI-compatible server given its URL."""
    if name in PROVIDER_KINDS:
        return ProviderSettings(name, cast(ProviderKind, name), base_url=base_url)
    if base_url:
        return ProviderSettings(name, "openai", base_url=base_url, needs_key=False)
    raise ValueError(f"unknown provider {name!r}: use anthropic, openai or gemini, or give a --base-url "
                     "for an OpenAI-compatible server")


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model: str

    @classmethod
    def parse(cls, text: str) -> ModelRef:
        provider, sep, model = text.partition("/")
        if not sep or not provider or not model:
            raise ValueError(f"model {text!r} must be written provider/model, e.g. anthropic/claude-haiku-4-5")
        return cls(provider, model)

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass(frozen=True)
class LLMSettings:
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    roles: dict[Role, tuple[ModelRef, ...]] = field(default_factory=dict)  # each role's fallback chain
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def __post_init__(self) -> None:
        for role, chain in self.roles.items():
            if role not in ROLES:
                raise ValueError(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
            for ref in chain:
                if ref.provider not in self.providers:
                    raise ValueError(f"the {role} role uses {ref}, but no provider {ref.provider!r} is configured")

    def chain(self, role: Role) -> tuple[ModelRef, ...]:
        return self.roles.get(role, ())

    @classmethod
    def for_providers(cls, *names: str) -> LLMSettings:
        """Built-in providers with their default models; the first is preferred, the others are fallbacks."""
        providers = {name: builtin_provider(name) for name in names}
        roles = {role: tuple(ModelRef(n, DEFAULT_MODELS[providers[n].kind][role]) for n in names) for role in ROLES}
        return cls(providers, roles)

    def with_provider(self, provider: ProviderSettings) -> LLMSettings:
        return replace(self, providers={**self.providers, provider.name: provider})

    def to_dict(self) -> dict[str, Any]:
        return {
            "providers": [
                {"name": p.name, "kind": p.kind, "base_url": p.base_url, "timeout": p.timeout,
                 "output_mode": p.output_mode.value if p.output_mode else None, "needs_key": p.needs_key}
                for p in self.providers.values()
            ],
            "roles": {role: [str(ref) for ref in chain] for role, chain in self.roles.items()},
            "retry": {"max_attempts": self.retry.max_attempts, "base_delay": self.retry.base_delay,
                      "max_delay": self.retry.max_delay, "max_total": self.retry.max_total,
                      "max_retry_after": self.retry.max_retry_after},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LLMSettings:
        try:
            providers = {}
            for item in data.get("providers", []):
                mode = item.get("output_mode")
                provider = ProviderSettings(
                    name=item["name"], kind=item["kind"], base_url=item.get("base_url"),
                    timeout=float(item.get("timeout", 60.0)), output_mode=OutputMode(mode) if mode else None,
                    needs_key=bool(item.get("needs_key", True)))
                providers[provider.name] = provider
            roles = {cast(Role, role): tuple(ModelRef.parse(r) for r in chain)
                     for role, chain in data.get("roles", {}).items()}
            retry = RetryPolicy(**data.get("retry", {}))
        except (KeyError, TypeError) as error:
            raise ValueError(f"invalid model settings: {error!r}") from None
        return cls(providers, roles, retry)
