"""Fonts for the virtual phone: Roboto (the Android system font) from the `fontpkg-roboto` wheel, and, as a
phone falls back from Roboto, Android's own fallback fonts when they are installed: for Chinese, Japanese and
Korean text Debian's ``fonts-droid-fallback``, for emoji Noto Color Emoji (Debian's
``fonts-noto-color-emoji``, the font Android draws emoji with). Without them such text shows as boxes.

Layout measures text with the same fonts the renderer draws with, so wrapped text always fits the bounds
that the hierarchy dump reports.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from pathlib import Path
from typing import Literal

from PIL import Image, ImageDraw, ImageFont

log = logging.getLogger(__name__)

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


_EMOJI_PATHS = ("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",)
# Noto Color Emoji holds colour bitmaps (CBDT) of one size only, which FreeType cannot scale: glyphs are drawn
# at this strike and the image is scaled to the text size.
_EMOJI_STRIKE = 109
# Modifiers that belong to the character before them, so that they reach the same font as it does (which
# shapes the sequence): variation selectors (U+FE0F asks for the emoji form), the zero-width joiner of
# sequences like 👨‍👩‍👧, the keycap of 1️⃣, the tags of subdivision flags, ideographic variation selectors.
_JOINERS = ((0x200D, 0x200D), (0x20E3, 0x20E3), (0xFE00, 0xFE0F), (0xE0020, 0xE007F), (0xE0100, 0xE01EF))

# Below this (Latin, Greek, Cyrillic, Armenian) no character is an emoji, CJK or a script Roboto lacks, nor is
# U+FE0F, which turns '#', '©' or '‼' into one: such text (most of it) is one Roboto run without a look at each
# character.
_PLAIN_BELOW = 0x0590

Face = Literal["roboto", "cjk", "emoji", "arabic", "hebrew", "devanagari", "symbols"]

# Scripts and symbols Roboto lacks, each with the font a phone falls back to (Debian's fonts-noto-core has
# Android's own: Noto Naskh Arabic, Noto Sans Hebrew and Devanagari; arrows, ✓ and the like come from DejaVu
# Sans, in fonts-dejavu-core, or Noto's symbol fonts). A character goes to the first whose font has it.
_SCRIPT_FONTS: dict[Face, tuple[str, ...]] = {
    "arabic": ("/usr/share/fonts/truetype/noto/NotoNaskhArabic-Regular.ttf",
               "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
               "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    "hebrew": ("/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf",
               "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    "devanagari": ("/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf",
                   "/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf"),
    "symbols": ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                "/usr/share/fonts/truetype/noto/NotoSansSymbols2-Regular.ttf",
                "/usr/share/fonts/truetype/noto/NotoSansSymbols-Regular.ttf"),
}
_SCRIPT_RANGES: tuple[tuple[int, int, Face], ...] = (
    (0x0590, 0x05FF, "hebrew"), (0xFB1D, 0xFB4F, "hebrew"),
    (0x0600, 0x06FF, "arabic"), (0x0750, 0x077F, "arabic"), (0x08A0, 0x08FF, "arabic"),
    (0xFB50, 0xFDFF, "arabic"), (0xFE70, 0xFEFF, "arabic"),
    (0x0900, 0x097F, "devanagari"), (0xA8E0, 0xA8FF, "devanagari"),
)
_PROBE_SIZE = 24


@functools.cache
def emoji_font() -> ImageFont.FreeTypeFont | None:
    """Noto Color Emoji at its bitmap strike, or None if it is not installed or cannot be drawn here."""
    for path in _EMOJI_PATHS:
        if not Path(path).exists():
            continue
        try:
            face = ImageFont.truetype(path, _EMOJI_STRIKE)
            # A FreeType built without PNG support loads the font but cannot draw its bitmaps: boxes are
            # better than an exception in the middle of a frame.
            if _strike_image(face, "\U0001F600").getbbox() is None:
                continue
        except OSError:
            continue
        return face
    return None


def _strike_image(face: ImageFont.FreeTypeFont, run: str) -> Image.Image:
    left, top, right, bottom = face.getbbox(run, anchor="ls")
    image = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(image).text((-left, -top), run, font=face, embedded_color=True, anchor="ls")
    return image


def _is_emoji(code: int) -> bool:
    """Characters shown in colour by default, none of which Roboto or the CJK fallback has: the pictographs
    of plane 1 (faces, food, flags' regional indicators, skin tones), the BMP's miscellaneous symbols and
    dingbats (☀ ❤ ✨), and the few emoji among its technical and geometric symbols (⌚ ⏰ ⬛ ⭐)."""
    return (0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF or 0x231A <= code <= 0x231B
            or 0x23E9 <= code <= 0x23FA or 0x25FD <= code <= 0x25FE or 0x2B1B <= code <= 0x2B1C
            or code in (0x2B50, 0x2B55))


def _has_emoji_form(char: str) -> bool:
    """Characters that U+FE0F turns into emoji: keycap bases, © ® ™, arrows, ‼ and the like, 〽 ㊗."""
    return char in "#*0123456789\u00a9\u00ae" or 0x2000 <= ord(char) < 0x3300


def _joins(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in _JOINERS)


@functools.cache
def _script_path(face: Face) -> str | None:
    path = next((p for p in _SCRIPT_FONTS.get(face, ()) if Path(p).exists()), None)
    if path is None and face in _SCRIPT_FONTS:
        log.info("no %s font installed (%s): such text shows as boxes", face, " or ".join(_SCRIPT_FONTS[face]))
    return path


@functools.cache
def script_font(face: Face, size: int) -> Font | None:
    """The fallback font of a script face (arabic, hebrew, devanagari, symbols) at ``size``; None when it is not
    installed."""
    path = _script_path(face)
    return ImageFont.truetype(path, size) if path is not None else None


def _glyph(face_font: Font, char: str) -> tuple[tuple[int, int], bytes]:
    mask = face_font.getmask(char)
    return mask.size, bytes(mask)


@functools.lru_cache(maxsize=4096)
def _covers(face: Face, char: str) -> bool:
    """Whether ``face``'s font draws ``char`` as itself, not as its missing-glyph box."""
    if face == "roboto":
        face_font: Font | None = font(_PROBE_SIZE)
    elif face == "emoji":
        face_font = emoji_font()
    else:
        face_font = script_font(face, _PROBE_SIZE)
    if face_font is None:
        return False
    return _glyph(face_font, char) != _glyph(face_font, "\ue000")     # a private-use point: the box


def _script_face(code: int, char: str) -> Face:
    """The face for a character Roboto may lack: its script's font, or the symbols font; Roboto otherwise."""
    for lo, hi, face in _SCRIPT_RANGES:
        if lo <= code <= hi:
            return face if script_font(face, _PROBE_SIZE) is not None else "roboto"
    if _covers("roboto", char):
        return "roboto"
    return "symbols" if script_font("symbols", _PROBE_SIZE) is not None and _covers("symbols", char) else "roboto"


def runs(text: str, size: int) -> list[tuple[str, Face]]:
    """``text`` cut into runs, each drawn with one face: Roboto, the CJK fallback or the emoji font. A
    face that is not installed is replaced by Roboto (which draws boxes), as before the fallback existed."""
    cjk = fallback_font(size) is not None
    emoji = emoji_font() is not None
    if not text or all(ord(c) < _PLAIN_BELOW for c in text):
        return [(text, "roboto")] if text else []
    out: list[tuple[str, Face]] = []
    for i, char in enumerate(text):
        code = ord(char)
        face: Face = "roboto"
        if out and _joins(code):
            face = out[-1][1]
        elif emoji and ((_is_emoji(code) and _covers("emoji", char))
                        or (text[i + 1:i + 2] == "\ufe0f" and _has_emoji_form(char))):
            face = "emoji"
        elif cjk and (_FALLBACK_FROM <= code < 0xFE00 or 0xFF00 <= code <= 0xFFEF):
            face = "cjk"
        elif code >= 0x0590:
            face = _script_face(code, char)
        elif out and out[-1][1] in ("arabic", "hebrew") and not char.isalnum():
            face = out[-1][1]       # a space or comma inside Arabic or Hebrew text stays in its run (one shaping)
        if out and out[-1][1] == face:
            out[-1] = (out[-1][0] + char, face)
        else:
            out.append((char, face))
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


def run_width(run: str, face: Face, size: int, weight: int = 400) -> float:
    """The advance of one run of :func:`runs`, in (fractional) px, as :mod:`paint` draws it."""
    if face == "emoji":
        advance = _emoji_advance(run)
        if advance is not None:
            return advance * size / _EMOJI_STRIKE
    elif face == "cjk":
        cjk = fallback_font(size)
        if cjk is not None:
            return cjk.getlength(run)
    elif face != "roboto":
        other = script_font(face, size)
        if other is not None:
            return other.getlength(run)
    return font(size, weight).getlength(run)


def face_font(face: Face, size: int, weight: int = 400) -> Font:
    """The font a run of :func:`runs` is drawn with (not for emoji, which are drawn as images)."""
    if face == "cjk":
        return fallback_font(size) or font(size, weight)
    if face not in ("roboto", "emoji"):
        return script_font(face, size) or font(size, weight)
    return font(size, weight)


@functools.lru_cache(maxsize=1024)
def _emoji_advance(run: str) -> float | None:
    # Shaping with the colour font costs tens of µs a run, and wrapping measures the same runs over and over.
    emoji = emoji_font()
    return emoji.getlength(run) if emoji is not None else None


def text_width(text: str, size: int, weight: int = 400) -> int:
    return round(sum(run_width(run, face, size, weight) for run, face in runs(text, size)))


@functools.lru_cache(maxsize=512)
def emoji_image(run: str, size: int) -> tuple[Image.Image, int, int] | None:
    """An emoji run of :func:`runs` in colour at ``size`` px (RGBA), and where its top-left corner lies
    relative to the pen position on the baseline; None without the emoji font."""
    face = emoji_font()
    if face is None:
        return None
    left, top, _, _ = face.getbbox(run, anchor="ls")
    big = _strike_image(face, run)
    scale = size / _EMOJI_STRIKE
    # RGBA is resized premultiplied by Pillow, so the transparent edge does not darken the glyph's rim.
    image = big.resize((max(1, round(big.width * scale)), max(1, round(big.height * scale))),
                       Image.Resampling.LANCZOS)
    return image, round(left * scale), round(top * scale)


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
