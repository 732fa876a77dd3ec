"""The virtual phone's ``uiautomator dump`` XML, the keyboard window and the system bars' view trees."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from relay_desktop.sim import keyboard, system_bars
from relay_desktop.sim.hierarchy import HEADER, dump_xml, dump_xml_pretty, escape
from relay_desktop.sim.views import Rect, View, Window, layout

PKG = "com.example.app"
IME = "com.google.android.inputmethod.latin"
SCREEN = Rect(0, 0, 1080, 2400)
DUMPS = Path("/work/shared/data/ui-dumps")

DEVICE_ORDER = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
                "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
                "selected", "bounds", "drawing-order", "hint"]


def app_window(*children: View, frame: Rect = SCREEN) -> Window:
    root = View(cls="android.widget.FrameLayout", children=list(children))
    layout(root, frame)
    return Window("app", PKG, root, frame)


def parse(xml: str) -> ET.Element:
    return ET.fromstring(xml.encode("utf-8"))


def attr_names(tag: str) -> list[str]:
    return re.findall(r' ([\w-]+)="', tag)


def top_nodes(xml: str) -> list[ET.Element]:
    return list(parse(xml))


# ---------------------------------------------------------------- format

def test_dump_is_one_line_with_the_device_header_and_rotation() -> None:
    xml = dump_xml([app_window(View(cls="android.widget.TextView", text="hi", height=50))], rotation=1)
    assert "\n" not in xml
    assert xml.startswith(HEADER + '<hierarchy rotation="1"><node index="0" text="" ')
    assert xml.endswith("</hierarchy>")
    # Childless nodes close like Android's serializer writes them.
    assert 'hint="" /></node></hierarchy>' in xml


def test_node_attributes_are_in_the_order_android_writes_them() -> None:
    button = View(cls="android.widget.Button", id="ok", text="OK", clickable=True, height=100)
    xml = dump_xml([app_window(button)])
    tags = re.findall(r"<node [^>]*>", xml)
    assert len(tags) == 2
    assert attr_names(tags[1]) == DEVICE_ORDER
    assert tags[1].startswith('<node index="0" text="OK" resource-id="com.example.app:id/ok" '
                              'class="android.widget.Button" package="com.example.app" content-desc="" '
                              'checkable="false" checked="false" clickable="true" enabled="true" ')
    assert tags[1].endswith('bounds="[0,0][1080,100]" drawing-order="1" hint="" />')


@pytest.mark.skipif(not DUMPS.exists(), reason="real dumps not available")
def test_attribute_order_matches_a_real_android_13_dump() -> None:
    real = (DUMPS / "openweather__Ljons-pango-automation-interview-questions-mobile.xml").read_text("utf-8")
    first = re.search(r"<node [^>]*>", real)
    assert first is not None
    assert attr_names(first.group(0)) == DEVICE_ORDER


def test_resource_ids_booleans_and_index_numbering() -> None:
    a = View(id="title", text="A", height=10)
    b = View(id="android:id/content", height=10, checkable=True, checked=True)
    c = View(height=10, children=[View(text="x", height=5), View(text="y", height=5)])
    root = parse(dump_xml([app_window(a, b, c)]))[0]
    kids = list(root)
    assert [k.get("index") for k in kids] == ["0", "1", "2"]
    assert [k.get("resource-id") for k in kids] == ["com.example.app:id/title", "android:id/content", ""]
    assert kids[1].get("checkable") == "true" and kids[1].get("checked") == "true"
    assert [g.get("index") for g in kids[2]] == ["0", "1"]
    assert [g.get("text") for g in kids[2]] == ["x", "y"]
    assert all(k.get("package") == PKG for k in root.iter("node"))


def test_escaping_round_trips_markup_quotes_newlines_and_unicode() -> None:
    text = 'Tom & "Jerry" <b>\nПривет 🔥 @home'
    xml = dump_xml([app_window(View(cls="android.widget.TextView", text=text, desc="a'b", height=60))])
    assert "Tom &amp; &quot;Jerry&quot; &lt;b&gt;&#10;Привет &#128293; @home" in xml
    node = parse(xml)[0][0]
    assert node.get("text") == text
    assert node.get("content-desc") == "a'b"
    assert escape("bell\x07tab\t") == "bell.tab&#9;"   # control characters cannot appear in XML


def test_password_text_is_masked_and_an_empty_field_reports_its_hint() -> None:
    password = View(cls="android.widget.EditText", id="pw", text="secret", password=True, height=100)
    empty = View(cls="android.widget.EditText", id="q", hint="Search", height=100)
    pw_node, empty_node = list(parse(dump_xml([app_window(password, empty)]))[0])
    assert pw_node.get("text") == "••••••" and pw_node.get("password") == "true"
    assert empty_node.get("text") == "Search" and empty_node.get("hint") == "Search"


def test_clickable_views_without_any_label_are_flagged_naf() -> None:
    bare = View(cls="android.widget.ImageView", clickable=True, height=50)
    labelled = View(clickable=True, height=50, children=[View(text="Open", height=50)])
    xml = dump_xml([app_window(bare, labelled)])
    tags = re.findall(r"<node [^>]*>", xml)
    assert tags[1].startswith('<node NAF="true" index="0" ')
    assert 'NAF' not in tags[2]


# ---------------------------------------------------------------- clipping and windows

def test_scrolled_away_nodes_are_omitted_and_bounds_are_clipped() -> None:
    items = [View(id=f"item{i}", text=f"Item {i}", height=100) for i in range(10)]
    scroller = View(cls="androidx.recyclerview.widget.RecyclerView", id="list", children=items, scrollable=True,
                    height=300, scroll=250)
    root = parse(dump_xml([app_window(scroller, frame=Rect(0, 0, 200, 1000))]))[0]
    shown = list(root[0])
    assert root[0].get("scrollable") == "true"
    assert [n.get("text") for n in shown] == ["Item 2", "Item 3", "Item 4", "Item 5"]
    # `index` is the position among all children, as uiautomator reports it, so it starts at 2.
    assert [n.get("index") for n in shown] == ["2", "3", "4", "5"]
    assert shown[0].get("bounds") == "[0,0][200,50]"
    assert shown[-1].get("bounds") == "[0,250][200,300]"


def test_ime_window_is_a_separate_top_level_node_after_the_app_and_bars_are_not_dumped() -> None:
    field = View(cls="android.widget.EditText", id="q", text="hi", focused=True, height=150)
    app = app_window(field, frame=Rect(0, 0, 1080, 2274))
    kb_root, kb_frame = keyboard.keyboard(1080, 2274, lambda _name: None)
    layout(kb_root, kb_frame)
    ime = Window("ime", IME, kb_root, kb_frame)
    status = system_bars.status_bar(1080, 63, "12:30", True, 80, False)
    layout(status, Rect(0, 0, 1080, 63))
    bar = Window("status_bar", "com.android.systemui", status, status.bounds)
    tops = top_nodes(dump_xml([app, ime, bar]))
    assert [t.get("package") for t in tops] == [PKG, IME]
    assert tops[1].get("bounds") == f"[0,{kb_frame.top}][1080,2274]"
    keys = {n.get("content-desc"): n for n in tops[1].iter("node") if n.get("clickable") == "true"}
    assert keys["q"].get("class") == "android.widget.FrameLayout"
    assert keys["q"].get("resource-id") == f"{IME}:id/key_pos_0_0"
    assert {"Shift", "Delete", "Space", "Enter", "Symbol keyboard"} <= set(keys)


def test_window_root_is_kept_even_when_nothing_of_it_is_visible() -> None:
    root = View(cls="android.widget.FrameLayout", children=[View(text="gone", height=10)])
    layout(root, Rect(0, 0, 0, 0))
    nodes = top_nodes(dump_xml([Window("dialog", PKG, root, Rect(0, 0, 0, 0))]))
    assert len(nodes) == 1 and len(list(nodes[0])) == 0
    assert nodes[0].get("bounds") == "[0,0][0,0]"


def test_pretty_dump_has_uiautomator2_attributes_indentation_and_system_windows() -> None:
    app = app_window(View(cls="android.widget.TextView", text="hi", height=50))
    status = system_bars.status_bar(1080, 63, "09:41", False, 50, False)
    layout(status, Rect(0, 0, 1080, 63))
    xml = dump_xml_pretty([app, Window("status_bar", "com.android.systemui", status, status.bounds)])
    lines = xml.splitlines()
    assert lines[0] == HEADER and lines[1] == '<hierarchy rotation="0">'
    assert lines[2].startswith('  <node index="0" ') and lines[3].startswith('    <node index="0" text="hi"')
    assert attr_names(lines[3]) == [*DEVICE_ORDER[:16], "visible-to-user", "bounds", "drawing-order", "hint",
                                    "display-id"]
    assert [t.get("package") for t in top_nodes(xml)] == [PKG, "com.android.systemui"]
    assert "09:41" in xml
    only_app = dump_xml_pretty([app, Window("status_bar", "com.android.systemui", status, status.bounds)],
                               include_system=False)
    assert "systemui" not in only_app


# ---------------------------------------------------------------- keyboard and system bars

def test_keyboard_sits_on_the_bottom_edge_and_keys_report_their_names() -> None:
    typed: list[str] = []
    root, frame = keyboard.keyboard(1080, 2274, typed.append)
    layout(root, frame)
    assert frame.bottom == 2274 and 720 <= frame.height <= 800
    by_desc = {v.desc: v for v in root.walk() if v.clickable and v.on_click is not None}
    for desc in ("q", "m", ",", ".", "Shift", "Delete", "Space", "Enter", "Symbol keyboard"):
        view = by_desc[desc]
        assert view.style.kind == "key" and frame.contains(*view.bounds.center)
        view.on_click()  # type: ignore[misc]
    assert typed == ["q", "m", ",", ".", "SHIFT", "DEL", "SPACE", "ENTER", "SYMBOLS"]
    rows = [[v.desc for v in row.children] for row in root.find("input_area").children]  # type: ignore[union-attr]
    assert "".join(rows[0]) == "qwertyuiop" and "".join(rows[1]) == "asdfghjkl"


def test_shifted_and_symbol_layouts_and_the_action_key() -> None:
    root, _ = keyboard.keyboard(1080, 2274, lambda _n: None, shifted=True)
    assert [v.desc for v in root.walk() if v.id == "key_pos_0_0"] == ["Q"]
    typed: list[str] = []
    root, frame = keyboard.keyboard(720, 1184, typed.append, symbols=True, action_label="search")
    layout(root, frame)
    descs = [v.desc for v in root.walk() if v.style.kind == "key"]
    assert descs[:10] == list("1234567890")
    assert {"@", "#", "(", ")", "*", '"', "'", "!", "?", "Letter keyboard", "Search"} <= set(descs)
    assert "Shift" not in descs
    next(v for v in root.walk() if v.desc == "Search").on_click()  # type: ignore[misc]
    assert typed == ["ENTER"] and frame.width == 720 and frame.height < 540


def test_status_bar_shows_wifi_only_when_on() -> None:
    on = system_bars.status_bar(1080, 63, "12:30", True, 42, False)
    off = system_bars.status_bar(1080, 63, "12:30", False, 42, False)
    assert on.find("wifi_signal") is not None and off.find("wifi_signal") is None
    assert [v.text for v in on.walk() if v.id == "clock"] == ["12:30"]
    battery = on.find("battery")
    assert battery is not None and battery.desc == "Battery 42 percent." and battery.style.icon == "battery_42"


async def test_the_status_bar_shows_airplane_mode_instead_of_the_mobile_signal() -> None:
    """A reader saw "Phone signal full." in the status bar with airplane mode on."""
    from relay_desktop.perception import build_element_map, to_prompt_text
    from relay_desktop.sim.hierarchy import dump_xml_u2
    from relay_desktop.sim.phone import VirtualPhone

    phone = VirtualPhone()
    phone.put_setting("global", "airplane_mode_on", "1")
    status = next(line for line in to_prompt_text(build_element_map(dump_xml_u2(phone.windows()))).splitlines()
                  if line.startswith("status bar: "))
    assert '"Airplane mode."' in status and "Phone signal" not in status, status


def test_nav_bar_buttons_have_android_ids_descriptions_and_actions() -> None:
    pressed: list[str] = []
    nav = system_bars.nav_bar(1080, 126, lambda: pressed.append("back"), lambda: pressed.append("home"),
                              lambda: pressed.append("recents"))
    layout(nav, Rect(0, 2274, 1080, 2400))
    buttons = [v for v in nav.walk() if v.clickable]
    assert [(b.id, b.desc, b.cls) for b in buttons] == [
        ("back", "Back", "android.widget.ImageView"), ("home", "Home", "android.widget.ImageView"),
        ("recent_apps", "Overview", "android.widget.ImageView")]
    assert buttons[0].bounds.center[0] < buttons[1].bounds.center[0] == 540 < buttons[2].bounds.center[0]
    assert all(b.bounds.top == 2274 and b.bounds.bottom == 2400 for b in buttons)
    for b in buttons:
        b.on_click()  # type: ignore[misc]
    assert pressed == ["back", "home", "recents"]
    xml = dump_xml_pretty([Window("nav_bar", "com.android.systemui", nav, nav.bounds)])
    assert 'resource-id="com.android.systemui:id/recent_apps"' in xml
