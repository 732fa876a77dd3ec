"""One half of a split screen as its agent loop sees it (WindowPhone), on the virtual phone through Google's adb:
its element list, its picture, where its gestures land, and keys and text that reach its own app even after the
other half was touched."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from relay_desktop.agent.events import EventBus, LogLine
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.split_screen.coordinator import SplitScreenCoordinator
from relay_desktop.agent.split_screen.window_phone import SplitFocus, WindowPhone
from relay_desktop.agent.steps.actions import StepError
from relay_desktop.agent.supervisors.planning import SplitScreenRecommendation
from relay_desktop.perception import build_element_map, parse_hierarchy
from relay_desktop.perception.render import to_prompt_text
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.split_screen import DIVIDER_COLOR
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.sim.tasks.base import find
from tests.conftest import AdbTestServer

KEEP, MESSAGES = "com.google.android.keep", "com.google.android.apps.messaging"


async def split_halves(adb_server: AdbTestServer, sim: VirtualPhoneService) -> tuple[Any, WindowPhone, WindowPhone]:
    """The cabin task's phone (Keep and Messages in Recents), put in split screen by the coordinator."""
    TASKS_BY_ID["split_cabin_wifi_to_grace"].setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    run = Orchestrator(device, None, bus=EventBus())
    coordinator = SplitScreenCoordinator(run, SplitScreenRecommendation(("Keep Notes", "Messages")))
    await asyncio.wait_for(coordinator.enter(*await coordinator._apps(("Keep Notes", "Messages"))), 30)
    focus = SplitFocus()
    upper = WindowPhone(device, KEEP, MESSAGES, focus, "Keep Notes")
    lower = WindowPhone(device, MESSAGES, KEEP, focus, "Messages")
    for half in (upper, lower):
        await half.dump_hierarchy()
    return device, upper, lower


async def labels(half: WindowPhone) -> str:
    return to_prompt_text(build_element_map(parse_hierarchy(await half.dump_hierarchy())))


async def test_each_half_sees_its_own_app_and_a_masked_picture(adb_server: AdbTestServer,
                                                               sim: VirtualPhoneService) -> None:
    _, upper, lower = await split_halves(adb_server, sim)
    top, bottom = await labels(upper), await labels(lower)
    assert "Cabin weekend" in top and "Grace Liu" not in top and "Start chat" not in top
    assert "Grace Liu" in bottom and "Cabin weekend" not in bottom
    assert "docked_divider" not in await upper.dump_hierarchy()
    assert upper.describe_half() == "the top half" and lower.describe_half() == "the bottom half"
    assert (await upper.current_app()).package == KEEP and (await lower.current_app()).package == MESSAGES

    picture = await upper.screenshot()
    assert lower.own is not None and upper.own is not None
    # The other app's half is painted over; its own half and the divider's bar are as the phone shows them.
    below = picture.getpixel((540, (lower.own.top + lower.own.bottom) // 2))
    assert below == (32, 33, 36)
    assert picture.getpixel((540, upper.own.top + upper.own.height // 2)) != (32, 33, 36)
    assert picture.getpixel((100, (upper.own.bottom + lower.own.top) // 2)) == DIVIDER_COLOR
    raw = await upper.phone.screenshot()
    assert raw.getpixel((540, (lower.own.top + lower.own.bottom) // 2)) != (32, 33, 36)   # the phone's own is untouched


async def test_text_goes_to_its_own_half_after_the_other_half_was_touched(adb_server: AdbTestServer,
                                                                         sim: VirtualPhoneService) -> None:
    _, upper, lower = await split_halves(adb_server, sim)
    grace = find(await lower.dump_hierarchy(), text="Grace Liu")
    assert grace is not None
    await lower.tap(*grace.center)
    field = find(await lower.dump_hierarchy(), id="compose_message_text")
    assert field is not None
    await lower.tap(*field.center)
    # The top half is touched next (Keep's search bar opens search with its own field) ...
    search = find(await upper.dump_hierarchy(), text="Search your notes")
    assert search is not None
    await upper.tap(*search.center)
    assert upper.focus.package == KEEP
    await lower.dump_hierarchy()
    # ... and still the bottom half's text lands in Messages: it takes the focus back by tapping its field.
    await lower.type_text("see you at the cabin")
    xml = await sim.phone.dump_hierarchy()
    compose = find(xml, id="compose_message_text")
    assert compose is not None and compose.attrs.get("text") == "see you at the cabin"
    assert xml.count("see you at the cabin") == 1               # and nowhere in Keep
    assert lower.focus.package == MESSAGES


async def test_leaving_split_screen_is_refused_with_a_reason(adb_server: AdbTestServer,
                                                             sim: VirtualPhoneService) -> None:
    _, upper, lower = await split_halves(adb_server, sim)
    for key in ("HOME", "APP_SWITCH"):
        with pytest.raises(StepError, match="leave it for both apps"):
            await upper.press_key(key)
    with pytest.raises(StepError, match="would end split screen"):
        await lower.launch_app("Chrome")
    assert await lower.launch_app("Messages") == MESSAGES     # its own app: already open, nothing to do
    assert find(await sim.phone.dump_hierarchy(), id="docked_divider_handle") is not None


class Swipes:
    serial = "swipes"

    def __init__(self) -> None:
        self.swipes: list[tuple[int, int, int, int]] = []

    async def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.swipes.append((x1, y1, x2, y2))


SPLIT_XML = ('<hierarchy rotation="0">'
             '<node package="a" bounds="[0,0][1080,1156]"><node text="Title" bounds="[40,100][400,160]"/></node>'
             '<node package="b" bounds="[0,1182][1080,2274]"/>'
             '<node package="com.android.systemui" bounds="[0,1106][1080,1232]">'
             '<node resource-id="com.android.systemui:id/docked_divider_handle" bounds="[0,1106][1080,1232]"/></node>'
             '<node package="com.android.systemui" bounds="[0,2274][1080,2400]"/></hierarchy>')


async def test_a_swipe_aimed_at_the_whole_screen_is_scaled_into_the_half() -> None:
    phone = Swipes()
    half = WindowPhone(phone, "a", "b", SplitFocus())        # type: ignore[arg-type]
    restricted = half._restrict(SPLIT_XML)
    assert 'package="b"' not in restricted and "docked_divider" not in restricted
    await half.swipe(540, 1680, 540, 720)           # an untargeted scroll: the middle 60% of the whole screen
    await half.swipe(540, 900, 540, 300)            # already inside the half: as it is
    (x1, y1, x2, y2), inside = phone.swipes
    assert x1 == x2 == 540 and 0 < y2 < y1 < 1156 and y1 - y2 > 300
    assert inside == (540, 900, 540, 300)
    assert half.focus.package == "a"
    assert half._quiet == (220, 130)                 # the title: a label nothing reacts to


async def test_a_split_screen_that_cannot_be_entered_leaves_the_run_going(adb_server: AdbTestServer,
                                                                          sim: VirtualPhoneService) -> None:
    TASKS_BY_ID["split_cabin_wifi_to_grace"].setup(sim.phone)
    device = await adb_server.server().device(sim.serial)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    run = Orchestrator(device, None, bus=bus)
    run._build("text Grace")
    coordinator = SplitScreenCoordinator(run, SplitScreenRecommendation(("Keep Notes", "Snapchat")))
    assert await asyncio.wait_for(coordinator.run(), 30) is None
    said = [e.message for e in events if isinstance(e, LogLine)]
    assert any("not entered: no single installed app is called 'Snapchat'" in m for m in said), said
    assert "could not be entered" in run.conversation.messages()[-1].text


class SlowRecents:
    """A phone whose Overview shows up a while after the key, as a launcher's animation makes it: until then
    the screen before it (here the home screen, with its own Keep Notes icon) is what a dump sees."""

    def __init__(self, device: Any, delay: float) -> None:
        self._device, self.delay, self.serial = device, delay, device.serial
        self.pending: list[asyncio.Task[None]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)

    async def press_key(self, key: int | str) -> None:
        if key != "APP_SWITCH":
            return await self._device.press_key(key)

        async def later() -> None:
            await asyncio.sleep(self.delay)
            await self._device.press_key(key)
        self.pending.append(asyncio.ensure_future(later()))


async def test_entering_waits_for_each_screen_of_the_way(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    TASKS_BY_ID["split_cabin_wifi_to_grace"].setup(sim.phone)      # on the home screen, both apps in Recents
    phone = SlowRecents(await adb_server.server().device(sim.serial), delay=1.5)
    coordinator = SplitScreenCoordinator(Orchestrator(phone, None, bus=EventBus()),
                                         SplitScreenRecommendation(("Keep Notes", "Messages")))
    await asyncio.wait_for(coordinator.enter(*await coordinator._apps(("Keep Notes", "Messages"))), 30)
    xml = await sim.phone.dump_hierarchy()
    assert find(xml, id="docked_divider_handle") is not None
    assert sim.phone.split.pair is not None and sim.phone.split.pair.packages == (KEEP, MESSAGES)
