"""The optional OCR pass: real RapidOCR on the virtual phone's screenshots (skipped when the ``ocr`` extra is not
installed; CI installs it), and the merge into the element map on small dumps made here."""

from __future__ import annotations

import asyncio
import itertools
import sys
import time

import pytest
from PIL import Image

from relay_desktop.perception import (
    Bounds,
    Element,
    ElementMap,
    build_element_map,
    to_json,
    to_prompt_text,
)
from relay_desktop.perception.ocr import (
    OCR_CLASS,
    OCR_MISSING_NOTICE,
    OCR_STATE,
    OcrEngine,
    OcrText,
    OcrUnavailableError,
    is_ocr,
    readable,
    scale_to_screen,
)
from relay_desktop.sim.hierarchy import dump_xml
from relay_desktop.sim.phone import VirtualPhone

CONTACTS = "com.google.android.contacts"
MESSAGES = "com.google.android.apps.messaging"
SETTINGS = "com.android.settings"
TOAST = "Calling Grace Liu"


def ocr_added(element_map: ElementMap) -> list[Element]:
    return [e for e in element_map if is_ocr(e)]


# ------------------------------------------------------------------------------------------ the virtual phone

async def tap_text(phone: VirtualPhone, text: str) -> None:
    """Tap the control that shows ``text`` (or has it as its resource id), scrolling down to it if need be."""
    for _ in range(6):
        element_map = build_element_map(await phone.dump_hierarchy())
        found = [e for e in element_map if e.interactive and any(
            text in (n.text, n.desc) or n.resource_id.endswith("/" + text) for n in e.sources)]
        if found:
            await phone.tap(*found[0].tap)
            return
        await phone.swipe(540, 1600, 540, 900, 400)
    raise AssertionError(f"nothing labelled {text!r} on the screen")


async def calling_grace() -> VirtualPhone:
    """Grace Liu's contact card just after a tap on Call: the "Calling Grace Liu…" toast is up (for a minute)."""
    phone = VirtualPhone()
    phone.launch(CONTACTS)
    await tap_text(phone, "Grace Liu")
    await tap_text(phone, "Call")
    assert phone.toast is not None and phone.toast[0].startswith(TOAST)
    phone.show_toast(phone.toast[0], seconds=60)
    return phone


async def screen_of(name: str) -> VirtualPhone:
    phone = VirtualPhone()
    if name == "settings":
        phone.launch(SETTINGS)
    elif name == "messages":
        phone.launch(MESSAGES)
    elif name == "contact":
        phone.launch(CONTACTS)
        await tap_text(phone, "Grace Liu")
    return phone


@pytest.fixture(scope="session")
def engine() -> OcrEngine:
    for module in ("rapidocr", "onnxruntime"):
        pytest.importorskip(module, reason="the ocr extra is not installed")
    loaded = OcrEngine.load()
    assert loaded is not None
    return loaded


async def test_a_toast_reaches_the_element_map_only_with_ocr(engine: OcrEngine) -> None:
    phone = await calling_grace()
    image, xml = await phone.screenshot(), await phone.dump_hierarchy()
    assert TOAST not in xml   # as on a real phone, the toast is drawn but not dumped

    without = build_element_map(xml)
    assert not without.find(TOAST)
    lines = await engine.read(image)
    with_ocr = build_element_map(xml, ocr=lines)

    toasts = with_ocr.find(TOAST)
    assert len(toasts) == 1, to_prompt_text(with_ocr)
    toast = toasts[0]
    assert is_ocr(toast) and toast.role == "text" and not toast.interactive
    assert OCR_STATE in toast.states and toast.node.cls == OCR_CLASS
    toast_window = next(w for w in phone.windows() if w.kind == "toast")
    assert Bounds(*toast_window.frame).contains(toast.bounds), (toast.bounds, toast_window.frame)
    # Only the toast is new: everything else OCR read is in the dump already.
    assert ocr_added(with_ocr) == [toast], to_prompt_text(with_ocr)
    assert len(with_ocr) == len(without) + 1

    prompt = to_prompt_text(with_ocr)
    assert f'{toast.id} text "{toast.label}" {OCR_STATE}' in prompt.splitlines()
    entry = next(e for e in to_json(with_ocr)["elements"] if e["id"] == toast.id)
    assert entry["class"] == OCR_CLASS and entry["states"] == [OCR_STATE] and entry["interactive"] is False


@pytest.mark.parametrize("name", ["settings", "messages", "contact", "home"])
async def test_a_screen_whose_text_is_all_in_the_dump_gains_nothing(engine: OcrEngine, name: str) -> None:
    phone = await screen_of(name)
    image, xml = await phone.screenshot(), await phone.dump_hierarchy()
    lines = await engine.read(image)
    assert len([line for line in lines if readable(line)]) >= 5, lines   # OCR did read the screen
    element_map = build_element_map(xml, ocr=lines)
    assert not ocr_added(element_map), to_prompt_text(element_map)
    assert [(e.id, e.label) for e in element_map] == [(e.id, e.label) for e in build_element_map(xml)]


async def test_ocr_elements_keep_their_ids_and_take_fresh_ones(engine: OcrEngine) -> None:
    phone = await calling_grace()
    xml = await phone.dump_hierarchy()
    first = await engine.read(await phone.screenshot())
    second = await engine.read(await phone.screenshot())

    before = build_element_map(xml)                              # the step before the toast was read
    with_toast = build_element_map(xml, before, ocr=first)
    toast = with_toast.find(TOAST)[0]
    assert [(e.id, e.label) for e in with_toast if not is_ocr(e)] == [(e.id, e.label) for e in before]
    assert int(toast.id[1:]) >= before.next_number               # a fresh ID, never an old one reused

    again = build_element_map(xml, with_toast, ocr=second)
    assert [(e.id, e.label) for e in again] == [(e.id, e.label) for e in with_toast]
    # OCR boxes move by a pixel or two between frames of a real phone: the ID stays.
    jittered = [OcrText(t.text, Bounds(t.bounds.left + 3, t.bounds.top - 2, t.bounds.right + 4, t.bounds.bottom),
                        t.confidence) for t in second]
    moved = build_element_map(xml, again, ocr=jittered)
    assert moved.find(TOAST)[0].id == toast.id


async def test_reading_never_blocks_the_event_loop(engine: OcrEngine) -> None:
    phone = await calling_grace()
    image = await phone.screenshot()
    await engine.warm_up()
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    task = asyncio.ensure_future(ticker())
    await asyncio.sleep(0.02)
    started = time.perf_counter()
    lines = await asyncio.wait_for(engine.read(image), timeout=50)
    finished = time.perf_counter()
    task.cancel()
    during = [t for t in ticks if started <= t <= finished]
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert any(line.text.startswith(TOAST) for line in lines)
    # A read on the loop's thread would leave one gap as long as the read itself; a busy machine (2 cores shared
    # with other tests) may delay a tick, never by half the read.
    assert len(during) >= 3, (len(during), finished - started)
    assert max(gaps) < max(0.5, (finished - started) / 2), (max(gaps), finished - started)


async def test_keyboard_text_is_never_added(engine: OcrEngine) -> None:
    """A single-window dump without the keyboard (as some phones give) and the keyboard's area from the
    device: the keys OCR reads there ("?123") must not become elements."""
    phone = await screen_of("messages")
    await tap_text(phone, "Grace Liu")
    await tap_text(phone, "compose_message_text")
    assert phone.keyboard_shown
    windows = phone.windows()
    keyboard = Bounds(*next(w for w in windows if w.kind == "ime").frame)
    xml = dump_xml([w for w in windows if w.kind != "ime"])
    lines = await engine.read(await phone.screenshot())
    on_keys = [line for line in lines if readable(line) and keyboard.contains_point(*line.bounds.center)]
    assert on_keys, lines   # OCR does read the keyboard, so the filter has something to drop

    element_map = build_element_map(xml, keyboard=keyboard, ocr=lines)
    assert not [e for e in ocr_added(element_map) if keyboard.intersects(e.bounds)], to_prompt_text(element_map)
    # Without the keyboard's area the same keys would have been added: the area is what drops them.
    assert ocr_added(build_element_map(xml, ocr=on_keys))


async def test_a_downscaled_screenshot_maps_back_to_the_screen(engine: OcrEngine) -> None:
    phone = await calling_grace()
    image, xml = await phone.screenshot(), await phone.dump_hierarchy()
    half = (image.width // 2, image.height // 2)
    lines = scale_to_screen(await engine.read(image.resize(half, Image.Resampling.BOX)), half, image.size)
    toast = build_element_map(xml, ocr=lines).find(TOAST)
    assert len(toast) == 1
    toast_window = Bounds(*next(w for w in phone.windows() if w.kind == "toast").frame)
    assert toast_window.contains(toast[0].bounds), (toast[0].bounds, toast_window)


# ------------------------------------------------------------------------------------------ without the library

def test_load_returns_none_with_a_notice_when_the_library_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr", None)   # `import rapidocr` now raises ImportError
    assert OcrEngine.load() is None
    assert "pip install" in OCR_MISSING_NOTICE and "[ocr]" in OCR_MISSING_NOTICE and "\n" not in OCR_MISSING_NOTICE


async def test_an_engine_that_cannot_start_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidocr", None)
    with pytest.raises(OcrUnavailableError):
        await OcrEngine().read(Image.new("RGB", (64, 64)))


# ------------------------------------------------------------------------------------------ the merge, on small dumps

def node(text: str, bounds: str, cls: str = "android.widget.TextView", rid: str = "", clickable: bool = False,
         children: str = "") -> str:
    return (f'<node index="0" text="{text}" resource-id="{rid}" class="{cls}" package="com.example" content-desc="" '
            f'checkable="false" checked="false" clickable="{str(clickable).lower()}" enabled="true" '
            f'focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" '
            f'selected="false" bounds="{bounds}">{children}</node>')


# A 1080x2400 phone: the app window stops above the navigation bar; its content starts below the status bar.
SCREEN = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
          + node("", "[0,0][1080,2274]", "android.widget.FrameLayout", children=node(
              "", "[0,63][1080,2274]", "android.widget.FrameLayout", "android:id/content", children="".join([
                  node("Wi-Fi", "[48,300][1032,360]"),                       # a wide TextView
                  node("Battery", "[48,500][300,560]"), node("100%", "[320,500][500,560]"),
                  node("Thanks for the book recommendation! Just started it", "[48,700][900,820]"),
                  node("", "[0,900][1080,1600]", "android.view.View", "com.example:id/canvas"),
                  node("Grace Liu", "[48,1700][600,1760]", clickable=True),
              ])))
          + "</hierarchy>")


def line(text: str, left: int, top: int, right: int, bottom: int, confidence: float = 0.95) -> OcrText:
    return OcrText(text, Bounds(left, top, right, bottom), confidence)


def added_labels(ocr: list[OcrText], **kwargs: object) -> list[str]:
    return [e.label for e in ocr_added(build_element_map(SCREEN, ocr=ocr, **kwargs))]  # type: ignore[arg-type]


def test_text_the_dump_shows_in_that_place_is_not_added() -> None:
    assert added_labels([
        line("Wi-Fi", 52, 305, 170, 355),                # tight box inside a wide TextView
        line("Wi Fi", 50, 300, 168, 352),                # misread punctuation
        line("Battery 100%", 50, 505, 495, 555),         # one OCR line across two TextViews
        line("Thanks for the book recommendation! Just", 50, 705, 890, 760),   # one row of a wrapped text
        line("started it", 50, 765, 300, 815),
        line("Grace Liu", 50, 1702, 330, 1758),
    ]) == []


def test_text_the_dump_lacks_is_added_in_reading_order() -> None:
    element_map = build_element_map(SCREEN, ocr=[
        line("Calling Grace Liu...", 380, 1690, 700, 1770),   # a toast over a row that says "Grace Liu"
        line("Wi-Fi", 52, 1000, 170, 1050),                   # the same words somewhere else: a canvas
        line("Score 1200", 100, 1100, 400, 1150),
    ])
    added = ocr_added(element_map)
    assert [e.label for e in added] == ["Wi-Fi", "Score 1200", "Calling Grace Liu..."]
    order = [("ocr " if is_ocr(e) else "") + e.label for e in element_map]
    # Each listed after what it is drawn over: the canvas's lines after the text above the canvas and before
    # the row below it, the toast after that row.
    assert order[3:] == ["Thanks for the book recommendation! Just started it", "ocr Wi-Fi", "ocr Score 1200",
                         "Grace Liu", "ocr Calling Grace Liu..."]
    assert all(e.tap == e.bounds.center and e.visible == e.bounds for e in added)


def test_junk_status_bar_navigation_bar_and_keyboard_are_filtered() -> None:
    assert added_labels([
        line("15:58", 40, 10, 140, 55),                  # the clock, in the status bar
        line("Blurry words", 100, 1000, 400, 1050, confidence=0.55),
        line("G", 100, 1100, 140, 1150),                 # an avatar's letter
        line("_I", 100, 1200, 160, 1250),                # an icon read as letters
        line("★ ☰", 100, 1300, 200, 1350),
        line("Back Home", 100, 2300, 400, 2380),         # below the app window: the navigation bar
    ]) == []
    keys = [line("English (US)", 20, 2000, 1060, 2080)]      # the space bar's label
    assert added_labels(keys) == ["English (US)"]
    assert added_labels(keys, keyboard=Bounds(0, 1500, 1080, 2274)) == []


def test_status_bar_falls_back_to_the_top_of_the_screen_when_the_dump_says_nothing() -> None:
    edge_to_edge = SCREEN.replace('bounds="[0,63][1080,2274]"', 'bounds="[0,0][1080,2274]"')
    clock = [line("15:58", 40, 20, 140, 70)]
    assert [e.label for e in build_element_map(edge_to_edge, ocr=clock) if is_ocr(e)] == []
    assert [e.label for e in build_element_map(edge_to_edge, ocr=[line("Title", 40, 120, 300, 170)])
            if is_ocr(e)] == ["Title"]


def test_lines_scale_to_screen_pixels() -> None:
    text = line("Hi there", 10, 20, 110, 45)
    assert text.scaled(2).bounds == Bounds(20, 40, 220, 90)
    assert scale_to_screen([text], (540, 1200), (1080, 2400)) == [text.scaled(2)]
    assert scale_to_screen([text], (1080, 2400), (1080, 2400)) == [text]
    assert scale_to_screen([text], (540, 1200), (1080, 2400))[0].text == "Hi there"


async def test_text_behind_a_dialog_is_not_offered() -> None:
    """Behind a pop-up the app is dimmed and out of reach: text read there (a banner drawn on a canvas) is not
    listed; text inside the pop-up is."""
    from relay_desktop.perception import WindowKind
    from relay_desktop.sim.phone import VirtualPhone

    phone = VirtualPhone()
    phone.launch("com.relay.shop")
    tree_map = build_element_map(await phone.dump_hierarchy())
    dialog = next((w for w in tree_map.tree.windows if w.kind is WindowKind.DIALOG), None)
    assert dialog is not None, "the Shop opens with its welcome pop-up"
    below = Bounds(600, dialog.bounds.bottom + 40, 900, dialog.bounds.bottom + 90)
    inside = Bounds(dialog.bounds.left + 40, dialog.bounds.top + 40, dialog.bounds.left + 400, dialog.bounds.top + 90)
    added = ocr_added(build_element_map(await phone.dump_hierarchy(), ocr=[
        OcrText("Spring sale banner", below, 0.95), OcrText("Limited offer today", inside, 0.95)]))
    assert [e.label for e in added] == ["Limited offer today"]


def test_a_fields_floating_label_across_its_border_is_the_fields_hint_not_new_text() -> None:
    """A reader got "Device name" twice: the field's label is drawn across its top border, mostly outside the
    field's bounds, and OCR read it as text the dump lacked."""
    screen = ('<hierarchy rotation="0">'
              + node("", "[0,0][1080,2400]", "android.widget.FrameLayout", "", children="".join([
                  node("Relay Virtual Phone", "[42,415][1038,562]", "android.widget.EditText",
                       "com.example:id/device_name", clickable=True).replace(' content-desc=""',
                                                                             ' content-desc="" hint="Device name"'),
              ])) + "</hierarchy>")
    element_map = build_element_map(screen, ocr=[line("Device name", 75, 392, 277, 435),
                                                 line("Device name", 75, 700, 277, 743)])   # elsewhere: new text
    assert [e.bounds.top for e in ocr_added(element_map)] == [700]


def test_text_read_again_a_little_differently_is_not_a_change() -> None:
    """A reader saw '+ e101 text "4.0 (0, 1 1 1 )" (read from pixels)' after taps that had nothing to do with
    it: the same rating, read from pixels a little differently each time."""
    from relay_desktop.perception import diff_maps

    first = build_element_map(SCREEN, ocr=[line("Rated 4.0 (0,111)", 100, 1100, 400, 1150),
                                           line("Score 1200", 100, 1200, 400, 1250)])
    again = build_element_map(SCREEN, previous=first, ocr=[line("Rated 4.0 (0, 111 )", 102, 1101, 402, 1151),
                                                           line("Score 1300", 100, 1200, 400, 1250)])
    text = diff_maps(first, again).to_text()
    assert "4.0" not in text, text
    assert "Score 1300" in text or text == "", text      # a different number is a change (or the same id's label)


def test_junk_read_off_icons_and_edges_is_never_text() -> None:
    """Issue 25: "UU", "4.0 (0, 1 1 1 )", "l ue · u5.51" were offered as text read from pixels."""
    assert added_labels([
        line("UU", 100, 1000, 200, 1050),
        line("4.0 (0, 11 1 )", 100, 1050, 400, 1090),     # a reader saw this one after the first was fixed
        line("4.0 (0, 1 1 1 )", 100, 1100, 400, 1150),
        line("l ue · u5.51", 100, 1200, 400, 1250),
    ]) == []
    assert added_labels([line("Order #SH-10421", 100, 1000, 500, 1050), line("$39.99", 100, 1100, 300, 1150),
                         line("Calling Grace Liu…", 100, 1200, 600, 1250)]) == \
        ["Order #SH-10421", "$39.99", "Calling Grace Liu…"]


def test_a_text_cursor_read_as_a_letter_is_not_new_text() -> None:
    """Issue 25: "To Omarl" (read from pixels) — the field's cursor after "Omar" read as an "l"."""
    assert added_labels([line("Grace Liul", 50, 1702, 340, 1758)]) == []


def test_text_seen_before_a_scroll_is_not_new_after_it() -> None:
    """Issue 25: a product already listed was shown again as new after a scroll, read off the picture where its
    row was cut."""
    from relay_desktop.perception import diff_maps

    first = build_element_map(SCREEN)
    scrolled = build_element_map(SCREEN, previous=first, ocr=[line("Grace Liu", 100, 1000, 400, 1050)])
    assert "Grace Liu" not in diff_maps(first, scrolled).to_text()


async def test_a_recipient_read_with_its_label_and_the_cursor_is_not_new_text() -> None:
    """A reader saw 'To Omarl' (read from pixels) beside the To field holding "Omar": the line runs from the "To"
    label into the field, whose box is too wide to count as the same place, and the cursor read as an "l"."""
    from relay_desktop.sim.apps.messages import PACKAGE, START_CHAT
    from relay_desktop.sim.tasks.base import PhoneDriver, find, tap_on

    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    phone.apps[PACKAGE].open(START_CHAT)
    await tap_on(driver, id="recipient_text_view")
    await driver.type_text("Omar")
    xml = await driver.dump_hierarchy()
    label = find(xml, text="To")
    assert label is not None and find(xml, text="Omar") is not None
    left, top, right, bottom = label.bounds
    middle = (top + bottom) // 2                  # a line of text is as tall as its letters, not as the row
    read = line("To Omarl", left + 2, middle - 25, right + 171, middle + 25)
    element_map = build_element_map(xml, ocr=[read])
    assert [e.label for e in ocr_added(element_map)] == []
