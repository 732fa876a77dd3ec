"""Drawing primitives of the renderer: theme colours, antialiased rounded shapes, shadows and text.

PIL's own rounded rectangles and ellipses are not antialiased, so curved edges come from small
supersampled corner masks (cached per radius) pasted at the corners of plain rectangles. Nothing here
loops over pixels in Python, and every mask is cached, so a frame costs a few hundred C-level fills.
"""

from __future__ import annotations

import colorsys
import functools
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFilter

from relay_desktop.sim import fonts, icons
from relay_desktop.sim.views import Color, Rect, View

RGB = tuple[int, int, int]
SUPERSAMPLE = 4

# Light-theme palette (Material 3 baseline, as in ui.py); the dark theme is derived from it.
SURFACE: RGB = (250, 250, 253)
ON_SURFACE: RGB = (27, 27, 31)
ON_SURFACE_VARIANT: RGB = (68, 71, 78)
PRIMARY: RGB = (11, 87, 208)
ON_PRIMARY: RGB = (255, 255, 255)
PRIMARY_CONTAINER: RGB = (211, 227, 253)
ON_PRIMARY_CONTAINER: RGB = (4, 30, 73)
SURFACE_HIGHEST: RGB = (227, 227, 233)
OUTLINE: RGB = (116, 119, 127)
OUTLINE_VARIANT: RGB = (196, 198, 208)
WHITE: RGB = (255, 255, 255)


@functools.lru_cache(maxsize=4096)
def _to_dark(color: RGB) -> RGB:
    """Night-mode counterpart of a light-theme colour: lightness is inverted, so light surfaces turn
    near-black and dark text turns near-white, while hue survives (a blue accent stays blue)."""
    h, lightness, s = colorsys.rgb_to_hls(*(c / 255 for c in color))
    chroma = (max(color) - min(color)) / 255
    if chroma < 0.06:
        # Surfaces, outlines and text: kept near-neutral, as Material's dark surfaces are faintly tinted.
        lightness, s = 0.075 + (1 - lightness) * 0.83, min(s, 0.12)
    else:
        # Accents and containers: readable on a dark surface; pastel containers (and wallpapers) turn
        # into muted deep tones rather than vivid ones.
        if lightness > 0.8:
            s = min(s, 0.55)
        lightness = 0.2 + (1 - lightness) * 0.62
    r, g, b = colorsys.hls_to_rgb(h, lightness, s)
    return round(r * 255), round(g * 255), round(b * 255)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """``a`` moved a fraction ``t`` of the way towards ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


@dataclass(frozen=True)
class Theme:
    dark: bool
    dp: float    # pixels per dp; the renderer does not know the density, so it derives it from the screen

    def c(self, color: Color | None, fallback: RGB = ON_SURFACE) -> RGB:
        """A style colour (``fallback`` when unset) in this theme; any alpha is left to the caller."""
        rgb = fallback if color is None else (color[0], color[1], color[2])
        return _to_dark(rgb) if self.dark else rgb

    def px(self, dp: float) -> int:
        return max(1, round(dp * self.dp))


# ---------------------------------------------------------------- rounded shapes

@functools.lru_cache(maxsize=1024)
def _corners(radius: int, width: int) -> tuple[Image.Image, Image.Image, Image.Image, Image.Image]:
    """Antialiased top-left, top-right, bottom-left and bottom-right corner masks (filled when width=0)."""
    big = radius * SUPERSAMPLE
    mask = Image.new("L", (big * 2, big * 2), 0)
    draw = ImageDraw.Draw(mask)
    draw.ellipse((0, 0, big * 2 - 1, big * 2 - 1), fill=255)
    if 0 < width < radius:
        inner = width * SUPERSAMPLE
        draw.ellipse((inner, inner, big * 2 - 1 - inner, big * 2 - 1 - inner), fill=0)
    tl = mask.crop((0, 0, big, big)).resize((radius, radius), Image.Resampling.BOX)
    return (tl, tl.transpose(Image.Transpose.FLIP_LEFT_RIGHT), tl.transpose(Image.Transpose.FLIP_TOP_BOTTOM),
            tl.transpose(Image.Transpose.ROTATE_180))


def _box(img: Image.Image, left: int, top: int, right: int, bottom: int, color: RGB | int) -> None:
    if right > left and bottom > top:
        img.paste(color, (left, top, right, bottom))


def fill_round(img: Image.Image, rect: Rect, radius: int, color: RGB | int) -> None:
    left, top, right, bottom = rect
    rad = max(0, min(radius, rect.width // 2, rect.height // 2))
    if rad == 0:
        _box(img, left, top, right, bottom, color)
        return
    _box(img, left + rad, top, right - rad, bottom, color)
    _box(img, left, top + rad, left + rad, bottom - rad, color)
    _box(img, right - rad, top + rad, right, bottom - rad, color)
    tl, tr, bl, br = _corners(rad, 0)
    img.paste(color, (left, top, left + rad, top + rad), tl)
    img.paste(color, (right - rad, top, right, top + rad), tr)
    img.paste(color, (left, bottom - rad, left + rad, bottom), bl)
    img.paste(color, (right - rad, bottom - rad, right, bottom), br)


def stroke_round(img: Image.Image, rect: Rect, radius: int, width: int, color: RGB) -> None:
    """The outline of a rounded rectangle, ``width`` px thick, drawn inside ``rect``."""
    left, top, right, bottom = rect
    rad = max(0, min(radius, rect.width // 2, rect.height // 2))
    _box(img, left + rad, top, right - rad, top + width, color)
    _box(img, left + rad, bottom - width, right - rad, bottom, color)
    _box(img, left, top + rad, left + width, bottom - rad, color)
    _box(img, right - width, top + rad, right, bottom - rad, color)
    if rad:
        tl, tr, bl, br = _corners(rad, width)
        img.paste(color, (left, top, left + rad, top + rad), tl)
        img.paste(color, (right - rad, top, right, top + rad), tr)
        img.paste(color, (left, bottom - rad, left + rad, bottom), bl)
        img.paste(color, (right - rad, bottom - rad, right, bottom), br)


@functools.lru_cache(maxsize=64)
def _round_mask(width: int, height: int, radius: int, alpha: int) -> Image.Image:
    mask = Image.new("L", (width, height), 0)
    fill_round(mask, Rect(0, 0, width, height), radius, alpha)
    return mask


def blend_round(img: Image.Image, rect: Rect, radius: int, color: RGB, alpha: float) -> None:
    """A translucent rounded fill (selection tints, scrims)."""
    if rect.empty:
        return
    level = round(alpha * 255)
    # Square masks are a plain memset; only rounded ones are worth caching (and scrims are screen-sized).
    mask = (Image.new("L", (rect.width, rect.height), level) if radius <= 0
            else _round_mask(rect.width, rect.height, radius, level))
    img.paste(color, (rect.left, rect.top, rect.right, rect.bottom), mask)


@functools.lru_cache(maxsize=128)
def _shadow_mask(width: int, height: int, radius: int, blur: int, alpha: int) -> Image.Image:
    mask = Image.new("L", (width + 4 * blur, height + 4 * blur), 0)
    fill_round(mask, Rect(2 * blur, 2 * blur, 2 * blur + width, 2 * blur + height), radius, alpha)
    return mask.filter(ImageFilter.GaussianBlur(blur))


def shadow(img: Image.Image, rect: Rect, radius: int, blur: int, offset: int, alpha: float = 0.28) -> None:
    """A soft drop shadow under an elevated shape (FAB, menus)."""
    if rect.empty or blur <= 0:
        return
    mask = _shadow_mask(rect.width, rect.height, radius, blur, round(alpha * 255))
    img.paste((0, 0, 0), (rect.left - 2 * blur, rect.top - 2 * blur + offset), mask)


# ---------------------------------------------------------------- text

@functools.lru_cache(maxsize=4096)
def wrapped(text: str, size: int, width: int, weight: int, max_lines: int) -> tuple[str, ...]:
    """fonts.wrap, memoised: layout already wrapped the same strings, and frames repeat them."""
    return tuple(fonts.wrap(text, size, width, weight, max_lines))


@functools.lru_cache(maxsize=512)
def _metrics(size: int, weight: int) -> tuple[int, int]:
    ascent, descent = fonts.font(size, weight).getmetrics()
    return ascent, descent


def draw_lines(draw: ImageDraw.ImageDraw, lines: tuple[str, ...] | list[str], box: Rect, size: int, weight: int,
               color: RGB, align: str = "left", center_vertically: bool = False) -> tuple[int, int]:
    """Draw wrapped lines in ``box``; returns where the last line ends (x, baseline) for a text cursor."""
    font = fonts.font(size, weight)
    line_h = fonts.line_height(size)
    ascent, descent = _metrics(size, weight)
    top = box.top
    if center_vertically:
        top += (box.height - line_h * len(lines)) // 2
    x_end, baseline = box.left, top + (line_h - ascent - descent) // 2 + ascent
    for i, line in enumerate(lines):
        width = fonts.text_width(line, size, weight)
        if align == "center":
            x = box.left + (box.width - width) // 2
        elif align == "right":
            x = box.right - width
        else:
            x = box.left
        baseline = top + i * line_h + (line_h - ascent - descent) // 2 + ascent
        # Runs advance by the fractional widths that fonts.text_width adds up, so the line ends where
        # layout measured it.
        pen = float(x)
        for run, face in fonts.runs(line, size):
            if face == "emoji":
                _draw_emoji(draw, run, size, pen, baseline)
            else:
                other = fonts.face_font(face, size, weight) if face != "roboto" else None
                draw.text((pen, baseline), run, font=other or font, fill=color, anchor="ls")
            pen += fonts.run_width(run, face, size, weight)
        x_end = x + width
    return x_end, baseline


def _draw_emoji(draw: ImageDraw.ImageDraw, run: str, size: int, pen: float, baseline: int) -> None:
    """Emoji in their own colours, as a phone draws them (text colour does not tint them)."""
    glyphs = fonts.emoji_image(run, size)
    if glyphs is None:
        return
    image, dx, dy = glyphs
    left, top = round(pen) + dx, baseline + dy
    # Pasted onto the draw's image the way ImageDraw.text pastes colour glyphs (embedded_color): the
    # painters hold an ImageDraw, and the frame is RGB (tests draw on L), so the colours take its mode.
    colour = image if image.mode == draw.mode else image.convert(draw.mode)
    draw.im.paste(colour.im, (left, top, left + image.width, top + image.height), image.getchannel("A").im)


# ---------------------------------------------------------------- view-level helpers for the painters

@dataclass
class Ctx:
    """Where a painter draws: the image (the frame, or a cropped layer of it) and the theme."""

    img: Image.Image
    draw: ImageDraw.ImageDraw
    theme: Theme


def fg_of(ctx: Ctx, view: View, color: RGB | None = None) -> RGB:
    """The view's foreground (or ``color``), greyed out when the view is disabled."""
    fg = color if color is not None else ctx.theme.c(view.style.fg)
    return fg if view.enabled else mix(fg, ctx.theme.c(SURFACE), 0.62)


def inner(view: View, r: Rect) -> Rect:
    left, top, right, bottom = view.padding
    return r.inset(left, top, right, bottom)


def glyph(ctx: Ctx, name: str, center: tuple[int, int], size: int, color: RGB) -> None:
    mask = icons.mask(name, size)
    if mask is not None:
        left, top = center[0] - size // 2, center[1] - size // 2
        ctx.img.paste(color, (left, top, left + size, top + size), mask)


def background(ctx: Ctx, view: View, r: Rect) -> None:
    s = view.style
    if s.bg is not None and len(s.bg) == 4 and s.bg[3] < 255:
        blend_round(ctx.img, r, s.radius, ctx.theme.c(s.bg), s.bg[3] / 255)
    elif s.bg is not None:
        fill_round(ctx.img, r, s.radius, ctx.theme.c(s.bg))
    if s.border is not None:
        stroke_round(ctx.img, r, s.radius, ctx.theme.px(1), ctx.theme.c(s.border))


def label(ctx: Ctx, view: View, r: Rect, color: RGB, center: bool | None = None) -> None:
    """The view's text inside its padding, wrapped exactly as layout measured it. Single lines are
    centred vertically (buttons, fixed-height rows); paragraphs start at the top."""
    s = view.style
    if not view.text:
        return
    box = inner(view, r)
    lines = wrapped(view.text, s.size, box.width, s.weight, s.max_lines)
    draw_lines(ctx.draw, lines, box, s.size, s.weight, color, s.align, len(lines) == 1 if center is None else center)
