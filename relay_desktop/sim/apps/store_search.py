"""The Shop's search: a search box in the app bar over live results, matched by the start of each word.

As store apps do, "clocks" finds "Wall Clock" and "cancel" finds "Noise-Cancelling Headphones"; a product the
shop does not sell finds nothing and says so.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from relay_desktop.sim.apps.contacts import keyboard_inset
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, SURFACE
from relay_desktop.sim.views import Color, Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.store import Shop

SEARCH = ".SearchActivity"


def words(text: str) -> list[str]:
    """Lower-case words without accents: how the search box compares queries and product names."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return re.findall(r"\w+", "".join(c for c in decomposed if not unicodedata.combining(c)))


def matches(name: str, query: str) -> bool:
    """Whether every word of ``query`` starts a word of ``name`` (a plural "s" aside)."""
    names = words(name)
    wanted = [w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words(query)]
    return bool(wanted) and all(any(n.startswith(w) for n in names) for w in wanted)


def search_page(shop: Shop, activity: Activity, *, accent: Color, background: Color) -> View:
    """Opened from the catalogue's magnifier with the box focused and the keyboard up."""
    ui = shop.ui
    query = str(activity.state.get("query", ""))
    field = ui.edit_text("search_query", query, hint="Search Shop", variant="search", id="search_src_text",
                         on_change=shop.field_setter(activity, "query"), on_submit=lambda: None)
    field.weight, field.style.accent = 1, accent
    actions: list[View] = [field]
    if query:
        actions.append(ui.icon_button("close", "Clear query", lambda: _clear(shop, activity), id="search_close_btn"))
    actions.append(shop.cart_button())
    bar = View(cls="android.view.ViewGroup", id="toolbar", orientation="h", height=ui.dp(72),
               padding=ui.pad(4, 8, 4, 8), gap=ui.dp(4), style=Style(kind="appbar", bg=SURFACE),
               children=[ui.icon_button("back", "Navigate up", shop.finish, id="up"), *actions])
    rows: list[View]
    if not query.strip():
        rows = [ui.text("Search by product name", size=14, color=ON_SURFACE_VARIANT, id="search_hint",
                        padding=ui.pad(4, 16))]
    else:
        found = shop.search(query)
        if found:
            rows = [ui.text(f"{len(found)} result{'' if len(found) == 1 else 's'} for “{query.strip()}”",
                            size=14, color=ON_SURFACE_VARIANT, id="result_count", padding=ui.pad(4, 8, 4, 0)),
                    *(shop.product_card(p) for p in found)]
        else:
            rows = [ui.text(f"No results for “{query.strip()}”", size=18, weight=500, id="no_results",
                            padding=ui.pad(4, 24, 4, 0)),
                    ui.text("Check the spelling or try a more general word.", size=14, color=ON_SURFACE_VARIANT,
                            padding=ui.pad(4, 0))]
    rows.append(ui.spacer(12))
    body = ui.scroll(rows, key="search_results", gap=12, padding=ui.pad(16, 0, 16, 0))
    body.style.bg = background
    return ui.screen(bar, body, bottom=keyboard_inset(shop.phone), id="search_view")


def _clear(shop: Shop, activity: Activity) -> None:
    activity.state["query"] = ""
    shop.phone.focus_key, shop.phone.keyboard_shown = "search_query", True
    shop.phone.invalidate()
