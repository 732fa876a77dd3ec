"""Chinese, Japanese and Korean text on the virtual phone is drawn with Android's fallback font, as a phone
draws it, not as empty boxes: a model reading the screenshot must see what was typed."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from relay_desktop.sim import fonts, paint
from relay_desktop.sim.views import Rect

pytestmark = pytest.mark.skipif(fonts.fallback_font(20) is None,
                                reason="Debian's fonts-droid-fallback is not installed (CI installs it)")


def _drawn(text: str) -> Image.Image:
    image = Image.new("L", (400, 60), 255)
    paint.draw_lines(ImageDraw.Draw(image), [text], Rect(0, 0, 400, 60), 32, 400, (0,))  # type: ignore[arg-type]
    return image


def test_cjk_runs_use_the_fallback_font_and_latin_runs_roboto() -> None:
    assert fonts.runs("Grüße 你好!", 20) == [("Grüße ", False), ("你好", True), ("!", False)]
    assert fonts.runs("plain", 20) == [("plain", False)]


def test_two_different_ideographs_are_drawn_differently() -> None:
    # Missing glyphs are all the same box; real glyphs differ.
    assert _drawn("你").tobytes() != _drawn("好").tobytes()
    assert fonts.text_width("你好", 32) > fonts.text_width("你", 32) > 0
