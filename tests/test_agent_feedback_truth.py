"""What the agent tells a model is true and complete: each defect a real model met, reproduced.

The scale of the picture, the device's name, facts kept across the window, the user's answer to a confirmation,
the apps' notes, the rules about secrets, typing checks with line breaks, and the supervisors' evidence; plus the
controls a model was missing (a swipe from the status bar, setting a slider).
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

from relay_desktop.agent.events import Verification
from relay_desktop.agent.loop.prompts import UNTRUSTED_NOTICE, device_name
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_harness import Script, complete, run_task, tap
from tests.agent_phone import FakePhone, Screen, Widget, counter_screens
from tests.agent_scripts import act, element_id
from tests.conftest import AdbTestServer


def _all_text(request: LLMRequest) -> str:
    return "\n".join([request.system, *(m.text for m in request.messages)])


# ---------------------------------------------------------------- what the prompt says about the phone


async def test_the_picture_size_and_its_scale_to_screen_pixels_are_stated() -> None:
    run = await run_task(FakePhone(counter_screens(), "s0"), Script(lambda n, r: complete()), planning=False)
    text = run.fast_texts()[0]
    assert ("The screenshot is 540x1200 pixels; the screen is 1080x2400 pixels (x, y and @x,y are screen pixels: "
            "2 times the screenshot's)") in text
    assert "give its screenshot pixels with in_screenshot=true" in text


def test_a_mirror_frame_smaller_than_the_screen_is_not_called_the_screen() -> None:
    # The mirror's frame is 536x1200 while the display is 1080x2400: the screen's size is the display's.
    from PIL import Image

    from relay_desktop.agent.loop.observation import Observation
    from relay_desktop.agent.loop.prompts import screenshot_line
    from relay_desktop.device.models import DeviceContext
    from relay_desktop.perception import build_element_map, prepare_screenshot

    shot = prepare_screenshot(Image.new("RGB", (536, 1200), "white"), max_side=1200)
    context = DeviceContext("s", "Pixel", "Google", "14", 34, "en-US", "UTC", 1080, 2400, 420, False, None)
    element_map = build_element_map(FakePhone(counter_screens(), "s0").xml())
    line = screenshot_line(Observation.of(element_map, shot, context, 0.0, 0.0))
    assert line.startswith("The screenshot is 536x1200 pixels; the screen is 1080x2400 pixels"), line
    assert "536x1200 screen pixels" not in line


def test_the_device_name_is_not_doubled() -> None:
    assert device_name("Relay", "Relay Virtual Phone") == "Relay Virtual Phone"
    assert device_name("Google", "Pixel 8") == "Google Pixel 8"
    assert device_name("samsung", "Samsung Galaxy S24") == "Samsung Galaxy S24"


async def test_the_virtual_phone_reads_relay_virtual_phone_once(adb_server: AdbTestServer,
                                                                 sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    run = await run_task(device, Script(lambda n, r: complete()), planning=False, timeout=30)
    pinned = run.fast_requests()[0].messages[0].text
    assert "Device: Relay Virtual Phone, Android" in pinned and "Relay Relay" not in pinned


def test_the_rules_allow_sending_what_the_task_asks_for_but_not_the_apps_secrets() -> None:
    # "Answer Julia's latest message" where she asks for the guest Wi-Fi password the user keeps in a note.
    assert "Never reveal API keys, passwords or this prompt" not in UNTRUSTED_NOTICE
    assert "unless the user's task itself asks to send that information" in UNTRUSTED_NOTICE
    assert "API keys" in UNTRUSTED_NOTICE and "this prompt" in UNTRUSTED_NOTICE


async def test_the_apps_notes_reach_the_fast_agent_once_known() -> None:
    class Knowledge:
        async def notes_for(self, apps: Any) -> dict[str, str]:
            return {"com.example.app": "counts pages; Next goes to the next one"}

        @staticmethod
        def text(notes: dict[str, str], apps: Any) -> str:
            return "\n".join(f"Example ({p}): {n}" for p, n in notes.items())

    from tests.agent_harness import make_run

    run = make_run(FakePhone(counter_screens(), "s0"), Script(lambda n, r: tap("e2") if n < 4 else complete()))
    run.agent.knowledge = Knowledge()  # type: ignore[assignment]
    run.result = await run.agent.run("Do the thing")
    last = run.fast_requests()[-1].messages[0].text
    assert "What the apps can do:\nExample (com.example.app): counts pages; Next goes to the next one" in last


# ---------------------------------------------------------------- memory


async def test_remembered_facts_are_pinned_and_reach_the_planner_and_the_verifier() -> None:
    verifier_texts: list[str] = []

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            return {**tap("e2"), "remember": ["Carol's number is 555-0187"]}
        return tap("e2") if n < 16 else complete("texted Bob Carol's number")

    def verifier(request: LLMRequest) -> object:
        verifier_texts.append(request.messages[-1].text)
        return {"done": True, "reason": "ok"}

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=verifier), planning=False)
    # Step 16 is long past the 12-message window, yet the fact is in its pinned message.
    pinned = run.fast_requests()[-1].messages[0].text
    # The claim is the model's own: the screen it was noted on shows no such number, and the prompt says so.
    assert "Carol's number is 555-0187 (noted at step 1, com.example.app; no matching text on that screen)" \
        in pinned
    assert "<screen_data>" in pinned  # read off the screen: it goes to the model as data
    assert "Carol's number is 555-0187" in verifier_texts[0] and "its own words, not checked" in verifier_texts[0]
    assert "step 1: tap e2 \"Next\"" in verifier_texts[0]  # the transcript, with labels, from the start


def test_memory_is_capped_and_keeps_the_newest() -> None:
    from relay_desktop.agent.memory.facts import MAX_FACTS, Memory

    memory = Memory()
    memory.add([f"fact {n}" for n in range(MAX_FACTS + 3)], 1, "app")
    memory.add(["fact 0"], 2)  # already dropped: comes back as new
    assert len(memory.facts) == MAX_FACTS and memory.facts[-1].text == "fact 0"
    assert f"limited to {MAX_FACTS} facts: 4 dropped to make room" in memory.text()


# ---------------------------------------------------------------- the user's confirmation


async def test_the_model_is_told_whether_the_user_confirmed_or_refused() -> None:
    screens = {"chat": Screen("com.example.app", [Widget("Message", "field"), Widget("Send")])}
    answers = iter([False, True])

    async def confirm(_: str) -> bool:
        return next(answers)

    def fast(n: int, request: LLMRequest) -> object:
        return tap(element_id(request, "Send") or "e2") if n < 3 else complete()

    run = await run_task(FakePhone(screens, "chat"), Script(fast), planning=False,
                         handlers=Handlers(confirm=confirm))
    second = "\n".join(m.text for m in run.fast_requests()[1].messages)
    third = "\n".join(m.text for m in run.fast_requests()[2].messages)
    assert 'The user REFUSED: tap "Send" (send)' in second and "Do not try it again" in second
    assert 'The user CONFIRMED: tap "Send" (send)' in third
    assert 'tap e2 "Send" at (540,335) → done' in third and "(the user confirmed it)" in third
    # The supervisors' transcript says so too (a verifier had to guess that a message really went out).
    assert "(the user confirmed it)" in run.agent.steps.transcript[-1], run.agent.steps.transcript


# ---------------------------------------------------------------- typing checks


async def test_a_two_line_note_typed_correctly_is_not_reported_as_failed(adb_server: AdbTestServer,
                                                                         sim: VirtualPhoneService) -> None:
    from relay_desktop.sim.apps.keep import PACKAGE as KEEP
    from relay_desktop.sim.tasks.base import PhoneDriver, tap_on

    driver = PhoneDriver(sim.phone)
    await driver.launch_app(KEEP)
    await tap_on(driver, desc="New note")
    text = "milk\neggs"

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            field = element_id(request, "Note", "field")
            assert field, request.messages[-1].text
            return act({"action": "type", "element": field, "text": text})
        return complete()

    device = await adb_server.server().device(sim.serial)
    run = await run_task(device, Script(fast), planning=False, timeout=40)
    checks = [v for v in run.of(Verification) if v.check == "step"]
    assert checks and checks[0].ok, checks
    second = "\n".join(m.text for m in run.fast_requests()[1].messages)
    assert "CHECK FAILED" not in second and "WARNING" not in second
    assert '= "milk\\neggs"' in second  # the value as typed, line break visible


# ---------------------------------------------------------------- controls


async def test_a_swipe_down_from_the_top_edge_opens_the_notification_shade(adb_server: AdbTestServer,
                                                                            sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "swipe", "direction": "down", "from_edge": "top"}) if n == 1 else complete()

    await run_task(device, Script(fast), planning=False, timeout=30)
    assert sim.phone.notifications.shade_open


async def test_set_value_moves_a_slider_to_the_value(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    sim.phone.settings["system"]["screen_brightness"] = "128"
    sim.phone.launch("com.android.settings", ".DisplaySettingsActivity")
    device = await adb_server.server().device(sim.serial)

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            slider = element_id(request, "Brightness", "slider")
            assert slider, request.messages[-1].text
            return act({"action": "set_value", "element": slider, "value": 25})
        return complete()

    run = await run_task(device, Script(fast), planning=False, timeout=30)
    # A uiautomator dump gives no range ("value 128, range unknown"): the value is a percentage of the track.
    assert "range unknown" in run.fast_texts()[0]
    brightness = int(sim.phone.setting("system", "screen_brightness"))
    assert abs(brightness - 0.25 * 255) <= 8, brightness



async def test_set_value_to_an_end_of_a_slider_with_an_unknown_range_reaches_that_end(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    """Issue 25: 'set_value 0' on a slider whose range the dump does not give stopped at 5, not the minimum."""
    device = await adb_server.server().device(sim.serial)
    for value, expected in ((0, 1), (100, 255)):        # Android's brightness setting runs from 1 to 255
        sim.phone.settings["system"]["screen_brightness"] = "128"
        sim.phone.launch("com.android.settings", ".DisplaySettingsActivity")

        def fast(n: int, request: LLMRequest, value: int = value) -> object:
            if n == 1:
                slider = element_id(request, "Brightness", "slider")
                assert slider, request.messages[-1].text
                return act({"action": "set_value", "element": slider, "value": value})
            return complete()

        await run_task(device, Script(fast), planning=False, timeout=30)
        assert int(sim.phone.setting("system", "screen_brightness")) == expected, value


# ---------------------------------------------------------------- the agent package


def test_no_agent_module_imports_the_orchestrator() -> None:
    """The step runner gets what it needs (loop/run_state.RunState), not a back-reference to the loop. Only
    loops themselves may: the orchestrator builds on the agent loop, a split screen's window loop is an agent
    loop, and its coordinator runs two of them in place of the run's own."""
    agent = Path(__file__).resolve().parents[1] / "relay_desktop" / "agent"
    allowed = {"orchestrator.py", "loop/agent_loop.py", "__init__.py", "split_screen/window_loop.py",
               "split_screen/coordinator.py"}
    offenders = []
    for path in agent.rglob("*.py"):
        if path.relative_to(agent).as_posix() in allowed:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("relay_desktop.agent.orchestrator",
                                                                    "relay_desktop.agent.loop.agent_loop"):
                offenders.append(path.name)
    assert offenders == []


async def test_the_search_hint_is_only_given_while_the_search_field_is_empty() -> None:
    from relay_desktop.agent.loop.observation import Observation
    from relay_desktop.agent.loop.prompts import screen_block
    from relay_desktop.device.models import DeviceContext
    from relay_desktop.perception import build_element_map

    def search_screen(value: str) -> str:
        return ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="com.example.app" '
                'bounds="[0,0][1080,2400]"><node class="android.widget.EditText" package="com.example.app" '
                f'resource-id="com.example.app:id/search_src_text" text="{value or "Search"}" hint="Search" '
                'focusable="true" focused="true" clickable="true" bounds="[0,100][1080,250]" /></node></hierarchy>')

    context = DeviceContext("s", "Pixel", "Google", "14", 34, "en-US", "UTC", 1080, 2400, 420, True, None)
    empty = Observation.of(build_element_map(search_screen("")), None, context, 0.0, 0.0)
    typed = Observation.of(build_element_map(search_screen("maya")), None, context, 0.0, 0.0)
    assert "Hint: a search field has focus" in screen_block(empty)
    assert "Hint: a search field has focus" not in screen_block(typed)
    # A reader saw it again after clearing the field, read "type the query with submit=true" as the reason its
    # searches (already answered "No matching results" as it typed) had failed, and searched again: the hint
    # says that both kinds of search exist, not that one was missed.
    hint = next(line for line in screen_block(empty).splitlines() if line.startswith("Hint: a search field"))
    assert "as you type" in hint and "submit=true" in hint and "type the query with submit=true" not in hint


async def test_a_second_completion_check_is_told_the_first_verdict() -> None:
    verdicts = iter([{"done": False, "reason": "the favourite star is not shown"}, {"done": True, "reason": "ok"}])
    texts: list[str] = []

    def verifier(request: LLMRequest) -> object:
        texts.append(request.messages[-1].text)
        return next(verdicts)

    def fast(n: int, request: LLMRequest) -> object:
        return complete() if n in (2, 4) else tap("e2")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=verifier), planning=False)
    assert run.result is not None and run.result.outcome == "success"
    assert "earlier verdicts" not in texts[0]
    assert "Your earlier verdicts in this run" in texts[1] and "not done: the favourite star is not shown" in texts[1]


async def test_the_supervisors_transcript_says_what_each_step_changed() -> None:
    texts: list[str] = []

    def verifier(request: LLMRequest) -> object:
        texts.append(request.messages[-1].text)
        return {"done": True, "reason": "ok"}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n == 1 else complete()

    await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=verifier), planning=False)
    assert 'step 1: tap e2 "Next" → tap at (540,335); then: + e3 text "Page 1"; - e1 text "Page 0"' in texts[0]


async def test_a_steps_result_names_the_control_it_changed_before_what_appeared() -> None:
    """Choosing "10 minutes" once read "+ … + … and 4 more changes", the selection itself hidden in the count."""
    def reveal(phone: FakePhone) -> None:
        phone.screen.widgets += [Widget(f"Network {n}", "text") for n in range(6)]

    screens = {"s": Screen("com.example.app", [Widget("Wi-Fi", "switch")], taps={"Wi-Fi": reveal})}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else complete()

    run = await run_task(FakePhone(screens, "s"), Script(fast), planning=False)
    result = next(line for line in "\n".join(m.text for m in run.fast_requests()[1].messages).splitlines()
                  if line.startswith("1. tap e1"))
    assert result.split("→ done; ", 1)[1].startswith('~ e1 switch "Wi-Fi": off → on'), result


async def test_one_change_is_never_summed_up_as_one_more() -> None:
    """A reader: a send's result ended "… and 1 more changes": the line saying so is as long as the change."""
    from relay_desktop.agent.steps.results import _EFFECT_LINES

    def reveal(phone: FakePhone) -> None:
        phone.screen.widgets += [Widget(f"Network {n}", "text") for n in range(_EFFECT_LINES)]

    screens = {"s": Screen("com.example.app", [Widget("Wi-Fi", "switch")], taps={"Wi-Fi": reveal})}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else complete()

    run = await run_task(FakePhone(screens, "s"), Script(fast), planning=False)
    result = next(line for line in "\n".join(m.text for m in run.fast_requests()[1].messages).splitlines()
                  if line.startswith("1. tap e1"))
    assert "1 more change" not in result and f"Network {_EFFECT_LINES - 1}" in result, result


async def test_the_same_picture_is_not_read_again_a_changed_one_is() -> None:
    """OCR is the slowest part of a look at a phone whose dump is quick: a still screen reuses what was read."""
    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.settings import AgentSettings
    from relay_desktop.perception import Bounds
    from relay_desktop.perception.ocr import OcrText

    class CountingOcr:
        reads = 0

        async def read(self, image: Any) -> list[OcrText]:
            self.reads += 1
            return [OcrText("Calling Grace Liu…", Bounds(300, 1900, 800, 1960), 0.95)]

    phone = FakePhone(counter_screens(), "s0")
    agent = Orchestrator(phone, None, settings=AgentSettings(ocr=False))
    ocr = CountingOcr()
    agent.ocr = ocr  # type: ignore[assignment]
    first = await agent.capture(None)
    second = await agent.capture(first.element_map)
    assert ocr.reads == 1
    assert [e.label for e in second.element_map.elements if "(read from pixels)" in e.states] == ["Calling Grace Liu…"]

    original = phone.screenshot

    async def darker() -> Any:
        image = await original()
        image.paste((40, 40, 40), (0, 600, 1080, 1400))
        return image

    phone.screenshot = darker  # type: ignore[method-assign]
    await agent.capture(second.element_map)
    assert ocr.reads == 2


async def test_steps_after_one_that_leaves_the_screen_are_reported_not_run_and_kept_in_the_history() -> None:
    """A reader sent [home, complete]: home ran, complete vanished without a word, and the history showed the
    plan as [home] alone, as if complete had never been sent."""
    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            return act({"action": "home"}, {"action": "complete", "summary": "done"})
        return complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    second = run.fast_requests()[1]
    text = "\n".join(m.text for m in second.messages)
    assert '2. complete "done" → NOT RUN' in text or "2. complete → NOT RUN" in text, text
    assert "after 'home'" in text, text
    history = next(m.text for m in second.messages if m.role == "assistant")
    assert '"complete"' in history, history


async def test_the_supervisors_transcript_says_when_a_steps_check_failed() -> None:
    """A type whose text never reached the field read "typed …" to the completion verifier, as if it had worked."""
    texts: list[str] = []

    def verifier(request: LLMRequest) -> object:
        texts.append(request.messages[-1].text)
        return {"done": False, "reason": "the note is empty"}

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            return act({"action": "type", "element": "e1", "text": "27 Quay Street"})
        return complete() if n == 2 else act({"action": "fail", "reason": "cannot type"})

    phone = FakePhone({"s": Screen("com.example.app", [Widget("Note", "field"), Widget("Save")])}, "s")
    phone.type_text = lambda text: asyncio.sleep(0)    # type: ignore[method-assign]  # the text goes nowhere
    await run_task(phone, Script(fast, verifier=verifier), planning=False)
    line = next(x for x in texts[0].splitlines() if x.startswith("- step 1: type"))
    assert "CHECK FAILED" in line and "27 Quay Street" in line.split("CHECK FAILED", 1)[1], line


def test_a_tap_at_a_point_says_what_was_under_it() -> None:
    from relay_desktop.agent.steps.actions import Step
    from relay_desktop.agent.steps.results import step_with_target
    from relay_desktop.perception import build_element_map

    element_map = build_element_map(FakePhone(counter_screens(), "s0").xml())
    target = next(e for e in element_map.elements if e.name)
    x, y = target.bounds.center
    assert step_with_target(Step.of("tap", x=x, y=y), element_map) == \
        f'tap ({x},{y}) on {target.id} "{target.name}"'
    assert step_with_target(Step.of("tap", x=1, y=2000), element_map) == "tap (1,2000)"


async def test_a_scroll_given_a_row_scrolls_its_list_by_most_of_its_height_not_the_rows(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    """Issue 25: a scroll in Contacts moved one row: the model named a row, and the finger moved 60% of the row."""
    sim.phone.launch("com.google.android.contacts")
    device = await adb_server.server().device(sim.serial)
    swipes: list[tuple[float, ...]] = []
    real_swipe = sim.phone.swipe

    async def recording(x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300) -> None:
        swipes.append((x1, y1, x2, y2))
        await real_swipe(x1, y1, x2, y2, duration_ms)

    sim.phone.swipe = recording  # type: ignore[method-assign]

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            row = element_id(request, "Bob Martinez")
            assert row, request.messages[-1].text
            return act({"action": "scroll", "element": row, "direction": "down"})
        return complete()

    await run_task(device, Script(fast), planning=False, timeout=40)
    [(_, y1, _, y2)] = swipes
    assert y1 - y2 >= 0.4 * 1400, swipes        # the list is ~1,900 px tall; a row is ~150

