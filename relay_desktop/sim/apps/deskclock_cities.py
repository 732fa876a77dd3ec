"""Clock's world clock: the cities shown under the local time on the Clock tab, and the city picker.

The picker is AOSP DeskClock's CitySelectionActivity: a long alphabetical list with index letters, a check box
per city (a tap selects or unselects it at once), the selected cities repeated at the top, and a search box
in the toolbar. Selected cities live in :attr:`Clock.cities` (task checkers read it), in the order picked.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from relay_desktop.sim.apps.contacts import keyboard_inset
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, PRIMARY, SURFACE_CONTAINER
from relay_desktop.sim.views import Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.deskclock import Clock

CITY_PICKER = ".CitySelectionActivity"
# (city, country, IANA zone), alphabetical as the picker lists them.
CITIES: tuple[tuple[str, str, str], ...] = (
    ("Abu Dhabi", "United Arab Emirates", "Asia/Dubai"), ("Accra", "Ghana", "Africa/Accra"),
    ("Addis Ababa", "Ethiopia", "Africa/Addis_Ababa"), ("Amsterdam", "Netherlands", "Europe/Amsterdam"),
    ("Anchorage", "United States", "America/Anchorage"), ("Athens", "Greece", "Europe/Athens"),
    ("Auckland", "New Zealand", "Pacific/Auckland"), ("Bangkok", "Thailand", "Asia/Bangkok"),
    ("Barcelona", "Spain", "Europe/Madrid"), ("Beijing", "China", "Asia/Shanghai"),
    ("Berlin", "Germany", "Europe/Berlin"), ("Bogotá", "Colombia", "America/Bogota"),
    ("Boston", "United States", "America/New_York"), ("Brussels", "Belgium", "Europe/Brussels"),
    ("Budapest", "Hungary", "Europe/Budapest"), ("Buenos Aires", "Argentina", "America/Argentina/Buenos_Aires"),
    ("Cairo", "Egypt", "Africa/Cairo"), ("Cape Town", "South Africa", "Africa/Johannesburg"),
    ("Caracas", "Venezuela", "America/Caracas"), ("Chicago", "United States", "America/Chicago"),
    ("Copenhagen", "Denmark", "Europe/Copenhagen"), ("Dallas", "United States", "America/Chicago"),
    ("Delhi", "India", "Asia/Kolkata"), ("Denver", "United States", "America/Denver"),
    ("Dubai", "United Arab Emirates", "Asia/Dubai"), ("Dublin", "Ireland", "Europe/Dublin"),
    ("Edinburgh", "United Kingdom", "Europe/London"), ("Helsinki", "Finland", "Europe/Helsinki"),
    ("Hong Kong", "China", "Asia/Hong_Kong"), ("Honolulu", "United States", "Pacific/Honolulu"),
    ("Istanbul", "Türkiye", "Europe/Istanbul"), ("Jakarta", "Indonesia", "Asia/Jakarta"),
    ("Jerusalem", "Israel", "Asia/Jerusalem"), ("Johannesburg", "South Africa", "Africa/Johannesburg"),
    ("Kathmandu", "Nepal", "Asia/Kathmandu"), ("Kyiv", "Ukraine", "Europe/Kyiv"),
    ("Lagos", "Nigeria", "Africa/Lagos"), ("Lima", "Peru", "America/Lima"),
    ("Lisbon", "Portugal", "Europe/Lisbon"), ("London", "United Kingdom", "Europe/London"),
    ("Los Angeles", "United States", "America/Los_Angeles"), ("Madrid", "Spain", "Europe/Madrid"),
    ("Manila", "Philippines", "Asia/Manila"), ("Melbourne", "Australia", "Australia/Melbourne"),
    ("Mexico City", "Mexico", "America/Mexico_City"), ("Miami", "United States", "America/New_York"),
    ("Montréal", "Canada", "America/Toronto"), ("Moscow", "Russia", "Europe/Moscow"),
    ("Mumbai", "India", "Asia/Kolkata"), ("Nairobi", "Kenya", "Africa/Nairobi"),
    ("New York", "United States", "America/New_York"), ("Oslo", "Norway", "Europe/Oslo"),
    ("Paris", "France", "Europe/Paris"), ("Prague", "Czechia", "Europe/Prague"),
    ("Reykjavík", "Iceland", "Atlantic/Reykjavik"), ("Rio de Janeiro", "Brazil", "America/Sao_Paulo"),
    ("Rome", "Italy", "Europe/Rome"), ("San Francisco", "United States", "America/Los_Angeles"),
    ("Santiago", "Chile", "America/Santiago"), ("São Paulo", "Brazil", "America/Sao_Paulo"),
    ("Seattle", "United States", "America/Los_Angeles"), ("Seoul", "South Korea", "Asia/Seoul"),
    ("Shanghai", "China", "Asia/Shanghai"), ("Singapore", "Singapore", "Asia/Singapore"),
    ("Stockholm", "Sweden", "Europe/Stockholm"), ("Sydney", "Australia", "Australia/Sydney"),
    ("Taipei", "Taiwan", "Asia/Taipei"), ("Tokyo", "Japan", "Asia/Tokyo"),
    ("Toronto", "Canada", "America/Toronto"), ("Vancouver", "Canada", "America/Vancouver"),
    ("Vienna", "Austria", "Europe/Vienna"), ("Warsaw", "Poland", "Europe/Warsaw"),
    ("Wellington", "New Zealand", "Pacific/Auckland"), ("Zürich", "Switzerland", "Europe/Zurich"),
)
ZONES: dict[str, str] = {name: zone for name, _country, zone in CITIES}


def folded(text: str) -> str:
    """Lower case without accents: "sao" finds São Paulo, as the picker's search does."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def city_time(now: datetime, city: str) -> datetime:
    return now.astimezone(ZoneInfo(ZONES[city]))


def offset_text(now: datetime, city: str) -> str:
    """How a city's time relates to the phone's, as the world clock words it ("Tomorrow, 9 hr ahead")."""
    there = city_time(now, city)
    minutes = int((there.utcoffset() - now.utcoffset()).total_seconds() // 60)  # type: ignore[operator]
    day = {1: "Tomorrow, ", -1: "Yesterday, "}.get((there.date() - now.date()).days, "Today, ")
    if not minutes:
        return f"{day}same time"
    hours, rest = divmod(abs(minutes), 60)
    amount = f"{hours} hr" + (f" {rest} min" if rest else "")
    return f"{day}{amount} {'ahead' if minutes > 0 else 'behind'}"


# ---------------------------------------------------------------- the Clock tab's list

def world_clock_rows(clock: Clock) -> list[View]:
    ui = clock.ui
    now = clock.phone.now()
    rows = []
    for city in clock.cities:
        name = ui.text(city, size=20, weight=500, id="city_name", max_lines=1)
        ahead = ui.text(offset_text(now, city), size=14, color=ON_SURFACE_VARIANT, id="hours_ahead", max_lines=1)
        texts = View(cls="android.widget.LinearLayout", weight=1, justify="center", gap=ui.dp(2),
                     children=[name, ahead])
        time = ui.text(city_time(now, city).strftime("%H:%M"), size=36, weight=300, id="digital_clock",
                       align="right")
        rows.append(ui.card([ui.row([texts, time], gap=8)], id="world_clock_item", key=f"world:{city}",
                            padding=16, bg=SURFACE_CONTAINER))
    return rows


# ---------------------------------------------------------------- the picker

def open_picker(clock: Clock) -> None:
    clock.open(CITY_PICKER)


def picker(clock: Clock, activity: Activity) -> View:
    ui = clock.ui
    searching = bool(activity.state.get("searching"))
    query = str(activity.state.get("query", ""))
    rows: list[View] = []
    if searching and query.strip():
        found = [name for name, _c, _z in CITIES if folded(query.strip()) in folded(name)]
        rows = [_city_row(clock, name) for name in found] or [
            ui.text(f"No cities match “{query.strip()}”", size=16, color=ON_SURFACE_VARIANT, align="center",
                    id="empty_view", padding=ui.pad(16, 48))]
    else:
        if clock.cities:
            rows.append(_header(ui, "Selected cities"))
            rows += [_city_row(clock, name) for name in sorted(clock.cities, key=folded)]
            rows.append(_header(ui, "All cities"))
        previous = ""
        for name, _country, _zone in CITIES:
            letter = folded(name)[:1].upper()
            rows.append(_city_row(clock, name, index=letter if letter != previous else ""))
            previous = letter
    if searching:
        field = ui.edit_text("city_query", query, hint="Search cities", variant="search", id="search_src_text",
                             on_change=clock.field_setter(activity, "query"), on_submit=lambda: None)
        field.weight = 1
        bar = View(cls="android.view.ViewGroup", id="toolbar", orientation="h", height=ui.dp(72),
                   padding=ui.pad(4, 8, 4, 8), gap=ui.dp(4), style=Style(kind="appbar"),
                   children=[ui.icon_button("back", "Collapse", lambda: _stop_search(clock, activity), id="up"),
                             field])
    else:
        bar = ui.app_bar("Select a city", up=clock.finish, actions=[
            ui.icon_button("search", "Search", lambda: _start_search(clock, activity), id="menu_item_search")])
    body = ui.scroll(rows, key="cities_list", id="cities_list", padding=ui.pad(0, 0, 0, 16))
    return ui.screen(bar, body, bottom=keyboard_inset(clock.phone), id="city_selection")


def _header(ui, text: str) -> View:  # type: ignore[no-untyped-def]
    return ui.text(text, size=14, weight=500, color=PRIMARY, id="header", padding=ui.pad(16, 16, 16, 4))


def _city_row(clock: Clock, name: str, *, index: str = "") -> View:
    ui = clock.ui
    selected = name in clock.cities
    letter = ui.text(index, size=16, weight=500, color=PRIMARY, align="center", id="index")
    letter.width = ui.dp(20)
    box = ui.checkbox(selected, id="city_onoff")
    leading = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(12), children=[letter, box])
    time = ui.text(city_time(clock.phone.now(), name).strftime("%H:%M"), size=14, color=ON_SURFACE_VARIANT,
                   id="city_time")
    row = ui.list_item(name, leading=leading, trailing=time, id="city_item", title_id="city_name", key=f"city:{name}",
                       on_click=lambda: _toggle(clock, name))
    row.checkable, row.checked, row.padding = True, selected, ui.pad(8, 8, 24, 8)
    return row


def _toggle(clock: Clock, name: str) -> None:
    if name in clock.cities:
        clock.cities.remove(name)
    else:
        clock.cities.append(name)
    clock.phone.invalidate()


def _start_search(clock: Clock, activity: Activity) -> None:
    activity.state.update(searching=True, query="")
    clock.phone.focus_key, clock.phone.keyboard_shown = "city_query", True
    clock.phone.invalidate()


def _stop_search(clock: Clock, activity: Activity) -> None:
    activity.state.update(searching=False, query="")
    clock.phone.focus_key, clock.phone.keyboard_shown = None, False
    clock.phone.invalidate()
