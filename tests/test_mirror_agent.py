"""The agent with a mirror: stream screenshots, settle instead of sleeping, any language typed; without one, adb."""

from __future__ import annotations

import asyncio

from relay_desktop.agent.events import ActionResult, EventBus, LogLine, ScreenCaptured
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.llm.types import LLMRequest
from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_fakes import ScriptedModels
from tests.agent_harness import Script, complete
from tests.agent_scripts import act, element_id, screen_text
from tests.conftest import AdbTestServer

TEXT = "Grüße, 你好"


def note_writer(n: int, request: LLMRequest) -> object:
    text = request.messages[-1].text
    if "App in front: com.google.android.keep" not in text:
        return act({"action": "launch_app", "app": "Keep Notes"})
    if n < 6 and (new := element_id(request, "New note")):
        return act({"action": "tap", "element": new})
    field = element_id(request, "Note", "field")
    if field and TEXT not in screen_text(request):
        return act({"action": "type", "element": field, "text": TEXT})
    return complete("written")


async def run(phone: object) -> tuple[list[object], object]:
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    agent = Orchestrator(phone, ScriptedModels(Script(note_writer)), bus=bus,  # type: ignore[arg-type]
                         settings=AgentSettings(planning=False, max_steps=8))
    result = await asyncio.wait_for(agent.run(f"Write a note saying {TEXT}"), 60)
    return events, result


async def test_with_a_mirror_the_agent_sees_the_stream_and_types_any_language(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path) -> None:  # type: ignore[no-untyped-def]
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"server")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    try:
        while mirror.latest.take()[0] is None:
            await asyncio.sleep(0.02)
        events, result = await run(MirroredPhone(device, mirror))
    finally:
        await mirror.stop()
    assert result.outcome == "success", result.reason  # type: ignore[attr-defined]
    assert any(isinstance(e, LogLine) and e.message.startswith("Mirror running") for e in events)
    shots = [e.screenshot for e in events if isinstance(e, ScreenCaptured)]
    assert shots and all(s is not None and (s.source_width, s.source_height) == (536, 1200) for s in shots)
    keep = sim.phone.apps["com.google.android.keep"]
    assert any(TEXT in note.body for note in keep.notes)  # type: ignore[attr-defined]


async def test_without_a_mirror_adb_does_the_work_and_says_so(adb_server: AdbTestServer,
                                                             sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    events, _ = await run(MirroredPhone(device, None))
    assert any(isinstance(e, LogLine) and e.message.startswith("No mirror: screenshots over adb") for e in events)
    shots = [e.screenshot for e in events if isinstance(e, ScreenCaptured)]
    assert shots[0] is not None and shots[0].source_width == 1080
    # Text adb cannot type goes through the uiautomator2 server's clipboard, and the log says how the screen is read.
    typed = [e for e in events if isinstance(e, ActionResult) and e.action.action == "type"]
    assert typed and typed[0].ok, typed
    assert any(isinstance(e, LogLine) and e.message.startswith("Screen read by the uiautomator2 server")
               for e in events)


async def test_without_a_mirror_or_the_uiautomator2_server_text_adb_cannot_type_is_a_plain_step_error(
        adb_server: AdbTestServer, sim: VirtualPhoneService, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RELAY_DESKTOP_UI_SERVER", "off")
    device = await adb_server.server().device(sim.serial)
    events, _ = await run(MirroredPhone(device, None))
    assert any(isinstance(e, LogLine) and e.message.startswith("Screen read with `uiautomator dump`") for e in events)
    typed = [e for e in events if isinstance(e, ActionResult) and e.action.action == "type"]
    assert typed and not typed[0].ok and "ASCII" in typed[0].message and "Start the mirror" in typed[0].message
