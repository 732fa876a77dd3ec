"""Per-kind drawing routines of the renderer (Material 3 look), one function per ``Style.kind``.

Each routine gets the view and ``r``, the view's full rectangle in the coordinates of the image it draws
on (the renderer may hand it a cropped layer so that scrolled content stays inside its scroll view).
Colours in styles are light-theme values; :class:`~relay_desktop.sim.paint.Theme` maps them for night
mode. Text is wrapped with the same function and width as layout used, so it fits the dumped bounds.
"""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.sim.fields import FIELD_PAINTERS
from relay_desktop.sim.paint import (
    ON_PRIMARY,
    ON_PRIMARY_CONTAINER,
    ON_SURFACE,
    ON_SURFACE_VARIANT,
    OUTLINE,
    OUTLINE_VARIANT,
    PRIMARY,
    PRIMARY_CONTAINER,
    RGB,
    SURFACE,
    SURFACE_HIGHEST,
    Ctx,
    background,
    blend_round,
    draw_lines,
    fg_of,
    fill_round,
    glyph,
    inner,
    label,
    mix,
    shadow,
    stroke_round,
)
from relay_desktop.sim.views import Rect, View

Painter = Callable[[Ctx, View, Rect], None]
_PAINTERS: dict[str, Painter] = {}
# Kinds that show selection themselves; others get a translucent accent tint when selected.
_SHOWS_SELECTION = {"list_item", "chip", "nav_tab", "icon_button", "key", "switch", "checkbox", "radio", "edit",
                    "search"}


def _kind(*kinds: str) -> Callable[[Painter], Painter]:
    def register(fn: Painter) -> Painter:
        for kind in kinds:
            _PAINTERS[kind] = fn
        return fn
    return register


def paint(ctx: Ctx, view: View, r: Rect) -> None:
    _PAINTERS.get(view.style.kind, _plain)(ctx, view, r)
    if view.selected and view.style.kind not in _SHOWS_SELECTION:
        accent = ctx.theme.c(view.style.accent, PRIMARY)
        blend_round(ctx.img, r, view.style.radius, accent, 0.14)


def draws_anything(view: View) -> bool:
    """False for bare containers, which most views are; the renderer skips them."""
    s = view.style
    return (s.kind != "plain" or s.bg is not None or s.border is not None or view.selected
            or (not view.children and bool(view.text)))


# ---------------------------------------------------------------- plain views and text

@_kind("plain", "text", "appbar", "card")
def _plain(ctx: Ctx, view: View, r: Rect) -> None:
    background(ctx, view, r)
    if not view.children:
        label(ctx, view, r, fg_of(ctx, view))


@_kind("list_item")
def _list_item(ctx: Ctx, view: View, r: Rect) -> None:
    if view.style.bg is None and view.selected:
        fill_round(ctx.img, r, view.style.radius, ctx.theme.c(view.style.accent, PRIMARY_CONTAINER))
    _plain(ctx, view, r)


@_kind("divider")
def _divider(ctx: Ctx, view: View, r: Rect) -> None:
    fill_round(ctx.img, r, 0, ctx.theme.c(view.style.bg, OUTLINE_VARIANT))


@_kind("scrim")
def _scrim(ctx: Ctx, view: View, r: Rect) -> None:
    bg = view.style.bg
    alpha = bg[3] / 255 if bg is not None and len(bg) == 4 else 0.32
    blend_round(ctx.img, r, 0, (0, 0, 0) if bg is None else (bg[0], bg[1], bg[2]), alpha)


# ---------------------------------------------------------------- buttons

@_kind("button", "text_button")
def _button(ctx: Ctx, view: View, r: Rect) -> None:
    s, t = view.style, ctx.theme
    radius = s.radius or r.height // 2
    surface, on = t.c(SURFACE), t.c(ON_SURFACE)
    if view.enabled:
        fg = t.c(s.fg)
        bg = None if s.bg is None else t.c(s.bg)
        border = None if s.border is None else t.c(s.border)
    else:
        fg = mix(surface, on, 0.38)
        bg = None if s.bg is None else mix(surface, on, 0.12)
        border = None if s.border is None else mix(surface, on, 0.12)
    if bg is not None:
        fill_round(ctx.img, r, radius, bg)
    if border is not None:
        stroke_round(ctx.img, r, radius, t.px(1), border)
    if s.icon and not view.text:
        glyph(ctx, s.icon, r.center, t.px(18), fg)
    label(ctx, view, r, fg, center=True)


@_kind("icon_button")
def _icon_button(ctx: Ctx, view: View, r: Rect) -> None:
    s, t = view.style, ctx.theme
    radius = s.radius or min(r.width, r.height) // 2
    if s.bg is not None:
        fill_round(ctx.img, r, radius, t.c(s.bg))
    elif view.selected or view.checked:
        fill_round(ctx.img, r, radius, t.c(s.accent, PRIMARY_CONTAINER))
    side = min(r.width, r.height)
    # A touch-target-sized button (48 dp) shows a 24 dp glyph; a small one is all glyph.
    glyph(ctx, s.icon, r.center, side // 2 if side >= t.px(36) else side, fg_of(ctx, view))


@_kind("fab")
def _fab(ctx: Ctx, view: View, r: Rect) -> None:
    s, t = view.style, ctx.theme
    radius = s.radius or t.px(16)
    shadow(ctx.img, r, radius, t.px(4), t.px(2), 0.3 if not t.dark else 0.5)
    fill_round(ctx.img, r, radius, t.c(s.bg, PRIMARY_CONTAINER))
    fg = fg_of(ctx, view)
    size = round(min(r.width, r.height) * 24 / 56)
    if not view.text:
        glyph(ctx, s.icon, r.center, size, fg)
        return
    # Extended FAB: icon, then the label.
    glyph(ctx, s.icon, (r.left + t.px(16) + size // 2, r.center[1]), size, fg)
    box = Rect(r.left + t.px(28) + size, r.top, r.right - t.px(16), r.bottom)
    draw_lines(ctx.draw, [view.text], box, s.size, s.weight, fg, "left", True)


@_kind("chip")
def _chip(ctx: Ctx, view: View, r: Rect) -> None:
    s, t = view.style, ctx.theme
    on = view.checked or view.selected
    radius = s.radius or r.height // 2
    if s.bg is not None or on:
        fill_round(ctx.img, r, radius, t.c(s.bg, PRIMARY_CONTAINER))
    elif s.border is not None:
        stroke_round(ctx.img, r, radius, t.px(1), t.c(s.border))
    fg = fg_of(ctx, view, t.c(ON_PRIMARY_CONTAINER) if on else None)
    label(ctx, view, r, fg, center=True)


# ---------------------------------------------------------------- small shapes

@_kind("icon")
def _icon(ctx: Ctx, view: View, r: Rect) -> None:
    background(ctx, view, r)
    glyph(ctx, view.style.icon, r.center, min(r.width, r.height), fg_of(ctx, view))


@_kind("avatar")
def _avatar(ctx: Ctx, view: View, r: Rect) -> None:
    s, t = view.style, ctx.theme
    fill_round(ctx.img, r, min(r.width, r.height) // 2, t.c(s.bg, PRIMARY_CONTAINER))
    initials = view.text or "".join(w[0] for w in view.desc.split()[:2]).upper()
    if s.icon and not initials:
        glyph(ctx, s.icon, r.center, min(r.width, r.height) * 3 // 5, fg_of(ctx, view))
        return
    draw_lines(ctx.draw, [initials], r, s.size, s.weight, fg_of(ctx, view), "center", True)


@_kind("app_icon")
def _app_icon(ctx: Ctx, view: View, r: Rect) -> None:
    # Launcher icons keep their brand colours in both themes, as on a phone.
    s = view.style
    bg = (s.bg[0], s.bg[1], s.bg[2]) if s.bg is not None else PRIMARY
    side = min(r.width, r.height)
    fill_round(ctx.img, r, s.radius or side // 2, bg)
    glyph(ctx, s.icon, r.center, round(side * 0.5), (s.fg[0], s.fg[1], s.fg[2]))


@_kind("image")
def _image(ctx: Ctx, view: View, r: Rect) -> None:
    s, t = view.style, ctx.theme
    bg = t.c(s.bg, PRIMARY_CONTAINER)
    fill_round(ctx.img, r, s.radius, bg)
    size = min(min(r.width, r.height) // 3, t.px(64))
    glyph(ctx, s.icon or "image", r.center, size, mix(bg, t.c(ON_SURFACE_VARIANT), 0.55))


@_kind("switch")
def _switch(ctx: Ctx, view: View, r: Rect) -> None:
    t, h = ctx.theme, r.height
    surface = t.c(SURFACE)

    def dim(color: RGB) -> RGB:
        return color if view.enabled else mix(color, surface, 0.62)

    cy = r.top + h // 2
    if view.checked:
        fill_round(ctx.img, r, h // 2, dim(t.c(view.style.accent, PRIMARY)))
        d, cx, thumb = round(h * 0.75), r.right - h // 2, dim(t.c(ON_PRIMARY))
    else:
        fill_round(ctx.img, r, h // 2, dim(t.c(SURFACE_HIGHEST)))
        stroke_round(ctx.img, r, h // 2, max(1, round(h / 16)), dim(t.c(OUTLINE)))
        d, cx, thumb = h // 2, r.left + h // 2, dim(t.c(OUTLINE))
    fill_round(ctx.img, Rect(cx - d // 2, cy - d // 2, cx - d // 2 + d, cy - d // 2 + d), d, thumb)
    if view.checked:
        glyph(ctx, "check", (cx, cy), round(d * 0.62), dim(t.c(view.style.accent, PRIMARY)))


@_kind("checkbox")
def _checkbox(ctx: Ctx, view: View, r: Rect) -> None:
    t = ctx.theme
    side = round(min(r.width, r.height) * 0.75)
    left, top = r.center[0] - side // 2, r.center[1] - side // 2
    box = Rect(left, top, left + side, top + side)
    accent = fg_of(ctx, view, t.c(view.style.accent, PRIMARY))
    if view.checked:
        fill_round(ctx.img, box, t.px(2), accent)
        glyph(ctx, "check", box.center, round(side * 0.9), t.c(ON_PRIMARY))
    else:
        stroke_round(ctx.img, box, t.px(2), t.px(2), fg_of(ctx, view, t.c(ON_SURFACE_VARIANT)))


@_kind("radio")
def _radio(ctx: Ctx, view: View, r: Rect) -> None:
    t = ctx.theme
    side = round(min(r.width, r.height) * 0.84)
    left, top = r.center[0] - side // 2, r.center[1] - side // 2
    ring = Rect(left, top, left + side, top + side)
    color = fg_of(ctx, view, t.c(view.style.accent, PRIMARY) if view.checked else t.c(ON_SURFACE_VARIANT))
    stroke_round(ctx.img, ring, side, t.px(2), color)
    if view.checked:
        dot = side // 2
        fill_round(ctx.img, Rect(ring.center[0] - dot // 2, ring.center[1] - dot // 2,
                                 ring.center[0] - dot // 2 + dot, ring.center[1] - dot // 2 + dot), dot, color)


@_kind("seekbar")
def _seekbar(ctx: Ctx, view: View, r: Rect) -> None:
    # ui.Kit.seekbar keeps the value in ``text`` and the maximum in ``style.max_lines``.
    t, box = ctx.theme, inner(view, r)
    try:
        fraction = min(1.0, max(0.0, int(view.text or 0) / max(1, view.style.max_lines)))
    except ValueError:
        fraction = 0.0
    accent = fg_of(ctx, view, t.c(view.style.accent, PRIMARY))
    cy, track = r.center[1], t.px(4)
    x = box.left + round(fraction * box.width)
    fill_round(ctx.img, Rect(x, cy - track // 2, box.right, cy - track // 2 + track), track,
               fg_of(ctx, view, t.c(PRIMARY_CONTAINER)))
    fill_round(ctx.img, Rect(box.left, cy - track // 2, x, cy - track // 2 + track), track, accent)
    d = t.px(20)
    fill_round(ctx.img, Rect(x - d // 2, cy - d // 2, x - d // 2 + d, cy - d // 2 + d), d, accent)


@_kind("nav_tab")
def _nav_tab(ctx: Ctx, view: View, r: Rect) -> None:
    t = ctx.theme
    background(ctx, view, r)
    icon = next((c for c in view.children if c.style.kind == "icon"), None)
    if view.selected and icon is not None:
        dx, dy = r.left - view.bounds.left, r.top - view.bounds.top
        cx, cy = icon.bounds.center[0] + dx, icon.bounds.center[1] + dy
        w, h = t.px(64), t.px(32)
        fill_round(ctx.img, Rect(cx - w // 2, cy - h // 2, cx + w // 2, cy + h // 2), h // 2,
                   t.c(view.style.accent, PRIMARY_CONTAINER))


@_kind("canvas")
def _canvas(ctx: Ctx, view: View, r: Rect) -> None:
    # A view that draws its own content (sim/canvas.py: a drawn web page, a game board); nothing of it is dumped.
    background(ctx, view, r)
    draw = getattr(view, "draw_pixels", None)
    if draw is not None:
        draw(ctx, r)


_PAINTERS.update(FIELD_PAINTERS)
