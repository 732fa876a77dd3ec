"""The virtual phone's screen: windows drawn from the same laid-out view trees the hierarchy dump reads.

Windows are drawn in z-order (app, dialog, keyboard, toast, status and navigation bars); a window with
``dim_behind`` first darkens everything beneath it. Each view is drawn at its full ``bounds`` but only its
``visible`` part reaches the frame: a view that is partly scrolled away is drawn onto a crop of the frame
the size of its visible rectangle and pasted back, so nothing leaks outside its scroll view.

Drawing routines per ``Style.kind`` live in :mod:`widgets` and :mod:`fields`, shapes and text in
:mod:`paint`, glyphs in :mod:`icons`.
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from relay_desktop.sim.paint import SURFACE, Ctx, Theme, fill_round
from relay_desktop.sim.views import Rect, View, Window
from relay_desktop.sim.widgets import draws_anything, paint

SCRIM_ALPHA = 0.32          # Material 3 dialog scrim: black at 32 %
DP_PER_SHORT_SIDE = 411.4   # a 1080 px wide, 420 dpi screen is 411 dp across
_SCRIM_TABLE = [round(v * (1 - SCRIM_ALPHA)) for v in range(256)] * 3


def render(windows: list[Window], size: tuple[int, int], dark: bool = False) -> Image.Image:
    """The screen as an RGB image of ``size`` (width, height)."""
    theme = Theme(dark=dark, dp=min(size) / DP_PER_SHORT_SIDE)
    frame = Image.new("RGB", size, theme.c(SURFACE))
    draw = ImageDraw.Draw(frame)
    ctx = Ctx(frame, draw, theme)
    screen = Rect(0, 0, size[0], size[1])
    for window in windows:
        if window.dim_behind:
            # Black at a fixed alpha is a per-channel scale: one lookup table, faster than a mask blend.
            # In split screen a dialog dims its own task only.
            area = window.dim_area.intersect(screen) if window.dim_area is not None else screen
            if not area.empty:
                frame.paste(frame.crop(area).point(_SCRIM_TABLE), (area.left, area.top))
        _draw_tree(ctx, window.root, screen)
    return frame


def _draw_tree(ctx: Ctx, view: View, screen: Rect) -> None:
    visible = view.visible.intersect(screen)
    if visible.empty:
        return  # children are clipped to their parent, so none of them shows either
    if draws_anything(view):
        _draw_view(ctx, view, visible)
    for child in view.children:
        _draw_tree(ctx, child, screen)


def _draw_view(ctx: Ctx, view: View, visible: Rect) -> None:
    bounds = view.bounds
    if visible == bounds:
        paint(ctx, view, bounds)
        return
    s = view.style
    if s.kind == "plain" and s.radius == 0 and s.border is None and not view.text and not view.selected:
        if s.bg is not None:
            fill_round(ctx.img, visible, 0, ctx.theme.c(s.bg))  # a flat background needs no layer
        return
    # Draw on a crop of the frame (so translucent and antialiased edges blend with what is beneath),
    # with the view's rectangle shifted into the crop's coordinates, then paste the crop back.
    layer = ctx.img.crop(visible)
    shifted = Rect(bounds.left - visible.left, bounds.top - visible.top,
                   bounds.right - visible.left, bounds.bottom - visible.top)
    paint(Ctx(layer, ImageDraw.Draw(layer), ctx.theme), view, shifted)
    ctx.img.paste(layer, (visible.left, visible.top))


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes for ``screencap -p``; light compression, since speed matters more than size here."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()
