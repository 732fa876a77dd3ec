"""Scripted fast agents for orchestrator tests: they read the element list in the prompt, like a model would."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from relay_desktop.llm.types import LLMRequest, Role

_LINE = re.compile(r'^(e\d+) (\w+) "([^"]*)"(.*)$', re.M)


def screen_text(request: LLMRequest) -> str:
    text = request.messages[-1].text
    start = text.rfind("<screen_data>")
    return text[start:] if start != -1 else ""


def element_id(request: LLMRequest, label: str, role: str | None = None) -> str | None:
    """The id of the first element whose label contains ``label`` in this turn's screen data."""
    for match in _LINE.finditer(screen_text(request)):
        if label.lower() in match.group(3).lower() and (role is None or match.group(2) == role):
            return match.group(1)
    return None


def element_state(request: LLMRequest, label: str) -> str:
    for match in _LINE.finditer(screen_text(request)):
        if label.lower() in match.group(3).lower():
            return match.group(4)
    return ""


def act(*steps: dict[str, Any], thinking: str = "scripted") -> dict[str, Any]:
    return {"thinking": thinking, "steps": list(steps)}


def wifi_agent(role: Role, request: LLMRequest) -> dict[str, Any]:
    """Turns on Wi-Fi the way a good model would: open Settings, Network & internet, tap the Wi-Fi switch."""
    if role == "planning":
        return {"approaches": [{"name": "Settings app", "description": "Open Settings and toggle Wi-Fi",
                                "steps": ["Open Settings", "Open Network & internet", "Turn on Wi-Fi"],
                                "confidence": 0.9}], "recommended_index": 0}
    if role == "verifier":
        return {"done": True, "reason": "Wi-Fi shows on"}
    if request.contract is not None and request.contract.name == "progress":
        return {"progressing": True, "reason": "fine"}
    if request.contract is not None and request.contract.name != "act":
        return {"notes": []}
    screen = screen_text(request)
    if "com.android.settings" not in screen.split("\n", 2)[1]:
        return act({"action": "launch_app", "app": "Settings"})
    wifi = element_id(request, "Wi-Fi", "switch")
    if wifi is not None:
        if " on" in element_state(request, "Wi-Fi"):
            return act({"action": "complete", "summary": "Wi-Fi is on"})
        return act({"action": "tap", "element": wifi})
    network = element_id(request, "Network & internet")
    if network is not None:
        return act({"action": "tap", "element": network})
    return act({"action": "back"})


def held_wifi_models(release: asyncio.Event, calls: list[float]) -> Any:
    """The Wi-Fi agent, except that its second fast call does not answer until released (a slow model)."""
    from tests.agent_fakes import ScriptedModels

    def answer(role: Role, request: LLMRequest) -> object:
        if role == "fast" and request.contract is not None and request.contract.name == "act":
            calls.append(time.monotonic())
            if len(calls) == 2:
                async def later() -> object:
                    await asyncio.wait_for(release.wait(), 30)
                    return wifi_agent(role, request)
                return later()
        return wifi_agent(role, request)
    return ScriptedModels(answer)  # type: ignore[arg-type]


def text_agent(name: str, message: str) -> Any:
    """Texts ``name`` the ``message`` as a good model would: Messages, the person's conversation, type, Send."""

    def answer(role: Role, request: LLMRequest) -> dict[str, Any]:
        if role == "planning":
            return {"approaches": [{"name": "Messages", "description": "Open the conversation and send",
                                    "steps": ["Open Messages", f"Open {name}'s conversation", "Type and send"],
                                    "confidence": 0.9}], "recommended_index": 0}
        if role == "verifier":
            return {"done": True, "reason": "the message shows as sent"}
        if request.contract is not None and request.contract.name == "progress":
            return {"progressing": True, "reason": "fine"}
        if request.contract is not None and request.contract.name != "act":
            return {"notes": []}
        screen = screen_text(request)
        if "com.google.android.apps.messaging" not in screen.split("\n", 2)[1]:
            return act({"action": "launch_app", "app": "Messages"})
        if message in screen and element_id(request, "Text message", "field") is not None:
            return act({"action": "complete", "summary": f"texted {name}"})
        field = element_id(request, "Text message", "field")
        if field is not None:
            return act({"action": "type", "element": field, "text": message},
                       {"action": "tap", "element": element_id(request, "Send SMS") or field})
        row = element_id(request, name)
        if row is not None:
            return act({"action": "tap", "element": row})
        return act({"action": "back"})
    return answer
