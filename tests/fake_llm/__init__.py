"""A fake LLM provider server for tests: the real Anthropic, OpenAI and Gemini SDKs talk to it, no network needed.

Why a server and not mocks: the app's providers are thin layers over the official SDKs, and what breaks in real
life is the part mocks skip (the SDK's parsing, its exception classes, headers, retries, closed connections).

Getting one
-----------
In tests, use the `fake_llm` fixture (tests/conftest.py): a fresh server per test, provider keys and base URLs
removed from the environment, and the test fails if the server itself hit a bug. Elsewhere::

    with FakeLLMServer() as server: ...

Point the SDK (or the app's `ProviderSettings(base_url=...)`) at ``server.base_url_for(provider)``:

    anthropic.AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=0)
    openai.AsyncOpenAI(api_key="k", base_url=server.base_url_for("openai"), max_retries=0)   # ends in /v1
    genai.Client(api_key="k", http_options=types.HttpOptions(base_url=server.base_url)).aio

Scripting
---------
One provider-neutral script serves every wire format, so one test can be parametrized over the three providers.
Each generation request (POST /v1/messages, /v1/chat/completions, /v1[beta]/models/M:generateContent) takes the
next reply, first in first out::

    server.script(
        Reply.tool_call("submit_plan", {"steps": [...]}, input_tokens=1200, cached_tokens=1000),
        Reply.text("<think>...</think><answer>{...}</answer>", thinking="(reasoning block)"),
        Reply.error(429, retry_after=2),          # that provider's error JSON + a retry-after header
        Reply.error(kind="invalid_key"),           # the status that provider really uses (Gemini: 400)
        Reply.slow(1.5, then=Reply.text("late")),  # answers after 1.5 s, unless the client gives up first
        Reply.hang(),                              # never answers (until the client leaves or the server stops)
        Reply.truncated(), Reply.drop(), Reply.malformed(),   # broken transports and bodies
        Reply.from_request(lambda req: Reply.tool_call(req.tool_names()[0], {})),  # decide per request
        Reply.raw({"candidates": []}),             # exactly this body, for shapes only one provider has
    )
    server.default = Reply.text("ok")   # used when the script is empty (without it: a 500 that says
                                        # "fake server: no scripted reply left", so extra requests fail loudly)
    server.valid_keys = {"good-key"}    # other keys get the provider's invalid-key error (401; Gemini 400
                                        # API_KEY_INVALID), before the script is consulted
    server.known_models = {"m1"}        # other models get the provider's not-found error (404); also what
                                        # GET .../models lists (else `server.models`)

Usage is counted the app's way (`input_tokens` includes the cached part) and rendered the provider's way:
Anthropic gets input_tokens minus cached (cache_read_input_tokens / cache_creation_input_tokens apart), OpenAI
prompt_tokens + prompt_tokens_details.cached_tokens, Gemini promptTokenCount + cachedContentTokenCount.
Error kinds (`ERROR_KINDS`): invalid_request, invalid_key, permission, not_found, rate_limit, quota, server,
overloaded, unavailable. Streaming requests are refused with a 400 (the app does not stream).

Checking what the app sent
--------------------------
``server.requests`` (snapshot list), ``server.last``, and per `RecordedRequest`: provider, method, path,
headers (case-insensitive), body (bytes), json, model, disconnected, answered_with, and the readers .key(),
.images() / .image_parts(), .tools() / .tool_names(), .response_schema(), .system_text(), .texts(),
.last_text(), all normalized across the three providers.

Waiting (always with a timeout): in async tests ``await server.await_requests(n, timeout)`` and
``await server.await_disconnects(n, timeout)``; in sync code or threads ``wait_for_requests`` /
``wait_for_disconnects`` (never call those on the event loop: the SDK request they wait for runs there).
``server.disconnects`` counts requests abandoned by the client before an answer (only `slow` and `hang`
replies can notice that, since the others answer at once). ``server.remaining`` is the unused script length.
"""

from tests.fake_llm.recorded import Headers, Image, RecordedRequest, ToolSpec
from tests.fake_llm.replies import ERROR_KINDS, Reply, ToolCall, Usage
from tests.fake_llm.server import FakeLLMServer
from tests.fake_llm.wire import NO_SCRIPT_MESSAGE

__all__ = ["ERROR_KINDS", "NO_SCRIPT_MESSAGE", "FakeLLMServer", "Headers", "Image", "RecordedRequest", "Reply",
           "ToolCall", "ToolSpec", "Usage"]
