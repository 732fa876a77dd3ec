"""Did the picture change? A tiny grey thumbnail of a screenshot, compared cell by cell.

The element map misses what the UI dump never holds — toasts, snackbars, canvases, video, many web pages —
so "the element list did not change" is not "nothing happened". A step is judged to have had no effect only
when the picture did not change either. The status bar is left out (its clock ticks on its own), and a
change must cover several cells clearly, so a blinking text cursor does not count.
"""

from __future__ import annotations

from PIL import Image

__all__ = ["PIXEL_GRID", "STATUS_BAR_SHARE", "pixel_signature", "pixels_changed", "pixels_same"]

PIXEL_GRID = (36, 80)          # cells across and down: ~30 px squares on a 1080x2400 screen
STATUS_BAR_SHARE = 0.035      # top of the screen left out: the clock and status icons change by themselves
_CELL_DELTA = 24               # grey levels (of 255) a cell must move by to count as changed
_MIN_CELLS = 4                 # ... and at least this many cells: a caret blink changes one or two


def pixel_signature(image: Image.Image) -> bytes:
    """The picture as PIXEL_GRID grey cells (status bar cut off), for :func:`pixels_changed`."""
    width, height = image.size
    top = int(height * STATUS_BAR_SHARE)
    body = image.crop((0, top, width, height)) if top else image
    # reduce() averages whole blocks first (fast, exact), then a small resize finishes the job.
    factor = max(1, min(body.width // (PIXEL_GRID[0] * 2), body.height // (PIXEL_GRID[1] * 2)))
    small = body.convert("L").reduce(factor) if factor > 1 else body.convert("L")
    return small.resize(PIXEL_GRID, Image.Resampling.BOX).tobytes()


def pixels_changed(before: bytes | None, after: bytes | None) -> bool | None:
    """True when the picture changed visibly; None when either signature is missing (no screenshot)."""
    if not before or not after or len(before) != len(after):
        return None
    changed = sum(1 for a, b in zip(before, after, strict=True) if abs(a - b) >= _CELL_DELTA)
    return changed >= _MIN_CELLS


def pixels_same(before: bytes | None, after: bytes | None, tolerance: int = 8) -> bool:
    """The same picture, give or take encoding noise: no cell moved by more than ``tolerance`` grey levels
    (stricter than :func:`pixels_changed`, for reusing what was read off the last picture)."""
    if not before or not after or len(before) != len(after):
        return False
    return all(abs(a - b) <= tolerance for a, b in zip(before, after, strict=True))
