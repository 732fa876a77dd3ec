"""The provider-neutral request and response: what the agent asks a model, and what it gets back."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

Role = Literal["fast", "planning", "verifier"]
ROLES: tuple[Role, ...] = ("fast", "planning", "verifier")


class OutputMode(StrEnum):
    """How the model is asked for its structured answer.

    Providers differ in what they support, and local servers often lack tool calling, so the mode is chosen per
    provider (see `Provider.modes`) and can be pinned in settings.
    """

    TOOL = "tool"  # a forced tool / function call whose arguments are the answer
    JSON_SCHEMA = "json_schema"  # the provider's native schema-constrained JSON output
    JSON_TEXT = "json_text"  # plain text holding JSON, asked for in the prompt (any server)
    THINK_ANSWER = "think_answer"  # <think>reasoning</think><answer>JSON</answer> in plain text


@dataclass(frozen=True)
class ImagePart:
    data: bytes
    media_type: str = "image/jpeg"

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"

    def __repr__(self) -> str:  # a screenshot's bytes would flood logs and tracebacks
        return f"ImagePart({self.media_type}, {len(self.data)} bytes)"


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant"]
    text: str = ""
    images: tuple[ImagePart, ...] = ()

    @classmethod
    def user(cls, text: str, *images: ImagePart) -> Message:
        return cls("user", text, tuple(images))

    @classmethod
    def assistant(cls, text: str) -> Message:
        return cls("assistant", text)


@dataclass(frozen=True)
class OutputContract:
    """The structured answer wanted: a JSON schema, offered to the model as a tool named `name`."""

    name: str
    description: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class LLMRequest:
    system: str
    messages: tuple[Message, ...]
    contract: OutputContract | None = None  # None: free text, no validation
    max_tokens: int = 1024
    temperature: float = 0.0

    def with_messages(self, *extra: Message) -> LLMRequest:
        return LLMRequest(self.system, (*self.messages, *extra), self.contract, self.max_tokens, self.temperature)

    def with_texts(self, change: Callable[[str], str]) -> LLMRequest:
        """The request with ``change`` applied to every text (the system prompt and each message's)."""
        return LLMRequest(change(self.system), tuple(Message(m.role, change(m.text), m.images) for m in self.messages),
                          self.contract, self.max_tokens, self.temperature)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0  # all prompt tokens, cached ones included
    output_tokens: int = 0
    cached_input_tokens: int = 0  # prompt tokens read from the provider's cache (billed cheaper)
    cache_write_tokens: int = 0  # prompt tokens written to the cache (Anthropic bills these higher)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class Completion:
    """One provider answer, before parsing and validation."""

    text: str = ""
    tool_name: str | None = None
    tool_args: dict[str, Any] | str | None = None  # a string when the provider sends arguments as JSON text
    thinking: str = ""
    usage: Usage = field(default_factory=Usage)
    model: str = ""  # the model id the provider reports, which may be more specific than the one asked for
    stop_reason: str | None = None


@dataclass(frozen=True)
class LLMResponse:
    data: dict[str, Any] | None  # the validated structured answer; None for free-text requests
    text: str  # the raw text the model wrote (tool arguments as JSON when it answered with a tool call)
    thinking: str
    usage: Usage  # summed over every call this answer took, repair included
    latency_s: float  # from the request to the validated answer, retries and repair included
    provider: str
    model: str
    mode: OutputMode
    attempts: int = 1  # HTTP calls made, retries and repair included
    repaired: bool = False
    cost_usd: float | None = None  # None when the model has no price in the table
