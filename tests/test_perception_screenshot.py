"""Screenshot preparation on realistic synthetic phone screens: budget, quality choice, scaling, inputs."""

from __future__ import annotations

import base64
import io
import random

import pytest
from PIL import Image, ImageDraw

from relay_desktop.perception.screenshot import PreparedScreenshot, prepare_screenshot, prepare_screenshot_async

SCREEN_W, SCREEN_H = 1080, 2400
# With the default max_side the screen is sent at 576x1280: ~33 kB at q15, ~83 kB at q50 for this image.
MID_BUDGET = 55_000


def _phone_screen(width: int = SCREEN_W, height: int = SCREEN_H, seed: int = 7) -> Image.Image:
    """Flat UI blocks, rows of text-like glyphs and sensor noise: sizes close to a real screenshot's."""
    rng = random.Random(seed)
    img = Image.new("RGB", (width, height), (245, 245, 245))
    draw = ImageDraw.Draw(img)
    for _ in range(60):
        x0, y0 = rng.randrange(width), rng.randrange(height)
        draw.rectangle((x0, y0, x0 + rng.randrange(40, 500), y0 + rng.randrange(20, 300)),
                       fill=(rng.randrange(256), rng.randrange(256), rng.randrange(256)))
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEF0123456789"
    for row in range(0, height, 36):
        x = 24
        while x < width - 60:
            word = "".join(rng.choice(alphabet) for _ in range(rng.randrange(2, 9)))
            draw.text((x, row + 8), word, fill=(20, 20, 20))
            x += 8 * len(word) + 12
    # Seeded noise (Image.effect_noise is not), so sizes and chosen qualities are the same on every run.
    noise = Image.frombytes("L", (width, height), rng.randbytes(width * height)).convert("RGB")
    return Image.blend(img, noise, 0.08)


@pytest.fixture(scope="module")
def screen() -> Image.Image:
    return _phone_screen()


@pytest.fixture(scope="module")
def small_screen() -> Image.Image:
    return _phone_screen(270, 600, seed=3)


def _decode(shot: PreparedScreenshot) -> Image.Image:
    img = Image.open(io.BytesIO(shot.jpeg))
    img.load()
    return img


def test_default_settings_fit_the_budget_at_the_top_quality(screen: Image.Image) -> None:
    shot = prepare_screenshot(screen)
    assert (shot.width, shot.height) == (576, 1280)
    assert (shot.source_width, shot.source_height) == (SCREEN_W, SCREEN_H)
    assert shot.quality == 50
    assert len(shot.jpeg) <= 150_000
    assert shot.scale == pytest.approx(1280 / 2400)
    decoded = _decode(shot)
    assert decoded.format == "JPEG" and decoded.mode == "RGB" and decoded.size == (576, 1280)
    assert "exif" not in decoded.info


@pytest.mark.parametrize("budget", [40_000, MID_BUDGET, 75_000])
def test_a_tight_budget_picks_the_highest_quality_that_fits(screen: Image.Image, budget: int) -> None:
    shot = prepare_screenshot(screen, max_bytes=budget)
    assert 15 < shot.quality < 50
    assert len(shot.jpeg) <= budget
    assert (shot.width, shot.height) == (576, 1280)  # quality gave way, not resolution
    # One step up, same frame, unlimited budget: that encoding would not have fitted.
    above = prepare_screenshot(screen, max_bytes=10**9, min_quality=shot.quality + 1, max_quality=shot.quality + 1)
    assert (above.width, above.height) == (shot.width, shot.height)
    assert len(above.jpeg) > budget


def test_quality_stays_inside_custom_bounds(screen: Image.Image) -> None:
    generous = prepare_screenshot(screen, max_bytes=10**9, min_quality=20, max_quality=30)
    assert generous.quality == 30
    fixed = prepare_screenshot(screen, max_bytes=10**9, min_quality=42, max_quality=42)
    assert fixed.quality == 42


def test_downscale_keeps_the_aspect_ratio_and_maps_coordinates_back(screen: Image.Image) -> None:
    shot = prepare_screenshot(screen, max_side=800)
    assert max(shot.width, shot.height) == 800
    assert shot.width / shot.height == pytest.approx(SCREEN_W / SCREEN_H, abs=0.01)
    step = SCREEN_W / shot.width  # one sent pixel covers this many device pixels
    for point in [(0, 0), (540, 1200), (1079, 2399), (123, 2001), (1000, 77)]:
        back = shot.to_device(*shot.to_image(*point))
        assert abs(back[0] - point[0]) <= step and abs(back[1] - point[1]) <= step
    # Centre of the sent image is the centre of the screen; float answers from a model are fine.
    assert shot.to_device(shot.width / 2, shot.height / 2) == pytest.approx((540, 1200), abs=2)


def test_coordinates_outside_the_image_clamp_to_the_screen(screen: Image.Image) -> None:
    shot = prepare_screenshot(screen)
    assert shot.to_device(-20, -3.5) == (0, 0)
    assert shot.to_device(shot.width + 50, shot.height) == (SCREEN_W - 1, SCREEN_H - 1)
    assert shot.to_device(shot.width - 1, 0) == (SCREEN_W - 1, 0)
    assert shot.to_image(SCREEN_W * 3, -1) == (shot.width - 1, 0)


def test_no_downscale_when_the_image_is_already_small(small_screen: Image.Image) -> None:
    shot = prepare_screenshot(small_screen)
    assert (shot.width, shot.height, shot.scale) == (270, 600, 1.0)
    assert shot.to_device(100, 400) == (100, 400)
    assert shot.to_image(269, 599) == (269, 599)


def test_max_side_none_keeps_full_resolution(small_screen: Image.Image) -> None:
    big = small_screen.resize((1350, 3000))
    shot = prepare_screenshot(big, max_side=None, max_bytes=10**9)
    assert (shot.width, shot.height, shot.scale) == (1350, 3000, 1.0)


def test_a_tiny_budget_shrinks_the_image_until_it_fits(screen: Image.Image) -> None:
    shot = prepare_screenshot(screen, max_bytes=8_000)
    assert len(shot.jpeg) <= 8_000
    assert shot.width < 576 and shot.scale < 1280 / 2400
    assert shot.quality >= 15
    assert shot.width / shot.height == pytest.approx(SCREEN_W / SCREEN_H, abs=0.02)
    assert _decode(shot).size == (shot.width, shot.height)
    # The last sent pixel covers ~5 device pixels and maps to their centre; its far edge clamps to the screen's.
    step = SCREEN_W / shot.width
    x, y = shot.to_device(shot.width - 1, shot.height - 1)
    assert SCREEN_W - step <= x < SCREEN_W and SCREEN_H - step <= y < SCREEN_H
    assert shot.to_device(shot.width, shot.height) == (SCREEN_W - 1, SCREEN_H - 1)


def test_an_impossible_budget_still_returns_the_smallest_attempt(screen: Image.Image) -> None:
    shot = prepare_screenshot(screen, max_bytes=100)  # below the JPEG headers alone
    assert len(shot.jpeg) > 100
    assert max(shot.width, shot.height) < 64
    assert shot.quality == 15
    assert _decode(shot).size == (shot.width, shot.height)


@pytest.mark.parametrize("mode", ["RGBA", "P", "L", "LA", "1", "CMYK"])
def test_any_pil_mode_is_accepted(small_screen: Image.Image, mode: str) -> None:
    source = small_screen.convert(mode)
    shot = prepare_screenshot(source)
    assert source.mode == mode  # the caller's image is left alone
    assert _decode(shot).mode == "RGB"
    assert (shot.width, shot.height) == (270, 600)


def test_transparency_is_composited_on_black() -> None:
    img = Image.new("RGBA", (100, 100), (255, 255, 255, 0))  # white, but fully transparent
    img.paste((255, 0, 0, 255), (50, 0, 100, 100))
    decoded = _decode(prepare_screenshot(img, max_quality=95, min_quality=95))
    assert max(decoded.getpixel((10, 50))) < 16
    red = decoded.getpixel((90, 50))
    assert red[0] > 230 and red[1] < 30 and red[2] < 30


def test_transparent_palette_index_is_composited_on_black() -> None:
    img = Image.new("P", (80, 80), 1)
    img.putpalette([0, 0, 0, 255, 255, 255] + [0] * 762)
    img.info["transparency"] = 1
    decoded = _decode(prepare_screenshot(img))
    assert max(decoded.getpixel((40, 40))) < 16


def test_encoded_bytes_are_accepted(small_screen: Image.Image) -> None:
    for fmt in ("PNG", "WEBP", "JPEG"):
        buf = io.BytesIO()
        small_screen.save(buf, format=fmt)
        shot = prepare_screenshot(buf.getvalue())
        assert (shot.source_width, shot.source_height) == (270, 600), fmt
        assert _decode(shot).size == (270, 600)


def test_exif_in_the_input_is_not_sent(small_screen: Image.Image) -> None:
    exif = Image.Exif()
    exif[0x010F] = "SecretPhoneMaker"  # Make
    buf = io.BytesIO()
    small_screen.save(buf, format="JPEG", exif=exif)
    shot = prepare_screenshot(buf.getvalue())
    assert b"SecretPhoneMaker" not in shot.jpeg
    assert "exif" not in _decode(shot).info


@pytest.mark.parametrize("data", [b"", b"definitely not a picture", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40])
def test_bad_bytes_raise_value_error(data: bytes) -> None:
    with pytest.raises(ValueError, match="not an image"):
        prepare_screenshot(data)


def test_truncated_png_raises_value_error(small_screen: Image.Image) -> None:
    buf = io.BytesIO()
    small_screen.save(buf, format="PNG")
    with pytest.raises(ValueError, match="not an image"):
        prepare_screenshot(buf.getvalue()[: len(buf.getvalue()) // 2])


def test_zero_size_image_raises_value_error() -> None:
    with pytest.raises(ValueError, match="empty image"):
        prepare_screenshot(Image.new("RGB", (0, 10)))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_bytes": 0}, "max_bytes"),
    ({"max_bytes": -5}, "max_bytes"),
    ({"min_quality": 0}, "1..95"),
    ({"max_quality": 96}, "1..95"),
    ({"min_quality": 40, "max_quality": 30}, "above max_quality"),
    ({"max_side": 0}, "max_side"),
])
def test_bad_arguments_raise_value_error(small_screen: Image.Image, kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        prepare_screenshot(small_screen, **kwargs)


def test_wrong_input_type_raises_type_error() -> None:
    with pytest.raises(TypeError, match="str"):
        prepare_screenshot("screen.png")  # type: ignore[arg-type]


def test_repr_is_short_and_shows_sizes_not_bytes(screen: Image.Image) -> None:
    shot = prepare_screenshot(screen, max_bytes=MID_BUDGET)
    text = repr(shot)
    assert len(text) < 120
    assert "576x1280" in text and "1080x2400" in text
    assert f"quality={shot.quality}" in text and f"{len(shot.jpeg)} bytes" in text
    assert "\\x" not in text and "b'" not in text


def test_base64_and_media_type_are_ready_for_a_prompt(small_screen: Image.Image) -> None:
    shot = prepare_screenshot(small_screen)
    assert shot.media_type == "image/jpeg"
    assert base64.b64decode(shot.base64(), validate=True) == shot.jpeg
    assert shot.jpeg.startswith(b"\xff\xd8")


def test_result_is_immutable(small_screen: Image.Image) -> None:
    shot = prepare_screenshot(small_screen)
    with pytest.raises(AttributeError):
        shot.quality = 10  # type: ignore[misc]


async def test_async_wrapper_gives_the_same_result(screen: Image.Image) -> None:
    shot = await prepare_screenshot_async(screen, max_bytes=MID_BUDGET)
    assert shot == prepare_screenshot(screen, max_bytes=MID_BUDGET)
    assert len(shot.jpeg) <= MID_BUDGET


def test_whole_number_shrinks_use_a_block_average_of_the_exact_size() -> None:
    from relay_desktop.perception.screenshot import integer_side

    assert integer_side(1080, 2400) == 1200          # 2400 / 2
    assert integer_side(1440, 3120) == 1040          # 3120 / 3
    assert integer_side(1080, 2340, 1280) == 1170    # 2340 / 2
    assert integer_side(720, 1280) == 1280           # already small enough
    assert integer_side(1081, 2401) == 1280          # no whole factor: the plain limit
    image = Image.new("RGB", (1080, 2400), "white")
    image.paste((0, 0, 0), (0, 0, 2, 2))             # one 2×2 black block → one black pixel after halving
    shot = prepare_screenshot(image, max_side=integer_side(*image.size), max_quality=95)
    assert (shot.width, shot.height) == (540, 1200)
    decoded = Image.open(io.BytesIO(shot.jpeg)).convert("L")
    assert decoded.getpixel((0, 0)) < 60 and decoded.getpixel((3, 3)) > 200
