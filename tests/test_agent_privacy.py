"""What of the phone's picture leaves the machine: a protected screen (FLAG_SECURE) is noticed and no picture of it
goes to a model or the history, the model is told why; a private app's screens likewise; password fields are
painted over in every picture, and text read inside them is dropped."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

from PIL import Image

from relay_desktop.agent.events import HumanInput, LogLine, ScreenCaptured
from relay_desktop.agent.loop.capture import PRIVATE_APP, PROTECTED
from relay_desktop.agent.loop.prompts import screenshot_line
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.ocr import OcrText
from relay_desktop.perception.privacy import MASK_COLOUR, is_blank_frame, mask_regions
from relay_desktop.runs import RunStore
from relay_desktop.sim.apps.bank import DEFAULT_PIN, PACKAGE, NorthwindBank
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find
from tests.conftest import AdbTestServer
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.recorded import RecordedRequest
from tests.test_user_secrets import run_with_secret


def _element(text: str, label: str) -> str | None:
    screen = text[text.rfind("<screen_data>"):]
    match = re.search(rf'^(e\d+) \w+ "[^"]*{re.escape(label)}[^"]*"', screen, re.M | re.I)
    return match.group(1) if match else None


def bank_model(record: RecordedRequest) -> Reply:
    """Signs in to the bank with the saved PIN, then reads the balance off the accounts screen."""
    name = (record.tool_names() or ["act"])[0]
    text = record.last_text()
    if name != "act":
        answers = {"plan_strategy": {"approaches": [{"name": "Bank", "description": "sign in", "steps": ["sign in"],
                                                     "confidence": 0.9}], "recommended_index": 0},
                   "completion": {"done": True, "reason": "balance read"},
                   "progress": {"progressing": True, "reason": "ok"}}
        return Reply.tool_call(name, answers.get(name, {"notes": []}))
    if "Everyday Checking" in text:
        step: dict[str, Any] = {"action": "complete", "summary": "Checking has $2,418.56"}
    elif "App in front: com.northwind.bank" not in text:
        step = {"action": "launch_app", "app": "Northwind Bank"}
    elif "[REDACTED]" in text or "••••" in text:
        step = {"action": "tap", "element": _element(text, "Sign in")}
    else:
        step = {"action": "type", "element": _element(text, "PIN"), "secret": "bank_pin"}
    return Reply.tool_call("act", {"thinking": "next", "steps": [step]})


async def test_a_protected_screen_sends_no_picture_tells_the_model_why_and_the_history_keeps_none(
        adb_server: AdbTestServer, sim: VirtualPhoneService, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    result, events = await run_with_secret(adb_server, sim, fake_llm, store, bank_model,
                                           "What is the balance of my checking account at Northwind Bank?",
                                           {"RELAY_SECRET_BANK_PIN": DEFAULT_PIN})
    assert result.outcome == "success", result.reason
    bank: NorthwindBank = sim.phone.apps[PACKAGE]  # type: ignore[assignment]
    assert bank.sign_ins == 1
    captured = [e for e in events if isinstance(e, ScreenCaptured)]
    in_bank = [e for e in captured if e.app == PACKAGE]
    assert in_bank and all(e.withheld == PROTECTED and e.screenshot is None for e in in_bank)
    assert any(e.withheld == "" and e.screenshot is not None for e in captured)   # the launcher was pictured
    act = [r for r in fake_llm.requests if r.tool_names() == ["act"]]
    bank_asks = [r for r in act if "App in front: com.northwind.bank" in r.last_text()]
    assert bank_asks and all(not r.images() for r in bank_asks)
    # Every request after the bank came up (the verifier's too) carries no picture, only the element list.
    first = fake_llm.requests.index(bank_asks[0])
    assert all(not r.images() for r in fake_llm.requests[first:])
    assert all("this screen is protected" in r.last_text() for r in bank_asks)
    # A saved secret answers the sign-in screen: the user is not asked, nor the model told to type nothing.
    assert not any(isinstance(e, HumanInput) and e.purpose == "sign_in" for e in events)
    assert not any("do not type any password" in r.last_text() for r in act)
    strategy = [r for r in fake_llm.requests if r.tool_names() == ["plan_strategy"]]
    assert strategy and all("Saved secrets: bank_pin. They count as given" in r.last_text() for r in strategy)
    assert any("type(element, secret=bank_pin)" in r.last_text() for r in bank_asks)
    # The PIN field shows dots, never the value: the check after typing must not call that a failure.
    assert not any("is not in the field after typing" in r.last_text() for r in act)
    assert any('secret:bank_pin → done; ~ e' in r.last_text() for r in act)
    assert any(isinstance(e, LogLine) and "Protected screen in com.northwind.bank" in e.message for e in events)
    record = store.get_run(result.run_id)
    bank_steps = [s for s in record.steps if s.app == PACKAGE]
    assert bank_steps and all(s.screenshot is None and s.withheld == PROTECTED for s in bank_steps)
    for path in (tmp_path / "runs").rglob("*"):
        if path.is_file():
            assert DEFAULT_PIN.encode() not in path.read_bytes(), path


async def test_a_private_app_is_looked_at_through_its_elements_only(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    sim.phone.launch("com.android.settings")
    device = await adb_server.server().device(sim.serial)
    try:
        agent = Orchestrator(device, None, settings=AgentSettings(private_apps=("com.android.settings",), ocr=False))
        private = await asyncio.wait_for(agent.capture(None), 30)
        open_agent = Orchestrator(device, None, settings=AgentSettings(ocr=False))
        public = await asyncio.wait_for(open_agent.capture(None), 30)
    finally:
        await device.close()
    assert private.withheld == PRIVATE_APP and private.screenshot is None and private.element_map.elements
    assert "keeps this app's screens private" in screenshot_line(private)
    assert public.withheld == "" and public.screenshot is not None


class _Reader:
    """OCR that 'reads' two lines: one inside the PIN field, one beside it."""

    def __init__(self, inside: Bounds, outside: Bounds) -> None:
        self.lines = [OcrText("4071", inside, 0.99), OcrText("Northwind", outside, 0.99)]

    async def read(self, image: Image.Image) -> list[OcrText]:
        return self.lines


async def test_password_fields_are_painted_over_and_text_read_inside_them_is_dropped(
        adb_server: AdbTestServer, sim: VirtualPhoneService, monkeypatch: Any) -> None:
    # The bank without FLAG_SECURE, as an app that lets itself be photographed: its PIN field must still not be.
    monkeypatch.setattr(NorthwindBank, "secure", False)
    sim.phone.launch(PACKAGE)
    field = find(await sim.phone.dump_hierarchy(), id="pin_input")
    assert field is not None
    left, top, right, bottom = field.bounds
    inside = Bounds(left + 20, top + 10, left + 200, bottom - 10)
    outside = Bounds(left, top - 300, left + 300, top - 250)
    device = await adb_server.server().device(sim.serial)
    try:
        agent = Orchestrator(device, None, settings=AgentSettings(ocr=False))
        agent.ocr = _Reader(inside, outside)  # type: ignore[assignment]
        seen = await asyncio.wait_for(agent.capture(None), 30)
    finally:
        await device.close()
    assert seen.withheld == "" and seen.screenshot is not None
    picture = Image.open(io.BytesIO(seen.screenshot.jpeg)).convert("RGB")
    scale = picture.width / seen.screenshot.source_width
    for x, y in ((left + 8, top + 8), ((left + right) // 2, (top + bottom) // 2), (right - 8, bottom - 8)):
        pixel = picture.getpixel((int(x * scale), int(y * scale)))
        assert all(abs(a - b) <= 12 for a, b in zip(pixel, MASK_COLOUR, strict=True)), (x, y, pixel)
    read = [e.label for e in seen.element_map.elements if "4071" in e.label or "Northwind" in e.label]
    assert any("Northwind" in label for label in read) and not any("4071" in label for label in read)
    assert "4071" not in json.dumps([e.label for e in seen.element_map.elements])


def test_a_black_frame_is_blank_and_a_dark_screen_is_not() -> None:
    assert is_blank_frame(Image.new("RGB", (1080, 2400)))
    dark = Image.new("RGB", (1080, 2400), (18, 18, 18))          # Material's dark surface
    assert not is_blank_frame(dark)
    amoled = Image.new("RGB", (1080, 2400))
    for y in range(0, 90, 3):                                    # a black theme still draws its status bar
        for x in range(40, 1040, 2):
            amoled.putpixel((x, y + 20), (230, 230, 230))
    assert not is_blank_frame(amoled)
    masked = mask_regions(Image.new("RGB", (540, 1200), (255, 255, 255)), [Bounds(100, 200, 300, 400)],
                          (1080, 2400))
    assert masked.getpixel((75, 150)) == MASK_COLOUR and masked.getpixel((40, 90)) == (255, 255, 255)
