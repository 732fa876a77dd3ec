"""System UI of the virtual phone: the status bar (clock, Wi-Fi, signal, battery) and the three-button
navigation bar, as view trees of ``com.android.systemui`` with the ids and descriptions Android uses.

Sizes follow the bar heights the caller passes (24 dp and 48 dp on a phone), so they scale with density.
Colours are light-theme values; the renderer maps every window to the night theme when it is on.
"""

from __future__ import annotations

from collections.abc import Callable

from relay_desktop.sim.views import Style, View

ICON_COLOR = (31, 31, 35)
NAV_ICON_COLOR = (68, 71, 78)
NAV_BAR_BG = (240, 242, 247)


def _status_icon(icon: str, desc: str, id: str, size: int) -> View:
    return View(cls="android.widget.ImageView", id=id, desc=desc, width=size, height=size, align="center",
                style=Style(kind="icon", icon=icon, fg=ICON_COLOR))


def status_bar(width: int, height_px: int, clock_text: str, wifi_on: bool, battery_pct: int, dark: bool,
               airplane: bool = False) -> View:
    """The status bar, transparent over the app as in Android 14. ``dark`` (the phone's night theme)
    needs no colours of its own here: the renderer maps this tree's colours like every other window's. In
    airplane mode the plane replaces the mobile signal, as on a phone (Wi-Fi can be on again in it)."""
    del dark
    dp = height_px / 24
    icon_px = round(17 * dp)
    pct = max(0, min(100, battery_pct))
    icons = []
    if wifi_on:
        icons.append(_status_icon("wifi", "Wifi signal full.", "wifi_signal", icon_px))
    if airplane:
        icons.append(_status_icon("airplane", "Airplane mode.", "airplane", icon_px))
    else:
        icons.append(_status_icon("signal", "Phone signal full.", "mobile_signal", round(15 * dp)))
    icons.append(_status_icon(f"battery_{pct}", f"Battery {pct} percent.", "battery", icon_px))
    clock = View(cls="android.widget.TextView", id="clock", text=clock_text,
                 style=Style(kind="text", fg=ICON_COLOR, size=round(14 * dp), weight=500))
    contents = View(cls="android.widget.LinearLayout", id="status_bar_contents", orientation="h",
                    padding=(round(24 * dp), 0, round(20 * dp), 0), children=[
                        clock,
                        View(cls="android.view.View", weight=1),
                        View(cls="android.widget.LinearLayout", id="system_icons", orientation="h",
                             gap=round(6 * dp), children=icons),
                    ])
    bar = View(cls="android.widget.FrameLayout", id="status_bar", children=[contents], height=height_px)
    return View(cls="android.widget.FrameLayout", id="status_bar_container", children=[bar], width=width,
                height=height_px)


def nav_bar(width: int, height_px: int, on_back: Callable[[], None], on_home: Callable[[], None],
            on_recents: Callable[[], None]) -> View:
    """The three-button navigation bar: Back, Home and Overview, spread like the Pixel's."""

    def button(id: str, desc: str, icon: str, action: Callable[[], None]) -> View:
        return View(cls="android.widget.ImageView", id=id, desc=desc, clickable=True, focusable=True,
                    on_click=action, weight=1,
                    style=Style(kind="icon_button", icon=icon, fg=NAV_ICON_COLOR))

    side = round(width * 0.1)
    buttons = View(cls="android.widget.LinearLayout", id="ends_group", orientation="h", height=height_px,
                   padding=(side, 0, side, 0), children=[button("back", "Back", "nav_back", on_back),
                             button("home", "Home", "home", on_home),
                             button("recent_apps", "Overview", "recents", on_recents)])
    return View(cls="android.widget.FrameLayout", id="navigation_bar_frame", children=[buttons], width=width,
                height=height_px, style=Style(bg=NAV_BAR_BG))
