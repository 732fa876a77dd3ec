"""Inspect's selection across screens: an element id is kept only for the same element. Ids are numbered per map
(Inspect's own dumps, a run's maps): the "e5" of another screen is another element, and its outline followed."""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from relay_desktop.perception import build_element_map
from relay_desktop.perception.element_map import ElementMap
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks import PhoneDriver
from relay_desktop.ui.inspector import InspectorPanel


async def _screens() -> tuple[ElementMap, ElementMap, ElementMap]:
    driver = PhoneDriver(VirtualPhone())
    await driver.launch_app("com.android.settings")
    home = build_element_map(await driver.dump_hierarchy())
    again = build_element_map(await driver.dump_hierarchy(), previous=home)       # the same screen, re-read
    await driver.tap(*home.find("Network & internet")[0].tap)
    other = build_element_map(await driver.dump_hierarchy())   # numbered afresh, as a run's first map is
    return home, again, other


def test_the_inspected_element_is_kept_on_its_own_screen_and_let_go_on_another(qtbot: QtBot) -> None:
    home, again, other = asyncio.run(_screens())
    inspector = InspectorPanel()
    qtbot.addWidget(inspector)
    outlines: list[object] = []
    inspector.selected.connect(outlines.append)
    inspector.show_map(home)
    chosen = next(e for e in home if (o := other.get(e.id)) is not None and o.identity.label != e.identity.label)
    inspector.select(chosen)
    inspector.show_map(again)                                    # re-read: still the same element
    assert inspector.current is not None and inspector.current.id == chosen.id
    assert outlines[-1] is inspector.current
    inspector.show_map(other)
    assert inspector.current is None and outlines[-1] is None    # not the other screen's element of that id
    assert inspector.title.text() == "Nothing selected."
