"""The virtual phone's screenshot: pixels checked at points computed from the laid-out views."""

from __future__ import annotations

import io

from PIL import Image

from relay_desktop.sim import fonts, icons, keyboard, system_bars
from relay_desktop.sim.paint import OUTLINE, PRIMARY, SURFACE, SURFACE_HIGHEST
from relay_desktop.sim.render import encode_png, render
from relay_desktop.sim.ui import Kit
from relay_desktop.sim.views import Rect, Style, View, Window, layout

SIZE = (1080, 2400)
SCREEN = Rect(0, 0, *SIZE)
WHITE = (255, 255, 255)
kit = Kit(420)


def app(*children: View, bg: tuple[int, int, int] = SURFACE) -> Window:
    root = View(cls="android.widget.FrameLayout", children=list(children), style=Style(bg=bg))
    layout(root, SCREEN)
    return Window("app", "com.example", root, SCREEN)


def near(actual: tuple[int, ...], expected: tuple[int, ...], tolerance: int = 10) -> bool:
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=False))


def px(image: Image.Image, x: int, y: int) -> tuple[int, int, int]:
    value = image.getpixel((x, y))
    assert isinstance(value, tuple)
    return value[0], value[1], value[2]


def test_image_has_the_screen_size_and_is_rgb() -> None:
    assert render([app()], SIZE).size == SIZE
    small = render([app()], (720, 1280))
    assert small.size == (720, 1280) and small.mode == "RGB"
    assert px(small, 360, 640) == SURFACE


def test_switch_thumb_sits_right_when_on_and_left_when_off() -> None:
    on, off = kit.switch(True), kit.switch(False)
    window = app(View(orientation="h", height=200, children=[on, View(width=100), off]))
    image = render([window], SIZE)
    for view in (on, off):
        assert view.bounds.width == kit.dp(52) and view.bounds.height == kit.dp(32)
    h = on.bounds.height
    cy = on.bounds.center[1]
    right, left = h // 2, h // 2        # thumb centres, measured from each end of the track
    above_check = cy - round(h * 0.75 * 0.4)   # inside the "on" thumb, clear of its check mark
    assert near(px(image, on.bounds.right - right, above_check), WHITE)        # on: white thumb at the right
    assert near(px(image, on.bounds.left + left, cy), PRIMARY)                 # ...over an accent track
    assert near(px(image, off.bounds.left + left, cy), OUTLINE)                # off: grey thumb at the left
    assert near(px(image, off.bounds.right - right, cy), SURFACE_HIGHEST)      # ...on a pale track


def test_focused_field_has_an_accent_outline_and_a_cursor_after_the_text() -> None:
    def shot(focused: bool) -> tuple[Image.Image, View]:
        field = kit.edit_text("name", "Ada", hint="Name", on_change=lambda _v: None)
        field.focused = focused
        window = app(View(children=[field], padding=(40, 300, 40, 0)))
        return render([window], SIZE), field

    focused, field = shot(True)
    plain, _ = shot(False)
    left_pad, top_pad = field.padding[0], field.padding[1]
    text_end = field.bounds.left + left_pad + fonts.text_width("Ada", field.style.size)
    cursor_x, mid_y = text_end + kit.dp(1) + kit.dp(2) // 2, field.bounds.center[1]
    assert near(px(focused, cursor_x, mid_y), PRIMARY, 30)
    assert near(px(plain, cursor_x, mid_y), SURFACE, 4)
    edge_x = field.bounds.left + 1
    assert near(px(focused, edge_x, mid_y), PRIMARY, 30)
    assert near(px(plain, edge_x, mid_y), OUTLINE, 30)
    assert top_pad > 0 and focused.tobytes() != plain.tobytes()


def test_scrolled_away_content_is_not_drawn_outside_its_scroll_view() -> None:
    red, blue = (220, 30, 30), (30, 30, 220)
    items = [View(height=100, style=Style(kind="card", bg=red if i % 2 == 0 else blue, radius=12))
             for i in range(10)]
    header = View(height=300, style=Style(bg=(0, 200, 0)))
    scroller = View(children=items, scrollable=True, height=300, scroll=250)
    footer = View(height=300, style=Style(bg=(0, 200, 0)))
    window = app(View(children=[header, scroller, footer]))
    image = render([window], SIZE)
    # Items 0-1 scrolled above the view (into the header's rows) and items 6+ lie below it: neither leaks.
    for y in (5, 150, 299, 600, 700, 899):
        assert px(image, 540, y) == (0, 200, 0), y
    assert px(image, 540, 301) == red             # item 2, half scrolled away, is cut at the top edge
    assert px(image, 540, 380) == blue            # item 3
    assert px(image, 540, 598) == blue            # item 5, cut at the bottom edge


def test_dialog_scrim_darkens_what_lies_beneath() -> None:
    base = app(bg=(200, 200, 200))
    card = View(anchor="center", width=600, height=400, style=Style(kind="card", bg=WHITE, radius=40))
    holder = View(orientation="stack", children=[card])
    layout(holder, SCREEN)
    dialog = Window("dialog", "com.example", card, card.bounds, dim_behind=True)
    image = render([base, dialog], SIZE)
    assert near(px(image, 50, 50), (136, 136, 136), 2)   # 200 * (1 - 0.32)
    assert px(image, *card.bounds.center) == WHITE


def test_checkbox_fills_with_the_accent_when_checked() -> None:
    checked, unchecked = kit.checkbox(True), kit.checkbox(False)
    image = render([app(View(orientation="h", height=150, children=[checked, View(width=50), unchecked]))], SIZE)
    for box, expected in ((checked, PRIMARY), (unchecked, SURFACE)):
        side = round(box.bounds.width * 0.75)
        x = box.bounds.center[0] - side // 2 + side // 5
        y = box.bounds.center[1] - side // 2 + side // 5
        assert near(px(image, x, y), expected, 12)


def test_disabled_button_is_grey_and_enabled_one_is_the_accent() -> None:
    on = kit.button("Send", lambda: None)
    off = kit.button("Send", lambda: None, enabled=False)
    image = render([app(View(orientation="h", height=200, gap=40, children=[on, off]))], SIZE)

    def top_of(button: View) -> tuple[int, int]:   # on the pill, above the label
        return button.bounds.left + button.bounds.height // 2, button.bounds.top + 8

    assert near(px(image, *top_of(on)), PRIMARY, 6)
    grey = px(image, *top_of(off))
    assert max(grey) - min(grey) < 10 and 200 < grey[0] < 245


def test_wrapped_text_stays_inside_its_bounds() -> None:
    text = View(cls="android.widget.TextView", text="The quick brown fox jumps over the lazy dog. " * 6,
                padding=(20, 0, 20, 0), style=Style(kind="text", size=42, fg=(0, 0, 0)))
    block = View(height=400, style=Style(bg=(0, 200, 0)))
    image = render([app(View(children=[text, block], width=600))], SIZE)
    lines = len(fonts.wrap(text.text, 42, 560))
    assert lines > 3 and text.bounds.height == lines * fonts.line_height(42)
    inside = image.crop(text.bounds)
    assert inside.getextrema()[0][0] < 60                             # text was drawn...
    below = image.crop(block.bounds)
    assert below.getcolors() == [(block.bounds.width * 400, (0, 200, 0))]   # ...and none spilled below


def test_unknown_icons_draw_nothing_and_the_required_set_exists() -> None:
    required = ["back", "close", "search", "add", "more_vert", "check", "wifi", "bluetooth", "battery", "signal",
                "brightness", "dark_mode", "info", "person", "people", "message", "send", "globe", "note", "alarm",
                "clock", "cart", "shop", "settings", "delete", "edit", "star", "home", "recents", "nav_back",
                "arrow_forward", "menu", "phone", "mic", "backspace", "enter", "shift", "emoji", "refresh"]
    for name in required:
        mask = icons.mask(name, 48)
        assert mask is not None and mask.getbbox() is not None, name
    assert icons.mask("no_such_icon", 48) is None
    unknown = View(width=100, height=100, style=Style(kind="icon", icon="no_such_icon"))
    image = render([app(unknown)], SIZE)
    assert image.crop(unknown.bounds).getcolors() == [(100 * 100, SURFACE)]


def test_dark_theme_turns_surfaces_dark_and_keeps_text_light() -> None:
    label = View(cls="android.widget.TextView", text="█████", style=Style(kind="text", size=80))
    light, dark = render([app(label)], SIZE), render([app(label)], SIZE, dark=True)
    assert sum(px(light, 540, 1200)) > 720 and sum(px(dark, 540, 1200)) < 100
    assert light.crop(label.bounds).getextrema()[0][0] < 60
    assert dark.crop(label.bounds).getextrema()[0][1] > 180


def test_busy_screen_with_keyboard_and_bars_renders() -> None:
    rows = [kit.switch_row(f"Setting {i}", i % 2 == 0, lambda: None, icon="wifi", subtitle="Subtitle")
            for i in range(12)]
    body = kit.column([kit.edit_text("q", "query", hint="Search", on_change=lambda _v: None),
                       kit.row([kit.chip("All", lambda: None, selected=True), kit.chip("New", lambda: None)]),
                       kit.scroll(rows, key="list")])
    screen = kit.screen(kit.app_bar("Settings", up=lambda: None), body, fab=kit.fab("add", "Add", lambda: None))
    content = app(screen)
    kb, frame = keyboard.keyboard(1080, 2274, lambda _n: None)
    layout(kb, frame)
    status = system_bars.status_bar(1080, 63, "12:30", True, 90, False)
    layout(status, Rect(0, 0, 1080, 63))
    nav = system_bars.nav_bar(1080, 126, lambda: None, lambda: None, lambda: None)
    layout(nav, Rect(0, 2274, 1080, 2400))
    windows = [content, Window("ime", "ime", kb, frame), Window("status_bar", "ui", status, status.bounds),
               Window("nav_bar", "ui", nav, nav.bounds)]
    image = render(windows, SIZE)
    assert image.size == SIZE and len(image.getcolors(1 << 16) or []) > 50


def test_encode_png_round_trips() -> None:
    image = render([app(kit.fab("add", "Add", lambda: None))], SIZE)
    data = encode_png(image)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert Image.open(io.BytesIO(data)).convert("RGB").tobytes() == image.tobytes()
