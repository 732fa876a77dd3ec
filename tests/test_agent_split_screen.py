"""Split screen end to end: the planning agent recommends two apps side by side, the coordinator enters split
screen the way a user does (through Google's adb, on the virtual phone), and two scripted window loops work at
once, one per half, passing what one reads to the other through the shared note."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from relay_desktop.agent.events import ActionStarted, EventBus, LogLine, RunFinished
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.safety import Handlers
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.llm.types import LLMRequest, Role
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import act, element_id, screen_text
from tests.conftest import AdbTestServer

KEEP, MESSAGES = "com.google.android.keep", "com.google.android.apps.messaging"
SPLIT = {"apps": ["Keep Notes", "Messages"],
         "goals": ["Open the 'Cabin weekend' note and note its Wi-Fi password",
                   "Open the conversation with Grace Liu and text her the cabin's Wi-Fi password"],
         "reason": "copy from a note into a text"}
PLAN = {"approaches": [{"name": "Split screen", "description": "Keep Notes above, Messages below",
                        "steps": ["Read the password in the note", "Text it to Grace"], "confidence": 0.9}],
        "recommended_index": 0, "split_screen": SPLIT}


def whole(request: LLMRequest) -> str:
    return "\n".join(m.text for m in request.messages)


class CabinAgent:
    """Reads the cabin note in the top half and texts its password in the bottom one, like a model would: it
    answers from the element list it is shown, and knows its half from the task it is given."""

    def __init__(self) -> None:
        self.screens: dict[str, list[str]] = {"keep": [], "messages": [], "before": []}
        self.sent = False

    def __call__(self, role: Role, request: LLMRequest) -> dict[str, Any]:
        if role == "planning":
            return PLAN
        name = request.contract.name if request.contract is not None else ""
        if role == "verifier" or name == "completion":
            return {"done": True, "reason": "the part is done"}
        if name == "progress":
            return {"progressing": True, "reason": "fine"}
        if name != "act":
            return {"notes": []}
        pinned, screen = request.messages[0].text, screen_text(request)
        if "You work in Keep Notes" in pinned:
            self.screens["keep"].append(screen)
            found = re.search(r"Wi-Fi password: (\S+?)[\"\\\n ]", screen)
            if found:
                return act({"action": "complete", "summary": "noted the password"},
                           thinking="the note shows it") | {"remember": [f"The cabin Wi-Fi password is {found[1]}"]}
            return act({"action": "tap", "element": element_id(request, "Cabin weekend")})
        if "You work in Messages" in pinned:
            self.screens["messages"].append(screen)
            known = re.search(r"The cabin Wi-Fi password is (\S+?)[ (]", whole(request))
            field = element_id(request, "Text message")
            if field is None:
                return act({"action": "tap", "element": element_id(request, "Grace Liu")})
            if known is None:
                return act({"action": "wait", "seconds": 1}, thinking="the other half has not noted it yet")
            if self.sent:       # with the keyboard up the short half has no room for the thread: hide it
                if known[1] in screen:
                    return act({"action": "complete", "summary": "texted Grace"})
                return act({"action": "back"}, thinking="the field emptied; hide the keyboard to see the thread")
            self.sent = True
            return act({"action": "type", "element": field, "text": f"The cabin Wi-Fi password is {known[1]}"},
                       {"action": "tap", "element": element_id(request, "Send SMS")})
        self.screens["before"].append(screen)
        return act({"action": "wait", "seconds": 1}, thinking="waiting for the plan")


async def test_split_screen_task_end_to_end(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    task = TASKS_BY_ID["split_cabin_wifi_to_grace"]
    task.setup(sim.phone)
    agent = CabinAgent()
    models = ScriptedModels(agent)
    device = await adb_server.server().device(sim.serial)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    confirmations: list[str] = []

    async def confirm(reason: str) -> bool:
        confirmations.append(reason)
        return True

    run = Orchestrator(device, models, bus=bus, settings=AgentSettings(max_steps=20, ocr=False),
                       handlers=Handlers(confirm=confirm))
    result = await asyncio.wait_for(run.run(task.goal), 90)

    log = [e.message for e in events if isinstance(e, LogLine)]
    assert result.outcome == "success", (result.reason, log)
    assert task.check(sim.phone).ok, task.check(sim.phone).detail
    assert any(m.startswith("Split screen: entered") for m in log), log
    # Each half's element list holds its own app and not the other's.
    assert agent.screens["keep"] and agent.screens["messages"]
    assert all(MESSAGES not in s and "Grace Liu" not in s for s in agent.screens["keep"])
    assert all(KEEP not in s and "Cabin weekend" not in s for s in agent.screens["messages"])
    # The bottom half waited for the top half's note, then used it; the send was confirmed by the user.
    assert any("Send SMS" in c or "send" in c.lower() for c in confirmations), confirmations
    assert any(m.startswith("[Messages]") for m in log)      # each loop's log lines name its app
    # What the top half noted reached the bottom half's requests as the shared note.
    shared = [whole(r) for role, r in models.requests if role == "fast" and "You work in Messages" in
              r.messages[0].text and "SHARED NOTE" in whole(r)]
    assert shared and "heron-Quartz-4471" in shared[-1]
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert len(finished) == 1 and finished[0].outcome == "success"
    assert len([e for e in events if isinstance(e, ActionStarted)]) >= 4
