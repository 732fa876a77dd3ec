"""Fonts for the virtual phone: Roboto (the Android system font) from the `fontpkg-roboto` wheel, and for
Chinese, Japanese and Korean text Android's own fallback font (Debian's ``fonts-droid-fallback``) when it is
installed, as a phone falls back from Roboto — without it such text shows as boxes.

Layout measures text with the same fonts the renderer draws with, so wrapped text always fits the bounds
that the hierarchy dump reports.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

from PIL import ImageFont

_FALLBACKS = (
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Regular.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
)


@functools.cache
def _font_path() -> str | None:
    try:
        import fontpkg_roboto
    except ImportError:
        fontpkg_roboto = None
    if fontpkg_roboto is not None:
        candidates = sorted(Path(fontpkg_roboto.ROOT, "files").glob("Roboto[[]*.ttf"))
        if candidates:
            return str(candidates[0])
    for path in _FALLBACKS:
        if Path(path).exists():
            return path
    return None


Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

_CJK_FALLBACKS = (
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
)
_FALLBACK_FROM = 0x2E80   # CJK radicals, kana, ideographs, Hangul, full-width forms: none of them are in Roboto


@functools.cache
def _fallback_path() -> str | None:
    return next((path for path in _CJK_FALLBACKS if Path(path).exists()), None)


@functools.cache
def fallback_font(size: int) -> Font | None:
    path = _fallback_path()
    return ImageFont.truetype(path, size) if path is not None else None


def runs(text: str, size: int) -> list[tuple[str, bool]]:
    """``text`` cut into runs drawn with Roboto (False) or the CJK fallback font (True)."""
    if fallback_font(size) is None or all(ord(c) < _FALLBACK_FROM for c in text):
        return [(text, False)] if text else []
    out: list[tuple[str, bool]] = []
    for char in text:
        code = ord(char)
        other = _FALLBACK_FROM <= code < 0xFE00 or 0xFF00 <= code <= 0xFFEF
        if out and out[-1][1] == other:
            out[-1] = (out[-1][0] + char, other)
        else:
            out.append((char, other))
    return out


@functools.cache
def font(size: int, weight: int = 400) -> Font:
    """Roboto at ``size`` px and a CSS-style ``weight`` (400 regular, 500 medium, 700 bold)."""
    path = _font_path()
    if path is None:
        return ImageFont.load_default(size)
    face = ImageFont.truetype(path, size)
    # Axis order in the variable font is (weight, width); a static fallback font has no axes.
    with contextlib.suppress(OSError, AttributeError):
        face.set_variation_by_axes([weight, 100])
    return face


def text_width(text: str, size: int, weight: int = 400) -> int:
    total = 0.0
    for run, other in runs(text, size):
        face = fallback_font(size) if other else font(size, weight)
        total += face.getlength(run)  # type: ignore[union-attr]
    return round(total)


def line_height(size: int) -> int:
    return round(size * 1.35)


def wrap(text: str, size: int, width: int, weight: int = 400, max_lines: int = 0) -> list[str]:
    """Greedy word wrap to ``width`` px; words longer than a line are broken; ``max_lines`` adds '…'."""
    if width <= 0:
        return [text] if text else []
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in paragraph.split(" "):
            candidate = f"{current} {word}" if current else word
            if text_width(candidate, size, weight) <= width:
                current = candidate
                continue
            if current:
                lines.append(current)
            while text_width(word, size, weight) > width and len(word) > 1:
                cut = len(word)
                while cut > 1 and text_width(word[:cut], size, weight) > width:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            current = word
        lines.append(current)
    if max_lines and len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and text_width(last + "…", size, weight) > width:
            last = last[:-1]
        lines[-1] = last + "…"
    return lines
