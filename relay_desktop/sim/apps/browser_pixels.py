"""A site Chrome shows without accessibility: Rosie's Bakery, made with a site builder that renders every page on a
canvas (as Flutter web apps do). Chrome's web view is then one node with the page's title and no children; the
opening hours, the menu's prices and the links exist only in the pixels, and a link works where it is drawn.

Each page is a list of views built with the widget kit and drawn by a :class:`~relay_desktop.sim.canvas.Canvas`
(never dumped). :data:`DRAWN_PAGES` says what search engines know of each page (title and snippet); the facts task
checkers compare answers with are constants here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from relay_desktop.sim.ui import Kit
from relay_desktop.sim.views import Color, Style, View

HOME = "https://www.rosiesbakery.com/"
MENU = "https://www.rosiesbakery.com/menu"
ORDER = "https://www.rosiesbakery.com/order"
SITE = "Rosie's Bakery"

# (day, hours): the opening hours as the home page draws them.
HOURS = (("Monday", "Closed"), ("Tuesday – Friday", "7:00 – 18:00"), ("Saturday", "7:30 – 16:00"),
         ("Sunday", "8:00 – 13:00"))
# (section, ((item, price), ...)): the menu page.
MENU_ITEMS = (
    ("Breads", (("Sourdough loaf", "$6.50"), ("Seeded rye", "$7.00"), ("Baguette", "$3.20"),
                ("Spelt & honey tin", "$5.80"))),
    ("Pastries", (("Almond croissant", "$4.25"), ("Cinnamon bun", "$3.75"), ("Pain au chocolat", "$3.90"))),
    ("Cakes", (("Lemon drizzle slice", "$4.00"), ("Carrot cake slice", "$4.50"))),
)
ADDRESS, PHONE = "14 Mill Lane, Riverside", "555-0199"

BRAND: Color = (107, 62, 38)
CREAM: Color = (253, 246, 236)
INK: Color = (45, 35, 30)
MUTED: Color = (110, 96, 88)
PAPER: Color = (255, 252, 247)

Go = Callable[[str], None]


@dataclass(frozen=True)
class DrawnPage:
    url: str
    title: str
    snippet: str
    build: Callable[[Kit, Go], list[View]]


def _text(ui: Kit, value: str, *, size: float = 16, weight: int = 400, color: Color = INK,
          align: str = "left") -> View:
    view = ui.text(value, size=size, weight=weight, color=color, align=align)
    view.cls = "page"   # drawn, never dumped: the class only names it for whoever reads the drawing
    return view


def _link(ui: Kit, value: str, url: str, go: Go, *, color: Color = CREAM, size: float = 15,
          weight: int = 500) -> View:
    view = _text(ui, value, size=size, weight=weight, color=color)
    view.clickable, view.on_click, view.key = True, lambda: go(url), f"link:{url}"
    view.padding = ui.pad(0, 10)   # a finger-sized target, as the site's CSS pads its nav links
    return view


def _nav(ui: Kit, go: Go) -> View:
    brand = _text(ui, SITE, size=22, weight=700, color=CREAM)
    brand.clickable, brand.on_click, brand.weight = True, lambda: go(HOME), 1
    links = [_link(ui, label, url, go) for label, url in (("Menu", MENU), ("Order", ORDER))]
    return View(cls="page", orientation="h", gap=ui.dp(20), padding=ui.pad(20, 8), align="center",
                children=[brand, *links], style=Style(bg=BRAND))


def _button(ui: Kit, label: str, url: str, go: Go) -> View:
    view = ui.button(label, lambda: go(url), width=220)
    view.cls, view.key = "page", f"button:{url}"
    view.style.bg, view.style.radius = BRAND, ui.dp(6)
    return view


def _section(ui: Kit, title: str) -> View:
    return _text(ui, title, size=22, weight=700, color=BRAND)


def _row(ui: Kit, left: str, right: str, *, weight: int = 400) -> View:
    name = _text(ui, left, weight=weight)
    name.weight = 1
    return View(cls="page", orientation="h", padding=ui.pad(0, 10), children=[name, _text(ui, right, weight=500)],
                style=Style(border=None))


def _rule(ui: Kit) -> View:
    return View(cls="page", height=max(1, ui.dp(1)), style=Style(bg=(234, 222, 208)))


def _body(ui: Kit, children: list[View]) -> View:
    return View(cls="page", gap=ui.dp(14), padding=ui.pad(20, 20, 20, 32), children=children)


def _footer(ui: Kit) -> View:
    return _text(ui, f"© 2026 {SITE} · Site by SiteCanvas", size=12, color=MUTED, align="center")


def _home(ui: Kit, go: Go) -> list[View]:
    hero = View(cls="page", height=ui.dp(150), style=Style(kind="image", bg=(240, 221, 196), icon="shop",
                                                          radius=ui.dp(10)))
    hours: list[View] = []
    for day, time in HOURS:
        hours += [_row(ui, day, time), _rule(ui)]
    return [_nav(ui, go), _body(ui, [
        hero,
        _text(ui, "Fresh bread every morning since 1987", size=26, weight=700),
        _text(ui, "Sourdough, rye and pastries baked on Mill Lane before sunrise. Come early on Saturdays: "
                  "the cinnamon buns go fast.", color=MUTED),
        _section(ui, "Opening hours"),
        View(cls="page", children=hours[:-1]),
        _section(ui, "Find us"),
        _text(ui, f"{ADDRESS} · Phone {PHONE}", color=MUTED),
        _button(ui, "See our menu", MENU, go),
        _footer(ui),
    ])]


def _menu(ui: Kit, go: Go) -> list[View]:
    items: list[View] = [_text(ui, "Our menu", size=28, weight=700),
                         _text(ui, "Prices include VAT. Everything is baked fresh every day.", color=MUTED)]
    for section, rows in MENU_ITEMS:
        items.append(_section(ui, section))
        column: list[View] = []
        for name, price in rows:
            column += [_row(ui, name, price), _rule(ui)]
        items.append(View(cls="page", children=column[:-1]))
    items += [_button(ui, "Opening hours", HOME, go), _footer(ui)]
    return [_nav(ui, go), _body(ui, items)]


def _order(ui: Kit, go: Go) -> list[View]:
    return [_nav(ui, go), _body(ui, [
        _text(ui, "Order for pickup", size=28, weight=700),
        _text(ui, f"Online ordering is coming soon. Until then, call us on {PHONE} the day before and we will "
                  "keep your order at the counter.", color=MUTED),
        _button(ui, "See our menu", MENU, go),
        _footer(ui),
    ])]


DRAWN_PAGES: tuple[DrawnPage, ...] = (
    DrawnPage(HOME, "Rosie's Bakery — bread, pastries and cakes on Mill Lane",
              "Family bakery on Mill Lane, Riverside since 1987: sourdough, rye, pastries. Opening hours, menu "
              "and orders.", _home),
    DrawnPage(MENU, "Menu — Rosie's Bakery", "Breads, pastries and cakes baked fresh every day at Rosie's Bakery.",
              _menu),
    DrawnPage(ORDER, "Order for pickup — Rosie's Bakery", "Order bread and cakes for pickup at Rosie's Bakery.",
              _order),
)
