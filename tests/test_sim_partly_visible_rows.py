"""A list row partly on screen is in the virtual phone's ``uiautomator dump`` (read through Google's adb) with
its visible children and its bounds clipped to the list, as on a phone — also when it reaches under the
list's bottom padding (Clock keeps its cards clear of the large "Add alarm" button that way, with
clipToPadding off, so cards show behind it) and while a toast is up (a toast is its own window and removes
nothing from the app's). Reported in issue 25: a new alarm's "Add label" vanished from the dump."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from relay_desktop.sim.apps.deskclock import PACKAGE, Clock
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find, nodes
from tests.conftest import AdbTestServer

LIST = "com.google.android.deskclock:id/alarm_recycler_view"


def bounds(element: ET.Element) -> tuple[int, int, int, int]:
    left_top, right_bottom = element.get("bounds", "")[1:-1].split("][")
    return (*map(int, left_top.split(",")), *map(int, right_bottom.split(",")))  # type: ignore[return-value]


def cards_in(xml: str) -> list[ET.Element]:
    return [e for e in ET.fromstring(xml).iter("node") if e.get("resource-id", "").endswith(":id/alarm_card")]


def texts_in(card: ET.Element) -> list[str]:
    return [e.get("text", "") for e in card.iter("node") if e.get("text")]


async def test_cards_under_the_lists_bottom_padding_and_at_its_edge_keep_their_rows(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    clock: Clock = sim.phone.apps[PACKAGE]  # type: ignore[assignment]
    for hour in (9, 10, 11):
        clock.add(hour, 0)                                     # five cards: the list runs past the screen
    device = await adb_server.server().device(sim.serial)
    await device.launch_app(PACKAGE)
    xml = await device.dump_hierarchy()
    list_box = bounds(next(e for e in ET.fromstring(xml).iter("node") if e.get("resource-id") == LIST))
    cards = cards_in(xml)
    assert [texts_in(c)[0] for c in cards][:4] == ["06:30", "08:00", "09:00", "10:00"]
    # Every card that reaches into the list is dumped whole or clipped to the list's rectangle, never beyond.
    for card in cards:
        _left, top, _right, bottom = bounds(card)
        assert list_box[1] <= top < bottom <= list_box[3], card.get("bounds")
    # The 09:00 card lies under the bottom padding: its "Add label" and summary are still there.
    assert "Add label" in texts_in(cards[2]) and texts_in(cards[2])[-1] in ("Today", "Tomorrow")
    # The last card shown is cut by the list's edge: its bounds end there and what of it shows is listed.
    edge = cards[-1]
    assert bounds(edge)[3] == list_box[3]
    assert texts_in(edge), "the row cut by the list's edge lost its visible children"

    # A toast over the lower rows (switching the 10:00 alarm off and on shows "Alarm set for …") removes
    # nothing from the app's window.
    switch = find(xml, desc="Turn off 10:00 alarm")
    assert switch is not None
    await device.tap(*switch.center)
    await device.tap(*switch.center)
    assert sim.phone.toast is not None and sim.phone.toast[0].startswith("Alarm set for")
    with_toast = await device.dump_hierarchy()
    assert [texts_in(c) for c in cards_in(with_toast)] == [texts_in(c) for c in cards]
    assert len(nodes(with_toast)) == len(nodes(xml))
