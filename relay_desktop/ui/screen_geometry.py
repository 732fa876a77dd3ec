"""One coordinate truth for everything drawn over the phone: device pixels ↔ the picture ↔ the window.

Element bounds, action points and touches are in device pixels of the *whole* display as it is turned now
(navigation bar included). The picture (a mirror frame, maybe scaled down, or a screenshot) shows that whole
display. So a device point maps to the picture by the display's size, never by the size the element map
reports: a dump's root often leaves out the navigation bar (1080×2274 on a 1080×2400 phone), and scaling by it
stretched the picture and pushed every box down. The picture keeps its own aspect in the window.

Plain arithmetic, no Qt: the mirror view, history replay and the HTML report all use it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ScreenGeometry", "turned_like"]

Size = tuple[int, int]


def turned_like(size: Size, like: Size) -> Size:
    """``size`` turned a quarter when ``like`` is the other way round (portrait vs landscape).

    ``wm size`` gives the panel's natural size whatever the rotation; the picture says how it is turned now."""
    width, height = size
    if width and height and like[0] and like[1] and (width > height) != (like[0] > like[1]):
        return height, width
    return width, height


@dataclass(frozen=True)
class ScreenGeometry:
    device: Size                     # the whole display in device pixels, turned as the picture is
    picture: Size                    # the picture's own pixels (its aspect is kept)
    area: tuple[float, float]        # the room it is drawn in (the widget's width and height)

    @classmethod
    def of(cls, display: Size | None, picture: Size | None, area: tuple[float, float],
           fallback: Size = (1080, 2400)) -> ScreenGeometry:
        """The mapping for what is known: the display's size (natural or turned), the picture's size, or both.

        Without the display's size the picture is taken to show device pixels one to one (a screenshot does);
        without a picture the display's aspect is drawn; with neither, ``fallback``."""
        valid_picture = picture if picture and picture[0] > 0 and picture[1] > 0 else None
        valid_display = display if display and display[0] > 0 and display[1] > 0 else None
        if valid_display is not None:
            device = turned_like(valid_display, valid_picture) if valid_picture else valid_display
        else:
            device = valid_picture or fallback
        return cls(device=device, picture=valid_picture or device, area=area)

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """Where the picture is drawn: its own aspect, as large as fits, centred (x, y, width, height)."""
        width, height = self.picture
        area_w, area_h = self.area
        scale = min(area_w / width, area_h / height)
        w, h = width * scale, height * scale
        return (area_w - w) / 2, (area_h - h) / 2, w, h

    def to_area(self, x: float, y: float) -> tuple[float, float]:
        """A device point where it shows in the window."""
        left, top, w, h = self.rect
        return left + x * w / self.device[0], top + y * h / self.device[1]

    def to_device(self, x: float, y: float) -> tuple[float, float] | None:
        """The device point under a window point, or None outside the picture."""
        left, top, w, h = self.rect
        if not (left <= x <= left + w and top <= y <= top + h) or not w or not h:
            return None
        return (x - left) * self.device[0] / w, (y - top) * self.device[1] / h

    def bounds_to_area(self, bounds: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """Device bounds (left, top, right, bottom) in the window's coordinates, same order."""
        left, top, right, bottom = bounds
        x1, y1 = self.to_area(left, top)
        x2, y2 = self.to_area(right, bottom)
        return x1, y1, x2, y2
