"""One contract, four ways to reach a model: Anthropic, OpenAI, Gemini and an OpenAI-compatible server.

Every test runs the official SDK against the fake server in tests/fake_llm, through the app's router.
"""

from __future__ import annotations

import asyncio
import io
import json
import time

import pytest
from PIL import Image

from relay_desktop.llm.costs import CostMeter
from relay_desktop.llm.errors import (
    AllProvidersFailed,
    ConnectionRefused,
    InvalidApiKey,
    InvalidOutput,
    ModelNotFound,
    RateLimited,
    RequestTimedOut,
    ServerError,
)
from relay_desktop.llm.retry import RetryPolicy
from relay_desktop.llm.types import ImagePart, LLMRequest, Message, OutputMode, Usage
from tests.fake_llm import FakeLLMServer, Reply
from tests.llm_fixtures import BAD_PLAN, GOOD_PLAN, KEY, MODELS, PLAN, TARGETS, make_router

pytestmark = pytest.mark.parametrize("target", TARGETS)


def screenshot() -> ImagePart:
    buffer = io.BytesIO()
    Image.new("RGB", (36, 80), (30, 120, 200)).save(buffer, "JPEG", quality=40)
    return ImagePart(buffer.getvalue(), "image/jpeg")


def plan_request(*images: ImagePart) -> LLMRequest:
    return LLMRequest(system="You operate an Android phone.",
                      messages=(Message.user("Task: turn on Wi-Fi. Screen:\ne4 row \"Network & internet\"", *images),),
                      contract=PLAN, max_tokens=300)


async def test_tool_call_round_trip(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.script(Reply.tool_call("submit_plan", GOOD_PLAN, input_tokens=1500, output_tokens=40,
                                    cached_tokens=1200))
    image = screenshot()
    response = await harness.router.generate("fast", plan_request(image))
    assert response.data == GOOD_PLAN
    assert response.mode is OutputMode.TOOL
    assert response.provider == harness.ref.provider and response.model
    assert response.usage == Usage(input_tokens=1500, output_tokens=40, cached_input_tokens=1200)
    assert response.latency_s > 0 and response.attempts == 1 and not response.repaired

    sent = fake_llm.last
    assert sent.images() == [image.data]  # the screenshot travelled, byte for byte
    assert [(t.name, t.schema) for t in sent.tools()] == [("submit_plan", PLAN.schema)]
    assert sent.model == MODELS[target]
    assert "You operate an Android phone." in sent.system_text()
    if target == "compatible":
        assert sent.key() == "no-key"  # a keyless local server; the SDK insists on sending something
        return
    # The key travels in its header and nowhere else.
    assert sent.key() == KEY
    assert KEY.encode() not in sent.body
    assert KEY not in sent.path and KEY not in json.dumps(sent.query)
    assert [name for name, value in sent.headers.items() if KEY in value] in (["authorization"], ["x-api-key"],
                                                                              ["x-goog-api-key"])


async def test_think_answer_text_format(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target, mode=OutputMode.THINK_ANSWER)
    fake_llm.script(Reply.text(f"<think>The Network row leads to Wi-Fi.</think>\n<answer>{json.dumps(GOOD_PLAN)}"
                               "</answer>"))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN
    assert response.thinking == "The Network row leads to Wi-Fi."
    assert response.mode is OutputMode.THINK_ANSWER
    sent = fake_llm.last
    assert sent.tools() == []
    assert "<answer>" in sent.system_text() and '"submit_plan"' not in sent.system_text()
    assert '"steps"' in sent.system_text()  # the schema is in the instructions


async def test_plain_json_text_with_prose_and_fences(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target, mode=OutputMode.JSON_TEXT)
    fake_llm.script(Reply.text(f"Here you go:\n```json\n{json.dumps(GOOD_PLAN, indent=2)}\n```\nAnything else?"))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN
    assert fake_llm.last.tools() == [] and fake_llm.last.response_schema() is None


async def test_native_schema_output(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target, mode=OutputMode.JSON_SCHEMA)
    fake_llm.script(Reply.text(json.dumps(GOOD_PLAN)))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN
    assert fake_llm.last.response_schema() == PLAN.schema


async def test_repair_round_trip_shows_the_model_its_error(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.script(Reply.tool_call("submit_plan", BAD_PLAN, input_tokens=100, output_tokens=10),
                    Reply.tool_call("submit_plan", GOOD_PLAN, input_tokens=130, output_tokens=12))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN and response.repaired and response.attempts == 2
    assert response.usage == Usage(230, 22)  # both calls are paid for
    repair = fake_llm.requests[1].last_text()
    assert "'tapp' is not one of" in repair and "answer.steps[0].element" in repair
    assert [e.kind for e in harness.events] == ["repair"]


async def test_one_repair_only(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.script(Reply.text("I think you should tap Wi-Fi."), Reply.text("Tap Wi-Fi, really."))
    with pytest.raises(InvalidOutput) as caught:
        await harness.router.generate("fast", plan_request())
    assert len(fake_llm.requests) == 2
    assert "even when shown its error" in str(caught.value)
    assert caught.value.text == "Tap Wi-Fi, really."


async def test_rate_limit_honours_retry_after(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.script(Reply.error(429, retry_after=3), Reply.tool_call("submit_plan", GOOD_PLAN))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN and response.attempts == 2
    assert len(harness.sleeps.delays) == 1 and 3.0 <= harness.sleeps.delays[0] <= 3.5
    assert [e.kind for e in harness.events] == ["retry"]


@pytest.mark.parametrize("fault", ["500", "overloaded", "malformed", "truncated", "drop", "slow"])
async def test_transient_faults_are_retried(fake_llm: FakeLLMServer, target: str, fault: str) -> None:
    harness = make_router(fake_llm, target, timeout=0.5)
    first = {"500": Reply.error(500), "overloaded": Reply.error(kind="overloaded"), "malformed": Reply.malformed(),
             "truncated": Reply.truncated(Reply.tool_call("submit_plan", GOOD_PLAN)), "drop": Reply.drop(),
             "slow": Reply.slow(3.0)}[fault]
    fake_llm.script(first, Reply.tool_call("submit_plan", GOOD_PLAN))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN and response.attempts == 2
    assert len(harness.sleeps.delays) == 1 and 0 <= harness.sleeps.delays[0] <= 0.2  # the first backoff step


async def test_retries_are_bounded_in_count(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target, retry=RetryPolicy(max_attempts=3, base_delay=0.1))
    fake_llm.default = Reply.error(500)
    with pytest.raises(ServerError) as caught:
        await harness.router.generate("fast", plan_request())
    assert len(fake_llm.requests) == 3
    assert len(harness.sleeps.delays) == 2 and harness.sleeps.delays[1] <= 0.2
    assert "HTTP 500" in str(caught.value)


async def test_retries_are_bounded_in_time(fake_llm: FakeLLMServer, target: str) -> None:
    # A retry-after past the budget fails at once (so a fallback model can answer) instead of waiting.
    harness = make_router(fake_llm, target, retry=RetryPolicy(max_total=10.0, max_retry_after=60.0))
    fake_llm.script(Reply.error(429, retry_after=30))
    with pytest.raises(RateLimited) as caught:
        await harness.router.generate("fast", plan_request())
    assert len(fake_llm.requests) == 1 and harness.sleeps.delays == []
    assert caught.value.retry_after == 30


async def test_timeouts_are_retried_then_reported(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target, timeout=0.3, retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    fake_llm.default = Reply.hang()
    started = time.monotonic()
    with pytest.raises(RequestTimedOut, match=r"did not answer within 0.3 s"):
        await harness.router.generate("fast", plan_request())
    assert len(fake_llm.requests) == 2
    assert time.monotonic() - started < 5


async def test_cancel_aborts_the_http_request(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target, timeout=30)
    fake_llm.script(Reply.hang())
    task = asyncio.create_task(harness.router.generate("fast", plan_request()))
    await fake_llm.await_requests(1, timeout=10)
    cancelled_at = time.perf_counter()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5)
    returned_in = time.perf_counter() - cancelled_at
    await fake_llm.await_disconnects(1, timeout=5)  # the server saw the connection close: the request is gone
    assert returned_in < 1.0  # functional bound; benchmarks/llm_cancel.py measures the real latency
    await harness.router.aclose()


async def test_invalid_key_is_not_retried(fake_llm: FakeLLMServer, target: str) -> None:
    if target == "compatible":
        pytest.skip("a keyless local server has no key to reject")
    harness = make_router(fake_llm, target, keys=["wrong-key"])
    fake_llm.valid_keys = {KEY}
    with pytest.raises(InvalidApiKey) as caught:
        await harness.router.generate("fast", plan_request())
    assert len(fake_llm.requests) == 1
    assert "rejected the API key" in str(caught.value) and "wrong-key" not in str(caught.value)


async def test_invalid_key_rotates_to_the_next(fake_llm: FakeLLMServer, target: str) -> None:
    if target == "compatible":
        pytest.skip("a keyless local server has no key to rotate")
    harness = make_router(fake_llm, target, keys=["revoked-key", KEY])
    fake_llm.valid_keys = {KEY}
    fake_llm.default = Reply.tool_call("submit_plan", GOOD_PLAN)
    first = await harness.router.generate("fast", plan_request())
    second = await harness.router.generate("fast", plan_request())
    assert first.data == second.data == GOOD_PLAN
    assert [r.key() for r in fake_llm.requests] == ["revoked-key", KEY, KEY]  # the bad key is not tried again
    assert [e.kind for e in harness.events] == ["rotate_key"]


async def test_rate_limited_key_cools_down_while_the_next_one_works(fake_llm: FakeLLMServer, target: str) -> None:
    if target == "compatible":
        pytest.skip("a keyless local server has no key to rotate")
    harness = make_router(fake_llm, target, keys=["key-one", "key-two"])
    fake_llm.script(Reply.error(429, retry_after=20), Reply.tool_call("submit_plan", GOOD_PLAN),
                    Reply.tool_call("submit_plan", GOOD_PLAN))
    await harness.router.generate("fast", plan_request())
    await harness.router.generate("fast", plan_request())
    assert [r.key() for r in fake_llm.requests] == ["key-one", "key-two", "key-two"]
    assert harness.sleeps.delays == []  # no waiting: the other key was ready


async def test_unknown_model(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.known_models = {"some-other-model"}
    with pytest.raises(ModelNotFound, match="has no model named"):
        await harness.router.generate("fast", plan_request())
    assert len(fake_llm.requests) == 1


async def test_fallback_chain(fake_llm: FakeLLMServer, target: str) -> None:
    other = "gemini" if target != "gemini" else "anthropic"
    harness = make_router(fake_llm, target, fallback=[(other, "backup")],
                          retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    fake_llm.script(Reply.error(500), Reply.error(503), Reply.tool_call("submit_plan", GOOD_PLAN))
    response = await harness.router.generate("fast", plan_request())
    assert response.data == GOOD_PLAN and response.provider == "backup"
    assert [r.provider for r in fake_llm.requests] == [*(["openai"] if target == "compatible" else [target]) * 2,
                                                        other]
    assert [e.kind for e in harness.events] == ["retry", "fallback"]


async def test_every_model_failing_says_why_for_each(fake_llm: FakeLLMServer, target: str) -> None:
    other = "openai" if target != "openai" else "anthropic"
    harness = make_router(fake_llm, target, fallback=[(other, "backup")])
    fake_llm.known_models = {"nothing"}
    with pytest.raises(AllProvidersFailed) as caught:
        await harness.router.generate("fast", plan_request())
    assert [type(f) for f in caught.value.failures] == [ModelNotFound, ModelNotFound]
    assert "backup/" in str(caught.value)


async def test_no_server_listening_is_a_refused_connection_not_no_network(target: str) -> None:
    with FakeLLMServer() as server:
        harness = make_router(server, target, retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    # The server is gone: nothing listens on its port any more. The network is fine: say what is wrong.
    with pytest.raises(ConnectionRefused, match="refused the connection") as caught:
        await harness.router.generate("fast", plan_request())
    assert caught.value.status_word == "connection refused"
    assert len(harness.sleeps.delays) == 1


async def test_cost_is_priced_per_call_and_per_run(fake_llm: FakeLLMServer, target: str) -> None:
    harness = make_router(fake_llm, target)
    fake_llm.default = Reply.tool_call("submit_plan", GOOD_PLAN, input_tokens=2_000_000, output_tokens=100_000,
                                       cached_tokens=1_000_000)
    meter = CostMeter()
    response = await harness.router.generate("fast", plan_request(), meter=meter)
    await harness.router.generate("fast", plan_request(), meter=meter)
    price = harness.router.prices.price(harness.ref.provider, harness.ref.model)
    if target == "compatible":
        assert price is None and response.cost_usd is None and not meter.complete
        return
    assert price is not None
    expected = 1.0 * price.input + 0.1 * price.output + 1.0 * (price.cached_input or price.input)
    assert response.cost_usd == pytest.approx(expected)
    assert meter.cost_usd == pytest.approx(2 * expected) and meter.usage.input_tokens == 4_000_000
    assert harness.router.meter.cost_usd == pytest.approx(2 * expected)
