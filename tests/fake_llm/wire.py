"""Each provider's wire format: which request is which, and a neutral `Reply` rendered as that provider's JSON.

Only what the official SDKs need to parse a response (and what the app reads) is rendered, but with real field
names and real error wording, so the SDKs pick their real exception classes and parsers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.fake_llm.recorded import Headers, Provider
from tests.fake_llm.replies import Reply

# Epoch seconds used for every `created` stamp: stable bodies make failures easier to diff.
CREATED = 1_760_000_000

_GEMINI_PATH = re.compile(r"^/(?:v\d+\w*/)?(?:models|tunedModels)/(?P<model>[^/:]+):(?P<method>\w+)$")
_GEMINI_VERSIONS = ("/v1/", "/v1beta/", "/v1alpha/")


@dataclass(frozen=True)
class Route:
    provider: Provider
    action: str  # "generate", "stream" (unsupported, answered with an error), "models", or "none"
    model_in_path: str | None = None


@dataclass(frozen=True)
class Rendered:
    status: int
    headers: dict[str, str]
    body: bytes


def route(method: str, path: str, headers: Headers) -> Route:
    """Which provider and endpoint a request is for, from its path (and headers where paths are shared)."""
    match = _GEMINI_PATH.match(path)
    if method == "POST" and match:
        # google-genai 3.x defaults to api_version "v1" (older SDKs and the docs use "v1beta"); both are served.
        action = {"generateContent": "generate", "streamGenerateContent": "stream"}.get(match["method"], "none")
        return Route("gemini", action, match["model"])
    if method == "POST" and path.endswith("/messages"):
        return Route("anthropic", "generate")
    if method == "POST" and path.endswith("/chat/completions"):
        return Route("openai", "generate")
    if method == "GET" and path.rstrip("/").endswith("/models"):
        # All three SDKs list models with GET .../models; the headers tell them apart.
        if "x-goog-api-key" in headers or path.startswith(("/v1beta/", "/v1alpha/")):
            return Route("gemini", "models")
        if "anthropic-version" in headers:
            return Route("anthropic", "models")
        return Route("openai", "models")
    provider: Provider = "gemini" if "x-goog-api-key" in headers else (
        "anthropic" if "anthropic-version" in headers else "unknown")
    return Route(provider, "none")


def wants_stream(provider: Provider, body: Any) -> bool:
    return provider in ("anthropic", "openai") and isinstance(body, dict) and bool(body.get("stream"))


def json_response(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Rendered:
    return Rendered(status, {"content-type": "application/json", **(headers or {})},
                    json.dumps(body, separators=(",", ":")).encode())


# Successful answers.

def render_answer(provider: Provider, reply: Reply, model: str, index: int) -> Rendered:
    """A text or tool-call `Reply` as a 200 response of this provider."""
    render = {"anthropic": _anthropic_answer, "openai": _openai_answer, "gemini": _gemini_answer}[provider]
    return render(reply, model, index)


def _anthropic_answer(reply: Reply, model: str, index: int) -> Rendered:
    content: list[dict[str, Any]] = []
    if reply.thinking is not None:
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": f"fake-signature-{index}"})
    if reply.content is not None:
        content.append({"type": "text", "text": reply.content})
    for n, call in enumerate(reply.calls):
        content.append({"type": "tool_use", "id": f"toolu_fake_{index:04d}_{n}", "name": call.name,
                        "input": dict(call.args)})
    stop = "max_tokens" if reply.stop == "max_tokens" else ("tool_use" if reply.calls else "end_turn")
    u = reply.usage
    usage = {
        # Anthropic's input_tokens leaves out what was read from or written to the prompt cache.
        "input_tokens": u.input_tokens - u.cached_tokens - u.cache_write_tokens,
        "output_tokens": u.output_tokens,
        "cache_read_input_tokens": u.cached_tokens,
        "cache_creation_input_tokens": u.cache_write_tokens,
        "service_tier": "standard",
    }
    body = {"id": f"msg_fake_{index:04d}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}
    return json_response(200, body, {"request-id": f"req_fake_{index:04d}"})


def _openai_answer(reply: Reply, model: str, index: int) -> Rendered:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None, "annotations": []}
    if reply.thinking is not None:
        message["reasoning_content"] = reply.thinking  # DeepSeek/vLLM-style; OpenAI itself never shows reasoning
    if reply.calls:
        message["tool_calls"] = [
            {"id": f"call_fake_{index:04d}_{n}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.args)}}  # a JSON *string*, as OpenAI does
            for n, call in enumerate(reply.calls)]
    finish = "length" if reply.stop == "max_tokens" else ("tool_calls" if reply.calls else "stop")
    u = reply.usage
    usage = {
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": u.thinking_tokens, "audio_tokens": 0,
                                      "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
    }
    body = {"id": f"chatcmpl-fake-{index:04d}", "object": "chat.completion", "created": CREATED, "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": usage, "service_tier": "default", "system_fingerprint": "fp_fake"}
    return json_response(200, body, {"x-request-id": f"req_fake_{index:04d}"})


def _gemini_answer(reply: Reply, model: str, index: int) -> Rendered:
    parts: list[dict[str, Any]] = []
    if reply.thinking is not None:
        parts.append({"text": reply.thinking, "thought": True})
    if reply.content is not None:
        parts.append({"text": reply.content})
    for n, call in enumerate(reply.calls):
        parts.append({"functionCall": {"id": f"fc_fake_{index:04d}_{n}", "name": call.name, "args": dict(call.args)}})
    u = reply.usage
    usage: dict[str, Any] = {
        "promptTokenCount": u.input_tokens,
        "candidatesTokenCount": u.output_tokens - u.thinking_tokens,
        "totalTokenCount": u.input_tokens + u.output_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": u.input_tokens}],
    }
    if u.cached_tokens:  # the real API leaves the cache fields out when nothing was cached
        usage["cachedContentTokenCount"] = u.cached_tokens
        usage["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": u.cached_tokens}]
    if u.thinking_tokens:
        usage["thoughtsTokenCount"] = u.thinking_tokens
    body = {
        # Gemini says STOP for function calls too; only running out of tokens is different.
        "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0,
                        "finishReason": "MAX_TOKENS" if reply.stop == "max_tokens" else "STOP"}],
        "usageMetadata": usage,
        "modelVersion": model,
        "responseId": f"fake-response-{index:04d}",
    }
    return json_response(200, body)


# Errors.

# kind -> (status when the test gave none, Anthropic error type, default message)
_ANTHROPIC_ERRORS: dict[str, tuple[int, str, str]] = {
    "invalid_request": (400, "invalid_request_error", "messages: field required"),
    "invalid_key": (401, "authentication_error", "invalid x-api-key"),
    "permission": (403, "permission_error", "Your API key does not have permission to use the specified resource."),
    "not_found": (404, "not_found_error", "model: {model}"),
    "rate_limit": (429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."),
    # Anthropic answers an empty balance with a 400, not a 429.
    "quota": (400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API. Please go "
              "to Plans & Billing to upgrade or purchase credits."),
    "server": (500, "api_error", "Internal server error"),
    "overloaded": (529, "overloaded_error", "Overloaded"),
    "unavailable": (503, "api_error", "Service unavailable"),
}

# kind -> (status, OpenAI error type, code, default message)
_OPENAI_ERRORS: dict[str, tuple[int, str, str | None, str]] = {
    "invalid_request": (400, "invalid_request_error", None, "Invalid request."),
    "invalid_key": (401, "invalid_request_error", "invalid_api_key",
                    "Incorrect API key provided: {key}. You can find your API key at "
                    "https://platform.openai.com/account/api-keys."),
    "permission": (403, "invalid_request_error", "unsupported_country_region_territory",
                   "Country, region, or territory not supported"),
    "not_found": (404, "invalid_request_error", "model_not_found",
                  "The model `{model}` does not exist or you do not have access to it."),
    "rate_limit": (429, "requests", "rate_limit_exceeded",
                   "Rate limit reached for {model} on requests per min (RPM): Limit 3, Used 3, Requested 1."),
    "quota": (429, "insufficient_quota", "insufficient_quota",
              "You exceeded your current quota, please check your plan and billing details."),
    "server": (500, "server_error", None, "The server had an error while processing your request. Sorry about that!"),
    "overloaded": (503, "server_error", None, "The engine is currently overloaded, please try again later"),
    "unavailable": (503, "server_error", None, "The server is temporarily unavailable."),
}

# kind -> (status, default message); Google's status word follows the HTTP status (_GOOGLE_STATUS).
_GEMINI_ERRORS: dict[str, tuple[int, str]] = {
    "invalid_request": (400, "Request contains an invalid argument."),
    "invalid_key": (400, "API key not valid. Please pass a valid API key."),
    "permission": (403, "Permission denied: Consumer does not have access to this model."),
    "not_found": (404, "models/{model} is not found for API version {version}, or is not supported for "
                  "generateContent. Call ListModels to see the list of available models and their supported methods."),
    "rate_limit": (429, "Resource has been exhausted (e.g. check quota)."),
    "quota": (429, "You exceeded your current quota, please check your plan and billing details."),
    "server": (500, "An internal error has occurred. Please retry or report in "
               "https://developers.generativeai.google/guide/troubleshooting"),
    "overloaded": (503, "The model is overloaded. Please try again later."),
    "unavailable": (503, "The service is currently unavailable."),
}

_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                  409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
                  503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}

NO_SCRIPT_MESSAGE = "fake server: no scripted reply left"


def render_error(provider: Provider, reply: Reply, *, model: str | None, key: str | None, index: int,
                 api_version: str = "v1beta") -> Rendered:
    """An error `Reply` in the provider's error JSON, with its real status unless the script fixed one."""
    kind = reply.error_kind or "server"
    table_kind = "server" if kind == "no_script" else kind
    headers = dict(reply.headers)
    if reply.retry_after is not None:
        seconds = reply.retry_after
        headers.setdefault("retry-after", str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}")
    if kind == "no_script":
        headers.setdefault("x-should-retry", "false")  # the Stainless SDKs obey this: fail at once, don't retry
    fill = {"model": model or "", "key": _masked(key), "version": api_version}

    def text(default: str) -> str:
        # Only the built-in messages are templates: a scripted message may well contain braces.
        return reply.message if reply.message is not None else default.format(**fill)

    if provider == "anthropic":
        status, error_type, message = _ANTHROPIC_ERRORS[table_kind]
        body: dict[str, Any] = {"type": "error", "error": {"type": error_type,
                                                          "message": text(message)},
                                "request_id": f"req_fake_{index:04d}"}
        headers.setdefault("request-id", f"req_fake_{index:04d}")
        return json_response(reply.status or status, body, headers)

    if provider == "gemini":
        status, message = _GEMINI_ERRORS[table_kind]
        status = reply.status or status
        error: dict[str, Any] = {"code": status, "message": text(message),
                                 "status": _GOOGLE_STATUS.get(status, "INTERNAL" if status >= 500 else "UNKNOWN")}
        details: list[dict[str, Any]] = []
        if kind == "invalid_key":
            details.append({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                            "domain": "googleapis.com",
                            "metadata": {"service": "generativelanguage.googleapis.com"}})
        if reply.retry_after is not None:
            details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                            "retryDelay": f"{reply.retry_after:g}s"})
        if details:
            error["details"] = details
        return json_response(status, {"error": error}, headers)

    # OpenAI, and also the answer for requests no provider claims: its error shape is the most widely understood.
    status, error_type, code, message = _OPENAI_ERRORS[table_kind]
    body = {"error": {"message": text(message), "type": error_type, "param": None,
                      "code": code}}
    headers.setdefault("x-request-id", f"req_fake_{index:04d}")
    return json_response(reply.status or status, body, headers)


def _masked(key: str | None) -> str:
    """How OpenAI quotes a wrong key back: only its ends."""
    if not key:
        return "(none)"
    return key if len(key) <= 8 else f"{key[:3]}***{key[-4:]}"


# Model lists ("test connection" and model pickers).

def render_models(provider: Provider, models: list[str]) -> Rendered:
    if provider == "anthropic":
        data = [{"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"} for m in models]
        return json_response(200, {"data": data, "has_more": False, "first_id": models[0] if models else None,
                                   "last_id": models[-1] if models else None})
    if provider == "gemini":
        data = [{"name": f"models/{m}", "version": "001", "displayName": m, "inputTokenLimit": 1_048_576,
                 "outputTokenLimit": 65_536, "supportedGenerationMethods": ["generateContent", "countTokens"]}
                for m in models]
        return json_response(200, {"models": data})
    data = [{"id": m, "object": "model", "created": CREATED, "owned_by": "fake"} for m in models]
    return json_response(200, {"object": "list", "data": data})
