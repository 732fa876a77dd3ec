"""Drawing pen for the vector icon set: Material's 24-unit grid, drawn supersampled into an alpha mask."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PIL import ImageDraw

SUPERSAMPLE = 4
Point = tuple[float, float]


class Pen:
    """Draws on the supersampled mask in 24-unit grid coordinates; ``fill=0`` cuts holes."""

    def __init__(self, draw: ImageDraw.ImageDraw, scale: float) -> None:
        self.d, self.s = draw, scale

    def _pts(self, pts: Sequence[Point]) -> list[Point]:
        return [(x * self.s, y * self.s) for x, y in pts]

    def _bbox(self, cx: float, cy: float, r: float) -> tuple[float, float, float, float]:
        s = self.s
        return (cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s

    def line(self, pts: Sequence[Point], w: float = 2.0, fill: int = 255) -> None:
        """A polyline with round caps and joins (as Material's 2-unit strokes)."""
        self.d.line(self._pts(pts), fill=fill, width=max(1, round(w * self.s)), joint="curve")
        for x, y in (pts[0], pts[-1]):
            self.d.ellipse(self._bbox(x, y, w / 2), fill=fill)

    def loop(self, pts: Sequence[Point], w: float = 2.0) -> None:
        self.line([*pts, pts[0], pts[1]], w)

    def poly(self, pts: Sequence[Point], fill: int = 255) -> None:
        self.d.polygon(self._pts(pts), fill=fill)

    def circle(self, cx: float, cy: float, r: float, w: float = 0.0, fill: int = 255) -> None:
        if w:
            self.d.ellipse(self._bbox(cx, cy, r), outline=fill, width=max(1, round(w * self.s)))
        else:
            self.d.ellipse(self._bbox(cx, cy, r), fill=fill)

    def rect(self, left: float, top: float, right: float, bottom: float, radius: float = 0.0, w: float = 0.0,
             fill: int = 255) -> None:
        s = self.s
        box = (left * s, top * s, right * s, bottom * s)
        if w:
            self.d.rounded_rectangle(box, radius=radius * s, outline=fill, width=max(1, round(w * s)))
        else:
            self.d.rounded_rectangle(box, radius=radius * s, fill=fill)

    def arc(self, cx: float, cy: float, r: float, start: float, end: float, w: float = 2.0) -> None:
        """Angles in degrees, clockwise from 3 o'clock (PIL's convention)."""
        self.d.arc(self._bbox(cx, cy, r), start, end, fill=255, width=max(1, round(w * self.s)))

    def pie(self, cx: float, cy: float, r: float, start: float, end: float, fill: int = 255) -> None:
        self.d.pieslice(self._bbox(cx, cy, r), start, end, fill=fill)


IconFn = Callable[[Pen], None]


def registrar(table: dict[str, IconFn]) -> Callable[..., Callable[[IconFn], IconFn]]:
    """A decorator that files a drawing function in ``table`` under one or more icon names."""

    def icon(*names: str) -> Callable[[IconFn], IconFn]:
        def register(fn: IconFn) -> IconFn:
            for name in names:
                table[name] = fn
            return fn
        return register
    return icon
