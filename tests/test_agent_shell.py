"""The optional shell tool: off by default, an allow-list when on, confirmation every time, on the real phone."""

from __future__ import annotations

import asyncio

import pytest

from relay_desktop.agent.events import ActionResult, EventBus
from relay_desktop.agent.loop.prompts import fast_system_prompt
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.agent.steps.actions import StepError, parse_plan, plan_contract
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_fakes import ScriptedModels
from tests.agent_harness import Script, complete
from tests.agent_scripts import act
from tests.conftest import AdbTestServer


def test_the_shell_is_not_offered_unless_allowed() -> None:
    assert "shell" not in plan_contract().schema["properties"]["steps"]["items"]["properties"]["action"]["enum"]
    assert "- shell(" not in fast_system_prompt()
    with pytest.raises(StepError, match="unknown action 'shell' \\(the shell is turned off\\)"):
        parse_plan({"steps": [{"action": "shell", "command": "getprop"}]})
    assert "shell" in plan_contract(shell=True).schema["properties"]["steps"]["items"]["properties"]["action"]["enum"]
    assert "Allowed shell command prefixes: `getprop`" in fast_system_prompt(("getprop",))


@pytest.mark.parametrize(("command", "allowed", "confirm", "expect"), [
    ("getprop ro.product.model", True, True, "exit 0: Relay Virtual Phone"),
    ("getprop ro.product.model", True, False, "the user did not confirm: run `getprop ro.product.model`"),
    ("rm -rf /sdcard", True, True, "shell command not allowed: `rm -rf /sdcard` (allowed prefixes: getprop)"),
    ("getprop; rm -rf /sdcard", True, True, "shell command not allowed"),
    ("getprop x && reboot", True, True, "may not chain"),
])
async def test_shell_commands_run_only_when_allowed_and_confirmed(
        command: str, allowed: bool, confirm: bool, expect: str, adb_server: AdbTestServer,
        sim: VirtualPhoneService) -> None:
    asked: list[str] = []

    async def confirmer(description: str) -> bool:
        asked.append(description)
        return confirm

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "shell", "command": command}) if n == 1 else complete()

    device = await adb_server.server().device(sim.serial)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    agent = Orchestrator(device, ScriptedModels(Script(fast)), bus=bus, handlers=Handlers(confirm=confirmer),
                         settings=AgentSettings(planning=False, shell_allowed=("getprop",) if allowed else ()))
    result = await asyncio.wait_for(agent.run("What model is this phone?"), 30)
    assert result.outcome == "success"
    outcome = [e for e in events if isinstance(e, ActionResult)]
    messages = " ".join(e.message for e in outcome) + " ".join(m.text for m in agent.conversation.messages())
    assert expect in messages
