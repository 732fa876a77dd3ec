"""Each step of a plan acts on the screen as it is when the step runs.

A plan "type into the message field, then tap Send" used to type (the keyboard opened and moved Send up) and
then tap Send's old position, which had become a keyboard key. On a real phone a tap that lands on a different
control is the most dangerous thing the agent can do, so these run on the virtual phone through Google's adb.
"""

from __future__ import annotations

import re
from typing import Any

from relay_desktop.agent.events import ActionResult, ActionStarted
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.llm.types import LLMRequest, Role
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import PhoneDriver, tap_on
from tests.agent_harness import run_task
from tests.agent_scripts import act, element_id
from tests.conftest import AdbTestServer


class TypeThenSend:
    """A model that plans "type the text, then tap Send" in one answer, then says done."""

    def __init__(self, text: str = "running late") -> None:
        self.text = text
        self.fast_calls = 0
        self.screens: list[str] = []

    def __call__(self, role: Role, request: LLMRequest) -> dict[str, Any]:
        name = request.contract.name if request.contract else ""
        if role == "planning":
            return {"approaches": [{"name": "Reply", "description": "Type and send", "steps": ["Type", "Send"],
                                    "confidence": 0.9}], "recommended_index": 0}
        if role == "verifier":
            return {"done": True, "reason": "sent"}
        if name == "progress":
            return {"progressing": True, "reason": "fine"}
        if name != "act":
            return {"notes": []}
        self.fast_calls += 1
        self.screens.append(request.messages[-1].text)
        if self.fast_calls == 1:
            field = element_id(request, "Text message", "field")
            send = element_id(request, "Send SMS")
            assert field and send, request.messages[-1].text
            return act({"action": "type", "element": field, "text": self.text}, {"action": "tap", "element": send})
        return act({"action": "complete", "summary": "sent"})


async def _approve(_: str) -> bool:
    return True


async def _open_bob(sim: VirtualPhoneService) -> None:
    driver = PhoneDriver(sim.phone)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")


async def test_type_then_tap_send_taps_send_where_it_moved_to(adb_server: AdbTestServer,
                                                               sim: VirtualPhoneService) -> None:
    from relay_desktop.sim.tasks.comms_tasks import _messages

    await _open_bob(sim)
    assert not sim.phone.keyboard_shown
    device = await adb_server.server().device(sim.serial)
    script = TypeThenSend()
    run = await run_task(device, script, "Text Bob that I'm running late", timeout=40, planning=False,
                         handlers=Handlers(confirm=_approve))
    sent = [m.text for m in _messages(sim.phone).sent]
    assert sent == ["running late"], (sent, run.result)
    taps = [e for e in run.of(ActionStarted) if e.action.action == "tap"]
    assert taps and taps[0].bounds is not None and taps[0].point is not None
    # The tap went inside Send's box as it was after typing (the keyboard had pushed it up), nowhere else.
    x, y = taps[0].point
    assert taps[0].bounds.contains_point(x, y)
    assert y < 2000, f"the tap went to Send's old place ({x},{y}), under the keyboard"
    assert all(r.ok for r in run.of(ActionResult))


class RenameThenSave:
    """Types a new name, then taps Save in the same plan; typing opens the keyboard, which covers Save."""

    def __init__(self) -> None:
        self.fast_calls = 0
        self.texts: list[str] = []

    def __call__(self, role: Role, request: LLMRequest) -> dict[str, Any]:
        name = request.contract.name if request.contract else ""
        if name == "progress":
            return {"progressing": True, "reason": "fine"}
        if role != "fast" or name != "act":
            return {"done": False, "reason": "not yet"} if role == "verifier" else {"notes": []}
        self.fast_calls += 1
        self.texts.append(request.messages[-1].text)
        if self.fast_calls == 1:
            field = element_id(request, "Device name", "field")
            save = element_id(request, "Save")
            assert field and save, request.messages[-1].text
            return act({"action": "type", "element": field, "text": "Studio Phone", "clear": True},
                       {"action": "tap", "element": save})
        return act({"action": "fail", "reason": "stop here"})


async def test_a_step_whose_target_the_keyboard_now_covers_is_not_run_and_the_model_is_told_why(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    sim.phone.launch("com.android.settings", ".DeviceNameActivity")
    assert not sim.phone.keyboard_shown
    before = sim.phone.setting("global", "device_name")
    device = await adb_server.server().device(sim.serial)
    script = RenameThenSave()
    run = await run_task(device, script, "Rename this phone to Studio Phone", timeout=40, planning=False,
                         verify_completion=False)
    assert sim.phone.setting("global", "device_name") == before   # Save was never pressed
    taps = [e for e in run.of(ActionStarted) if e.action.action == "tap"]
    assert not taps, [(t.description, t.point) for t in taps]     # and nothing was tapped in its old place
    follow_up = script.texts[1]
    assert "NOT RUN" in follow_up and '"Save"' in follow_up and "keyboard" in follow_up, follow_up


async def test_a_badge_on_the_next_target_does_not_stop_the_plan() -> None:
    """"Add to cart" puts a badge on "Cart" ("Cart · 1"): still the same control, so the plan goes on."""
    from tests.agent_harness import Script, complete
    from tests.agent_phone import FakePhone, Screen, Widget

    def add(phone: FakePhone) -> None:
        phone.screen.widgets[1].label = "Cart · 1"
        phone.screens["shop"].taps["Cart · 1"] = "cart"

    screens = {"shop": Screen("com.relay.shop", [Widget("Add to cart"), Widget("Cart")], taps={"Add to cart": add}),
               "cart": Screen("com.relay.shop", [Widget("Your cart", "text"), Widget("Checkout")])}

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            cart = re.search(r'^(e\d+) button "Cart"$', request.messages[-1].text, re.M)
            assert cart
            return act({"action": "tap", "element": element_id(request, "Add to cart")},
                       {"action": "tap", "element": cart.group(1)})
        return complete()

    phone = FakePhone(screens, "shop")
    run = await run_task(phone, Script(fast), planning=False)
    assert phone.current == "cart", phone.commands
    # The model said e2; on the fresh screen the same control is e3 (its label grew a badge): re-aimed.
    assert [e.description for e in run.of(ActionStarted)] == ['tap e1 "Add to cart"', 'tap e3 "Cart · 1"']


def _screen(*nodes: str) -> str:
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.relay.shop" '
            'content-desc="" clickable="false" scrollable="false" bounds="[0,0][1080,2400]">'
            + "".join(nodes) + "</node></hierarchy>")


def _button(label: str, rid: str, bounds: str) -> str:
    return (f'<node index="0" text="" resource-id="com.relay.shop:id/{rid}" class="android.widget.Button" '
            f'package="com.relay.shop" content-desc="{label}" clickable="true" enabled="true" scrollable="false" '
            f'bounds="{bounds}" />')


def _list(*rows: str) -> str:
    return ('<node index="1" text="" resource-id="com.relay.shop:id/list" class="androidx.recyclerview.widget.'
            'RecyclerView" package="com.relay.shop" content-desc="" clickable="false" scrollable="true" '
            'bounds="[0,300][1080,2200]">' + "".join(rows) + "</node>")


def test_a_count_in_a_label_that_changes_in_place_is_still_the_same_control() -> None:
    """"Cart, 1 item" became "Cart, 2 items" after the first step: readers saw the tap refused as NOT RUN."""
    from relay_desktop.agent.loop.plan_runner import retarget
    from relay_desktop.agent.steps.actions import Step
    from relay_desktop.perception import build_element_map

    before = build_element_map(_screen(_button("Back", "back", "[0,100][150,250]"),
                                       _button("Cart, 1 item", "cart", "[930,100][1080,250]")))
    after = build_element_map(_screen(_button("Back", "back", "[0,100][150,250]"),
                                      _button("Cart, 2 items", "cart", "[930,100][1080,250]")), before)
    cart = next(e for e in before.elements if e.label == "Cart, 1 item")
    step, problem = retarget(Step("tap", {"element": cart.id}), before, after)
    assert problem is None
    assert after.get(step.element or "").label == "Cart, 2 items"


def test_a_list_row_whose_numbers_differ_is_another_item_even_in_the_same_place() -> None:
    """An alarm deleted, the next one moves up: "Alarm 8:00 AM" where "Alarm 7:30 AM" was is another alarm."""
    from relay_desktop.agent.loop.plan_runner import retarget
    from relay_desktop.agent.steps.actions import Step
    from relay_desktop.perception import build_element_map

    before = build_element_map(_screen(_list(_button("Alarm 7:30 AM", "alarm", "[0,300][1080,500]"),
                                             _button("Alarm 8:00 AM", "alarm", "[0,500][1080,700]"))))
    after = build_element_map(_screen(_list(_button("Alarm 8:00 AM", "alarm", "[0,300][1080,500]"))), before)
    first = next(e for e in before.elements if e.label == "Alarm 7:30 AM")
    _, problem = retarget(Step("tap", {"element": first.id}), before, after)
    assert problem is not None
