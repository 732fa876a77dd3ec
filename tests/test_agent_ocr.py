"""The agent with the OCR pass: a toast, which no UI dump holds, reaches the model as text read from pixels.

A tap on "Call" in a Messages thread shows "Calling Bob Martinez…" for a few seconds; without OCR the model is
told the element list did not change, with it the next prompt carries the toast's words."""

from __future__ import annotations

import re

import pytest

from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import PhoneDriver, tap_on
from tests.agent_harness import Script, complete, run_task
from tests.agent_scripts import act, element_id
from tests.conftest import AdbTestServer

pytest.importorskip("rapidocr")


@pytest.mark.ocr
async def test_a_toast_after_a_tap_reaches_the_model_as_text_read_from_pixels(adb_server: AdbTestServer,
                                                                                sim: VirtualPhoneService) -> None:
    driver = PhoneDriver(sim.phone)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")
    device = await adb_server.server().device(sim.serial)

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            call = element_id(request, "Call")
            assert call, request.messages[-1].text
            return act({"action": "tap", "element": call})
        return complete()

    async def allow(_: str) -> bool:
        return True

    from relay_desktop.agent.steps.safety import Handlers

    run = await run_task(device, Script(fast), planning=False, timeout=90, handlers=Handlers(confirm=allow))
    second = run.fast_texts()[1]
    # OCR reads "Calling Bob Martinez…" (give or take a letter: "Caling … Martinez..")
    assert re.search(r"Cal+ing Bob Martinez.*\(read from pixels\)", second), second
    assert "INEFFECTIVE" not in second and "no visible change" not in "\n".join(
        m.text for m in run.fast_requests()[1].messages)


@pytest.mark.ocr
async def test_text_read_from_a_scaled_mirror_frame_lands_on_the_screen_where_it_is(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Lines read off a 536x1200 mirror frame of a 1080x2400 phone map to the display's pixels (not to the dump's
    root, which ends above the navigation bar): so every line the dump already shows is recognised as such and
    none comes back as a duplicate "read from pixels" 5% too high."""
    import asyncio

    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.settings import AgentSettings
    from relay_desktop.mirror.client import MirrorClient
    from relay_desktop.mirror.mirrored_phone import MirroredPhone
    from relay_desktop.mirror.provisioning import ServerFile
    from relay_desktop.perception.ocr import is_ocr

    sim.phone.launch("com.android.settings")
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"server")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=1200)
    await asyncio.wait_for(mirror.start(), 20)
    try:
        assert await asyncio.wait_for(mirror.first_frame(10), 15)
        agent = Orchestrator(MirroredPhone(device, mirror), None, settings=AgentSettings(ocr=True))
        assert agent.ocr is not None
        observation = await asyncio.wait_for(agent.capture(None), 60)
    finally:
        await mirror.stop()
    assert observation.screenshot is not None and observation.screenshot.source_height == 1200
    duplicates = [e for e in observation.element_map.elements if is_ocr(e)
                  and any(not is_ocr(o) and e.label.casefold() in o.label.casefold()
                          for o in observation.element_map.elements)]
    assert duplicates == [], duplicates
