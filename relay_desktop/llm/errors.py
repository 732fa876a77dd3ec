"""What can go wrong when asking a model, in plain words, and whether trying again can help.

Each provider module translates its SDK's exceptions into these, so retries, key rotation, fallback chains and
the "test connection" result are decided once, here, for every provider.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar


class LLMError(Exception):
    """Base class. `str(error)` is a sentence a user can act on; it never contains a key."""

    retryable: ClassVar[bool] = False  # the same request may succeed if sent again after a pause
    try_next_provider: ClassVar[bool] = True  # a fallback provider may succeed where this one failed
    status_word: ClassVar[str] = "error"  # a one-word summary for "test connection" and logs

    def __init__(self, message: str, *, provider: str = "", model: str = "") -> None:
        super().__init__(message)
        self.provider = provider
        self.model = model


class NoApiKey(LLMError):
    status_word = "no key"


class InvalidApiKey(LLMError):
    status_word = "invalid key"


class PermissionDenied(LLMError):
    status_word = "permission denied"


class ModelNotFound(LLMError):
    status_word = "unknown model"


class BadRequest(LLMError):
    """The provider refused the request itself (too long, unsupported parameter): sending it again won't help."""

    status_word = "bad request"

    def __init__(self, message: str, *, provider: str = "", model: str = "", unsupported_tools: bool = False) -> None:
        super().__init__(message, provider=provider, model=model)
        self.unsupported_tools = unsupported_tools  # the server has no tool calling: switch to a text format


class RateLimited(LLMError):
    retryable = True
    status_word = "rate limited"

    def __init__(self, message: str, *, provider: str = "", model: str = "", retry_after: float | None = None) -> None:
        super().__init__(message, provider=provider, model=model)
        self.retry_after = retry_after  # seconds, from the provider's retry-after header when it sent one


class QuotaExhausted(LLMError):
    """Out of credit or over a hard quota: waiting a few seconds won't help, another key or provider might."""

    status_word = "quota exhausted"


class ServerError(LLMError):
    retryable = True
    status_word = "server error"

    def __init__(self, message: str, *, provider: str = "", model: str = "", status: int | None = None) -> None:
        super().__init__(message, provider=provider, model=model)
        self.status = status


class ConnectionFailed(LLMError):
    """No answer at all: the connection failed or dropped, for a reason the system did not say."""

    retryable = True
    status_word = "connection failed"


class NoNetwork(ConnectionFailed):
    """This computer has no route to the network (it is offline)."""

    status_word = "no network"


class HostNotFound(ConnectionFailed):
    """The server's name did not resolve (a typo in the address, or no DNS)."""

    status_word = "host not found"


class ConnectionRefused(ConnectionFailed):
    """The server's machine answered, but nothing listens at that port (a local server not started)."""

    status_word = "connection refused"


class RequestTimedOut(LLMError):
    retryable = True
    status_word = "timeout"


class InvalidOutput(LLMError):
    """The model answered, but not in the required shape, even after being shown its error once."""

    status_word = "invalid output"

    def __init__(self, message: str, *, provider: str = "", model: str = "", text: str = "",
                 problems: Sequence[str] = ()) -> None:
        super().__init__(message, provider=provider, model=model)
        self.text = text
        self.problems = list(problems)


class NoModelConfigured(LLMError):
    try_next_provider = False
    status_word = "not configured"


class AllProvidersFailed(LLMError):
    """Every model in a role's fallback chain failed; `failures` keeps each one's error, in order."""

    try_next_provider = False

    def __init__(self, role: str, failures: Sequence[LLMError]) -> None:
        lines = "; ".join(f"{f.provider}/{f.model}: {f}" for f in failures)
        super().__init__(f"Every model for the {role} role failed. {lines}")
        self.failures = list(failures)
