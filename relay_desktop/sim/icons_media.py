"""Media player icons (Material's shapes on the 24-unit grid), in the set of :mod:`icons`: a music app's
transport controls and the toggles around them, and a game's launcher icon."""

from __future__ import annotations

from relay_desktop.sim.icon_pen import IconFn, Pen, registrar

MEDIA_GLYPHS: dict[str, IconFn] = {}
_icon = registrar(MEDIA_GLYPHS)


@_icon("pause")
def _pause(p: Pen) -> None:
    p.rect(6, 5, 10, 19, radius=1)
    p.rect(14, 5, 18, 19, radius=1)


@_icon("skip_next")
def _skip_next(p: Pen) -> None:
    p.poly([(6, 5.5), (15, 12), (6, 18.5)])
    p.rect(16, 5.5, 18.2, 18.5, radius=0.6)


@_icon("skip_previous")
def _skip_previous(p: Pen) -> None:
    p.poly([(18, 5.5), (9, 12), (18, 18.5)])
    p.rect(5.8, 5.5, 8, 18.5, radius=0.6)


@_icon("shuffle")
def _shuffle(p: Pen) -> None:
    # Two crossing paths, each ending in an arrow head at the right edge.
    p.line([(4, 6.5), (8.5, 6.5), (15.5, 17.5), (19, 17.5)], w=1.9)
    p.line([(4, 17.5), (8.5, 17.5), (10.4, 14.4)], w=1.9)
    p.line([(13.6, 9.6), (15.5, 6.5), (19, 6.5)], w=1.9)
    for y in (6.5, 17.5):
        p.poly([(17.5, y - 3), (21.5, y), (17.5, y + 3)])


def _repeat_loop(p: Pen) -> None:
    p.line([(5, 12.5), (5, 7.5), (17, 7.5)], w=1.9)
    p.poly([(16.5, 4.5), (20.5, 7.5), (16.5, 10.5)])
    p.line([(19, 11.5), (19, 16.5), (7, 16.5)], w=1.9)
    p.poly([(7.5, 13.5), (3.5, 16.5), (7.5, 19.5)])


@_icon("repeat")
def _repeat(p: Pen) -> None:
    _repeat_loop(p)


@_icon("repeat_one")
def _repeat_one(p: Pen) -> None:
    _repeat_loop(p)
    p.line([(11, 10.6), (12.4, 9.8), (12.4, 14.2)], w=1.4)


@_icon("favorite_border")
def _favorite_border(p: Pen) -> None:
    p.circle(8, 9, 4.6)
    p.circle(16, 9, 4.6)
    p.poly([(3.6, 10.6), (20.4, 10.6), (12, 20.5)])
    # The same heart, hollowed out: the outline is what is left.
    p.circle(8, 9, 2.8, fill=0)
    p.circle(16, 9, 2.8, fill=0)
    p.poly([(6, 11), (18, 11), (12, 17.8)], fill=0)
    p.rect(8, 8.5, 16, 11.5, fill=0)


@_icon("queue_music")
def _queue_music(p: Pen) -> None:
    for y, right in ((6, 15), (10.5, 15), (15, 10)):
        p.line([(3, y), (right, y)], w=1.9)
    p.circle(15.5, 17.5, 2.8)
    p.line([(18, 17.5), (18, 6), (21.5, 6)], w=1.9)


@_icon("cast")
def _cast(p: Pen) -> None:
    p.line([(3, 8), (3, 5), (21, 5), (21, 19), (14, 19)], w=1.9)
    p.arc(3, 19, 7.5, 270, 360, w=1.9)
    p.arc(3, 19, 3.8, 270, 360, w=1.9)
    p.circle(3.6, 18.4, 1.6)


@_icon("tic_tac_toe")
def _tic_tac_toe(p: Pen) -> None:
    # A game's launcher icon: the grid, an X and an O.
    for at in (8.7, 15.3):
        p.line([(at, 3), (at, 21)], w=1.6)
        p.line([(3, at), (21, at)], w=1.6)
    p.line([(3.6, 3.6), (6.6, 6.6)], w=1.4)
    p.line([(6.6, 3.6), (3.6, 6.6)], w=1.4)
    p.circle(18.1, 18.1, 1.9, w=1.3)
