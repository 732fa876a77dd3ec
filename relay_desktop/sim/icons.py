"""A small Material-style vector icon set, drawn with PIL primitives on a 24-unit grid.

Each icon is drawn white-on-black at 4x and downsampled, giving an antialiased alpha mask that is cached
per (name, size); colour is applied by pasting through the mask, so icons cost one paste per frame.
Unknown names give ``None`` (the renderer then draws nothing). ``battery_<0-100>`` draws a charge level.
"""

from __future__ import annotations

import functools
import math

from PIL import Image, ImageDraw

from relay_desktop.sim.icon_pen import SUPERSAMPLE, IconFn, Pen, registrar
from relay_desktop.sim.icons_apps import APP_GLYPHS
from relay_desktop.sim.icons_media import MEDIA_GLYPHS

_UI_GLYPHS: dict[str, IconFn] = {}
_icon = registrar(_UI_GLYPHS)


def names() -> list[str]:
    return sorted(_ALL)


def _battery_level(p: Pen, level: float) -> None:
    p.rect(9.5, 2, 14.5, 4.5, radius=0.8)
    p.rect(6.5, 3.8, 17.5, 22, radius=1.8, w=1.8)
    top = 20.2 - 14.6 * level
    if level > 0:
        p.rect(8.2, top, 15.8, 20.3, radius=0.6)


@functools.lru_cache(maxsize=2048)
def mask(name: str, size: int) -> Image.Image | None:
    """The icon as an L mask of ``size`` x ``size`` px, or None for an unknown name."""
    fn = _ALL.get(name)
    level: float | None = None
    if fn is None and name.startswith("battery_") and name[8:].isdigit():
        level = min(100, int(name[8:])) / 100
    if (fn is None and level is None) or size <= 0:
        return None
    big = size * SUPERSAMPLE
    img = Image.new("L", (big, big), 0)
    pen = Pen(ImageDraw.Draw(img), big / 24)
    if level is not None:
        _battery_level(pen, level)
    else:
        assert fn is not None
        fn(pen)
    return img.resize((size, size), Image.Resampling.BOX)


# ---------------------------------------------------------------- navigation and actions

@_icon("back")
def _back(p: Pen) -> None:
    p.line([(19.5, 12), (4.8, 12)])
    p.line([(11, 5.5), (4.5, 12), (11, 18.5)])


@_icon("arrow_forward")
def _forward(p: Pen) -> None:
    p.line([(4.5, 12), (19.2, 12)])
    p.line([(13, 5.5), (19.5, 12), (13, 18.5)])


@_icon("chevron_right")
def _chevron_right(p: Pen) -> None:
    p.line([(9.5, 6), (15.5, 12), (9.5, 18)])


@_icon("expand_more")
def _expand_more(p: Pen) -> None:
    p.line([(6, 9.5), (12, 15.5), (18, 9.5)])


@_icon("close")
def _close(p: Pen) -> None:
    p.line([(6, 6), (18, 18)])
    p.line([(18, 6), (6, 18)])


@_icon("search")
def _search(p: Pen) -> None:
    p.circle(10, 10, 6.2, w=2.1)
    p.line([(14.6, 14.6), (20, 20)], w=2.3)


@_icon("add")
def _add(p: Pen) -> None:
    p.line([(12, 5), (12, 19)])
    p.line([(5, 12), (19, 12)])


@_icon("more_vert")
def _more_vert(p: Pen) -> None:
    for y in (5.5, 12, 18.5):
        p.circle(12, y, 2)


@_icon("menu")
def _menu(p: Pen) -> None:
    for y in (6.5, 12, 17.5):
        p.line([(4, y), (20, y)])


@_icon("apps")
def _apps(p: Pen) -> None:
    for x in (5.5, 12, 18.5):
        for y in (5.5, 12, 18.5):
            p.circle(x, y, 2)


@_icon("check")
def _check(p: Pen) -> None:
    p.line([(5, 12.5), (9.5, 17), (19, 7.5)], w=2.3)


@_icon("refresh")
def _refresh(p: Pen) -> None:
    p.arc(12, 12, 7.2, 20, 320, w=2)
    p.poly([(20.5, 3.5), (20.5, 10.5), (13.5, 10.5)])


@_icon("delete")
def _delete(p: Pen) -> None:
    p.line([(4.5, 6), (19.5, 6)])
    p.rect(9, 3, 15, 6, radius=0.8)
    p.poly([(6.3, 8), (17.7, 8), (16.7, 21), (7.3, 21)])
    p.line([(10, 11), (10, 18)], w=1.4, fill=0)
    p.line([(14, 11), (14, 18)], w=1.4, fill=0)


@_icon("edit")
def _edit(p: Pen) -> None:
    p.poly([(3.5, 20.5), (3.5, 16.8), (14.8, 5.5), (18.5, 9.2), (7.2, 20.5)])
    p.poly([(16.2, 4.1), (17.6, 2.7), (21.3, 6.4), (19.9, 7.8)])


@_icon("send")
def _send(p: Pen) -> None:
    p.poly([(3, 20.5), (21.5, 12), (3, 3.5), (3, 10), (14, 12), (3, 14)])


@_icon("share")
def _share(p: Pen) -> None:
    for x, y in ((18, 5), (6, 12), (18, 19)):
        p.circle(x, y, 3)
    p.line([(6, 12), (18, 5)], w=1.6)
    p.line([(6, 12), (18, 19)], w=1.6)


@_icon("star")
def _star(p: Pen) -> None:
    pts = []
    for i in range(10):
        r = 10 if i % 2 == 0 else 4.2
        a = math.radians(-90 + i * 36)
        pts.append((12 + r * math.cos(a), 12.8 + r * math.sin(a)))
    p.poly(pts)


@_icon("favorite")
def _favorite(p: Pen) -> None:
    p.circle(8, 9, 4.6)
    p.circle(16, 9, 4.6)
    p.poly([(3.6, 10.6), (20.4, 10.6), (12, 20.5)])


# ---------------------------------------------------------------- system status

@_icon("wifi")
def _wifi(p: Pen) -> None:
    for r in (4.6, 9.2, 13.8):
        p.arc(12, 19.5, r, 225, 315, w=2.3)
    p.circle(12, 19.2, 1.8)


@_icon("signal")
def _signal(p: Pen) -> None:
    p.poly([(21, 2.5), (21, 21.5), (2, 21.5)])


@_icon("battery")
def _battery(p: Pen) -> None:
    _battery_level(p, 1.0)


@_icon("bluetooth")
def _bluetooth(p: Pen) -> None:
    p.line([(6.5, 7), (17, 16.5), (12, 21), (12, 3), (17, 7.5), (6.5, 17)], w=1.9)


@_icon("airplane")
def _airplane(p: Pen) -> None:
    p.poly([(11, 3.5), (13, 3.5), (13, 9), (21, 14), (21, 16), (13, 13.5), (13, 18.2), (15.5, 20),
            (15.5, 21.5), (12, 20.5), (8.5, 21.5), (8.5, 20), (11, 18.2), (11, 13.5), (3, 16), (3, 14),
            (11, 9)])
    p.circle(12, 3.8, 1)


@_icon("brightness")
def _brightness(p: Pen) -> None:
    p.circle(12, 12, 4.2)
    for i in range(8):
        a = math.radians(i * 45)
        p.line([(12 + 7 * math.cos(a), 12 + 7 * math.sin(a)), (12 + 9.3 * math.cos(a), 12 + 9.3 * math.sin(a))],
               w=2)


@_icon("dark_mode")
def _dark_mode(p: Pen) -> None:
    p.circle(12, 12, 9)
    p.circle(17.2, 7.2, 7.3, fill=0)


@_icon("info")
def _info(p: Pen) -> None:
    p.circle(12, 12, 9.2, w=2)
    p.line([(12, 11), (12, 16.8)], w=2.1)
    p.circle(12, 7.6, 1.3)


@_icon("notifications")
def _notifications(p: Pen) -> None:
    p.poly([(5, 17.5), (19, 17.5), (17, 15), (17, 10.5), (7, 10.5), (7, 15)])
    p.pie(12, 10.8, 5, 180, 360)
    p.circle(12, 20, 1.8)


@_icon("lock")
def _lock(p: Pen) -> None:
    p.rect(5, 10, 19, 21, radius=1.8)
    p.arc(12, 9.5, 4.2, 180, 360, w=2)
    p.line([(7.8, 9.5), (7.8, 10.5)], w=2)
    p.line([(16.2, 9.5), (16.2, 10.5)], w=2)
    p.circle(12, 15.5, 1.7, fill=0)


@_icon("split_screen")
def _split_screen(p: Pen) -> None:
    p.rect(5, 3.5, 19, 10.5, radius=1.6, w=2)      # the Overview menu's "Split screen": two stacked panes
    p.rect(5, 13.5, 19, 20.5, radius=1.6, w=2)


@_icon("hourglass")
def _hourglass(p: Pen) -> None:
    p.line([(6, 3.5), (18, 3.5)], w=2)               # "Pause app" (Digital Wellbeing's hourglass)
    p.line([(6, 20.5), (18, 20.5)], w=2)
    p.loop([(7.5, 3.5), (16.5, 3.5), (12, 12), (16.5, 20.5), (7.5, 20.5), (12, 12)], w=1.8)


# ---------------------------------------------------------------- navigation bar and keyboard

@_icon("home")
def _home(p: Pen) -> None:
    p.circle(12, 12, 7.6, w=2.1)


@_icon("recents")
def _recents(p: Pen) -> None:
    p.rect(5.5, 5.5, 18.5, 18.5, radius=2.8, w=2.1)


@_icon("nav_back")
def _nav_back(p: Pen) -> None:
    p.loop([(5.5, 12), (17.5, 5), (17.5, 19)], w=2.1)


@_icon("backspace")
def _backspace(p: Pen) -> None:
    p.loop([(8, 5), (21, 5), (21, 19), (8, 19), (2.5, 12)], w=1.8)
    p.line([(11.5, 9), (17, 15)], w=1.8)
    p.line([(17, 9), (11.5, 15)], w=1.8)


@_icon("enter")
def _enter(p: Pen) -> None:
    p.line([(19, 5), (19, 14), (5.5, 14)], w=2)
    p.line([(9.5, 10), (5, 14), (9.5, 18)], w=2)


@_icon("shift")
def _shift(p: Pen) -> None:
    p.loop([(12, 3.5), (20.5, 12.5), (15.5, 12.5), (15.5, 20), (8.5, 20), (8.5, 12.5), (3.5, 12.5)], w=1.8)


@_icon("shift_on")
def _shift_on(p: Pen) -> None:
    p.poly([(12, 3.5), (20.5, 12.5), (15.5, 12.5), (15.5, 20), (8.5, 20), (8.5, 12.5), (3.5, 12.5)])


@_icon("emoji")
def _emoji(p: Pen) -> None:
    p.circle(12, 12, 9.2, w=1.8)
    p.circle(9, 10, 1.3)
    p.circle(15, 10, 1.3)
    p.arc(12, 12.5, 4.6, 25, 155, w=1.8)


@_icon("keyboard_hide")
def _keyboard_hide(p: Pen) -> None:
    p.rect(2.5, 3, 21.5, 15, radius=1.5, w=1.7)
    for y in (6.5, 9.5):
        for x in (6, 9.3, 12.6, 15.9):
            p.rect(x, y, x + 1.8, y + 1.6)
    p.line([(8, 12.4), (16, 12.4)], w=1.3)
    p.line([(9, 18), (12, 21), (15, 18)], w=1.8)


# Content icons first, so that a UI glyph wins if both sets ever define a name.
_ALL: dict[str, IconFn] = {**APP_GLYPHS, **MEDIA_GLYPHS, **_UI_GLYPHS}
