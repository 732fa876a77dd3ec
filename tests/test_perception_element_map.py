"""Element maps from real dumps: what is kept and how it is named, covering, stable IDs, diffs, hashes,
the renderings and the ``relay-desktop elements`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from relay_desktop.cli import main
from relay_desktop.perception import (
    build_element_map,
    current_dialog,
    diff_maps,
    focused_field,
    layout_hash,
    semantic_fingerprint,
    to_json,
    to_json_text,
    to_prompt_text,
)
from tests.perception_fixtures import (
    ALL_FIXTURES,
    ANR_DIALOG,
    DATETIME_JA,
    DOUYIN,
    FIXTURES,
    PLAYSTORE,
    SETTINGS_TOP,
    TRAIN,
    fixture,
)

EXPECTED = {
    SETTINGS_TOP: [("button", "Search settings"),
                   ("button", "Network & internet · Wi‑Fi, mobile, data usage, and hotspot"),
                   ("button", "Battery · 100%"), ("scroll", "")],
    DATETIME_JA: [("switch", "日時を自動的に設定"), ("switch", "タイムゾーンを自動的に設定"), ("button", "上へ移動"),
                  ("button", "時刻 · 14:23")],
    ANR_DIALOG: [("button", "Close app"), ("button", "Wait"), ("text", "Settings isn't responding")],
    PLAYSTORE: [("button", "Search for apps & games"), ("button", "Voice Search"), ("button", "Games"),
                ("button", "Apps")],
    DOUYIN: [("button", "返回"), ("tab", "关注 4981"), ("tab", "粉丝 119.0W"), ("button", "关注"),
             ("button", "厦门镀晶原液-余海")],
    TRAIN: [("button", "Find trains"), ("button", "Swap Stations"), ("dropdown", "Rura"), ("button", "PNR")],
}


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_expected_controls_are_present_with_sensible_labels(name: str) -> None:
    element_map = build_element_map(fixture(name))
    found = {(e.role, e.label) for e in element_map}
    missing = [pair for pair in EXPECTED[name] if pair not in found]
    assert not missing, f"missing {missing}; map:\n{to_prompt_text(element_map)}"
    for element in element_map:
        assert element.visible.contains_point(*element.tap), element
    # Labels keep their text's line breaks (issue 25), yet each element is still one line of the prompt: its
    # whole label, line breaks quoted as \n, is on the line that starts with its id.
    lines = to_prompt_text(element_map).splitlines()
    for element in element_map:
        own = [x for x in lines if x.startswith(f"{element.id} ")]
        if element.label and own:
            assert json.dumps(element.label, ensure_ascii=False) in own[0], (element, own)


def test_every_interactive_node_is_represented() -> None:
    for name in ALL_FIXTURES:
        element_map = build_element_map(fixture(name))
        represented = {id(n) for e in element_map for n in e.sources}
        for node in element_map.tree.nodes:
            if node.interactive and element_map.visibility.visible(node):
                assert id(node) in represented, (name, node)


def test_switch_rows_read_as_switches_with_their_state() -> None:
    element_map = build_element_map(fixture(DATETIME_JA))
    lines = to_prompt_text(element_map).splitlines()
    assert any(line.endswith('switch "タイムゾーンの設定に位置情報を使用" off') for line in lines)
    assert any(line.endswith('switch "日時を自動的に設定" on') for line in lines)


def test_repeated_labels_get_positions_and_others_do_not() -> None:
    text = to_prompt_text(build_element_map(fixture(DOUYIN)))
    follow = [line for line in text.splitlines() if line.split(" ", 2)[2:] and '"关注"' in line]
    assert len(follow) >= 8 and all("@" in line for line in follow)
    assert '"返回"' in text and "@" not in next(line for line in text.splitlines() if '"返回"' in line)


def test_anr_dialog_is_found_with_its_buttons() -> None:
    element_map = build_element_map(fixture(ANR_DIALOG))
    dialog = current_dialog(element_map)
    assert dialog is not None
    assert dialog.title == "Settings isn't responding"
    assert [b.label for b in dialog.buttons] == ["Close app", "Wait"]
    assert current_dialog(build_element_map(fixture(SETTINGS_TOP))) is None


# ---------------------------------------------------------------- covering


def _node(cls: str, bounds: str, text: str = "", order: int = 1, clickable: bool = True, extra: str = "") -> str:
    return (f'<node index="0" text="{text}" resource-id="" class="{cls}" package="com.example" content-desc="" '
            f'clickable="{str(clickable).lower()}" enabled="true" bounds="{bounds}" drawing-order="{order}" '
            f'{extra}/>')


def test_clickable_drawn_on_top_covers_what_lies_beneath() -> None:
    # The sheet is declared first but drawn last (drawing-order 3): the button under it is unreachable, the
    # button half under it keeps only its visible half, and its tap point moves there.
    xml = ("<hierarchy>"
           '<node class="android.widget.FrameLayout" package="com.example" bounds="[0,0][1000,2000]">'
           + _node("android.widget.FrameLayout", "[0,1000][1000,2000]", "", 3)
           + _node("android.widget.Button", "[100,1200][400,1300]", "Hidden", 1)
           + _node("android.widget.Button", "[100,900][400,1100]", "Half", 2)
           + "</node></hierarchy>")
    element_map = build_element_map(xml)
    labels = {e.label for e in element_map}
    assert "Hidden" not in labels and "Half" in labels
    assert element_map.visibility.reasons == {"covered": 1}
    half = element_map.find("Half")[0]
    assert half.tap[1] < 1000 and half.visible.bottom == 1000


def test_without_drawing_order_child_order_does_not_cover() -> None:
    # Old dumps do not say what is on top; TikTok lists its full-screen video view after the buttons over it.
    xml = ('<hierarchy><node class="android.widget.FrameLayout" package="x" bounds="[0,0][720,1400]">'
           '<node class="android.widget.Button" text="Like" clickable="true" bounds="[600,900][700,1000]"/>'
           '<node class="android.view.View" content-desc="Video" clickable="true" bounds="[0,0][720,1400]"/>'
           "</node></hierarchy>")
    assert {e.label for e in build_element_map(xml)} == {"Like", "Video"}


def test_a_keyboard_reported_by_the_device_covers_a_single_window_dump() -> None:
    from relay_desktop.perception import Bounds

    xml = ('<hierarchy><node class="android.widget.FrameLayout" package="x" bounds="[0,0][1080,2400]">'
           '<node class="android.widget.EditText" text="" hint="Message" focused="true" clickable="true" '
           'bounds="[0,1300][1080,1400]"/>'
           '<node class="android.widget.Button" text="Send" clickable="true" bounds="[900,2000][1080,2100]"/>'
           "</node></hierarchy>")
    assert build_element_map(xml).find("Send")
    covered = build_element_map(xml, keyboard=Bounds(0, 1500, 1080, 2400))
    assert not covered.find("Send")
    assert focused_field(covered) is not None and focused_field(covered).hint == ""
    assert focused_field(covered).label == "Message"


# ---------------------------------------------------------------- IDs, diff, hashes


def test_ids_are_deterministic_and_survive_an_unrelated_change() -> None:
    xml = fixture(DOUYIN)
    first = build_element_map(xml)
    assert [e.id for e in first] == [e.id for e in build_element_map(xml)]
    changed_xml = xml.replace('text="温州弘质箱包有限公司"', 'text="温州弘质箱包"')
    assert changed_xml != xml
    second = build_element_map(changed_xml, previous=first)
    before = {e.label: e.id for e in first if e.label != "温州弘质箱包有限公司"}
    after = {e.label: e.id for e in second if e.label != "温州弘质箱包"}
    assert before == after
    renamed = second.find("温州弘质箱包")[0]
    assert renamed.id == first.find("温州弘质箱包有限公司")[0].id  # same place, the rest of the screen settled
    diff = diff_maps(first, second)
    assert not diff.added and not diff.removed
    assert [(c.id, c.fields) for c in diff.changed] == [(renamed.id, ("label",))]
    assert "温州弘质箱包有限公司" in diff.to_text() and "→" in diff.to_text()


def test_toggling_a_switch_is_one_state_change_and_keeps_the_layout_hash() -> None:
    xml = fixture(DATETIME_JA)
    before = build_element_map(xml)
    last_switch = xml.rfind('checked="false"', 0, xml.rfind("switch_widget") + 400)
    toggled = xml[:last_switch] + 'checked="true"' + xml[last_switch + len('checked="false"'):]
    after = build_element_map(toggled, previous=before)
    diff = diff_maps(before, after)
    assert [(c.after.label, c.before.states, c.after.states) for c in diff.changed] == [
        ("タイムゾーンの設定に位置情報を使用", ("off",), ("on",))]
    assert not diff.added and not diff.removed
    assert layout_hash(before) == layout_hash(after)
    assert semantic_fingerprint(before) != semantic_fingerprint(after)
    assert diff_maps(before, build_element_map(xml, previous=before)).empty


def test_a_new_screen_gets_fresh_numbers_and_a_different_hash() -> None:
    first = build_element_map(fixture(SETTINGS_TOP))
    other = build_element_map(fixture(DOUYIN), previous=first)
    # Fresh numbers above every one used: never e1 again, which the settings screen's first element still is
    # in the step results that name both screens (issue 25: "+ e82 text … and + e82 button …").
    assert other.elements[0].id == f"e{first.next_number}"
    assert not {e.id for e in first.elements} & {e.id for e in other.elements}
    assert layout_hash(first) != layout_hash(other)
    diff = diff_maps(first, other)
    assert len(diff.removed) == len(first) and not diff.changed


def test_the_cap_keeps_fields_and_controls_first() -> None:
    rows = "".join(f'<node class="android.widget.TextView" text="note {i}" bounds="[0,{i * 5}][500,{i * 5 + 5}]"/>'
                   for i in range(250))
    buttons = "".join(f'<node class="android.widget.Button" text="b{i}" clickable="true" '
                      f'bounds="[500,{i * 20}][1000,{i * 20 + 20}]"/>' for i in range(60))
    xml = (f'<hierarchy><node class="android.widget.FrameLayout" package="x" bounds="[0,0][1000,2000]">{rows}'
           f'{buttons}<node class="android.widget.EditText" text="" clickable="true" bounds="[0,1900][1000,2000]"/>'
           "</node></hierarchy>")
    element_map = build_element_map(xml, max_elements=100)
    assert len(element_map) == 100 and element_map.truncated > 0
    assert sum(e.role == "field" for e in element_map) == 1
    assert sum(e.role == "button" for e in element_map) == 60
    assert "less important elements not listed" in to_prompt_text(element_map)


# ---------------------------------------------------------------- renderings


def test_prompt_text_is_one_line_per_element_and_much_smaller_than_the_xml() -> None:
    xml = fixture(PLAYSTORE)
    element_map = build_element_map(xml)
    text = to_prompt_text(element_map)
    assert len(text.splitlines()) == len(element_map)
    assert len(text) < 0.1 * len(xml)
    assert "bounds" not in text and "android.widget" not in text


def test_json_has_every_attribute_and_round_trips_non_ascii() -> None:
    element_map = build_element_map(fixture(DOUYIN))
    data = json.loads(to_json_text(element_map))
    assert data["format"] == "uiautomator" and data["screen"] == [1080, 2032]
    first = data["elements"][0]
    for key in ("id", "role", "label", "bounds", "visible_bounds", "tap", "class", "resource_id", "flags", "path"):
        assert key in first
    labels = {e["label"] for e in data["elements"]}
    assert "粉丝 119.0W" in labels
    assert "\\u" not in to_json_text(element_map)
    assert to_json(element_map)["fingerprint"] == semantic_fingerprint(element_map)


def test_russian_text_survives_the_whole_pipeline() -> None:
    xml = ('<hierarchy><node class="android.widget.FrameLayout" package="ru.example" bounds="[0,0][1080,2000]">'
           '<node class="android.widget.Button" text="Отправить сообщение" clickable="true" bounds="[0,0][500,100]"/>'
           "</node></hierarchy>")
    element_map = build_element_map(xml.encode("utf-8"))
    assert 'button "Отправить сообщение"' in to_prompt_text(element_map)


def test_element_at_picks_the_smallest_element_under_the_point() -> None:
    element_map = build_element_map(fixture(SETTINGS_TOP))
    battery = element_map.find("Battery")[0]
    assert element_map.element_at(*battery.tap) is battery
    assert element_map.get(battery.id.upper()) is battery


# ---------------------------------------------------------------- the command


def test_elements_command_prints_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["elements", str(FIXTURES / TRAIN)]) == 0
    out = capsys.readouterr().out
    assert 'button "Find trains"' in out
    assert main(["elements", "--json", str(FIXTURES / TRAIN)]) == 0
    assert json.loads(capsys.readouterr().out)["elements"]


def test_elements_command_draws_marks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shot = tmp_path / "shot.png"
    Image.new("RGB", (540, 1044), (255, 255, 255)).save(shot)   # half the dump's 1080x2088
    out = tmp_path / "marks.png"
    assert main(["elements", str(FIXTURES / SETTINGS_TOP), "--screenshot", str(shot), "--marks", str(out)]) == 0
    with Image.open(out) as marked:
        assert marked.size == (540, 1044)
        battery = build_element_map(fixture(SETTINGS_TOP)).find("Battery")[0]
        # the box's top-left corner carries the ID tag, drawn at half scale
        x, y = battery.visible.left // 2 + 2, battery.visible.top // 2 + 2
        assert marked.getpixel((x, y)) != (255, 255, 255)
    assert "marks written" in capsys.readouterr().err


def test_elements_command_errors_are_plain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["elements", str(tmp_path / "missing.xml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    junk = tmp_path / "junk.xml"
    junk.write_text("adb: device offline")
    assert main(["elements", str(junk)]) == 1
    assert "no UI hierarchy" in capsys.readouterr().err
    assert main(["elements", str(FIXTURES / TRAIN), "--marks", str(tmp_path / "x.png")]) == 2
    assert "--marks needs --screenshot" in capsys.readouterr().err
