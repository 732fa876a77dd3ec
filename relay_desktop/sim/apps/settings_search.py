"""Settings search: the search box behind Settings' magnifier, over an index of every page and control.

As in Android's Settings search, a query matches a title or its keywords (so "sleep" finds Screen timeout and
"silence" Do Not Disturb), each result names where it lives, and a tap opens that page. Whatever the phone
lacks (NFC, say) finds nothing.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from relay_desktop.sim.ui import ON_SURFACE_VARIANT
from relay_desktop.sim.views import Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.settings import Settings

SEARCH = ".SearchActivity"
# (title, where it lives, the activity a tap opens, keywords)
INDEX: tuple[tuple[str, str, str, str], ...] = (
    ("Network & internet", "Settings", ".NetworkDashboardActivity", "wireless"),
    ("Wi-Fi", "Network & internet", ".NetworkDashboardActivity", "wifi wlan wireless network internet"),
    ("Mobile network", "Network & internet", ".NetworkDashboardActivity", "cellular data sim roaming"),
    ("Airplane mode", "Network & internet", ".NetworkDashboardActivity", "flight aeroplane offline"),
    ("Connected devices", "Settings", ".ConnectedDevicesActivity", "bluetooth"),
    ("Bluetooth", "Connected devices", ".ConnectedDevicesActivity", "pair headphones speaker"),
    ("Pair new device", "Connected devices", ".ConnectedDevicesActivity", "bluetooth pairing"),
    ("Connection preferences", "Connected devices", ".ConnectionPreferencesActivity", "connections"),
    ("Quick Share", "Connected devices > Connection preferences", ".ConnectionPreferencesActivity",
     "nearby share send files"),
    ("Android Auto", "Connected devices > Connection preferences", ".ConnectionPreferencesActivity", "car"),
    ("Printing", "Connected devices > Connection preferences", ".ConnectionPreferencesActivity", "printer print"),
    ("Sound & vibration", "Settings", ".SoundSettingsActivity", "sound volume vibrate"),
    ("Media volume", "Sound & vibration", ".SoundSettingsActivity", "volume music video sound"),
    ("Call volume", "Sound & vibration", ".SoundSettingsActivity", "volume phone call"),
    ("Ring & notification volume", "Sound & vibration", ".SoundSettingsActivity",
     "volume ringer ringtone mute silent vibrate"),
    ("Alarm volume", "Sound & vibration", ".SoundSettingsActivity", "volume alarm clock"),
    ("Do Not Disturb", "Sound & vibration", ".ZenModeSettingsActivity",
     "dnd interrupt interruptions break"),
    ("Phone ringtone", "Sound & vibration", ".SoundSettingsActivity", "ring tone sound"),
    ("Display", "Settings", ".DisplaySettingsActivity", "screen"),
    ("Brightness level", "Display", ".DisplaySettingsActivity", "brightness dim bright screen"),
    ("Dark theme", "Display", ".DisplaySettingsActivity", "dark mode night theme"),
    ("Screen timeout", "Display", ".ScreenTimeoutActivity", "sleep screen off lock timeout"),
    ("About phone", "Settings", ".DeviceInfoActivity", "device info"),
    ("Device name", "About phone", ".DeviceNameActivity", "phone name rename"),
    ("Android version", "About phone", ".DeviceInfoActivity", "os update version"),
    ("Build number", "About phone", ".DeviceInfoActivity", "build developer"),
    ("IP address", "About phone", ".DeviceInfoActivity", "ip network address"),
)


def _folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def search_settings(query: str) -> list[tuple[str, str, str]]:
    """(title, breadcrumb, activity) of the entries whose title or keywords hold every word of ``query``."""
    words = _folded(query).replace("-", " ").split()
    if not words:
        return []
    found = []
    for title, where, activity, keywords in INDEX:
        haystack = _folded(f"{title} {keywords}").replace("-", " ").split()
        if all(any(w.startswith(q) for w in haystack) for q in words):
            found.append((title, where, activity))
    return found


def search_page(settings: Settings, activity: Activity, *, bottom: View | None) -> View:
    ui = settings.ui
    query = str(activity.state.get("query", ""))
    field = ui.edit_text("search_settings", query, hint="Search settings", variant="search", id="search_src_text",
                         on_change=settings.field_setter(activity, "query"), on_submit=lambda: None)
    field.weight = 1
    bar_children = [ui.icon_button("back", "Navigate up", settings.finish, id="up"), field]
    if query:
        bar_children.append(ui.icon_button("close", "Clear text", lambda: _clear(settings, activity),
                                           id="search_close_btn"))
    bar = View(cls="android.view.ViewGroup", id="search_toolbar", orientation="h", height=ui.dp(72),
               padding=ui.pad(4, 8, 4, 8), gap=ui.dp(4), style=Style(kind="appbar"), children=bar_children)
    rows: list[View] = []
    if query.strip():
        for title, where, target in search_settings(query):
            rows.append(ui.list_item(title, where, id="search_result", key=f"result:{title}",
                                     leading=ui.icon("search"),
                                     on_click=lambda target=target: settings.open(target)))
        if not rows:
            rows.append(ui.text(f"No results for “{query.strip()}”", size=16, color=ON_SURFACE_VARIANT,
                                align="center", id="no_results", padding=ui.pad(16, 48)))
    body = ui.scroll(rows, key="search_results", id="list_results")
    return ui.screen(bar, body, bottom=bottom, id="search_panel")


def _clear(settings: Settings, activity: Activity) -> None:
    activity.state["query"] = ""
    settings.phone.focus_key, settings.phone.keyboard_shown = "search_settings", True
    settings.phone.invalidate()
