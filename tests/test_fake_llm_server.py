"""The fake LLM server (tests/fake_llm) against the real SDKs: anthropic, openai and google-genai, no network.

Most tests run once per provider with the same neutral script, which is the point of the fake: a test of the
app's agent loop can be parametrized the same way.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from tests.fake_llm import NO_SCRIPT_MESSAGE, FakeLLMServer, Reply, ToolSpec

PROVIDERS = ["anthropic", "openai", "gemini"]
KEY = "test-key-1234"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))  # only the bytes matter: nothing decodes the image
PLAN_SCHEMA = {"type": "object", "properties": {"steps": {"type": "array", "items": {"type": "string"}}},
               "required": ["steps"]}


@dataclass
class Sdk:
    """One provider's real async SDK client, with just enough glue to send the same request to each."""

    provider: str
    client: Any

    async def ask(self, text: str = "hi", *, model: str = "fake-model", system: str | None = None,
                  tool: ToolSpec | None = None, schema: dict[str, Any] | None = None, image: bytes | None = None,
                  timeout: float = 10.0) -> Any:
        """One non-streaming request; returns the SDK's parsed response (or raises the SDK's exception)."""
        if self.provider == "anthropic":
            content: list[dict[str, Any]] = [{"type": "text", "text": text}]
            if image is not None:
                content.append({"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                            "data": base64.b64encode(image).decode()}})
            kwargs: dict[str, Any] = {"model": model, "max_tokens": 100, "timeout": timeout,
                                      "messages": [{"role": "user", "content": content}]}
            if system is not None:
                kwargs["system"] = system
            if tool is not None:
                kwargs["tools"] = [{"name": tool.name, "description": tool.description, "input_schema": tool.schema}]
            return await self.client.messages.create(**kwargs)
        if self.provider == "openai":
            parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
            if image is not None:
                url = "data:image/png;base64," + base64.b64encode(image).decode()
                parts.append({"type": "image_url", "image_url": {"url": url}})
            messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system is not None else []
            kwargs = {"model": model, "messages": [*messages, {"role": "user", "content": parts}], "timeout": timeout}
            if tool is not None:
                kwargs["tools"] = [{"type": "function", "function": {
                    "name": tool.name, "description": tool.description, "parameters": tool.schema}}]
            if schema is not None:
                kwargs["response_format"] = {"type": "json_schema",
                                             "json_schema": {"name": "answer", "schema": schema, "strict": True}}
            return await self.client.chat.completions.create(**kwargs)
        gemini_parts = [genai_types.Part(text=text)]
        if image is not None:
            gemini_parts.append(genai_types.Part.from_bytes(data=image, mime_type="image/png"))
        config: dict[str, Any] = {"http_options": genai_types.HttpOptions(timeout=int(timeout * 1000))}
        if system is not None:
            config["system_instruction"] = system
        if tool is not None:
            config["tools"] = [genai_types.Tool(function_declarations=[genai_types.FunctionDeclaration(
                name=tool.name, description=tool.description, parameters_json_schema=tool.schema)])]
            config["automatic_function_calling"] = genai_types.AutomaticFunctionCallingConfig(disable=True)
        if schema is not None:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = schema
        return await self.client.aio.models.generate_content(
            model=model, contents=[genai_types.Content(role="user", parts=gemini_parts)],
            config=genai_types.GenerateContentConfig(**config))

    def text(self, response: Any) -> str:
        if self.provider == "anthropic":
            return "".join(block.text for block in response.content if block.type == "text")
        if self.provider == "openai":
            return response.choices[0].message.content or ""
        return response.text or ""

    def tool_calls(self, response: Any) -> list[tuple[str, dict[str, Any]]]:
        if self.provider == "anthropic":
            return [(block.name, block.input) for block in response.content if block.type == "tool_use"]
        if self.provider == "openai":
            calls = response.choices[0].message.tool_calls or []
            return [(call.function.name, json.loads(call.function.arguments)) for call in calls]
        return [(call.name, call.args) for call in response.function_calls or []]

    def usage(self, response: Any) -> tuple[int, int, int]:
        """(all prompt tokens, output tokens, cached prompt tokens), each SDK's fields read its own way."""
        if self.provider == "anthropic":
            u = response.usage
            cached = u.cache_read_input_tokens or 0
            return u.input_tokens + cached + (u.cache_creation_input_tokens or 0), u.output_tokens, cached
        if self.provider == "openai":
            u = response.usage
            return u.prompt_tokens, u.completion_tokens, u.prompt_tokens_details.cached_tokens
        u = response.usage_metadata
        return u.prompt_token_count, u.candidates_token_count, u.cached_content_token_count or 0

    def stop_reason(self, response: Any) -> str:
        if self.provider == "anthropic":
            return response.stop_reason
        if self.provider == "openai":
            return response.choices[0].finish_reason
        return response.candidates[0].finish_reason.value


def make_client(provider: str, server: FakeLLMServer, key: str = KEY, *, max_retries: int = 0) -> Any:
    if provider == "anthropic":
        return anthropic.AsyncAnthropic(api_key=key, base_url=server.base_url_for(provider), max_retries=max_retries)
    if provider == "openai":
        return openai.AsyncOpenAI(api_key=key, base_url=server.base_url_for(provider), max_retries=max_retries)
    # google-genai does not retry unless HttpOptions.retry_options says so.
    return genai.Client(api_key=key, http_options=genai_types.HttpOptions(base_url=server.base_url_for(provider)))


async def close_client(provider: str, client: Any) -> None:
    await (client.aio.aclose() if provider == "gemini" else client.close())


@pytest.fixture(params=PROVIDERS)
async def sdk(request: pytest.FixtureRequest, fake_llm: FakeLLMServer) -> AsyncIterator[Sdk]:
    client = make_client(request.param, fake_llm)
    try:
        yield Sdk(request.param, client)
    finally:
        await close_client(request.param, client)


async def within(seconds: float, awaitable: Any) -> Any:
    """Await with a deadline, so a regression shows up as a failure, not a hung test."""
    return await asyncio.wait_for(awaitable, seconds)


# Answers.

async def test_tool_call_round_trip(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    args = {"steps": ["tap e3", "type hello"], "nested": {"n": 1, "ok": True}}
    fake_llm.script(Reply.tool_call("submit_plan", args))
    response = await within(10, sdk.ask(tool=ToolSpec("submit_plan", "Submit the plan", PLAN_SCHEMA)))
    assert sdk.tool_calls(response) == [("submit_plan", args)]
    assert sdk.stop_reason(response) == {"anthropic": "tool_use", "openai": "tool_calls", "gemini": "STOP"}[
        sdk.provider]
    request = fake_llm.last
    assert (request.provider, request.model, request.answered_with) == (sdk.provider, "fake-model", "tool_call")


async def test_tool_call_with_text_and_parallel_calls(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.tool_calls([("a", {"x": 1}), ("b", {})], text="Let me do two things."))
    response = await within(10, sdk.ask())
    assert sdk.tool_calls(response) == [("a", {"x": 1}), ("b", {})]
    assert sdk.text(response) == "Let me do two things."


async def test_text_reply_and_usage_with_cached_tokens(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    answer = '<think>look at e3</think><answer>{"steps": ["tap e3"]}</answer>'
    fake_llm.script(Reply.text(answer, input_tokens=1200, output_tokens=80, cached_tokens=1000))
    response = await within(10, sdk.ask())
    assert sdk.text(response) == answer
    assert sdk.tool_calls(response) == []
    assert sdk.usage(response) == (1200, 80, 1000)
    if sdk.provider == "anthropic":  # Anthropic's own input_tokens leaves the cache reads out
        assert (response.usage.input_tokens, response.usage.cache_read_input_tokens) == (200, 1000)


async def test_max_tokens_stop_reason_and_thinking(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text('{"steps": [', thinking="first, the screen", stop="max_tokens"))
    response = await within(10, sdk.ask())
    assert sdk.stop_reason(response) == {"anthropic": "max_tokens", "openai": "length", "gemini": "MAX_TOKENS"}[
        sdk.provider]
    assert sdk.text(response) == '{"steps": ['  # the reasoning is not part of the answer text
    if sdk.provider == "anthropic":
        assert response.content[0].type == "thinking" and response.content[0].thinking == "first, the screen"
    elif sdk.provider == "openai":
        assert response.choices[0].message.model_extra["reasoning_content"] == "first, the screen"
    else:
        assert response.candidates[0].content.parts[0].thought is True


async def test_script_is_fifo_then_default_then_a_loud_error(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("one"), Reply.text("two"))
    assert fake_llm.remaining == 2
    assert [sdk.text(await within(10, sdk.ask())) for _ in range(2)] == ["one", "two"]
    assert fake_llm.remaining == 0
    with pytest.raises(Exception, match=NO_SCRIPT_MESSAGE) as caught:
        await within(10, sdk.ask())
    assert getattr(caught.value, "status_code", getattr(caught.value, "code", None)) == 500
    fake_llm.default = Reply.text("fallback")
    assert [sdk.text(await within(10, sdk.ask())) for _ in range(2)] == ["fallback", "fallback"]


async def test_reply_from_request_and_raw_body(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.from_request(lambda req: Reply.tool_call(req.tool_names()[0], {"echo": req.last_text()})))
    response = await within(10, sdk.ask("say it", tool=ToolSpec("whatever_tool", "", {"type": "object"})))
    assert sdk.tool_calls(response) == [("whatever_tool", {"echo": "say it"})]
    assert fake_llm.last.answered_with == "dynamic tool_call"
    if sdk.provider == "gemini":  # a blocked prompt: no candidates at all, which only Gemini sends
        fake_llm.script(Reply.raw({"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "fake-model"}))
        blocked = await within(10, sdk.ask())
        assert blocked.candidates is None and blocked.prompt_feedback.block_reason.value == "SAFETY"


# Errors.

# (provider, neutral kind) -> (HTTP status, the SDK's exception class, the provider's own word for the error)
ERRORS: dict[tuple[str, str], tuple[int, type[Exception], str]] = {
    ("anthropic", "invalid_request"): (400, anthropic.BadRequestError, "invalid_request_error"),
    ("anthropic", "invalid_key"): (401, anthropic.AuthenticationError, "authentication_error"),
    ("anthropic", "not_found"): (404, anthropic.NotFoundError, "not_found_error"),
    ("anthropic", "rate_limit"): (429, anthropic.RateLimitError, "rate_limit_error"),
    ("anthropic", "server"): (500, anthropic.InternalServerError, "api_error"),
    ("anthropic", "overloaded"): (529, anthropic.OverloadedError, "overloaded_error"),
    ("anthropic", "quota"): (400, anthropic.BadRequestError, "invalid_request_error"),  # "credit balance is too low"
    ("anthropic", "permission"): (403, anthropic.PermissionDeniedError, "permission_error"),
    ("openai", "invalid_request"): (400, openai.BadRequestError, "invalid_request_error"),
    ("openai", "invalid_key"): (401, openai.AuthenticationError, "invalid_api_key"),
    ("openai", "not_found"): (404, openai.NotFoundError, "model_not_found"),
    ("openai", "rate_limit"): (429, openai.RateLimitError, "rate_limit_exceeded"),
    ("openai", "quota"): (429, openai.RateLimitError, "insufficient_quota"),
    ("openai", "server"): (500, openai.InternalServerError, "server_error"),
    ("openai", "overloaded"): (503, openai.InternalServerError, "server_error"),
    ("gemini", "invalid_request"): (400, genai_errors.ClientError, "INVALID_ARGUMENT"),
    ("gemini", "invalid_key"): (400, genai_errors.ClientError, "INVALID_ARGUMENT"),
    ("gemini", "not_found"): (404, genai_errors.ClientError, "NOT_FOUND"),
    ("gemini", "rate_limit"): (429, genai_errors.ClientError, "RESOURCE_EXHAUSTED"),
    ("gemini", "server"): (500, genai_errors.ServerError, "INTERNAL"),
    ("gemini", "overloaded"): (503, genai_errors.ServerError, "UNAVAILABLE"),
    ("gemini", "quota"): (429, genai_errors.ClientError, "RESOURCE_EXHAUSTED"),
    ("gemini", "permission"): (403, genai_errors.ClientError, "PERMISSION_DENIED"),
}


def error_word(provider: str, error: Any) -> str:
    """The provider's machine-readable error name, as the SDK exposes it."""
    if provider == "anthropic":
        return error.type
    if provider == "openai":
        return error.code or error.type
    return error.status


@pytest.mark.parametrize(("provider", "kind"), list(ERRORS), ids=[f"{p}-{k}" for p, k in ERRORS])
async def test_error_kinds_become_the_sdk_exceptions(provider: str, kind: str, fake_llm: FakeLLMServer) -> None:
    status, exception, word = ERRORS[provider, kind]
    fake_llm.script(Reply.error(kind=kind, retry_after=7 if kind == "rate_limit" else None))
    client = make_client(provider, fake_llm)
    try:
        with pytest.raises(exception) as caught:
            await within(10, Sdk(provider, client).ask())
    finally:
        await close_client(provider, client)
    error: Any = caught.value
    assert type(error) is exception
    assert (error.status_code if provider != "gemini" else error.code) == status
    assert error_word(provider, error) == word
    assert error.response.headers.get("retry-after") == ("7" if kind == "rate_limit" else None)
    if provider == "gemini" and kind == "invalid_key":
        assert error.message == "API key not valid. Please pass a valid API key."
        assert error.details["error"]["details"][0]["reason"] == "API_KEY_INVALID"


async def test_explicit_status_wins_and_retry_after_can_be_fractional(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.error(503, message="try later {soon}", retry_after=0.25))
    with pytest.raises(Exception, match=r"try later \{soon\}") as caught:
        await within(10, sdk.ask())
    error: Any = caught.value
    assert (error.code if sdk.provider == "gemini" else error.status_code) == 503
    assert error.response.headers["retry-after"] == "0.25"
    expected = {"anthropic": anthropic.ServiceUnavailableError, "openai": openai.InternalServerError,
                "gemini": genai_errors.ServerError}[sdk.provider]
    assert type(error) is expected


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_stainless_sdks_honour_retry_after(provider: str, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.error(429, retry_after=0.2), Reply.text("after the wait"))
    client = make_client(provider, fake_llm, max_retries=1)
    try:
        started = time.monotonic()
        response = await within(10, Sdk(provider, client).ask())
        elapsed = time.monotonic() - started
    finally:
        await close_client(provider, client)
    assert Sdk(provider, client).text(response) == "after the wait"
    assert len(fake_llm.requests) == 2 and 0.2 <= elapsed < 2


async def test_valid_keys_and_the_key_header(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.valid_keys = {"the-right-key"}
    fake_llm.script(Reply.text("welcome"))
    exception = {"anthropic": anthropic.AuthenticationError, "openai": openai.AuthenticationError,
                 "gemini": genai_errors.ClientError}[sdk.provider]
    with pytest.raises(exception):
        await within(10, sdk.ask())
    rejected = fake_llm.last
    assert rejected.key() == KEY and rejected.answered_with == "invalid_key"
    assert fake_llm.remaining == 1  # a rejected key does not use up the script
    header = {"anthropic": "authorization", "openai": "authorization", "gemini": "x-goog-api-key"}[sdk.provider]
    assert KEY in rejected.headers[header.upper()]  # case-insensitive
    good = make_client(sdk.provider, fake_llm, "the-right-key")
    try:
        assert Sdk(sdk.provider, good).text(await within(10, Sdk(sdk.provider, good).ask())) == "welcome"
    finally:
        await close_client(sdk.provider, good)
    assert fake_llm.last.key() == "the-right-key"


async def test_known_models(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.known_models = {"real-model"}
    fake_llm.default = Reply.text("fine")
    exception = {"anthropic": anthropic.NotFoundError, "openai": openai.NotFoundError,
                 "gemini": genai_errors.ClientError}[sdk.provider]
    with pytest.raises(exception, match="no-such-model"):
        await within(10, sdk.ask(model="no-such-model"))
    assert fake_llm.last.model == "no-such-model" and fake_llm.last.answered_with == "unknown_model"
    assert sdk.text(await within(10, sdk.ask(model="real-model"))) == "fine"


async def test_model_list_for_test_connection(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.known_models = {"m-small", "m-large"}
    if sdk.provider == "gemini":
        names = [model.name async for model in await within(10, sdk.client.aio.models.list())]
        assert names == ["models/m-large", "models/m-small"]
    else:
        names = [model.id async for model in sdk.client.models.list()]
        assert names == ["m-large", "m-small"]
    assert fake_llm.last.provider == sdk.provider and fake_llm.last.answered_with == "models_list"
    assert fake_llm.remaining == 0 and fake_llm.last.method == "GET"


async def test_streaming_is_refused_visibly(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("unused"))
    with pytest.raises(Exception, match="streaming is not supported"):
        if sdk.provider == "anthropic":
            await within(10, sdk.client.messages.create(model="m", max_tokens=5, stream=True,
                                                         messages=[{"role": "user", "content": "hi"}]))
        elif sdk.provider == "openai":
            await within(10, sdk.client.chat.completions.create(model="m", stream=True,
                                                                 messages=[{"role": "user", "content": "hi"}]))
        else:
            async for _ in await within(10, sdk.client.aio.models.generate_content_stream(model="m", contents="hi")):
                pass
    assert fake_llm.remaining == 1 and fake_llm.last.answered_with == "stream_refused"


async def test_unknown_endpoint_is_a_404(fake_llm: FakeLLMServer) -> None:
    client = make_client("openai", fake_llm)
    try:
        with pytest.raises(openai.NotFoundError, match="no such endpoint"):
            await within(10, client.embeddings.create(model="e", input="x"))
    finally:
        await client.close()


# What the app sent.

async def test_request_recording_is_normalized(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("ok"))
    tool = ToolSpec("submit_plan", "Submit the plan", PLAN_SCHEMA)
    await within(10, sdk.ask("what now?", system="You drive a phone.", tool=tool, image=PNG,
                             schema=PLAN_SCHEMA if sdk.provider != "anthropic" else None))
    request = fake_llm.last
    assert request.images() == [PNG]
    assert request.image_parts()[0].mime_type == "image/png"
    assert request.tools() == [tool]
    assert request.system_text() == "You drive a phone."
    assert request.texts() == ["what now?"] and request.last_text() == "what now?"
    assert request.response_schema() == (PLAN_SCHEMA if sdk.provider != "anthropic" else None)
    assert request.json is not None and json.loads(request.body) == request.json
    assert request.headers["Content-Type"] == "application/json"


async def test_gemini_openapi_schemas_are_read_as_json_schema(fake_llm: FakeLLMServer) -> None:
    # `parameters=` / `response_schema=` go out in Gemini's OpenAPI subset ("type": "OBJECT").
    fake_llm.script(Reply.text("{}"))
    client = make_client("gemini", fake_llm)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    try:
        config = genai_types.GenerateContentConfig(
            response_mime_type="application/json", response_schema=schema,
            tools=[genai_types.Tool(function_declarations=[genai_types.FunctionDeclaration(
                name="t", description="d", parameters=genai_types.Schema.model_validate(schema))])])
        await within(10, client.aio.models.generate_content(model="g", contents="hi", config=config))
    finally:
        await client.aio.aclose()
    assert b'"OBJECT"' in fake_llm.last.body
    assert fake_llm.last.response_schema() == schema
    assert fake_llm.last.tools() == [ToolSpec("t", "d", schema)]


def test_fixture_clears_provider_environment(fake_llm: FakeLLMServer) -> None:
    names = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL",
             "ANTHROPIC_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI")
    leaked = [name for name in names if name in os.environ]
    assert leaked == []
    assert fake_llm.base_url.startswith("http://127.0.0.1:")


# Broken transports, timing, cancellation.

# What each SDK raises when the HTTP exchange breaks: google-genai lets httpx2's own exceptions through.
BROKEN: dict[tuple[str, str], type[Exception]] = {
    **{(p, "malformed"): json.JSONDecodeError for p in PROVIDERS},
    ("anthropic", "truncated"): anthropic.APIConnectionError, ("anthropic", "drop"): anthropic.APIConnectionError,
    ("openai", "truncated"): openai.APIConnectionError, ("openai", "drop"): openai.APIConnectionError,
    ("gemini", "truncated"): httpx2.RemoteProtocolError, ("gemini", "drop"): httpx2.RemoteProtocolError,
}


@pytest.mark.parametrize("broken", ["malformed", "truncated", "drop"])
async def test_broken_responses_raise_promptly(broken: str, sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script({"malformed": Reply.malformed, "truncated": Reply.truncated, "drop": Reply.drop}[broken](),
                    Reply.text("still alive"))
    started = time.monotonic()
    with pytest.raises(BROKEN[sdk.provider, broken]):
        await within(10, sdk.ask())
    assert time.monotonic() - started < 2
    assert sdk.text(await within(10, sdk.ask())) == "still alive"  # the client recovers on a new connection


async def test_slow_reply_arrives_after_the_delay(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.slow(0.3, then=Reply.tool_call("late", {"ok": True})))
    started = time.monotonic()
    response = await within(10, sdk.ask())
    assert 0.3 <= time.monotonic() - started < 3
    assert sdk.tool_calls(response) == [("late", {"ok": True})]
    assert fake_llm.disconnects == 0


async def test_cancelling_a_hanging_request_aborts_it(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.hang(), Reply.text("next"))
    task = asyncio.create_task(sdk.ask())
    await fake_llm.await_requests(1, timeout=5)
    started = time.monotonic()
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=2)
    assert done and task.cancelled() and time.monotonic() - started < 1
    [hung] = await fake_llm.await_disconnects(1, timeout=5)
    assert hung.disconnected and fake_llm.disconnects == 1
    assert sdk.text(await within(10, sdk.ask())) == "next"


async def test_client_timeout_against_a_hang(sdk: Sdk, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.hang())
    expected = {"anthropic": anthropic.APITimeoutError, "openai": openai.APITimeoutError,
                "gemini": httpx2.TimeoutException}[sdk.provider]
    with pytest.raises(expected):
        await within(10, sdk.ask(timeout=0.3))
    await fake_llm.await_disconnects(1, timeout=5)


async def test_requests_are_served_concurrently(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.slow(0.4, then=Reply.text("slow")), *[Reply.text("quick")] * 3)
    clients = {p: make_client(p, fake_llm) for p in PROVIDERS}
    try:
        slow = asyncio.create_task(Sdk("anthropic", clients["anthropic"]).ask())
        await fake_llm.await_requests(1, timeout=5)
        started = time.monotonic()
        quick = await within(10, asyncio.gather(*(Sdk(p, c).ask() for p, c in clients.items())))
        assert time.monotonic() - started < 0.4  # not queued behind the slow one
        assert [Sdk(p, r).text(r) for p, r in zip(clients, quick, strict=True)] == ["quick"] * 3
        assert Sdk("anthropic", None).text(await within(10, slow)) == "slow"
    finally:
        for provider, client in clients.items():
            await close_client(provider, client)
    assert sorted(r.provider for r in fake_llm.requests) == ["anthropic", "anthropic", "gemini", "openai"]


async def test_stopping_the_server_releases_a_hanging_request(fake_llm: FakeLLMServer) -> None:
    server = FakeLLMServer().start()  # a second server, stopped mid-request (fake_llm is here for its clean env)
    client = make_client("openai", server)
    try:
        server.script(Reply.hang())
        task = asyncio.create_task(Sdk("openai", client).ask())
        await server.await_requests(1, timeout=5)
        started = time.monotonic()
        await asyncio.to_thread(server.stop)
        assert time.monotonic() - started < 1
        with pytest.raises(openai.APIConnectionError):
            await within(5, task)
        assert server.errors == [] and server.disconnects == 0  # the server left, not the client
    finally:
        server.stop()
        await client.close()


def test_reset_forgets_everything(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("x"))
    fake_llm.default, fake_llm.valid_keys, fake_llm.known_models = Reply.text("d"), {"k"}, {"m"}
    fake_llm.reset()
    assert (fake_llm.remaining, fake_llm.requests, fake_llm.default, fake_llm.valid_keys, fake_llm.known_models) == (
        0, [], None, None, None)
    with pytest.raises(TimeoutError, match="0 request"):
        fake_llm.wait_for_requests(1, timeout=0.05)


def test_reply_validation() -> None:
    with pytest.raises(ValueError, match="status, a kind"):
        Reply.error()
    with pytest.raises(ValueError, match="unknown error kind"):
        Reply.error(kind="teapot")
    with pytest.raises(ValueError, match="exceed input_tokens"):
        Reply.text("x", input_tokens=5, cached_tokens=6)
    assert Reply.error(429).error_kind == "rate_limit" and Reply.error(529).error_kind == "overloaded"
