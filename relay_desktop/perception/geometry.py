"""Screen rectangles in device pixels, with the few operations visibility needs.

Android reports bounds as ``[left,top][right,bottom]`` with right/bottom exclusive; an element's
*visible* part is what remains after clipping to the screen and subtracting whatever is drawn above it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
# Larger than any real display; anything beyond is an error in the dump, not a screen.
_MAX_COORD = 1 << 20


class Bounds(NamedTuple):
    left: int
    top: int
    right: int
    bottom: int

    @classmethod
    def parse(cls, text: str) -> Bounds | None:
        """``"[0,72][1080,200]"`` → Bounds; None when the text is not bounds at all."""
        match = _BOUNDS.fullmatch(text.strip())
        if match is None:
            return None
        left, top, right, bottom = (max(-_MAX_COORD, min(_MAX_COORD, int(v))) for v in match.groups())
        # A reversed rectangle draws nothing; keep its corner so it still sorts in reading order.
        return cls(left, top, max(left, right), max(top, bottom))

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    @property
    def empty(self) -> bool:
        return self.right <= self.left or self.bottom <= self.top

    @property
    def center(self) -> tuple[int, int]:
        return (self.left + self.right) // 2, (self.top + self.bottom) // 2

    def intersect(self, other: Bounds) -> Bounds:
        left, top = max(self.left, other.left), max(self.top, other.top)
        right, bottom = min(self.right, other.right), min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return Bounds(left, top, left, top)
        return Bounds(left, top, right, bottom)

    def intersects(self, other: Bounds) -> bool:
        return (self.left < other.right and other.left < self.right
                and self.top < other.bottom and other.top < self.bottom)

    def contains(self, other: Bounds) -> bool:
        return (self.left <= other.left and self.top <= other.top
                and other.right <= self.right and other.bottom <= self.bottom)

    def contains_point(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def subtract(self, other: Bounds) -> list[Bounds]:
        """The parts of ``self`` not under ``other``: at most four rectangles (top, bottom, left, right bands)."""
        if not self.intersects(other):
            return [self]
        pieces = []
        if other.top > self.top:
            pieces.append(Bounds(self.left, self.top, self.right, other.top))
        if other.bottom < self.bottom:
            pieces.append(Bounds(self.left, other.bottom, self.right, self.bottom))
        mid_top, mid_bottom = max(self.top, other.top), min(self.bottom, other.bottom)
        if other.left > self.left:
            pieces.append(Bounds(self.left, mid_top, other.left, mid_bottom))
        if other.right < self.right:
            pieces.append(Bounds(other.right, mid_top, self.right, mid_bottom))
        return [p for p in pieces if not p.empty]

    def uiautomator(self) -> str:
        return f"[{self.left},{self.top}][{self.right},{self.bottom}]"

    def as_list(self) -> list[int]:
        return [self.left, self.top, self.right, self.bottom]


def visible_pieces(rect: Bounds, covers: list[Bounds]) -> list[Bounds]:
    """What is left of ``rect`` after every cover is cut out of it."""
    pieces = [rect]
    for cover in covers:
        if not pieces:
            break
        pieces = [part for piece in pieces for part in piece.subtract(cover)]
    return pieces
