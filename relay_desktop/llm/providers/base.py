"""What every provider module implements, and the HTTP-status-to-error mapping they share."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import json
import logging
import socket
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar
from urllib.parse import urlsplit

import httpx2
import pydantic

from relay_desktop.llm.config import ProviderKind, ProviderSettings
from relay_desktop.llm.errors import (
    BadRequest,
    ConnectionFailed,
    ConnectionRefused,
    HostNotFound,
    InvalidApiKey,
    LLMError,
    ModelNotFound,
    NoNetwork,
    PermissionDenied,
    QuotaExhausted,
    RateLimited,
    RequestTimedOut,
    ServerError,
)
from relay_desktop.llm.output import format_instructions
from relay_desktop.llm.redaction import redact
from relay_desktop.llm.retry import parse_retry_after
from relay_desktop.llm.types import Completion, LLMRequest, OutputMode

log = logging.getLogger(__name__)

ClientT = TypeVar("ClientT")

_TOOLS_UNSUPPORTED = ("does not support tools", "tools are not supported", "tool use is not supported",
                      "tool_choice", "does not support function", "tools is not supported", "unsupported tool")


class Provider(ABC, Generic[ClientT]):
    kind: ClassVar[ProviderKind]
    modes: ClassVar[tuple[OutputMode, ...]]  # the output modes this provider supports, best first
    default_base_url: ClassVar[str]

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings
        self._clients: dict[str, ClientT] = {}  # one SDK client (and connection pool) per key

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def host(self) -> str:
        return urlsplit(self.settings.base_url or self.default_base_url).netloc or "the server"

    def default_mode(self) -> OutputMode:
        return self.settings.output_mode or self.modes[0]

    async def complete(self, request: LLMRequest, model: str, api_key: str | None,
                       mode: OutputMode) -> Completion:
        """One HTTP call, no retries: a `Completion`, or an `LLMError` saying what went wrong in plain words.

        Cancelling the awaiting task aborts the HTTP request: the SDKs' async transports close the connection.
        """
        try:
            return await self._complete(request, model, api_key, mode)
        except (LLMError, asyncio.CancelledError):
            raise
        except Exception as error:  # the SDKs raise many types; each becomes one of ours
            translated = self.translate(error, model)
            if translated is None:
                raise  # not a provider failure but a bug of ours (a TypeError, say): never retry it
            log.debug("%s/%s: %s: %s", self.name, model, type(error).__name__, redact(str(error)))
            raise translated from None  # the SDK's exception carries the request, key header included

    @abstractmethod
    async def _complete(self, request: LLMRequest, model: str, api_key: str | None,
                        mode: OutputMode) -> Completion: ...

    def translate(self, error: Exception, model: str) -> LLMError | None:
        """Our error for an SDK's exception, or None when `error` is not a provider failure at all.

        Subclasses handle their SDK's classes first and call this for what is left: what every SDK lets
        through unwrapped (a 200 whose body is not JSON, or a body of the wrong shape)."""
        if isinstance(error, json.JSONDecodeError | pydantic.ValidationError):
            return self.unreadable_response(model, f"{type(error).__name__}: {error}")
        if isinstance(error, httpx2.TimeoutException | TimeoutError):
            return self.timeout_error(model)
        if isinstance(error, httpx2.TransportError | ConnectionError):
            return self.connection_error(error, model)
        return None

    @abstractmethod
    def _new_client(self, api_key: str | None) -> ClientT: ...

    @abstractmethod
    async def _close_client(self, client: ClientT) -> None: ...

    def client(self, api_key: str | None) -> ClientT:
        slot = hashlib.sha256((api_key or "").encode()).hexdigest()
        if slot not in self._clients:
            self._clients[slot] = self._new_client(api_key)
        return self._clients[slot]

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            try:
                await self._close_client(client)
            except Exception as error:  # closing is best effort; a dead pool must not hide the real result
                log.debug("closing %s client: %s", self.name, redact(str(error)))

    def system_prompt(self, request: LLMRequest, mode: OutputMode) -> str:
        if request.contract is None or mode is OutputMode.TOOL:
            return request.system
        return request.system + format_instructions(request.contract, mode)

    # Errors shared by the providers that answer with HTTP statuses.

    def status_error(self, status: int, message: str, model: str, headers: Mapping[str, str] | None = None,
                     code: str = "") -> LLMError:
        message = redact(" ".join(str(message).split()))[:300]
        who = dict(provider=self.name, model=model)
        lowered = f"{message} {code}".lower()
        if status == 401 or "api_key_invalid" in lowered or "invalid api key" in lowered:
            return InvalidApiKey(f"{self.name} rejected the API key (invalid, revoked or for another provider). "
                                 f"The server said: {message}", **who)
        if status == 403:
            return PermissionDenied(f"{self.name} refused access to {model} with this key: {message}", **who)
        if status == 404:
            return ModelNotFound(f"{self.name} has no model named {model!r} (or {self.host} is not the right "
                                 f"server). The server said: {message}", **who)
        if status == 429:
            if "insufficient_quota" in lowered or "quota" in code.lower() or "billing" in lowered:
                return QuotaExhausted(f"{self.name}: the account is out of credit or quota: {message}", **who)
            retry_after = _retry_after(headers)
            wait = f" (the server asks to wait {_seconds(retry_after)})" if retry_after is not None else ""
            return RateLimited(f"{self.name} is rate limiting requests{wait}: {message}", retry_after=retry_after,
                               **who)
        if status in (400, 402) and ("credit balance" in lowered or "billing" in lowered):
            return QuotaExhausted(f"{self.name}: the account is out of credit: {message}", **who)
        if status == 402:
            return QuotaExhausted(f"{self.name}: payment required: {message}", **who)
        if status in (408, 409) or status >= 500:
            return ServerError(f"{self.name} had a server error (HTTP {status}): {message}", status=status, **who)
        if status == 400 and any(phrase in lowered for phrase in _TOOLS_UNSUPPORTED):
            return BadRequest(f"{self.name}/{model} does not support tool calling: {message}",
                              unsupported_tools=True, **who)
        if status in (400, 413, 422):
            return BadRequest(f"{self.name} refused the request (HTTP {status}): {message}", **who)
        return ServerError(f"{self.name} answered HTTP {status}: {message}", status=status, **who)

    def connection_error(self, error: BaseException, model: str) -> LLMError:
        reason = redact(str(error) or type(error).__name__)
        cause = error.__cause__ or error.__context__
        if cause is not None and str(cause):
            reason = redact(str(cause))
        who = {"provider": self.name, "model": model}
        kind = connection_failure_kind(error)
        if kind == "refused":
            return ConnectionRefused(f"{self.name} at {self.host} refused the connection: is the server running, "
                                     "and is the address right?", **who)
        if kind == "dns":
            return HostNotFound(f"Could not find {self.host} ({reason}): check the address, or the network's "
                                "DNS.", **who)
        if kind == "offline":
            return NoNetwork(f"Could not reach {self.name} at {self.host}: this computer has no network "
                             f"({reason}).", **who)
        return ConnectionFailed(f"Could not reach {self.name} at {self.host}: {reason}. Check the network "
                                "connection, or that the server is running.", **who)

    def timeout_error(self, model: str) -> LLMError:
        return RequestTimedOut(f"{self.name} did not answer within {self.settings.timeout:g} s.",
                               provider=self.name, model=model)

    def unreadable_response(self, model: str, detail: str) -> LLMError:
        return ServerError(f"{self.name} sent a response that could not be read ({redact(detail)[:200]}).",
                           provider=self.name, model=model)


def connection_failure_kind(error: BaseException) -> str:
    """Why a connection failed, from the exception and its causes: "refused", "dns", "offline" or ""."""
    seen: set[int] = set()
    current: BaseException | None = error
    texts: list[str] = []
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return "refused"
        if isinstance(current, socket.gaierror):
            return "dns"
        if isinstance(current, OSError) and current.errno in (errno.ENETUNREACH, errno.ENETDOWN):
            return "offline"
        texts.append(str(current).lower())
        current = current.__cause__ or current.__context__
    text = " ".join(texts)
    # httpx (through anyio) flattens the refusal into a message; each wording is what it says on Linux/macOS.
    if "connection refused" in text or "all connection attempts failed" in text or "errno 111" in text:
        return "refused"
    if "name or service not known" in text or "nodename nor servname" in text or \
            "temporary failure in name resolution" in text or "getaddrinfo failed" in text:
        return "dns"
    if "network is unreachable" in text:
        return "offline"
    return ""


def _seconds(value: float) -> str:
    """A wait as a person reads it: "1.5 s", "3,600 s" (not 3.6e+03)."""
    return f"{value:,.0f} s" if value >= 10 else f"{value:.2g} s"


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    millis = parse_retry_after(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    return parse_retry_after(headers.get("retry-after"))


def error_message(body: Any, fallback: str) -> tuple[str, str]:
    """(message, code) from the error JSON that Anthropic, OpenAI-style and Google servers send."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            message = inner.get("message") or fallback
            code = inner.get("code") or inner.get("type") or inner.get("status") or ""
            reason = "".join(str(d.get("reason", "")) for d in inner.get("details", []) or [] if isinstance(d, dict))
            return str(message), f"{code} {reason}".strip()
        if isinstance(inner, str):
            return inner, ""
    return fallback, ""
