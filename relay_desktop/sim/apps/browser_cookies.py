"""The cookie-consent banner a web page shows over itself on a first visit ("We value your privacy").

It is part of the page, not of Chrome: on a page Chrome exposes to accessibility its texts and buttons are
nodes inside the web view, and on a page drawn on a canvas it is drawn like the rest (pixels only). Like most
consent managers' banners it is a consent wall: a scrim over the page takes every tap until a choice is made.
Chrome (browser.py) decides when a page shows it and records the choice per site.
"""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.sim.ui import Kit
from relay_desktop.sim.views import Style, View

TITLE = "We value your privacy"
ACCEPT, REJECT = "Accept all", "Reject all"
_INK = (32, 33, 36)
_ACCENT = (25, 103, 210)


def cookie_banner(ui: Kit, site: str, accept: Callable[[], None], reject: Callable[[], None]) -> View:
    """The banner of ``site`` (its name as the page shows it), to lay over the page: a scrim filling it and a
    card along its bottom. ``accept`` and ``reject`` record the visitor's choice."""
    body = (f"{site} and our partners use cookies and similar technologies to store and access information on "
            "your device, to measure audiences and to show you personalised ads. You can accept or reject them; "
            "you can change your choice at any time in Privacy settings.")
    reject_button = ui.button(REJECT, reject, variant="outlined")
    accept_button = ui.button(ACCEPT, accept)
    for button in (reject_button, accept_button):
        button.weight = 1
        button.style.radius = ui.dp(8)
    reject_button.style.fg, reject_button.style.border = _ACCENT, _ACCENT
    accept_button.style.bg = _ACCENT
    card = View(cls="android.view.View", key="cookie_banner", anchor="bottom", gap=ui.dp(12),
                padding=ui.pad(20, 20, 20, 24), children=[
                    ui.text(TITLE, size=20, weight=700, color=_INK),
                    ui.text(body, size=14, color=(60, 64, 67)),
                    View(cls="android.view.View", orientation="h", gap=ui.dp(12), children=[reject_button,
                                                                                             accept_button]),
                ], style=Style(kind="card", bg=(255, 255, 255), radius=ui.dp(16)))
    # The scrim takes taps without being a control (a consent wall's overlay is not clickable to accessibility).
    scrim = View(cls="android.view.View", on_touch=lambda _x, _y: None, style=Style(kind="scrim", bg=(0, 0, 0, 110)))
    return View(cls="android.view.View", key="cookie_wall", orientation="stack", children=[scrim, card])
