"""Boxes sit on their elements: for a real frame of the virtual phone and its dump, the box the window draws over
an element covers that element's own pixels within a pixel — portrait and landscape, with the live mirror and with
screenshots only, at two window sizes. Qt offscreen, Google's adb, the virtual phone."""

from __future__ import annotations

import asyncio

import pytest
import qasync
from PIL import Image
from PySide6.QtGui import QImage

from relay_desktop.perception.pixels import pixel_signature, pixels_changed
from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.screen_geometry import ScreenGeometry, turned_like

CLOCK = "com.google.android.deskclock"


def _fill_bounds(image: QImage, seed: tuple[int, int], tolerance: int = 24) -> tuple[int, int, int, int]:
    """The extent (left, top, right, bottom; right and bottom exclusive) of the surface of the seed's colour
    connected to the seed: an element's own filled pixels, as the window shows them."""
    seed_colour = image.pixelColor(*seed)
    want = (seed_colour.red(), seed_colour.green(), seed_colour.blue())

    def same(x: int, y: int) -> bool:
        colour = image.pixelColor(x, y)
        return max(abs(colour.red() - want[0]), abs(colour.green() - want[1]),
                   abs(colour.blue() - want[2])) <= tolerance

    seen = {seed}
    todo = [seed]
    while todo:
        x, y = todo.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if (nx, ny) not in seen and 0 <= nx < image.width() and 0 <= ny < image.height() and same(nx, ny):
                seen.add((nx, ny))
                todo.append((nx, ny))
    assert len(seen) < image.width() * image.height() // 4, "the seed was not on the element's own surface"
    xs = [x for x, _ in seen]
    ys = [y for _, y in seen]
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def _as_pil(image: QImage) -> Image.Image:
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    return Image.frombuffer("RGB", (rgb.width(), rgb.height()), bytes(rgb.constBits()), "raw", "RGB",
                            rgb.bytesPerLine(), 1)


async def _showing_the_phone_now(window: MainWindow) -> None:
    """Wait until the window's picture is the phone's screen as it is now (a slow machine's mirror lags)."""
    view, device = window.mirror_view, window.session.device
    assert device is not None
    for _ in range(300):
        image = view._image
        shot = await device.screenshot()
        if image is not None:                     # the same scale, so cell edges fall alike
            shot = shot.resize((image.width(), image.height()), Image.Resampling.BILINEAR)
        if image is not None and (image.width() > image.height()) == (shot.width > shot.height) and \
                pixels_changed(pixel_signature(shot), pixel_signature(_as_pil(image))) is False:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the window never showed the phone's current screen")


def _check_fab(window: MainWindow, label: str) -> None:
    view = window.mirror_view
    element_map = window.inspector.element_map
    assert element_map is not None
    fab = element_map.find("Add alarm")[0]
    view.show_boxes = False                      # the element's own pixels, not the box drawn over them
    grabbed = view.grab().toImage()
    view.show_boxes = True
    drawn = view.box_rect(fab.bounds)
    seed = (int(drawn.left() + drawn.width() * 0.12), int(drawn.center().y()))
    found = _fill_bounds(grabbed, seed)
    expected = (drawn.left(), drawn.top(), drawn.right(), drawn.bottom())
    off = [abs(a - b) for a, b in zip(found, expected, strict=True)]
    # Within a pixel, plus half a pixel for where the picture's smoothed edge falls between two rows.
    assert max(off) <= 1.5, f"{label}: box {expected} vs the element's pixels {found} (off by {off})"
    # The picture keeps the frame's own aspect: not stretched to the element map's shorter screen.
    image = view._image
    assert image is not None
    rect = view._target_rect()
    assert abs(rect.width() / rect.height() - image.width() / image.height()) < 0.005, label
    # A click on the element selects it (inspect), and it is the element under the same device point.
    centre = view.to_device(drawn.center())
    assert centre is not None and element_map.element_at(*centre) is not None
    assert element_map.element_at(*centre).id == fab.id, label


@pytest.mark.parametrize("mirror", [True, False], ids=["live-mirror", "screenshots-only"])
def test_each_box_covers_its_elements_own_pixels(window: MainWindow, qt_loop: qasync.QEventLoop,
                                                 monkeypatch: pytest.MonkeyPatch, mirror: bool) -> None:
    # `uiautomator dump`, whose screen leaves out the navigation bar (uiautomator2's covers the whole display):
    # the case that pushed every box down.
    monkeypatch.setenv("RELAY_DESKTOP_UI_SERVER", "off")
    if not mirror:
        from relay_desktop.mirror.client import MirrorError

        async def refuse(self: object) -> None:
            raise MirrorError("switched off for this test")
        monkeypatch.setattr("relay_desktop.mirror.client.MirrorClient.start", refuse)

    async def scenario() -> None:
        try:
            await checks()
        finally:
            await window.shutdown()

    async def checks() -> None:
        await window.session.start_virtual_phone()
        assert (window.session.mirror is not None) == mirror
        phone = window.session.service.phone
        phone.launch(CLOCK)
        window.tabs.setCurrentIndex(1)                          # Inspect: the dump the boxes come from
        for rotation in (0, 1):
            phone.rotate(rotation)
            await _showing_the_phone_now(window)
            await window.refresh_elements()
            element_map = window.inspector.element_map
            assert element_map is not None
            # The dump's screen leaves out the navigation bar: the case that pushed every box down.
            assert element_map.screen.height < window.mirror_view.screen_size()[1]
            for size in ((1200, 900), (800, 1300)):
                window.resize(*size)
                await asyncio.sleep(0.15)
                _check_fab(window, f"rotation {rotation}, window {size}, mirror {mirror}")

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 90))


def test_the_mapping_goes_through_the_whole_display_turned_as_the_picture() -> None:
    # A 540x1200 mirror frame of a 1080x2400 phone in a 600x600 room: drawn 270x600, centred.
    geometry = ScreenGeometry.of((1080, 2400), (540, 1200), (600, 600))
    assert geometry.rect == (165.0, 0.0, 270.0, 600.0)
    assert geometry.to_area(1080, 2400) == (435.0, 600.0)
    assert geometry.to_device(300, 300) == (540.0, 1200.0)
    assert geometry.to_device(10, 300) is None                  # beside the picture
    # Landscape: `wm size` still says 1080x2400; the frame says the phone is turned.
    turned = ScreenGeometry.of((1080, 2400), (1200, 540), (1200, 540))
    assert turned.device == (2400, 1080)
    assert turned.to_area(2400, 1080) == (1200.0, 540.0)
    assert turned_like((1080, 2400), (2400, 1080)) == (2400, 1080)
    # Without a display size the picture is one to one; without a picture the display's aspect is drawn.
    assert ScreenGeometry.of(None, (1080, 2400), (100, 100)).device == (1080, 2400)
    assert ScreenGeometry.of((1080, 2400), None, (100, 100)).picture == (1080, 2400)
