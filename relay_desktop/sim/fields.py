"""Painters for input surfaces: text fields (outlined, filled, search), the launcher's search pill and
keyboard keys. Registered into the renderer's table by :mod:`relay_desktop.sim.widgets`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from relay_desktop.sim import fonts, icons
from relay_desktop.sim.paint import (
    ON_SURFACE_VARIANT,
    OUTLINE,
    PRIMARY,
    RGB,
    SURFACE_HIGHEST,
    WHITE,
    Ctx,
    Theme,
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


@dataclass(frozen=True)
class TextLayout:
    """Where a field draws its value: the lines, the offset in the value each starts at, and the box they sit in.
    The painter draws from it and the phone maps touches with it, so a tap lands on the character drawn there."""

    lines: tuple[str, ...]
    starts: tuple[int, ...]
    box: Rect
    size: int
    weight: int
    align: str
    centered: bool

    def _top(self) -> int:
        line_h = fonts.line_height(self.size)
        return self.box.top + ((self.box.height - line_h * len(self.lines)) // 2 if self.centered else 0)

    def _left(self, line: str) -> int:
        width = fonts.text_width(line, self.size, self.weight)
        if self.align == "center":
            return self.box.left + (self.box.width - width) // 2
        return self.box.right - width if self.align == "right" else self.box.left

    def line_of(self, offset: int) -> int:
        return max((i for i, start in enumerate(self.starts) if start <= offset), default=0)

    def caret(self, offset: int) -> tuple[int, int, int]:
        """(x, top, bottom) of the cursor before ``offset``."""
        i = self.line_of(offset)
        line, line_h = self.lines[i], fonts.line_height(self.size)
        column = min(max(0, offset - self.starts[i]), len(line))
        x = self._left(line) + fonts.text_width(line[:column], self.size, self.weight)
        top = self._top() + i * line_h
        return x, top, top + line_h

    def offset_at(self, x: float, y: float) -> int:
        """The offset whose cursor position is nearest to (x, y): the line under y, then the nearest character gap."""
        line_h = fonts.line_height(self.size)
        i = min(max(0, int((y - self._top()) // line_h)), len(self.lines) - 1)
        line, left = self.lines[i], self._left(self.lines[i])
        gaps = [abs(left + fonts.text_width(line[:k], self.size, self.weight) - x) for k in range(len(line) + 1)]
        return self.starts[i] + gaps.index(min(gaps))


def _line_starts(value: str, lines: tuple[str, ...]) -> tuple[int, ...]:
    """Each wrapped line's offset in ``value``: wrapping drops one space (or newline) at each break."""
    starts, pos = [], 0
    for line in lines:
        found = value.find(line.rstrip("…"), pos)
        pos = found if found >= 0 else pos
        starts.append(pos)
        pos += len(line)
        if pos < len(value) and value[pos] in " \n":
            pos += 1
    return tuple(starts)


def text_layout(view: View, r: Rect, dp: float) -> TextLayout:
    """The layout of a text field's value inside ``r`` (its bounds, or where a layer draws it)."""
    s = view.style
    px = Theme(dark=False, dp=dp).px
    value = "•" * len(view.text) if view.password else view.text
    search = s.kind == "search"
    floating = bool(view.hint) and not search and (bool(value) or view.focused)
    single_line = view.height is not None
    box = inner(view, r)
    if not search and s.bg is not None and floating:
        box = Rect(box.left, box.top + px(8), box.right, box.bottom + px(8))
    if not value:
        lines: tuple[str, ...] = ("",)
        starts: tuple[int, ...] = (0,)
    elif single_line:
        lines = (_tail_that_fits(value, s.size, s.weight, box.width),)
        starts = (len(value) - len(lines[0]),)
    else:
        lines = wrapped(value, s.size, box.width, s.weight, s.max_lines)
        starts = _line_starts(value, lines)
    return TextLayout(lines, starts, box, s.size, s.weight, s.align, single_line)


def _selection(ctx: Ctx, layout: TextLayout, selection: tuple[int, int], color: RGB) -> None:
    """The highlight behind selected text, line by line."""
    start, end = sorted(selection)
    for i, line_start in enumerate(layout.starts):
        line_end = line_start + len(layout.lines[i])
        a, b = max(start, line_start), min(end, line_end)
        if a >= b and not (start < line_start <= end and not layout.lines[i]):
            continue
        x1, top, bottom = layout.caret(a)
        x2 = layout.caret(b)[0] if b > a else x1 + ctx.theme.px(4)
        fill_round(ctx.img, Rect(x1, top, max(x2, x1 + 1), bottom), 0, color)


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
    text = text_layout(view, r, t.dp)
    selection = view.selection if view.focused and view.selection is not None else (len(value), len(value))
    if selection[0] != selection[1]:
        _selection(ctx, text, selection, mix(accent, t.c(s.bg, WHITE), 0.7))
    if value:
        draw_lines(ctx.draw, text.lines, text.box, s.size, s.weight, fg, s.align, single_line)
    elif view.hint and not floating:
        hint = wrapped(view.hint, s.size, box.width, s.weight, 1 if single_line else s.max_lines)
        draw_lines(ctx.draw, hint, box, s.size, s.weight, muted, s.align, single_line)
    if view.focused and selection[0] == selection[1]:
        # The cursor's baseline is where draw_lines puts the line's: its metrics, not the line box's middle.
        x, top, bottom = text.caret(selection[1])
        baseline = draw_lines(ctx.draw, ("",), Rect(text.box.left, top, text.box.right, bottom), s.size,
                              s.weight, fg, "left", False)[1]
        _cursor(ctx, x, baseline, s.size, accent)


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
