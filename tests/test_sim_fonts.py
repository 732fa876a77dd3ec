"""Chinese, Japanese and Korean text and emoji on the virtual phone are drawn with Android's fallback fonts,
as a phone draws them, not as empty boxes: a model reading the screenshot must see what was typed."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageDraw

from relay_desktop.sim import fonts, paint
from relay_desktop.sim.views import Rect

needs_cjk = pytest.mark.skipif(fonts.fallback_font(20) is None,
                               reason="Debian's fonts-droid-fallback is not installed (CI installs it)")
needs_emoji = pytest.mark.skipif(fonts.emoji_font() is None,
                                 reason="Debian's fonts-noto-color-emoji is not installed (CI installs it)")

SIZE = 32
INK = (27, 27, 31)   # the light theme's text colour: a grey that any colour in an emoji stands out from


def _drawn(text: str, mode: str = "L", width: int = 400) -> Image.Image:
    image = Image.new(mode, (width, 60), 255 if mode == "L" else (255, 255, 255))
    color = (0,) if mode == "L" else INK
    paint.draw_lines(ImageDraw.Draw(image), [text], Rect(0, 0, width, 60), SIZE, 400, color)  # type: ignore[arg-type]
    return image


def _ink(image: Image.Image) -> tuple[int, int, int, int] | None:
    """Bounding box of whatever differs from the white background."""
    return image.convert("L").point(lambda v: 255 if v < 250 else 0).getbbox()


def _colourful_pixels(image: Image.Image) -> int:
    """Pixels far from grey: text is drawn in one grey, a colour emoji is not."""
    hsv = image.convert("HSV")
    saturated = hsv.getchannel("S").point(lambda s: 255 if s > 80 else 0)
    bright = hsv.getchannel("V").point(lambda v: 255 if v > 60 else 0)
    return ImageChops.multiply(saturated, bright).histogram()[255]


@needs_cjk
def test_cjk_runs_use_the_fallback_font_and_latin_runs_roboto() -> None:
    assert fonts.runs("Grüße 你好!", 20) == [("Grüße ", "roboto"), ("你好", "cjk"), ("!", "roboto")]
    assert fonts.runs("plain", 20) == [("plain", "roboto")]


@needs_cjk
def test_two_different_ideographs_are_drawn_differently() -> None:
    # Missing glyphs are all the same box; real glyphs differ.
    assert _drawn("你").tobytes() != _drawn("好").tobytes()
    assert fonts.text_width("你好", 32) > fonts.text_width("你", 32) > 0


@needs_emoji
def test_emoji_runs_keep_sequences_whole() -> None:
    assert fonts.runs("Hi 🎂!", SIZE) == [("Hi ", "roboto"), ("🎂", "emoji"), ("!", "roboto")]
    # A family (joined by U+200D), a skin tone, a flag's two letters and a keycap ('1', U+FE0F, U+20E3) each
    # reach the emoji font whole, which draws each as one picture.
    family, thumb, flag, keycap = "👨\u200d👩\u200d👧", "👍🏽", "🇯🇵", "1\ufe0f\u20e3"
    assert fonts.runs(f"{family} {thumb}{flag} {keycap}", SIZE) == [
        (family, "emoji"), (" ", "roboto"), (thumb + flag, "emoji"), (" ", "roboto"), (keycap, "emoji")]
    assert fonts.text_width(family, SIZE) == fonts.text_width("🎂", SIZE)
    # '#' and '1' stay text unless U+FE0F asks for the emoji.
    assert fonts.runs("#1 ❤", SIZE) == [("#1 ", "roboto"), ("❤", "emoji")]


@needs_emoji
def test_an_emoji_is_drawn_in_colour_not_as_a_box() -> None:
    cake, box = _drawn("🎂", "RGB"), _drawn("\ue000", "RGB")  # U+E000: private use, in no font
    assert _ink(cake) is not None and _ink(box) is not None
    assert _colourful_pixels(cake) > 100
    assert _colourful_pixels(box) == 0
    assert _drawn("🎂").tobytes() != _drawn("\ue000").tobytes()
    assert _drawn("🎂").tobytes() != _drawn("🔥").tobytes()


@needs_emoji
def test_japanese_with_emoji_shows_both() -> None:
    # The message a model once saw with a box where the cake should be.
    text = "お誕生日おめでとう！🎂 🔥"
    image = _drawn(text, "RGB", width=500)
    cut = fonts.text_width("お誕生日おめでとう！", SIZE)
    assert _colourful_pixels(image.crop((cut, 0, 500, 60))) > 200
    ink = _ink(image)
    assert ink is not None and ink[2] <= fonts.text_width(text, SIZE) + 1


@needs_emoji
def test_what_is_drawn_is_where_layout_measured_it() -> None:
    # The 'b' after an emoji starts where the measured width of 'a🎂' ends, and the line's ink ends
    # within its measured width: layout and drawing agree on the emoji's advance.
    with_b, without_b = _drawn("a🎂b"), _drawn("a🎂")
    b_alone = ImageChops.difference(with_b, without_b).getbbox()
    assert b_alone is not None
    assert fonts.text_width("a🎂", SIZE) - 1 <= b_alone[0] and b_alone[2] <= fonts.text_width("a🎂b", SIZE) + 1
    ink = _ink(with_b)
    assert ink is not None and ink[0] >= 0 and ink[2] <= fonts.text_width("a🎂b", SIZE) + 1


@needs_emoji
def test_wrapped_text_with_emoji_fits_its_bounds() -> None:
    width = 260
    text = "Thank you!! 😊🙏 Let's celebrate 🥳🎉 this weekend 👨\u200d👩\u200d👧 🇯🇵"
    lines = fonts.wrap(text, SIZE, width)
    assert len(lines) > 1 and "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        assert fonts.text_width(line, SIZE) <= width
        ink = _ink(_drawn(line, "RGB", width=width + 40))
        assert ink is not None and ink[2] <= width + 1


def test_without_the_emoji_font_emoji_are_boxes_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fonts, "emoji_font", lambda: None)
    assert fonts.runs("Hi 🎂", SIZE) == [("Hi 🎂", "roboto")]
    assert fonts.text_width("Hi 🎂", SIZE) > fonts.text_width("Hi ", SIZE)
    image = _drawn("Hi 🎂", "RGB")
    assert _ink(image) is not None and _colourful_pixels(image) == 0


# --- issue 25: Arabic, Hebrew, Cyrillic, Greek, Devanagari and symbols, not boxes -----------------------------

needs_scripts = pytest.mark.skipif(fonts.script_font("devanagari", 20) is None,
                                   reason="Debian's fonts-noto-core is not installed (CI installs it)")
SCRIPTS = ["مرحبا", "שלום", "Привет", "Γειά", "नमस्ते", "→ ✓ ↵"]


def _boxes(count: int) -> Image.Image:
    return _drawn("\ue000" * count)


@needs_scripts
@pytest.mark.parametrize("text", SCRIPTS)
def test_other_scripts_and_symbols_are_drawn_as_letters_not_boxes(text: str) -> None:
    """Arabic and '→' were drawn as boxes in the virtual phone's pictures (issue 25)."""
    for run, face in fonts.runs(text, SIZE):
        for char in run.replace(" ", ""):
            assert fonts._covers(face, char), (text, char, face)
    letters = [c for c in text if c != " "]
    assert ImageChops.difference(_drawn(text), _boxes(len(letters))).getbbox() is not None


@needs_scripts
def test_arabic_is_shaped() -> None:
    """Joined letters, not isolated forms side by side: shaping makes the word narrower than its letters apart."""
    word = "مرحبا"
    assert fonts.run_width(word, "arabic", SIZE) < sum(fonts.run_width(c, "arabic", SIZE) for c in word)


def test_a_missing_script_font_degrades_to_boxes_with_one_log_line(monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setitem(fonts._SCRIPT_FONTS, "hebrew", ("/nonexistent/NoSuchHebrew.ttf",))
    fonts._script_path.cache_clear()
    fonts.script_font.cache_clear()
    try:
        with caplog.at_level("INFO", logger="relay_desktop.sim.fonts"):
            assert fonts.runs("שלום", SIZE) == [("שלום", "roboto")]
            assert _drawn("שלום").getbbox() is not None
        assert sum("no hebrew font installed" in r.message for r in caplog.records) == 1
    finally:
        fonts._script_path.cache_clear()
        fonts.script_font.cache_clear()
