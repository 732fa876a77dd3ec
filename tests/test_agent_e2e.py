"""Whole runs on the virtual phone through Google's adb server, with models behind the real SDKs and the fake
wire-level LLM server: the product's main path, end to end."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from relay_desktop.agent.events import ActionStarted, EventBus, GuidanceUpdated, RunFinished
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.llm.config import LLMSettings, ModelRef
from relay_desktop.llm.retry import RetryPolicy
from relay_desktop.llm.router import ModelRouter
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.recorded import RecordedRequest
from tests.llm_fixtures import KEY, MODELS, memory_keys, provider_settings

PLAN = {"approaches": [{"name": "Settings app", "description": "Toggle Wi-Fi in Settings",
                        "steps": ["Open Settings", "Open Network & internet", "Turn on Wi-Fi"], "confidence": 0.9}],
        "recommended_index": 0}


def _ids(text: str, label: str, role: str | None = None) -> str | None:
    import re

    screen = text[text.rfind("<screen_data>"):]
    for match in re.finditer(r'^(e\d+) (\w+) "([^"]*)"(.*)$', screen, re.M):
        if label.lower() in match.group(3).lower() and (role is None or match.group(2) == role):
            return match.group(1) + ("|on" if match.group(4).strip().startswith("on") else "")
    return None


def wifi_model(record: RecordedRequest) -> Reply:
    """A model on the wire that turns on Wi-Fi: answers whichever tool the request offers."""
    name = (record.tool_names() or ["act"])[0]
    text = record.last_text()
    if name == "plan_strategy":
        return Reply.tool_call(name, PLAN, input_tokens=900, output_tokens=120)
    if name == "completion":
        return Reply.tool_call(name, {"done": True, "reason": "Wi-Fi shows on"}, input_tokens=500, output_tokens=20)
    if name == "progress":
        return Reply.tool_call(name, {"progressing": True, "reason": "fine"})
    if name != "act":
        return Reply.tool_call(name, {"notes": []})
    if "App in front: com.android.settings" not in text:
        step: dict[str, Any] = {"action": "launch_app", "app": "Settings"}
    elif (wifi := _ids(text, "Wi-Fi", "switch")) is not None:
        step = {"action": "complete", "summary": "Wi-Fi is on"} if wifi.endswith("|on") else \
            {"action": "tap", "element": wifi}
    elif (network := _ids(text, "Network & internet")) is not None:
        step = {"action": "tap", "element": network.split("|")[0]}
    else:
        step = {"action": "back"}
    return Reply.tool_call("act", {"thinking": "next step", "steps": [step]}, input_tokens=1500, output_tokens=60)


def wire_router(server: FakeLLMServer, target: str) -> ModelRouter:
    provider = provider_settings(server, target, timeout=10)
    ref = ModelRef(provider.name, MODELS[target])
    settings = LLMSettings({provider.name: provider}, {"fast": (ref,), "planning": (ref,), "verifier": (ref,)},
                           RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.05, max_total=5))
    return ModelRouter(settings, memory_keys({provider.name: [KEY]}))


@pytest.mark.parametrize("target", ["anthropic", "openai", "gemini"])
async def test_turn_on_wifi_end_to_end(target: str, adb_server: AdbTestServer, sim: VirtualPhoneService,
                                       fake_llm: FakeLLMServer) -> None:
    task = TASKS_BY_ID["wifi_on"]
    task.setup(sim.phone)
    fake_llm.default = Reply.from_request(wifi_model)
    router = wire_router(fake_llm, target)
    device = await adb_server.server().device(sim.serial)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    try:
        result = await asyncio.wait_for(Orchestrator(device, router, bus=bus).run(task.goal), 60)
    finally:
        await router.aclose()

    assert result.outcome == "success", result.reason
    assert task.check(sim.phone).ok
    taps = [e for e in events if isinstance(e, ActionStarted)]
    assert [e.action.action for e in taps] == ["launch_app", "tap", "tap"]
    assert all(e.bounds is not None for e in taps[1:])
    fast = [r for r in fake_llm.requests if "act" in r.tool_names()]
    assert fast and all(r.images for r in fast)          # every step sent its screenshot
    assert any(isinstance(e, GuidanceUpdated) for e in events) or any(
        "plan_strategy" in r.tool_names() for r in fake_llm.requests)
    assert result.input_tokens >= 1500 * len(fast) and result.output_tokens > 0
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert finished and json.dumps(finished[0].to_json())


class CountingDevice:
    """A device wrapper that counts the commands that reach the phone."""

    def __init__(self, device: Any) -> None:
        self._device = device
        self.serial = device.serial
        self.sent: list[tuple[float, str]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._device, name)
        if not callable(attr):
            return attr

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.sent.append((time.perf_counter(), name))
            return await attr(*args, **kwargs)
        return call


async def test_stop_during_a_model_call_through_the_real_stack(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                               fake_llm: FakeLLMServer) -> None:
    fake_llm.default = Reply.hang()
    router = wire_router(fake_llm, "openai")
    device = CountingDevice(await adb_server.server().device(sim.serial))
    agent = Orchestrator(device, router, settings=AgentSettings(planning=False))
    run = asyncio.ensure_future(agent.run("Turn on Wi-Fi"))
    try:
        await fake_llm.await_requests(1, timeout=10)
        started = time.perf_counter()
        await agent.control.stop()
        stopped_at = time.perf_counter()
        result = await asyncio.wait_for(run, 2)
    finally:
        await router.aclose()
    assert stopped_at - started < 0.25
    assert result.outcome == "stopped"
    await asyncio.sleep(0.2)
    assert not [name for at, name in device.sent if at >= stopped_at]
    assert sim.phone.setting("global", "wifi_on") == "1"   # untouched
