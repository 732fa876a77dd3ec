"""The element map as the model reads it says what the screen says: line breaks, whole texts (or how much
was cut), what a dialog holds, radios, sliders, the keyboard's keys, and whole-screen changes in a line.

Each test here failed before the fix it covers: the prompt glued lines together, cut text at 80
characters, listed a dialog's text fields as buttons with an empty title, read radios as check boxes,
showed sliders without their range, hid keyboard keys behind a count, and listed every key and every
element of a replaced screen in the diff.
"""

from __future__ import annotations

import re
from html import escape

import pytest

from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.loop.prompts import screen_block
from relay_desktop.device.models import CurrentApp, DeviceContext
from relay_desktop.perception import WindowKind, build_element_map, current_dialog, diff_maps, to_prompt_text
from relay_desktop.perception.element_map import Element, ElementMap
from relay_desktop.perception.screen import screen_title, slider_range
from relay_desktop.sim.hierarchy import dump_xml_pretty
from relay_desktop.sim.phone import VirtualPhone
from tests.perception_fixtures import SHARED_DUMPS

SETTINGS = "com.android.settings"
KEEP = "com.google.android.keep"
SHOP = "com.relay.shop"


def _attr(value: str) -> str:
    """An attribute value as uiautomator writes it: line breaks as character references."""
    return escape(value, quote=True).replace("\r", "&#13;").replace("\n", "&#10;")


def _node(cls: str, bounds: str, *, text: str = "", desc: str = "", rid: str = "", hint: str = "",
          extra: str = "", children: str = "", **flags: bool) -> str:
    attrs = " ".join(f'{k.replace("_", "-")}="{str(v).lower()}"' for k, v in flags.items())
    head = (f'<node index="0" text="{_attr(text)}" resource-id="{rid}" class="{cls}" package="com.example" '
            f'content-desc="{_attr(desc)}" hint="{_attr(hint)}" enabled="true" bounds="{bounds}" {attrs} {extra}')
    return f"{head}>{children}</node>" if children else f"{head}/>"


def _screen(*nodes: str) -> str:
    return ('<hierarchy rotation="0">'
            + _node("android.widget.FrameLayout", "[0,0][1080,2400]", children="".join(nodes)) + "</hierarchy>")


def _line(element_map: ElementMap, element: Element) -> str:
    return next(line for line in to_prompt_text(element_map).splitlines() if line.startswith(f"{element.id} "))


async def _tap(phone: VirtualPhone, element: Element) -> None:
    await phone.tap(*element.tap)


async def _map(phone: VirtualPhone, previous: ElementMap | None = None) -> ElementMap:
    return build_element_map(await phone.dump_hierarchy(), previous=previous)


def _one(element_map: ElementMap, text: str, role: str | None = None) -> Element:
    found = [e for e in element_map.find(text) if role is None or e.role == role]
    assert found, f"no {role or 'element'} {text!r} in\n{to_prompt_text(element_map)}"
    return found[0]


# ---------------------------------------------------------------- 1. line breaks


def test_a_field_keeps_its_line_breaks_and_the_prompt_shows_them_on_one_line() -> None:
    xml = _screen(_node("android.widget.EditText", "[0,200][1080,600]", text="milk  \r\neggs\nbread", hint="Note",
                        clickable=True, focused=True))
    element_map = build_element_map(xml)
    note = _one(element_map, "Note", "field")
    assert note.value == "milk\neggs\nbread"      # \r\n read as \n, spaces at the end of a line trimmed
    line = _line(element_map, note)
    assert line == f'{note.id} field "Note" = "milk\\neggs\\nbread" focused'
    assert len(to_prompt_text(element_map).splitlines()) == len(element_map)


def test_quotes_inside_a_value_are_kept_not_swapped() -> None:
    xml = _screen(_node("android.widget.EditText", "[0,200][1080,300]", text='He said "hi"', hint="Message",
                        clickable=True))
    element_map = build_element_map(xml)
    assert '= "He said \\"hi\\""' in to_prompt_text(element_map)


def test_text_with_line_breaks_reads_as_lines_never_glued_words() -> None:
    xml = _screen(_node("android.widget.TextView", "[0,200][1080,600]", text="Passport\nPhone charger\n\nSunscreen"))
    element_map = build_element_map(xml)
    element = element_map.elements[0]
    # Issue 25: " / " was taken for text by a model retyping the lines; the line breaks stay, quoted as \n.
    assert element.label == "Passport\nPhone charger\nSunscreen"
    assert '"Passport\\nPhone charger\\nSunscreen"' in to_prompt_text(element_map)
    assert len(to_prompt_text(element_map).splitlines()) == 1


async def test_a_note_preview_on_the_virtual_phone_keeps_its_lines_apart() -> None:
    phone = VirtualPhone()
    phone.launch(KEEP)
    element_map = await _map(phone)
    packing = _one(element_map, "Packing list")
    assert "Passport\nPhone charger\nSunscreen" in packing.label, packing.label


# ---------------------------------------------------------------- 2. uncut text


def test_text_longer_than_80_characters_is_kept_whole() -> None:
    text = "Get 10% off your first order of anything in the shop this week only. Use code WELCOME10 at checkout"
    element_map = build_element_map(_screen(_node("android.widget.TextView", "[0,200][1080,600]", text=text)))
    assert element_map.elements[0].label == text
    assert "WELCOME10" in to_prompt_text(element_map)


def test_very_long_text_is_cut_between_words_and_says_how_much_was_cut() -> None:
    words = " ".join(f"word{i:03d}" for i in range(200))          # 1,599 characters
    element_map = build_element_map(_screen(_node("android.widget.TextView", "[0,200][1080,600]", text=words)))
    label = element_map.elements[0].label
    kept, _, note = label.partition("…(+")
    assert 250 <= len(kept) <= 300
    assert words.startswith(kept) and words[len(kept)] == " "     # cut at a word boundary
    assert note == f"{len(words) - len(kept)} chars)"


def test_a_long_field_value_shows_up_to_a_thousand_characters_and_the_element_keeps_it_all() -> None:
    body = " ".join(["lorem ipsum dolor"] * 100)                     # 1,799 characters
    xml = _screen(_node("android.widget.EditText", "[0,200][1080,900]", text=body, hint="Note", clickable=True))
    element_map = build_element_map(xml)
    note = _one(element_map, "Note", "field")
    assert note.value == body
    shown = _line(element_map, note).split(' = "', 1)[1]
    kept = shown.split("…(+")[0]
    assert 900 <= len(kept) <= 1000 and body.startswith(kept)
    assert f"…(+{len(body) - len(kept)} chars)" in shown


async def test_the_shops_discount_code_is_in_the_prompt_and_the_dialog_line() -> None:
    phone = VirtualPhone()
    phone.launch(SHOP)
    element_map = await _map(phone)
    dialog = current_dialog(element_map)
    assert dialog is not None
    assert "Use code WELCOME10 at checkout" in to_prompt_text(element_map)
    assert dialog.title == "Welcome!"
    assert "WELCOME10" in dialog.message
    assert dialog.describe().startswith('A dialog is open: "Welcome!" — "')
    assert [b.label for b in dialog.buttons] == ["No thanks", "Shop now"]


# ---------------------------------------------------------------- 3. dialogs


def _rename_dialog() -> str:
    panel = "".join([
        _node("android.widget.TextView", "[100,900][980,980]", text="Rename", rid="android:id/alertTitle"),
        _node("android.widget.EditText", "[100,1000][980,1100]", text="Pixel", hint="Name", clickable=True,
              focusable=True),
        _node("android.widget.CheckBox", "[100,1120][980,1200]", text="Also rename on the network", checkable=True,
              checked=True, clickable=True),
        _node("android.widget.Button", "[500,1220][700,1300]", text="Cancel", rid="android:id/button2",
              clickable=True),
        _node("android.widget.Button", "[720,1220][980,1300]", text="OK", rid="android:id/button1", clickable=True),
    ])
    return ('<hierarchy rotation="0">'
            + _node("android.widget.FrameLayout", "[80,880][1000,1320]",
                    children=_node("android.widget.LinearLayout", "[80,880][1000,1320]", rid="android:id/parentPanel",
                                   children=panel))
            + "</hierarchy>")


def test_a_dialog_lists_its_fields_choices_and_buttons_apart() -> None:
    element_map = build_element_map(_rename_dialog())
    dialog = current_dialog(element_map)
    assert dialog is not None
    name = _one(element_map, "Name", "field")
    remember = _one(element_map, "Also rename", "checkbox")
    cancel, ok = _one(element_map, "Cancel"), _one(element_map, "OK")
    assert dialog.title == "Rename" and dialog.message == ""
    assert dialog.fields == (name,) and dialog.choices == (remember,) and dialog.buttons == (cancel, ok)
    assert dialog.describe() == (f'A dialog is open: "Rename" — fields: {name.id} "Name" = "Pixel"; choices: '
                                 f'{remember.id} checkbox "Also rename on the network" checked; buttons: '
                                 f'{cancel.id} "Cancel", {ok.id} "OK"')


def test_a_dialog_without_a_title_says_so_instead_of_printing_empty_quotes() -> None:
    path = SHARED_DUMPS / "wework_invite_dialog_zh__369219053-wework-auto-reply.xml"
    if not path.exists():
        pytest.skip(f"no research dumps at {SHARED_DUMPS}")
    element_map = build_element_map(path.read_text(encoding="utf-8"))
    dialog = current_dialog(element_map)
    assert dialog is not None and dialog.title is None
    assert dialog.message.startswith("当前群聊人数较多")
    line = dialog.describe()
    assert '""' not in line and line.startswith('A dialog is open — "当前群聊人数较多')
    assert line.endswith('buttons: ' + ", ".join(f'{b.id} "{b.label}"' for b in dialog.buttons))
    assert [b.label for b in dialog.buttons] == ["取消", "邀请"]


def test_the_prompt_uses_the_dialog_summary() -> None:
    element_map = build_element_map(_rename_dialog())
    context = DeviceContext(serial="sim", model="Pixel", manufacturer="Google", android_release="14", sdk=34,
                            locale="en-US", timezone="UTC", screen_width=1080, screen_height=2400, density=420,
                            keyboard_shown=False, current_app=CurrentApp("com.example", ".Main"))
    block = screen_block(Observation.of(element_map, None, context, 0.0, 0.0))
    dialog = current_dialog(element_map)
    assert dialog is not None and dialog.describe() in block.splitlines()


# ---------------------------------------------------------------- 4. radios


async def test_settings_radio_rows_read_as_radios_with_their_state() -> None:
    phone = VirtualPhone()
    phone.launch(SETTINGS, ".ScreenTimeoutActivity")
    element_map = await _map(phone)
    one_minute = _one(element_map, "1 minute")
    five = _one(element_map, "5 minutes")
    assert (one_minute.role, five.role) == ("radio", "radio")
    assert _line(element_map, one_minute).endswith('radio "1 minute" selected')
    assert _line(element_map, five).endswith('radio "5 minutes" not selected')
    await _tap(phone, five)
    after = await _map(phone, element_map)
    assert "selected" in _one(after, "5 minutes").states and "not selected" in _one(after, "1 minute").states


def test_checked_text_views_of_a_single_choice_list_are_radios_and_of_a_multi_choice_list_check_boxes() -> None:
    def choice_list(checked: tuple[bool, ...]) -> str:
        items = "".join(_node("android.widget.CheckedTextView", f"[0,{300 + i * 100}][1080,{400 + i * 100}]",
                              text=f"Option {i}", rid="android:id/text1", checkable=True, checked=c, clickable=True)
                        for i, c in enumerate(checked))
        return _screen(_node("android.widget.ListView", "[0,300][1080,700]", rid="android:id/select_dialog_listview",
                             children=items))

    single = build_element_map(choice_list((False, True, False)))
    assert [e.role for e in single if e.label.startswith("Option")] == ["radio"] * 3
    assert [s for e in single if e.label.startswith("Option") for s in e.states] == [
        "not selected", "selected", "not selected"]
    multi = build_element_map(choice_list((True, True, False)))
    assert [e.role for e in multi if e.label.startswith("Option")] == ["checkbox"] * 3


def test_anything_checkable_in_a_radio_group_is_a_radio() -> None:
    items = "".join(_node("android.widget.CheckedTextView", f"[0,{300 + i * 100}][1080,{400 + i * 100}]",
                          text=size, checkable=True, checked=False, clickable=True)
                    for i, size in enumerate(("Small", "Large")))
    element_map = build_element_map(_screen(_node("android.widget.RadioGroup", "[0,300][1080,500]", children=items)))
    assert [(e.role, e.states) for e in element_map] == [("radio", ("not selected",))] * 2


# ---------------------------------------------------------------- 5. sliders


def test_a_slider_with_a_range_in_the_dump_shows_value_and_range() -> None:
    xml = _screen(_node("android.widget.SeekBar", "[40,300][1040,380]", desc="Brightness level", clickable=True,
                        extra='range-min="0" range-max="255" range-current="128"'))
    element_map = build_element_map(xml)
    slider = _one(element_map, "Brightness level", "slider")
    assert _line(element_map, slider) == f'{slider.id} slider "Brightness level" value 128 of 0–255'
    assert slider_range(slider) == (0.0, 255.0, 128.0)


async def test_the_virtual_phones_brightness_slider_shows_its_value_and_follows_a_tap() -> None:
    phone = VirtualPhone()
    phone.launch(SETTINGS, ".DisplaySettingsActivity")
    element_map = await _map(phone)
    slider = _one(element_map, "Brightness level", "slider")
    assert slider.label == "Brightness level"            # the position is not part of the name
    assert _line(element_map, slider).endswith('slider "Brightness level" value 128, range unknown')
    assert slider_range(slider) is None                   # a uiautomator dump carries no range
    await phone.tap(slider.bounds.left + slider.bounds.width // 10, slider.bounds.center[1])
    after = await _map(phone, element_map)
    moved = _one(after, "Brightness level", "slider")
    assert moved.id == slider.id
    value = int(phone.setting("system", "screen_brightness"))
    change = next(c for c in diff_maps(element_map, after).changed if c.id == slider.id)
    assert change.describe().endswith(f"value 128, range unknown → value {value}, range unknown")


# ---------------------------------------------------------------- 6 and 7. keyboard and whole-screen changes


async def _keep_editor_with_keyboard(phone: VirtualPhone) -> tuple[ElementMap, ElementMap]:
    phone.launch(KEEP)
    notes = await _map(phone)
    await _tap(phone, _one(notes, "New note"))
    editor = await _map(phone, notes)
    return notes, editor


async def test_keyboard_keys_are_listed_with_their_ids_on_one_line() -> None:
    phone = VirtualPhone()
    _, editor = await _keep_editor_with_keyboard(phone)
    assert editor.keyboard is not None, to_prompt_text(editor)
    keys = [e for e in editor if e.window is WindowKind.KEYBOARD and e.interactive]
    lines = [line for line in to_prompt_text(editor).splitlines() if line.startswith("keyboard:")]
    assert len(lines) == 1
    line = lines[0]
    q = next(k for k in keys if k.name.split(" · ")[0] == "q")
    # Letters with consecutive ids are one range: its first character has the first id, and so on in order.
    assert f"{q.id}–e" in line and "q w e r t y u i o p" in line and '"Enter"' in line
    listed = set(re.findall(r"\be\d+\b", line))
    for start, end in re.findall(r"e(\d+)–e(\d+)", line):
        listed |= {f"e{n}" for n in range(int(start), int(end) + 1)}
    assert {k.id for k in keys} <= listed
    assert line.endswith("(type text with the type action; tap a key by its id only when typing is not possible)")
    assert not any(line.startswith(f"{k.id} ") for k in keys for line in to_prompt_text(editor).splitlines())


async def test_a_new_screen_and_the_keyboard_are_one_line_each_in_the_diff() -> None:
    phone = VirtualPhone()
    notes, editor = await _keep_editor_with_keyboard(phone)
    text = diff_maps(notes, editor).to_text()
    assert text.splitlines() == [f"new screen ({KEEP}, {sum(e.window is WindowKind.APP for e in editor)} "
                                 "elements)", "keyboard shown"]
    await phone.press_key(4)   # BACK hides the keyboard
    hidden = await _map(phone, editor)
    assert hidden.keyboard is None
    lines = diff_maps(editor, hidden).to_text().splitlines()
    assert lines[0] == "keyboard hidden"
    keys = {e.id for e in editor if e.window is WindowKind.KEYBOARD}
    assert not [line for line in lines if line[2:].split(" ")[0] in keys]   # the editor may resize, keys: no


async def test_opening_a_settings_page_is_a_new_screen_with_its_title() -> None:
    phone = VirtualPhone()
    phone.launch(SETTINGS)
    home = await _map(phone)
    await _tap(phone, _one(home, "Display"))
    display = await _map(phone, home)
    assert screen_title(display) == "Display"
    count = sum(e.window is WindowKind.APP for e in display)
    assert diff_maps(home, display).to_text() == f'new screen: "Display" ({SETTINGS}, {count} elements)'


def test_a_ticking_clock_is_not_a_change_worth_a_line() -> None:
    def screen(clock: str) -> str:
        app = _node("android.widget.FrameLayout", "[0,0][1080,2400]",
                    children=_node("android.widget.Button", "[0,500][500,600]", text="Start", clickable=True))
        bar = _node("android.widget.FrameLayout", "[0,0][1080,80]",
                    children=_node("android.widget.TextView", "[20,10][200,70]", text=clock,
                                   rid="com.android.systemui:id/clock"))
        system_ui = bar.replace('package="com.example"', 'package="com.android.systemui"')
        return f'<hierarchy rotation="0">{app}{system_ui}</hierarchy>'

    before = build_element_map(screen("16:02"))
    after = build_element_map(screen("16:03"), previous=before)
    assert not diff_maps(before, after).empty
    assert diff_maps(before, after).to_text() == "nothing changed but the status bar"


async def test_the_notification_shade_is_content_not_status_bar() -> None:
    phone = VirtualPhone()
    phone.launch(SETTINGS)
    before = build_element_map(dump_xml_pretty(phone.windows()))
    await phone.swipe(540, 5, 540, 1500, 300)
    shade = build_element_map(dump_xml_pretty(phone.windows()), previous=before)
    lines = to_prompt_text(shade).splitlines()
    status = next(line for line in lines if line.startswith("status bar: "))
    assert "No notifications" not in status and "Battery" in status
    assert any(line.endswith('text "No notifications"') for line in lines)
    assert diff_maps(before, shade).to_text() == 'new screen (com.android.systemui, 1 element: "No notifications")'


def test_a_row_that_now_shows_another_item_gets_a_new_id_not_a_changed_label() -> None:
    """A list row at the same place with the same resource id, showing another contact, is another element: the
    change list says one went and one came, never that "Julia Rossi" became "Omar Haddad"."""
    def screen(top_row: str) -> str:
        rows = [top_row, *(f"Contact {n}" for n in range(9))]
        nodes = "".join(
            f'<node class="android.widget.TextView" package="com.example.app" clickable="true" '
            f'resource-id="com.example.app:id/name" text="{label}" '
            f'bounds="[0,{100 + 150 * i}][1080,{240 + 150 * i}]" />'
            for i, label in enumerate(rows))
        return ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="com.example.app" '
                f'bounds="[0,0][1080,2400]">{nodes}</node></hierarchy>')

    first = build_element_map(screen("Julia Rossi"))
    second = build_element_map(screen("Omar Haddad"), first)
    julia, omar = first.find("Julia Rossi")[0], second.find("Omar Haddad")[0]
    assert omar.id != julia.id
    diff = diff_maps(first, second)
    assert [e.label for e in diff.added] == ["Omar Haddad"] and [e.label for e in diff.removed] == ["Julia Rossi"]
    # A variant of the same label keeps its id ("Follow" → "Following").
    third = build_element_map(screen("Omar Haddad · 2 new"), second)
    assert third.find("Omar Haddad · 2 new")[0].id == omar.id


# ---------------------------------------------------------------- a list that goes on below its edge

def test_a_list_whose_rows_run_into_its_bottom_edge_says_more_may_follow() -> None:
    """A reader took the contacts on screen for all of them: the dump holds only the rows on screen, and
    nothing in the element list said the list went on."""
    def contacts(*rows: tuple[str, str]) -> str:
        return _node("androidx.recyclerview.widget.RecyclerView", "[0,300][1080,2000]", rid="com.example:id/list",
                     scrollable=True, children="".join(_node("android.widget.TextView", b, text=t, clickable=True)
                                                       for t, b in rows))

    cut = build_element_map(_screen(contacts(("Alice", "[0,300][1080,900]"), ("Bob", "[0,900][1080,1500]"),
                                             ("Carol", "[0,1500][1080,2000]"))))
    whole = build_element_map(_screen(contacts(("Alice", "[0,300][1080,500]"), ("Bob", "[0,500][1080,700]"))))
    cut_line = _line(cut, next(e for e in cut.elements if e.role == "scroll"))
    whole_line = _line(whole, next(e for e in whole.elements if e.role == "scroll"))
    assert "vertical" in cut_line and "more may follow; scroll to see" in cut_line, cut_line
    assert "more may follow" not in whole_line, whole_line
    # At the end of a list its last row stops short, and the empty padding view below it is not a row.
    end = build_element_map(_screen(_node(
        "androidx.recyclerview.widget.RecyclerView", "[0,300][1080,2000]", rid="com.example:id/list", scrollable=True,
        children=_node("android.widget.TextView", "[0,300][1080,1900]", text="Zoe", clickable=True)
        + _node("android.view.View", "[0,1950][1080,2000]"))))
    end_line = _line(end, next(e for e in end.elements if e.role == "scroll"))
    assert "more may follow" not in end_line, end_line


def _cards(*spans: tuple[int, int], left: int = 0, right: int = 1080, prefix: str = "Alarm") -> str:
    return "".join(_node("android.widget.FrameLayout", f"[{left},{top}][{right},{bottom}]", clickable=True,
                         children=_node("android.widget.TextView", f"[{left},{top}][{right},{top + 50}]",
                                        text=f"{prefix} {i}"))
                   for i, (top, bottom) in enumerate(spans))


def _scroll_line(xml: str, role: str = "scroll") -> str:
    element_map = build_element_map(_screen(xml))
    return _line(element_map, next(e for e in element_map.elements if e.role == role))


def test_every_list_cut_short_of_its_edge_says_more_may_follow() -> None:
    """Issue 25: the Clock's alarm list, cut off with 9 alarms below, said nothing (its rows stop at its padding,
    336 px above its edge, the last one cut short); neither did Keep's staggered grid (columns in a wrapper) nor
    a web page."""
    alarms = _node("androidx.recyclerview.widget.RecyclerView", "[0,231][1080,2064]", scrollable=True,
                   children=_cards((252, 660), (692, 1100), (1132, 1540), (1572, 1728)))
    assert "more may follow; scroll to see" in _scroll_line(alarms)
    column = _node("android.widget.LinearLayout", "[32,262][529,2022]",
                   children=_cards((262, 564), (585, 894), (915, 1251), (1272, 1600), (1621, 2022), left=32,
                                   right=529, prefix="Note"))      # both columns cut on one line
    column2 = _node("android.widget.LinearLayout", "[551,262][1048,2022]",
                    children=_cards((262, 700), (721, 1100), (1121, 1500), (1521, 2022), left=551, right=1048,
                                    prefix="Other"))
    grid = _node("androidx.recyclerview.widget.RecyclerView", "[0,252][1080,2274]", scrollable=True,
                 children=_node("android.widget.FrameLayout", "[32,262][1048,2022]", children=column + column2))
    assert "more may follow; scroll to see" in _scroll_line(grid)
    page = _node("android.webkit.WebView", "[0,231][1080,2274]", text="City Herald", scrollable=True,
                 children=_cards((300, 1255), (1290, 1890), (1920, 2190), prefix="Story"))
    assert "more may follow; scroll to see" in _scroll_line(page, role="web")


def test_a_list_that_ends_with_room_for_more_rows_says_nothing_of_more() -> None:
    short = _node("androidx.recyclerview.widget.RecyclerView", "[0,231][1080,2064]", scrollable=True,
                  children=_cards((252, 660), (692, 1100)))
    assert "more may follow" not in _scroll_line(short)
    page = _node("android.webkit.WebView", "[0,231][1080,2274]", text="Short page", scrollable=True,
                 children=_cards((300, 700), (720, 1000), prefix="Story"))
    assert "more may follow" not in _scroll_line(page, role="web")
    # At the end of a long list: a whole last row above a little padding (a reader saw "more may follow" beside
    # END REACHED on the Shop's product list).
    at_end = _node("androidx.recyclerview.widget.RecyclerView", "[0,231][1080,2064]", scrollable=True,
                   children=_cards((231, 631), (652, 1052), (1073, 1473), (1494, 1894)))
    assert "more may follow" not in _scroll_line(at_end)


async def test_a_conversation_is_titled_by_the_contact_not_the_letter_in_its_avatar() -> None:
    """Readers saw opened conversations reported as new screens "B" and "C"."""
    from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
    from relay_desktop.sim.tasks.base import PhoneDriver, tap_on

    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    await driver.launch_app(MESSAGES)
    await tap_on(driver, text="Bob Martinez")
    assert screen_title(await _map(phone)) == "Bob Martinez"


def test_a_state_that_comes_or_goes_is_said_in_words() -> None:
    """A reader read '~ e61 button "Send SMS": disabled → -' as if the button had gone."""
    def screen(send_enabled: bool, focused: bool) -> str:
        return _screen(_node("android.widget.EditText", "[0,2000][900,2100]", text="hi", clickable=True,
                             focusable=True, focused=focused),
                       _node("android.widget.Button", "[900,2000][1080,2100]", desc="Send SMS", clickable=True,
                             enabled=send_enabled).replace('enabled="true" bounds', 'bounds'))
    before = build_element_map(screen(False, False))
    after = build_element_map(screen(True, True), before)
    text = diff_maps(before, after).to_text()
    assert 'button "Send SMS": no longer disabled' in text, text
    assert 'field "hi"' not in text or "now focused" in text, text
    assert "→ -" not in text and "- →" not in text


async def test_a_web_page_is_titled_by_its_page_title() -> None:
    """A reader's transcript said only "most of the screen changed (com.android.chrome)" for the page it read."""
    from relay_desktop.sim.tasks.base import PhoneDriver, tap_on

    phone = VirtualPhone()
    phone.launch("com.android.chrome")
    start = await _map(phone)
    assert screen_title(start) == "New tab"
    await tap_on(PhoneDriver(phone), text="Relay Weather")
    page = await _map(phone, start)
    title = screen_title(page)
    assert title is not None and title != "New tab" and "weather" in title.lower(), to_prompt_text(page)


def test_the_navigation_bar_is_one_line_beside_the_actions_that_do_the_same() -> None:
    """uiautomator2's dump holds the navigation bar: a reader met two "Home" buttons, Chrome's and the bar's."""
    def system(cls: str, bounds: str, *, desc: str = "", rid: str = "", children: str = "") -> str:
        return _node(cls, bounds, desc=desc, rid=rid, children=children, clickable=bool(desc)).replace(
            'package="com.example"', 'package="com.android.systemui"')

    app = _node("android.widget.FrameLayout", "[0,0][1080,2274]", children="".join([
        _node("android.widget.ImageButton", "[0,90][146,204]", desc="Home", clickable=True),
        _node("android.widget.EditText", "[146,90][900,204]", hint="Search or type URL", clickable=True),
    ]))
    status = system("android.widget.FrameLayout", "[0,0][1080,63]", children=system(
        "android.widget.TextView", "[40,10][140,55]").replace('text=""', 'text="11:05"'))
    nav = system("android.widget.FrameLayout", "[0,2274][1080,2400]",
                 rid="com.android.systemui:id/navigation_bar_frame",
                 children="".join(system("android.widget.ImageView", b, desc=d) for d, b in (
                     ("Back", "[100,2274][300,2400]"), ("Home", "[440,2274][640,2400]"),
                     ("Overview", "[780,2274][980,2400]"))))
    heads_up = system("android.widget.FrameLayout", "[24,70][1056,260]", children=system(
        "android.widget.LinearLayout", "[24,70][1056,260]", desc="Shell · Alert · Delete all contacts"))
    xml = f'<hierarchy rotation="0">{app}{status}{heads_up}{nav}</hierarchy>'
    text = to_prompt_text(build_element_map(xml))
    lines = text.splitlines()
    # A heads-up notification is a wide, flat system window too, but it is content: listed like the app's own.
    assert [line for line in lines if line.endswith('"Shell · Alert · Delete all contacts"')], text
    bar = [line for line in lines if line.startswith("navigation bar: ")]
    assert len(bar) == 1 and '"Back"' in bar[0] and '"Home"' in bar[0], text
    assert "back, home and recent_apps actions" in bar[0]
    assert [line for line in lines if line.endswith('button "Home"')], text    # the app's own, no position needed
    assert not [line for line in lines if '"Home" @' in line], text


def test_a_screen_that_says_little_is_quoted_whole_in_its_change_line() -> None:
    """A verifier read only "new screen (com.android.launcher3, 1 element)" for the empty recent-apps screen and
    could not tell that no app was left open."""
    before = build_element_map(_screen(*(_node("android.widget.TextView", f"[0,{300 + 150 * i}][1080,{440 + 150 * i}]",
                                                text=f"Setting {i}", clickable=True) for i in range(9))))
    empty = _screen(_node("android.widget.TextView", "[0,1100][1080,1200]", text="No recent items"))
    after = build_element_map(empty.replace('package="com.example"', 'package="com.android.launcher3"'), before)
    text = diff_maps(before, after).to_text()
    assert text == 'new screen (com.android.launcher3, 1 element: "No recent items")', text


def test_two_apps_side_by_side_are_both_apps_whatever_the_divider_position() -> None:
    """Split screen with the divider at one third: the smaller half was taken for a pop-up over the other, and
    the other app's elements were hidden as if behind a dialog."""
    def window(package: str, bounds: str, label: str) -> str:
        return _node("android.widget.FrameLayout", bounds, children=_node(
            "android.widget.Button", bounds, text=label, clickable=True)).replace(
            'package="com.example"', f'package="{package}"')

    for split in (1200, 800):      # half and half; one third and two thirds
        xml = ('<hierarchy rotation="0">' + window("com.android.settings", f"[0,63][1080,{split - 10}]", "Wi-Fi")
               + window("com.google.android.apps.messaging", f"[0,{split + 10}][1080,2274]", "Start chat")
               + "</hierarchy>")
        element_map = build_element_map(xml)
        assert {e.label for e in element_map.elements} == {"Wi-Fi", "Start chat"}, to_prompt_text(element_map)
        assert all(e.window is WindowKind.APP for e in element_map.elements)
        assert current_dialog(element_map) is None


# ---------------------------------------------------------------- ids (issue 25)

def _dialog_over(screen_nodes: str, dialog: bool) -> str:
    nodes = screen_nodes
    if dialog:
        nodes = _node("android.widget.FrameLayout", "[100,800][980,1400]", rid="android:id/content",
                      children=_node("android.widget.TextView", "[140,850][940,950]", text="Delete this alarm?")
                      + _node("android.widget.Button", "[600,1250][940,1350]", text="Delete", clickable=True))
    return _screen(nodes)


def test_an_element_keeps_its_id_when_its_screen_comes_back_after_a_dialog() -> None:
    """Issue 25: ids changed after a dialog closed over the same screen (e19 → e82 → e149 → e217), and a new
    screen restarted at e1, so one result named two elements e82."""
    rows = "".join(_node("android.widget.TextView", f"[0,{300 + 200 * i}][1080,{480 + 200 * i}]", text=f"Alarm {i}",
                         clickable=True) for i in range(5))
    screen = build_element_map(_dialog_over(rows, False))
    dialog = build_element_map(_dialog_over(rows, True), screen)
    back = build_element_map(_dialog_over(rows, False), dialog)
    assert [e.id for e in back.elements] == [e.id for e in screen.elements]
    assert not {e.id for e in dialog.elements} & {e.id for e in screen.elements}


def test_rows_of_a_list_keep_their_ids_with_their_rows() -> None:
    """Issue 25: ids of repeated labels ("Today") moved between rows after a scroll."""
    def alarms(*times: str, top: int) -> str:
        def row(i: int, time: str) -> str:
            y = top + 300 * i
            return _node("android.widget.LinearLayout", f"[0,{y}][1080,{y + 280}]",
                         children=_node("android.widget.Button", f"[40,{y}][500,{y + 100}]", text=time,
                                        clickable=True)
                         + _node("android.widget.Button", f"[40,{y + 120}][500,{y + 200}]", text="Today",
                                 clickable=True))
        rows = "".join(row(i, t) for i, t in enumerate(times))
        return _screen(_node("androidx.recyclerview.widget.RecyclerView", "[0,200][1080,2000]", scrollable=True,
                             children=rows))

    first = build_element_map(alarms("6:00", "6:30", "7:00", top=200))
    scrolled = build_element_map(alarms("6:30", "7:00", "7:30", top=200), first)

    def today_of(element_map: ElementMap, time: str) -> str:
        time_el = element_map.find(time)[0]
        return next(e.id for e in element_map.elements
                    if e.label == "Today" and time_el.bounds.top < e.bounds.top < time_el.bounds.top + 300)

    assert today_of(scrolled, "6:30") == today_of(first, "6:30")
    assert today_of(scrolled, "7:00") == today_of(first, "7:00")
    assert today_of(scrolled, "7:30") not in {e.id for e in first.elements}
