"""Router behaviour that is not the same for every provider, "test connection", and `relay-desktop check-provider`."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from relay_desktop.llm.check import check_provider
from relay_desktop.llm.config import LLMSettings, ModelRef
from relay_desktop.llm.errors import NoApiKey, NoModelConfigured, QuotaExhausted
from relay_desktop.llm.router import ModelRouter
from relay_desktop.llm.types import LLMRequest, Message, OutputMode
from tests.fake_llm import FakeLLMServer, Reply
from tests.llm_fixtures import GOOD_PLAN, KEY, PLAN, make_router, memory_keys, provider_settings

REQUEST = LLMRequest("You operate a phone.", (Message.user("Turn on Wi-Fi."),), contract=PLAN)


async def test_server_without_tool_calling_gets_plain_json(fake_llm: FakeLLMServer) -> None:
    harness = make_router(fake_llm, "compatible")
    fake_llm.script(Reply.error(400, message="llava does not support tools"),
                    Reply.text("Sure.\n{\"steps\": [{\"action\": \"back\"}]}"),
                    Reply.text('{"steps": [{"action": "home"}]}'))
    first = await harness.router.generate("fast", REQUEST)
    assert first.data == {"steps": [{"action": "back"}]} and first.mode is OutputMode.JSON_TEXT
    second = await harness.router.generate("fast", REQUEST)  # remembered: no second failed attempt with tools
    assert second.data == {"steps": [{"action": "home"}]}
    tools_sent = [bool(r.tools()) for r in fake_llm.requests]
    assert tools_sent == [True, False, False]
    assert '"steps"' in fake_llm.requests[1].system_text()  # the schema moved into the instructions
    assert [e.kind for e in harness.events] == ["mode_switch"]


async def test_official_openai_does_not_drop_tools_on_a_400(fake_llm: FakeLLMServer) -> None:
    harness = make_router(fake_llm, "openai")
    fake_llm.script(Reply.error(400, message="Invalid schema for function 'submit_plan'"))
    with pytest.raises(Exception, match="refused the request"):
        await harness.router.generate("fast", REQUEST)
    assert len(fake_llm.requests) == 1


async def test_reasoning_model_without_temperature(fake_llm: FakeLLMServer) -> None:
    harness = make_router(fake_llm, "openai")
    fake_llm.script(Reply.error(400, message="Unsupported value: 'temperature' does not support 0 with this model."),
                    Reply.tool_call("submit_plan", GOOD_PLAN), Reply.tool_call("submit_plan", GOOD_PLAN))
    await harness.router.generate("fast", REQUEST)
    await harness.router.generate("fast", REQUEST)
    assert ["temperature" in (r.json or {}) for r in fake_llm.requests] == [True, False, False]
    assert "max_completion_tokens" in fake_llm.requests[0].json  # official OpenAI: the newer parameter


async def test_compatible_server_gets_max_tokens(fake_llm: FakeLLMServer) -> None:
    harness = make_router(fake_llm, "compatible")
    fake_llm.script(Reply.tool_call("submit_plan", GOOD_PLAN))
    await harness.router.generate("fast", REQUEST)
    assert fake_llm.last.json["max_tokens"] == REQUEST.max_tokens
    assert "max_completion_tokens" not in fake_llm.last.json


@pytest.mark.parametrize("target", ["anthropic", "openai", "gemini"])
async def test_out_of_credit_is_not_retried(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.script(Reply.error(kind="quota"))
    with pytest.raises(QuotaExhausted):
        await harness.router.generate("fast", REQUEST)
    assert len(fake_llm.requests) == 1 and harness.sleeps.delays == []


async def test_no_key_and_no_model_are_plain_errors(fake_llm: FakeLLMServer) -> None:
    settings = LLMSettings({"gemini": provider_settings(fake_llm, "gemini")},
                           {"fast": (ModelRef("gemini", "gemini-2.5-flash"),)})
    router = ModelRouter(settings, memory_keys({}))
    with pytest.raises(NoApiKey, match="No API key for gemini: add one in Settings, or set GEMINI_API_KEY or "
                                       "GOOGLE_API_KEY"):
        await router.generate("fast", REQUEST)
    with pytest.raises(NoModelConfigured, match="No model is configured for the planning role"):
        await router.generate("planning", REQUEST)
    assert fake_llm.requests == []


async def test_free_text_request_needs_no_contract(fake_llm: FakeLLMServer) -> None:
    harness = make_router(fake_llm, "anthropic")
    fake_llm.script(Reply.text("Wi-Fi is on.", thinking="checked the toggle"))
    response = await harness.router.generate("fast", LLMRequest("Say what you see.", (Message.user("?"),)))
    assert response.data is None and response.text == "Wi-Fi is on." and response.thinking == "checked the toggle"


async def test_concurrent_calls_share_one_router(fake_llm: FakeLLMServer) -> None:
    # The fast agent and the planning agent call at the same time; neither waits for the other.
    harness = make_router(fake_llm, "openai")
    fake_llm.default = Reply.slow(0.3, Reply.tool_call("submit_plan", GOOD_PLAN))
    loop = asyncio.get_running_loop()
    started = loop.time()
    results = await asyncio.wait_for(asyncio.gather(*(harness.router.generate("fast", REQUEST) for _ in range(4))),
                                     timeout=10)
    assert all(r.data == GOOD_PLAN for r in results)
    assert loop.time() - started < 1.2  # four 0.3 s answers overlapped instead of queueing


@pytest.mark.parametrize("target", ["anthropic", "openai", "gemini"])
async def test_check_provider_tells_the_failures_apart(fake_llm: FakeLLMServer, target: str) -> None:
    settings = provider_settings(fake_llm, target)
    keys = memory_keys({target: [KEY]})
    fake_llm.default = Reply.text("OK")
    [ok] = await check_provider(settings, "m-good", keys)
    assert ok.ok and ok.status == "ok" and "answered" in ok.message and ok.latency_s is not None
    assert KEY not in ok.key  # the key is named by its label, never shown

    fake_llm.valid_keys = {"another-key"}
    [bad_key] = await check_provider(settings, "m-good", keys)
    assert (bad_key.ok, bad_key.status) == (False, "invalid key")

    fake_llm.valid_keys = None
    fake_llm.known_models = {"m-good"}
    [bad_model] = await check_provider(settings, "m-typo", keys)
    assert (bad_model.ok, bad_model.status) == (False, "unknown model")
    assert "m-typo" in bad_model.message

    fake_llm.script(Reply.error(kind="rate_limit", retry_after=20))
    [limited] = await check_provider(settings, "m-good", keys)
    assert (limited.ok, limited.status) == (False, "rate limited")
    assert limited.message.startswith("The key works, but")

    [no_key] = await check_provider(settings, "m-good", memory_keys({}))
    assert (no_key.ok, no_key.status) == (False, "no key")

    with FakeLLMServer() as gone:
        dead = provider_settings(gone, target)
    [offline] = await check_provider(dead, "m-good", keys)
    assert (offline.ok, offline.status) == (False, "connection refused")     # nothing listens: not "no network"
    assert "refused the connection" in offline.message


async def test_check_provider_tries_every_key(fake_llm: FakeLLMServer) -> None:
    fake_llm.valid_keys = {KEY}
    fake_llm.default = Reply.text("OK")
    results = await check_provider(provider_settings(fake_llm, "openai"), None,
                                   memory_keys({"openai": [KEY, "old-key"]}))
    assert [r.status for r in results] == ["ok", "invalid key"]
    assert results[0].model == "gpt-4.1-mini"  # the provider's default fast model


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "relay_desktop", *args], capture_output=True, text=True,
                          timeout=60, env=env, stdin=subprocess.DEVNULL)


@pytest.fixture
def cli_env(fake_llm: FakeLLMServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "API_KEY" not in k}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"  # keys from the environment only
    env["ANTHROPIC_API_KEY"] = KEY
    return env


@pytest.mark.parametrize("setup, expected_code, expected_text", [
    ("ok", 0, "✓ anthropic/claude-haiku-4-5"),
    ("bad key", 1, "invalid key: anthropic rejected the API key"),
    ("bad model", 1, "unknown model: anthropic has no model named 'claude-haiku-4-5'"),
    ("rate limited", 1, "rate limited: The key works, but anthropic is rate limiting it"),
])
async def test_check_provider_command(fake_llm: FakeLLMServer, cli_env: dict[str, str], setup: str,
                                      expected_code: int, expected_text: str) -> None:
    fake_llm.valid_keys = {"other"} if setup == "bad key" else None
    fake_llm.known_models = {"claude-opus-4-1"} if setup == "bad model" else None
    fake_llm.default = Reply.error(kind="rate_limit") if setup == "rate limited" else Reply.text("OK")
    result = await asyncio.to_thread(run_cli, "check-provider", "anthropic", "--base-url", fake_llm.base_url,
                                     env=cli_env)
    assert result.returncode == expected_code, result.stdout + result.stderr
    assert expected_text in result.stdout
    assert KEY not in result.stdout + result.stderr


async def test_check_provider_command_compatible_server_and_bad_input(fake_llm: FakeLLMServer,
                                                                      cli_env: dict[str, str]) -> None:
    fake_llm.default = Reply.text("OK")
    ok = await asyncio.to_thread(run_cli, "check-provider", "ollama", "--base-url", fake_llm.base_url_for("openai"),
                                 "--model", "llama3.2", env=cli_env)
    assert ok.returncode == 0 and "✓ ollama/llama3.2 (no key): ollama answered" in ok.stdout
    unknown = await asyncio.to_thread(run_cli, "check-provider", "ollama", env=cli_env)
    assert unknown.returncode == 2 and "give a --base-url" in unknown.stderr
    no_key = await asyncio.to_thread(run_cli, "check-provider", "gemini", "--base-url", fake_llm.base_url,
                                     env=cli_env)
    assert no_key.returncode == 1 and "no key: No API key for gemini" in no_key.stdout
    assert len(fake_llm.requests) == 1
