"""The dump parser on real dumps of all three formats, and on the broken input real devices produce."""

from __future__ import annotations

import pytest

from relay_desktop.perception import Bounds, HierarchyParseError, WindowKind, parse_hierarchy
from relay_desktop.sim.phone import IME_PACKAGE
from relay_desktop.sim.screen_tour import tour_screens
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.perception_fixtures import ALL_FIXTURES, DATETIME_JA, DOUYIN, SETTINGS_TOP, TRAIN, fixture


def test_appium_page_source_uses_class_tags_and_the_roots_screen_size() -> None:
    tree = parse_hierarchy(fixture(SETTINGS_TOP))
    assert tree.source_format == "appium"
    assert tree.screen == Bounds(0, 0, 1080, 2088)
    network = next(n for n in tree.nodes if n.text == "Network & internet")
    assert network.cls == "android.widget.TextView"
    assert network.package == "com.android.settings"
    assert network.bounds.width > 0 and network.visible
    assert [w.kind for w in tree.windows] == [WindowKind.APP]


def test_uiautomator_dump_keeps_chinese_text_and_flags() -> None:
    tree = parse_hierarchy(fixture(DOUYIN).encode("utf-8"))
    assert tree.source_format == "uiautomator"
    follow = [n for n in tree.nodes if n.text == "关注"]
    assert len(follow) >= 8
    assert any(n.text == "粉丝 119.0W" or "粉丝" in n.text for n in tree.nodes)
    tab = next(n for n in tree.nodes if n.selected)
    assert tab.enabled


def test_japanese_switch_state_is_read() -> None:
    tree = parse_hierarchy(fixture(DATETIME_JA))
    switches = [n for n in tree.nodes if n.cls == "android.widget.Switch"]
    assert [s.checked for s in switches] == [True, True, False]
    assert all(s.checkable and not s.clickable for s in switches)


async def test_virtual_phone_multi_window_dump_is_uiautomator2_with_a_keyboard_window() -> None:
    screens = await tour_screens([TASKS_BY_ID["notes_create_groceries"]])
    with_keyboard = [s for s in screens if IME_PACKAGE in s.xml]
    assert with_keyboard
    tree = parse_hierarchy(with_keyboard[-1].pretty_xml)
    assert tree.source_format == "uiautomator2"
    kinds = {w.kind for w in tree.windows}
    assert {WindowKind.SYSTEM, WindowKind.APP, WindowKind.KEYBOARD} <= kinds


def test_every_node_gets_pre_order_and_subtree_ranges() -> None:
    tree = parse_hierarchy(fixture(TRAIN))
    for node in tree.nodes:
        assert tree.nodes[node.order] is node
        for child in node.children:
            assert node.is_ancestor_of(child) and child.parent is node
            assert node.order < child.order <= child.end <= node.end


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_real_fixtures_parse_without_warnings(name: str) -> None:
    tree = parse_hierarchy(fixture(name))
    assert tree.nodes and not tree.warnings


# ---------------------------------------------------------------- what real devices print around the XML


def test_bom_banner_and_trailing_junk_are_ignored() -> None:
    xml = fixture(DOUYIN)
    noisy = "\ufeff" + xml + "\nUI hierchary dumped to: /dev/tty\n"
    tree = parse_hierarchy(noisy.encode("utf-8"))
    assert len(tree.nodes) == len(parse_hierarchy(xml).nodes)
    assert "ignored text after the hierarchy" in tree.warnings


def test_truncated_dump_keeps_what_was_read_and_says_so() -> None:
    xml = fixture(DOUYIN)
    full = parse_hierarchy(xml)
    cut = parse_hierarchy(xml[: len(xml) // 2])
    assert 0 < len(cut.nodes) < len(full.nodes)
    assert any("cut short" in w for w in cut.warnings)
    for node in cut.nodes:  # ranges stay consistent even for nodes left open
        assert node.order <= node.end < len(cut.nodes)


@pytest.mark.parametrize("text", ["", "   \n", "error: device offline", "<html><body>nope</body></html>"])
def test_input_without_a_hierarchy_is_a_clear_error(text: str) -> None:
    with pytest.raises(HierarchyParseError, match=r"empty|no UI hierarchy"):
        parse_hierarchy(text)


def test_unreadable_xml_is_an_error_not_a_crash() -> None:
    with pytest.raises(HierarchyParseError, match="unreadable"):
        parse_hierarchy("<hierarchy><<<>")


def test_empty_hierarchy_has_no_nodes() -> None:
    tree = parse_hierarchy('<?xml version="1.0"?><hierarchy rotation="1"></hierarchy>')
    assert tree.nodes == [] and tree.windows == [] and tree.rotation == 1


def test_absurd_bounds_and_bad_attributes_do_not_crash() -> None:
    xml = ('<hierarchy rotation="x"><node index="a" class="android.widget.Button" text="A" clickable="true" '
           'bounds="[0,0][99999999999,-5]" drawing-order="?"/>'
           '<node class="android.widget.Button" text="B" bounds="garbage"/>'
           '<node class="android.widget.Button" text="C" bounds="[500,500][100,100]"/></hierarchy>')
    tree = parse_hierarchy(xml)
    a, b, c = tree.nodes
    assert a.bounds.empty and a.bounds.right <= 1 << 20
    assert b.bounds == Bounds(0, 0, 0, 0)
    assert c.bounds.empty
    assert tree.rotation == 0


def test_control_characters_and_invalid_utf8_are_survived() -> None:
    xml = '<hierarchy><node class="android.widget.TextView" text="Привет\x01мир" bounds="[0,0][10,10]"/></hierarchy>'
    tree = parse_hierarchy(xml)
    assert tree.nodes[0].text == "Привет.мир"
    raw = parse_hierarchy(b'<hierarchy><node text="caf\xe9" bounds="[0,0][10,10]"/></hierarchy>')
    assert raw.nodes[0].text.startswith("caf")


def test_bare_node_dump_without_root() -> None:
    tree = parse_hierarchy('<node class="android.widget.Button" text="OK" bounds="[0,0][100,50]" />')
    assert [n.text for n in tree.nodes] == ["OK"]
    assert "no <hierarchy> root" in tree.warnings[0]
