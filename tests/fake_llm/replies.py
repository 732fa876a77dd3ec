"""The provider-neutral script: what the fake server should answer, before it knows which wire format to use.

A `Reply` says *what* happens (a text answer, a tool call, an HTTP error, a dropped connection, ...); `wire.py`
turns it into Anthropic, OpenAI or Gemini JSON once a request arrives. Keeping the two apart is what lets one test
be parametrized over all three providers with the very same script.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from tests.fake_llm.recorded import RecordedRequest

ReplyKind = Literal["text", "tool_call", "error", "slow", "hang", "truncated", "drop", "malformed", "raw", "dynamic"]
StopReason = Literal["end", "max_tokens"]

# Provider-neutral error kinds. Each wire format maps them to its own words (see wire.py), and, when a test gives
# no status, to the status that provider really uses (Gemini says 400 for a bad key, Anthropic 529 when overloaded).
ERROR_KINDS = ("invalid_request", "invalid_key", "permission", "not_found", "rate_limit", "quota", "server",
               "overloaded", "unavailable", "no_script")

_KIND_FROM_STATUS = {400: "invalid_request", 401: "invalid_key", 403: "permission", 404: "not_found",
                     429: "rate_limit", 500: "server", 502: "unavailable", 503: "unavailable", 504: "unavailable",
                     529: "overloaded"}


def kind_for_status(status: int) -> str:
    if status in _KIND_FROM_STATUS:
        return _KIND_FROM_STATUS[status]
    return "server" if status >= 500 else "invalid_request"


@dataclass(frozen=True)
class Usage:
    """Token counts, the way the app counts them: `input_tokens` is every prompt token, cached ones included.

    The wire formats differ here, which is exactly what the app's providers must get right: OpenAI and Gemini
    report the prompt total and the cached part of it; Anthropic reports `input_tokens` *without* the cache reads
    and writes, which come as `cache_read_input_tokens` / `cache_creation_input_tokens`.
    """

    input_tokens: int = 12
    output_tokens: int = 7
    cached_tokens: int = 0  # prompt tokens read from the provider's cache (part of input_tokens)
    cache_write_tokens: int = 0  # prompt tokens written to the cache (Anthropic only; part of input_tokens)
    thinking_tokens: int = 0  # reasoning tokens, reported apart by OpenAI/Gemini (part of output_tokens)

    def __post_init__(self) -> None:
        if min(self.input_tokens, self.output_tokens, self.cached_tokens, self.cache_write_tokens,
               self.thinking_tokens) < 0:
            raise ValueError(f"token counts cannot be negative: {self}")
        if self.cached_tokens + self.cache_write_tokens > self.input_tokens:
            raise ValueError(f"cached + cache_write tokens exceed input_tokens (they are part of it): {self}")


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build it with the class methods; the fields are the server's business."""

    kind: ReplyKind
    content: str | None = None  # the assistant text (`text` is taken by the class method)
    thinking: str | None = None
    calls: tuple[ToolCall, ...] = ()  # tool calls (`tool_calls` is taken by the class method)
    usage: Usage = field(default_factory=Usage)
    stop: StopReason = "end"
    status: int | None = None  # errors: None means "what this provider really sends for `error_kind`"
    error_kind: str | None = None
    message: str | None = None
    retry_after: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    then: Reply | None = None
    keep: float = 0.5  # truncated: the fraction of the body that is sent before the connection closes
    body: Any = None  # malformed/raw: bytes, str, JSON-able value, or a function of the request giving one
    make: Callable[[RecordedRequest], Reply] | None = None

    # Answers.

    @classmethod
    def text(cls, text: str, *, thinking: str | None = None, stop: StopReason = "end",
                   usage: Usage | None = None, **usage_kwargs: int) -> Reply:
        """A plain assistant message. `thinking` adds a reasoning block (Anthropic `thinking`, Gemini `thought`
        part, OpenAI-compatible `reasoning_content`). Usage via `usage=Usage(...)` or `input_tokens=...` etc."""
        return cls("text", content=text, thinking=thinking, stop=stop, usage=_usage(usage, usage_kwargs))

    @classmethod
    def tool_call(cls, name: str, args: Mapping[str, Any], text: str | None = None, *, stop: StopReason = "end",
                  usage: Usage | None = None, **usage_kwargs: int) -> Reply:
        """The model calls one tool (`args` is the parsed arguments object), optionally with some text first."""
        return cls.tool_calls([(name, args)], text, stop=stop, usage=usage, **usage_kwargs)

    @classmethod
    def tool_calls(cls, calls: list[tuple[str, Mapping[str, Any]]], text: str | None = None, *,
                   stop: StopReason = "end", usage: Usage | None = None, **usage_kwargs: int) -> Reply:
        """Several tool calls in one answer (parallel tool calling)."""
        if not calls:
            raise ValueError("tool_calls needs at least one (name, args) pair")
        return cls("tool_call", content=text, calls=tuple(ToolCall(n, dict(a)) for n, a in calls), stop=stop,
                   usage=_usage(usage, usage_kwargs))

    # HTTP errors, in the provider's own error JSON.

    @classmethod
    def error(cls, status: int | None = None, kind: str | None = None, message: str | None = None, *,
              retry_after: float | None = None, headers: Mapping[str, str] | None = None) -> Reply:
        """An HTTP error. Give the status (sent as is on every wire; the kind follows from it) or a kind from
        `ERROR_KINDS` (the status is then the one each provider really uses), or both. `retry_after` sends a
        `retry-after` header (and Gemini's RetryInfo detail on a 429)."""
        if status is None and kind is None:
            raise ValueError("Reply.error needs a status, a kind, or both")
        kind = kind or kind_for_status(status or 500)
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {kind!r}; one of {', '.join(ERROR_KINDS)}")
        return cls("error", status=status, error_kind=kind, message=message, retry_after=retry_after,
                   headers=dict(headers or {}))

    # Timing and broken transports.

    @classmethod
    def slow(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Wait `seconds` (noticing a client that gives up meanwhile), then answer `then` (default: a text)."""
        return cls("slow", seconds=seconds, then=then or cls.text("slow answer"))

    @classmethod
    def hang(cls) -> Reply:
        """Never answer: hold the request until the client disconnects or the server stops."""
        return cls("hang")

    @classmethod
    def truncated(cls, then: Reply | None = None, keep: float = 0.5) -> Reply:
        """Announce the full body of `then` in Content-Length, send only `keep` of it, and close the connection."""
        if not 0 <= keep < 1:
            raise ValueError("keep must be in [0, 1)")
        return cls("truncated", then=then or cls.text("this answer is cut off half way"), keep=keep)

    @classmethod
    def drop(cls) -> Reply:
        """Close the connection without sending a single byte of response."""
        return cls("drop")

    @classmethod
    def malformed(cls, body: bytes | str = b'{"id": "fake", "choices": [ this is not JSON') -> Reply:
        """HTTP 200, `application/json`, and a body that is not JSON."""
        return cls("malformed", body=body)

    # Escape hatches.

    @classmethod
    def raw(cls, body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Reply:
        """Exactly this response: `body` is bytes, str, a JSON-able value, or `f(request)` returning one of
        those (e.g. to answer a shape only one provider has, like Gemini's blocked prompt without candidates)."""
        return cls("raw", body=body, status=status, headers=dict(headers or {}))

    @classmethod
    def from_request(cls, make: Callable[[RecordedRequest], Reply]) -> Reply:
        """Decide when the request arrives: `make(request)` returns the Reply to send (e.g. call whichever tool
        the request offered, or answer depending on the prompt)."""
        return cls("dynamic", make=make)


def _usage(usage: Usage | None, kwargs: Mapping[str, int]) -> Usage:
    if usage is not None and kwargs:
        raise TypeError("give usage=Usage(...) or token keyword arguments, not both")
    return usage if usage is not None else Usage(**kwargs)
