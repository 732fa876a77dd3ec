"""What a picture of the phone may show once it leaves the machine.

- A protected window (FLAG_SECURE: banking, OTP and DRM apps) comes out of ``screencap``, the scrcpy stream and
  uiautomator's screenshot as a black frame, while accessibility still reads the screen. Such a frame shows the
  model nothing and misleads it into acting on a blank picture: :func:`is_blank_frame` finds it.
- A password field's pixels can show the last character typed (Android echoes it for a moment) or, with "show
  password" on, all of it: :func:`password_regions` finds them in the dump and :func:`mask_regions` paints them
  over before the picture is encoded for a model, the history, an export or a recording.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from PIL import Image, ImageDraw

from relay_desktop.perception.geometry import Bounds
from relay_desktop.perception.tree import UITree

__all__ = ["MASK_COLOUR", "is_blank_frame", "mask_regions", "outside_regions", "password_regions",
           "region_boxes"]

# A screen-off or FLAG_SECURE capture is exactly black; a dark theme is not (its surfaces are grey #121212 and
# up, and the status bar's icons are drawn on it), so the bar is low and the share high.
_DARK_LEVEL = 8
_DARK_SHARE = 0.995
_THUMBNAIL = (72, 128)
MASK_COLOUR = (96, 96, 96)
_MARGIN = 4          # device pixels around a field: its caret and the edge of its echoed character


def is_blank_frame(image: Image.Image) -> bool:
    """The picture is (all but) black: what a capture of a protected window, or of a screen that is off, gives."""
    grey = image.convert("L").resize(_THUMBNAIL, Image.Resampling.BOX)
    histogram = grey.histogram()
    dark = sum(histogram[:_DARK_LEVEL + 1])
    return dark >= _DARK_SHARE * _THUMBNAIL[0] * _THUMBNAIL[1]


def password_regions(tree: UITree) -> list[Bounds]:
    """Where the dump's visible password fields are, in the dump's (screen) pixels."""
    regions = []
    for node in tree.nodes:
        if node.password and node.visible:
            bounds = tree.on_screen(node.bounds)
            if not bounds.empty:
                regions.append(Bounds(bounds.left - _MARGIN, bounds.top - _MARGIN,
                                      bounds.right + _MARGIN, bounds.bottom + _MARGIN))
    return regions


def mask_regions(image: Image.Image, regions: Sequence[Bounds], screen: tuple[int, int]) -> Image.Image:
    """A copy of ``image`` with ``regions`` (in pixels of a ``screen`` of that width and height, which the picture
    shows whole, perhaps scaled) painted over. The picture itself is left as it was."""
    if not regions:
        return image
    masked = image.convert("RGB") if image.mode != "RGB" else image.copy()
    draw = ImageDraw.Draw(masked)
    for box in region_boxes(regions, image.size, screen):
        draw.rectangle(box, fill=MASK_COLOUR)
    return masked


def region_boxes(regions: Sequence[Bounds], size: tuple[int, int], screen: tuple[int, int]
                 ) -> list[tuple[int, int, int, int]]:
    """``regions`` (in pixels of a ``screen`` of that width and height) as boxes in a picture of ``size`` that
    shows the screen whole: (left, top, right, bottom), right and bottom included, clipped to the picture; a
    region partly covering a pixel covers all of it. One rule for every picture that is masked (screenshots,
    recordings' frames), so they all hide the same pixels."""
    sx, sy = size[0] / screen[0], size[1] / screen[1]
    boxes = []
    for r in regions:
        left, top = max(0, int(r.left * sx)), max(0, int(r.top * sy))
        right = min(size[0] - 1, int(r.right * sx + 0.999) - 1)
        bottom = min(size[1] - 1, int(r.bottom * sy + 0.999) - 1)
        if left <= right and top <= bottom:
            boxes.append((left, top, right, bottom))
    return boxes


class _Placed(Protocol):
    @property
    def bounds(self) -> Bounds: ...


_T = TypeVar("_T", bound=_Placed)


def outside_regions(texts: Iterable[_T], regions: Sequence[Bounds]) -> list[_T]:
    """The lines of text (anything with ``bounds`` in screen pixels) whose middle is in none of ``regions``."""
    kept = []
    for text in texts:
        x, y = text.bounds.center
        if not any(r.contains_point(x, y) for r in regions):
            kept.append(text)
    return kept
