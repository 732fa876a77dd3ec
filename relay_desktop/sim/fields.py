"""Painters for input surfaces: text fields (outlined, filled, search), the launcher's search pill and
keyboard keys. Registered into the renderer's table by :mod:`relay_desktop.sim.widgets`."""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.sim import fonts, icons
from relay_desktop.sim.paint import (
    ON_SURFACE_VARIANT,
    OUTLINE,
    PRIMARY,
    RGB,
    SURFACE_HIGHEST,
    WHITE,
    Ctx,
    draw_lines,
    fg_of,
    fill_round,
    glyph,
    inner,
    mix,
    stroke_round,
    wrapped,
)
from relay_desktop.sim.views import Rect, View


def _tail_that_fits(text: str, size: int, weight: int, width: int) -> str:
    """What a single-line field shows of a long value: its end, where the cursor is."""
    if fonts.text_width(text, size, weight) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        if fonts.text_width(text[mid:], size, weight) <= width:
            hi = mid
        else:
            lo = mid + 1
    return text[lo:]


def _cursor(ctx: Ctx, x: int, baseline: int, size: int, color: RGB) -> None:
    t = ctx.theme
    top, bottom = baseline - round(size * 0.95), baseline + round(size * 0.22)
    fill_round(ctx.img, Rect(x + t.px(1), top, x + t.px(1) + t.px(2), bottom), 0, color)


def _field(ctx: Ctx, view: View, r: Rect) -> None:
    """A Material 3 text field. Outlined by default; ``style.bg`` makes it a filled field and kind
    ``search`` a pill-shaped search bar. Focus shows as an accent outline (or underline) plus a cursor;
    the hint floats onto the outline once the field has text or focus, and is grey inside it otherwise."""
    s, t = view.style, ctx.theme
    accent = fg_of(ctx, view, t.c(s.accent, PRIMARY))
    muted = fg_of(ctx, view, t.c(ON_SURFACE_VARIANT))
    search = s.kind == "search"
    filled = search or s.bg is not None
    value = "•" * len(view.text) if view.password else view.text
    floating = bool(view.hint) and not search and (bool(value) or view.focused)
    single_line = view.height is not None
    box = inner(view, r)
    small = round(s.size * 0.75)

    if filled:
        bg = t.c(s.bg, SURFACE_HIGHEST)
        if search:
            fill_round(ctx.img, r, s.radius or r.height // 2, bg)
        else:
            fill_round(ctx.img, r, s.radius, bg)
            fill_round(ctx.img, Rect(r.left, r.bottom - s.radius, r.right, r.bottom), 0, bg)
            line = t.px(2) if view.focused else t.px(1)
            fill_round(ctx.img, Rect(r.left, r.bottom - line, r.right, r.bottom), 0,
                       accent if view.focused else muted)
            if floating:
                draw_lines(ctx.draw, [view.hint], Rect(box.left, r.top + t.px(6), box.right, r.top + t.px(24)),
                           small, 400, accent if view.focused else muted, "left", True)
                box = Rect(box.left, box.top + t.px(8), box.right, box.bottom + t.px(8))
    else:
        # The label sits on the outline, so the outline is cut where it goes; the cut is painted with
        # whatever is behind the field, read from the frame before the field is drawn.
        pixel = ctx.img.getpixel((min(max(r.left + t.px(8), 0), ctx.img.width - 1),
                                  min(max(r.top + t.px(6), 0), ctx.img.height - 1)))
        behind: RGB = pixel[:3] if isinstance(pixel, tuple) else (int(pixel or 0),) * 3  # type: ignore[assignment]
        width = t.px(2) if view.focused else t.px(1)
        stroke_round(ctx.img, r, s.radius, width, accent if view.focused else t.c(s.border, OUTLINE))
        if floating:
            label_w = fonts.text_width(view.hint, small)
            gap = Rect(box.left - t.px(4), r.top - t.px(2), box.left + label_w + t.px(4), r.top + t.px(3))
            fill_round(ctx.img, gap, 0, behind)
            draw_lines(ctx.draw, [view.hint], Rect(box.left, r.top - small, box.right, r.top + small),
                       small, 400, accent if view.focused else muted, "left", True)

    fg = fg_of(ctx, view)
    if value:
        if single_line:
            lines: tuple[str, ...] = (_tail_that_fits(value, s.size, s.weight, box.width),)
        else:
            lines = wrapped(value, s.size, box.width, s.weight, s.max_lines)
        end = draw_lines(ctx.draw, lines, box, s.size, s.weight, fg, s.align, single_line)
    else:
        if view.hint and not floating:
            hint = wrapped(view.hint, s.size, box.width, s.weight, 1 if single_line else s.max_lines)
            draw_lines(ctx.draw, hint, box, s.size, s.weight, muted, s.align, single_line)
        # An empty line: where the cursor of an empty field goes, for any alignment.
        end = draw_lines(ctx.draw, ("",), box, s.size, s.weight, fg, s.align, single_line)
    if view.focused:
        _cursor(ctx, end[0], end[1], s.size, accent)


def _search_pill(ctx: Ctx, view: View, r: Rect) -> None:
    """The launcher's search bar: a pill with a search glyph, the label and a mic."""
    s, t = view.style, ctx.theme
    fill_round(ctx.img, r, s.radius or r.height // 2, t.c(s.bg, WHITE))
    size, fg = t.px(24), fg_of(ctx, view)
    glyph(ctx, s.icon, (r.left + t.px(20) + size // 2, r.center[1]), size, fg)
    glyph(ctx, "mic", (r.right - t.px(20) - size // 2, r.center[1]), size, fg)
    box = Rect(r.left + t.px(32) + size, r.top, r.right - t.px(44) - size, r.bottom)
    draw_lines(ctx.draw, [view.text] if view.text else [], box, s.size, s.weight, fg, "left", True)


def _key(ctx: Ctx, view: View, r: Rect) -> None:
    """A keyboard key: the view is the touch area, the visible key is inset like Gboard's.
    ``style.icon`` is the key face: an icon name, or a literal label such as "?123"; without it a
    one-character content description is the label."""
    s, t = view.style, ctx.theme
    face = r.inset(t.px(3), t.px(4.5), t.px(3), t.px(4.5))
    bg = t.c(s.bg, WHITE)
    if t.dark:
        bg = mix(bg, WHITE, 0.1)  # keys sit lighter than the panel in Gboard's dark theme
    fill_round(ctx.img, face, s.radius or t.px(6), bg)
    fg = fg_of(ctx, view)
    if s.icon and icons.mask(s.icon, 8) is not None:
        glyph(ctx, s.icon, face.center, round(min(face.height * 0.46, face.width * 0.6)), fg)
    elif s.icon or len(view.desc) == 1:
        draw_lines(ctx.draw, [s.icon or view.desc], face, s.size, s.weight, fg, "center", True)


FIELD_PAINTERS: dict[str, Callable[[Ctx, View, Rect], None]] = {
    "edit": _field,
    "search": _field,
    "search_pill": _search_pill,
    "key": _key,
}
