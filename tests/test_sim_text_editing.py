"""Editing inside a field of the virtual phone, as on Android, through Google's adb: a tap puts the cursor at the
nearest character, typed text goes in at the cursor, DEL deletes before it, a long press selects the word under
the finger and shows the floating text-selection toolbar (Cut, Copy, Paste, Select all), typing replaces a
selection, and the toolbar's actions use the phone's clipboard."""

from __future__ import annotations

import asyncio
import io

from PIL import Image, ImageChops

from relay_desktop.sim.apps.keep import BODY_KEY, EDITOR, PACKAGE, KeepNotes
from relay_desktop.sim.apps.messages import PACKAGE as MESSAGES
from relay_desktop.sim.apps.messages import THREAD
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks.base import find, nodes
from relay_desktop.sim.text_selection import caret_point
from relay_desktop.sim.views import View
from tests.conftest import AdbTestServer
from tests.waiting import until

BODY = "Call the plumber\nflat 3B, second floor\nbring the keys"
TOOLBAR_ID = "android:id/floating_toolbar_menu_item_text"


async def adb(adb_server: AdbTestServer, sim: VirtualPhoneService, *args: str) -> str:
    done = await asyncio.to_thread(adb_server.run, "-s", sim.serial, *args)
    return done.stdout.decode()


async def screencap(adb_server: AdbTestServer, sim: VirtualPhoneService) -> bytes:
    done = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "exec-out", "screencap", "-p")
    return done.stdout


async def dump(adb_server: AdbTestServer, sim: VirtualPhoneService) -> str:
    xml = await adb(adb_server, sim, "exec-out", "uiautomator", "dump", "/dev/tty")
    return xml[:xml.rindex("</hierarchy>") + len("</hierarchy>")]   # without "UI hierchary dumped to: …"


def keep(sim: VirtualPhoneService) -> KeepNotes:
    return sim.phone.apps[PACKAGE]  # type: ignore[return-value]


def body_view(sim: VirtualPhoneService) -> View:
    for window in sim.phone.windows():
        view = window.root.find(BODY_KEY)
        if view is not None:
            return view
    raise AssertionError("no note body on screen")


async def open_note_by_tap(adb_server: AdbTestServer, sim: VirtualPhoneService) -> int:
    note = keep(sim).add("Plumber", BODY)
    sim.phone.launch(PACKAGE)
    title = find(await dump(adb_server, sim), text="Plumber")
    assert title is not None
    await adb(adb_server, sim, "shell", "input", "tap", *map(str, title.center))
    await until(lambda: sim.phone.focused_activity() == (PACKAGE, EDITOR))
    return note.id


def body_of(sim: VirtualPhoneService, note_id: int) -> str:
    note = keep(sim).get(note_id)
    assert note is not None
    return note.body


async def test_a_tap_inside_the_text_puts_the_cursor_there_and_typing_and_del_work_at_it(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    note_id = await open_note_by_tap(adb_server, sim)
    at = BODY.index("3B")
    x, y = caret_point(sim.phone, body_view(sim), at)
    await adb(adb_server, sim, "shell", "input", "tap", str(x), str(y))
    await adb(adb_server, sim, "shell", "input", "keyevent", "67")          # DEL: the space before "3B"
    await adb(adb_server, sim, "shell", "input", "text", "-5A-")
    assert body_of(sim, note_id) == BODY.replace("flat 3B", "flat-5A-3B")
    # The other lines are untouched and the cursor stays after what was typed.
    await adb(adb_server, sim, "shell", "input", "text", "x")
    assert body_of(sim, note_id) == BODY.replace("flat 3B", "flat-5A-x3B")


async def test_a_tap_past_the_end_of_a_line_puts_the_cursor_at_that_line_end(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    note_id = await open_note_by_tap(adb_server, sim)
    end_of_first = BODY.index("\n")
    view = body_view(sim)
    _, y = caret_point(sim.phone, view, end_of_first)
    await adb(adb_server, sim, "shell", "input", "tap", str(view.bounds.right - 20), str(y))
    await adb(adb_server, sim, "shell", "input", "text", "!")
    assert body_of(sim, note_id) == BODY.replace("plumber\n", "plumber!\n")


async def test_a_long_press_selects_the_word_shows_the_toolbar_and_typing_replaces_it(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    note_id = await open_note_by_tap(adb_server, sim)
    sim.phone.clipboard = "pasted"
    before = await screencap(adb_server, sim)
    x, y = caret_point(sim.phone, body_view(sim), BODY.index("3B") + 1)
    await adb(adb_server, sim, "shell", "input", "swipe", str(x), str(y), str(x), str(y), "800")
    xml = await dump(adb_server, sim)
    items = [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id") == TOOLBAR_ID]
    assert items == ["Cut", "Copy", "Paste", "Select all"]
    copy = find(xml, desc="Copy")
    assert copy is not None and copy.attrs["clickable"] == "true"
    assert copy.attrs["package"] == PACKAGE       # a PopupWindow of the app, as Android dumps it
    # The selection shows: the picture changed where the word is.
    after = await screencap(adb_server, sim)
    assert before != after
    await adb(adb_server, sim, "shell", "input", "text", "5A")
    assert body_of(sim, note_id) == BODY.replace("flat 3B", "flat 5A")
    assert find(await dump(adb_server, sim), id="floating_toolbar_menu_item_text") is None


async def test_copy_cut_paste_and_select_all_use_the_phone_clipboard(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    note_id = await open_note_by_tap(adb_server, sim)
    x, y = caret_point(sim.phone, body_view(sim), BODY.index("plumber") + 2)
    await adb(adb_server, sim, "shell", "input", "swipe", str(x), str(y), str(x), str(y), "800")
    copy = find(await dump(adb_server, sim), desc="Copy")
    assert copy is not None
    await adb(adb_server, sim, "shell", "input", "tap", *map(str, copy.center))
    assert sim.phone.clipboard == "plumber"
    assert body_of(sim, note_id) == BODY

    # Paste at a tapped place.
    x, y = caret_point(sim.phone, body_view(sim), BODY.index("keys"))
    await adb(adb_server, sim, "shell", "input", "tap", str(x), str(y))
    await adb(adb_server, sim, "shell", "input", "keyevent", "279")         # KEYCODE_PASTE
    assert body_of(sim, note_id) == BODY.replace("the keys", "the plumberkeys")

    # Select all, then Cut: the field is empty and the clipboard holds it all.
    whole = body_of(sim, note_id)
    x, y = caret_point(sim.phone, body_view(sim), 2)
    await adb(adb_server, sim, "shell", "input", "swipe", str(x), str(y), str(x), str(y), "800")
    select_all = find(await dump(adb_server, sim), desc="Select all")
    assert select_all is not None
    await adb(adb_server, sim, "shell", "input", "tap", *map(str, select_all.center))
    cut = find(await dump(adb_server, sim), desc="Cut")
    assert cut is not None
    await adb(adb_server, sim, "shell", "input", "tap", *map(str, cut.center))
    assert sim.phone.clipboard == whole
    assert body_view(sim).text == ""


async def test_the_cursor_and_the_selection_are_drawn(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    await open_note_by_tap(adb_server, sim)
    x, y = caret_point(sim.phone, body_view(sim), BODY.index("3B"))
    await adb(adb_server, sim, "shell", "input", "tap", str(x), str(y))
    shot = Image.open(io.BytesIO(await screencap(adb_server, sim))).convert("RGB")
    x2, y2 = caret_point(sim.phone, body_view(sim), len(BODY))
    await adb(adb_server, sim, "shell", "input", "tap", str(x2), str(y2))
    moved = Image.open(io.BytesIO(await screencap(adb_server, sim))).convert("RGB")
    # The cursor left the place it was drawn at.
    box = (x - 12, y - 30, x + 12, y + 30)
    assert ImageChops.difference(shot.crop(box), moved.crop(box)).getbbox() is not None


# ---------------------------------------------------------------- Messages: a long-pressed bubble offers Copy

async def test_a_long_pressed_message_offers_copy_which_puts_its_text_on_the_clipboard(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    sim.phone.apps[MESSAGES].open(THREAD, number="555-0187")
    bubble = find(await dump(adb_server, sim), text="Tuesday works. See you then!")
    assert bubble is not None and bubble.attrs["long-clickable"] == "true"
    x, y = bubble.center
    await adb(adb_server, sim, "shell", "input", "swipe", str(x), str(y), str(x), str(y), "800")
    xml = await dump(adb_server, sim)
    copy = find(xml, desc="Copy")
    assert copy is not None and find(xml, text="1 selected") is not None
    assert find(xml, text="Tuesday works. See you then!").attrs["selected"] == "true"  # type: ignore[union-attr]
    await adb(adb_server, sim, "shell", "input", "tap", *map(str, copy.center))
    assert sim.phone.clipboard == "Tuesday works. See you then!"
    xml = await dump(adb_server, sim)
    assert find(xml, desc="Copy") is None and find(xml, id="conversation_title") is not None

    # BACK ends a selection without leaving the thread.
    await adb(adb_server, sim, "shell", "input", "swipe", str(x), str(y), str(x), str(y), "800")
    assert find(await dump(adb_server, sim), desc="Copy") is not None
    await adb(adb_server, sim, "shell", "input", "keyevent", "4")
    assert sim.phone.focused_activity() == (MESSAGES, THREAD)
    assert find(await dump(adb_server, sim), desc="Copy") is None


async def test_a_conversation_row_shows_the_contacts_name_once_the_number_is_saved(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    messages = sim.phone.apps[MESSAGES]
    messages.receive("+1 555-0199", "Hi, it's Dana from the pottery class", heads_up=None)  # type: ignore[attr-defined]
    sim.phone.launch(MESSAGES)
    assert find(await dump(adb_server, sim), text="+1 555-0199", id="conversation_name") is not None
    sim.phone.apps["com.google.android.contacts"].add("Dana", "Ruiz", "555-0199")  # type: ignore[attr-defined]
    sim.phone.invalidate()
    xml = await dump(adb_server, sim)
    assert find(xml, text="Dana Ruiz", id="conversation_name") is not None
    assert find(xml, text="+1 555-0199", id="conversation_name") is None


async def test_uiautomator2_finds_the_floating_toolbar_s_items(adb_server: AdbTestServer,
                                                              sim: VirtualPhoneService) -> None:
    """The toolbar is a popup window of the app: u2.jar's selectors search it as they do on a phone."""
    from relay_desktop.sim.u2_selector import find as u2_find

    await open_note_by_tap(adb_server, sim)
    x, y = caret_point(sim.phone, body_view(sim), BODY.index("3B") + 1)
    await adb(adb_server, sim, "shell", "input", "swipe", str(x), str(y), str(x), str(y), "800")
    assert [m.view.text for m in u2_find(sim.phone.windows(), {"text": "Copy"})] == ["Copy"]
