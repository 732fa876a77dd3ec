"""Did the picture change? A tiny grey thumbnail of a screenshot, compared cell by cell.

The element map misses what the UI dump never holds — toasts, snackbars, canvases, video, many web pages —
so "the element list did not change" is not "nothing happened". A step is judged to have had no effect only
when the picture did not change either. The status bar is left out (its clock ticks on its own), and a
change must cover several cells clearly, so a blinking text cursor does not count.
"""

from __future__ import annotations

from PIL import Image

__all__ = ["PIXEL_GRID", "STATUS_BAR_SHARE", "pixel_signature", "pixels_changed", "pixels_same", "region_changed"]

PIXEL_GRID = (36, 80)          # cells across and down: ~30 px squares on a 1080x2400 screen
STATUS_BAR_SHARE = 0.035      # top of the screen left out: the clock and status icons change by themselves
_CELL_DELTA = 24               # grey levels (of 255) a cell must move by to count as changed
_MIN_CELLS = 4                 # ... and at least this many cells: a caret blink changes one or two
# Where the agent just acted, less is enough: an icon's tint or a small mark moves its one or two cells' average
# by a dozen grey levels (video and JPEG noise stay within a few).
_REGION_DELTA = 8


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


def region_changed(before: bytes | None, after: bytes | None, region: tuple[float, float, float, float],
                   screen: tuple[int, int]) -> bool | None:
    """Did the picture change inside ``region`` (left, top, right, bottom in pixels of a ``screen`` of that width
    and height, which the picture shows whole): finer than :func:`pixels_changed`, for the control just touched
    (a toggled icon that only changes colour). None when either signature is missing."""
    if not before or not after or len(before) != len(after) or not all(screen):
        return None
    columns, rows = PIXEL_GRID
    width, height = screen
    top = height * STATUS_BAR_SHARE
    cell_w, cell_h = width / columns, (height - top) / rows
    left, upper, right, lower = region
    first_column, last_column = max(0, int(left // cell_w)), min(columns - 1, int((right - 1) // cell_w))
    first_row = max(0, int((upper - top) // cell_h))
    last_row = min(rows - 1, int((lower - 1 - top) // cell_h))
    for row in range(first_row, last_row + 1):
        for column in range(first_column, last_column + 1):
            i = row * columns + column
            if abs(before[i] - after[i]) >= _REGION_DELTA:
                return True
    return False
