"""Icons for app content (people, messages, places, media...), in the set of :mod:`icons`."""

from __future__ import annotations

import math

from relay_desktop.sim.icon_pen import IconFn, Pen, registrar

APP_GLYPHS: dict[str, IconFn] = {}
_icon = registrar(APP_GLYPHS)


# ---------------------------------------------------------------- people and communication

@_icon("person")
def _person(p: Pen) -> None:
    p.circle(12, 8, 4.2)
    p.rect(4, 14, 20, 20.5, radius=4)


@_icon("people")
def _people(p: Pen) -> None:
    p.circle(16.5, 8.2, 3.3)
    p.rect(12, 13.6, 22.5, 19.5, radius=3)
    p.circle(8.5, 8, 4.2, fill=0)
    p.circle(8.5, 8, 3.6)
    p.rect(0.8, 13, 16.2, 20.5, radius=4, fill=0)
    p.rect(1.5, 13.7, 15.5, 19.8, radius=3.5)


@_icon("message", "chat")
def _message(p: Pen) -> None:
    p.rect(3, 3, 21, 17, radius=2.5)
    p.poly([(3, 15), (3, 21.5), (8, 16.5)])
    for y, right in ((7.5, 17), (10.5, 17), (13.5, 13)):
        p.line([(7, y), (right, y)], w=1.5, fill=0)


@_icon("mail")
def _mail(p: Pen) -> None:
    p.rect(2.5, 5, 21.5, 19, radius=2)
    p.line([(4.5, 7.5), (12, 12.5), (19.5, 7.5)], w=1.7, fill=0)


@_icon("phone")
def _phone(p: Pen) -> None:
    # A quarter ring as the handset's body, with rounded pads for ear and mouth pieces.
    p.pie(20, 4, 16.5, 90, 180)
    p.circle(20, 4, 12, fill=0)
    p.poly([(3.2, 4.6), (6.6, 1.8), (10.4, 6.4), (7.2, 9.2)])
    p.poly([(19.4, 20.8), (22.2, 17.4), (17.6, 13.6), (14.8, 16.8)])


@_icon("mic")
def _mic(p: Pen) -> None:
    p.rect(9, 2.5, 15, 14, radius=3)
    p.arc(12, 10.5, 6.3, 0, 180, w=1.9)
    p.line([(12, 17), (12, 21)], w=1.9)


@_icon("globe", "language")
def _globe(p: Pen) -> None:
    p.circle(12, 12, 9.2, w=1.8)
    s = p.s
    p.d.ellipse((7.8 * s, 2.8 * s, 16.2 * s, 21.2 * s), outline=255, width=max(1, round(1.6 * s)))
    p.line([(3, 12), (21, 12)], w=1.6)
    p.line([(4.5, 7.5), (19.5, 7.5)], w=1.4)
    p.line([(4.5, 16.5), (19.5, 16.5)], w=1.4)


# ---------------------------------------------------------------- apps and things

@_icon("note")
def _note(p: Pen) -> None:
    p.rect(4.5, 2.5, 19.5, 21.5, radius=2, w=2)
    for y, right in ((8, 16), (12, 16), (16, 13)):
        p.line([(8, y), (right, y)], w=1.7)


@_icon("content_copy")
def _content_copy(p: Pen) -> None:
    p.line([(4, 17), (4, 4), (15, 4)], w=2)          # the sheet behind
    p.rect(8, 7.5, 20, 21.5, radius=1.5, w=2)         # the copy in front


@_icon("alarm")
def _alarm(p: Pen) -> None:
    p.circle(12, 13, 7.6, w=2)
    p.line([(12, 9), (12, 13.2), (14.8, 15.4)], w=1.8)
    p.line([(3.2, 6.3), (6.8, 3.2)], w=2)
    p.line([(20.8, 6.3), (17.2, 3.2)], w=2)


@_icon("clock", "schedule")
def _clock(p: Pen) -> None:
    p.circle(12, 12, 9.2, w=2)
    p.line([(12, 6.8), (12, 12.2), (15.6, 14.4)], w=1.9)


@_icon("calendar")
def _calendar(p: Pen) -> None:
    p.rect(3.5, 4.5, 20.5, 21, radius=2, w=1.9)
    p.rect(3.5, 4.5, 20.5, 9.5, radius=2)
    p.line([(8, 2.5), (8, 5.5)], w=1.9)
    p.line([(16, 2.5), (16, 5.5)], w=1.9)
    p.rect(13.5, 14, 17, 17.5, radius=0.5)


@_icon("cart")
def _cart(p: Pen) -> None:
    p.line([(2, 4), (5, 4), (7.6, 15), (18, 15), (20.5, 7), (6, 7)], w=1.9)
    p.circle(9, 19.5, 1.7)
    p.circle(17, 19.5, 1.7)


@_icon("shop")
def _shop(p: Pen) -> None:
    p.rect(4, 8, 20, 21, radius=2)
    p.arc(12, 8, 4, 180, 360, w=1.9)
    p.line([(8, 8), (8, 10)], w=1.9)
    p.line([(16, 8), (16, 10)], w=1.9)


@_icon("settings")
def _settings(p: Pen) -> None:
    for i in range(8):
        a = math.radians(i * 45)
        ca, sa = math.cos(a), math.sin(a)
        corners = [(-1.9, 6.0), (1.9, 6.0), (1.9, 10.2), (-1.9, 10.2)]
        p.poly([(12 + x * sa + y * ca, 12 - x * ca + y * sa) for x, y in corners])
    p.circle(12, 12, 7.2)
    p.circle(12, 12, 3.1, fill=0)


@_icon("image", "photo")
def _image(p: Pen) -> None:
    p.rect(3, 4, 21, 20, radius=2, w=1.8)
    p.poly([(5.5, 17.5), (10, 11), (13, 15), (15.5, 12.5), (18.5, 17.5)])
    p.circle(15.8, 8.5, 1.7)


@_icon("camera")
def _camera(p: Pen) -> None:
    p.rect(2.5, 6.5, 21.5, 20, radius=2.2)
    p.rect(8, 4, 16, 8, radius=1)
    p.circle(12, 13.2, 4.3, fill=0)
    p.circle(12, 13.2, 2.8)


@_icon("location")
def _location(p: Pen) -> None:
    p.circle(12, 9.5, 6.8)
    p.poly([(6.2, 12.8), (17.8, 12.8), (12, 22)])
    p.circle(12, 9.5, 2.5, fill=0)


@_icon("play")
def _play(p: Pen) -> None:
    p.poly([(8, 4.5), (19.5, 12), (8, 19.5)])


@_icon("music")
def _music(p: Pen) -> None:
    p.circle(8.5, 17.5, 3.5)
    p.line([(11.2, 17.5), (11.2, 4), (18, 4), (18, 7.5), (11.2, 7.5)], w=1.9)


@_icon("house")
def _house(p: Pen) -> None:
    p.poly([(2.5, 12), (12, 3.2), (21.5, 12), (19, 12), (19, 20.5), (5, 20.5), (5, 12)])
    p.rect(10.2, 14.5, 13.8, 20.6, fill=0)


@_icon("visibility")
def _visibility(p: Pen) -> None:
    s = p.s
    p.d.ellipse((1.5 * s, 5 * s, 22.5 * s, 19 * s), fill=255)
    p.circle(12, 12, 4.3, fill=0)
    p.circle(12, 12, 2.6)
