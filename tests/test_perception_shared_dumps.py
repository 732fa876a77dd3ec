"""The element map on every real dump of the research collection in ../shared (read at run time, never
copied here: most of those repositories carry no licence). Skips when the collection is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from relay_desktop.perception import build_element_map, diff_maps, layout_hash, to_json, to_prompt_text
from tests.perception_fixtures import SHARED_DUMPS

DUMPS = sorted(SHARED_DUMPS.glob("*.xml")) if SHARED_DUMPS.is_dir() else []
pytestmark = pytest.mark.skipif(not DUMPS, reason=f"no research dumps at {SHARED_DUMPS}")


@pytest.mark.parametrize("path", DUMPS, ids=[p.stem[:40] for p in DUMPS])
def test_real_dump_keeps_every_reachable_control_in_a_small_prompt(path: Path) -> None:
    xml = path.read_text(encoding="utf-8")
    element_map = build_element_map(xml)
    assert element_map.elements and not element_map.tree.warnings
    represented = {id(n) for e in element_map for n in e.sources}
    for node in element_map.tree.nodes:
        if node.interactive and element_map.visibility.visible(node):
            assert id(node) in represented, node
    for element in element_map:
        assert element.visible.contains_point(*element.tap), element
    text = to_prompt_text(element_map)
    assert len(text) < 0.08 * len(xml)
    assert len(text.splitlines()) <= len(element_map) + 2
    assert to_json(element_map)["elements"]
    again = build_element_map(xml, previous=element_map)
    assert diff_maps(element_map, again).empty
    assert [e.id for e in again] == [e.id for e in element_map]
    assert layout_hash(again) == layout_hash(element_map)


def test_keyboard_in_a_multi_window_dump_covers_the_app() -> None:
    path = SHARED_DUMPS / "avito_search_gboard_ru__kram1k-android_avito_parsing.xml"
    if not path.exists():
        pytest.skip("dump absent")
    element_map = build_element_map(path.read_text(encoding="utf-8"))
    keyboard = element_map.keyboard
    assert keyboard is not None and keyboard.top == 1167
    field = next(e for e in element_map if e.role == "field")
    assert field.value == "littlest pet shop" and "focused" in field.states
    text = to_prompt_text(element_map)
    assert text.count("\nkeyboard") == 1 and '"Search"' in text.splitlines()[-1]
