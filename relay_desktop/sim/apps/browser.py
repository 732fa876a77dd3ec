"""Chrome: a new-tab page, an omnibox, a deterministic little web (see :data:`CORPUS`) and its search.

Each page is its own activity record on Chrome's back stack, so BACK walks the tab's history the way
it does in Chrome. :attr:`Chrome.visited` lists every URL opened (newest last) and
:attr:`Chrome.current_url` is the page in front, which is what task checkers read. A task or test can put
a page of its own on this phone's web with :meth:`Chrome.publish` (until the app's data is cleared).

Two things make pages untidy, as on the real web. Some sites are drawn on a canvas (browser_pixels.py): their
web view is one node with no children, and their text and links exist only in the pixels. And a site may ask
for cookie consent on a first visit: set :attr:`Chrome.cookie_banner_pending` and the next site page loaded shows
the banner (browser_cookies.py) over itself until it is answered; :attr:`Chrome.cookie_choices` records each
site's answer ("accepted" or "rejected"), which checkers read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote_plus, urlsplit

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.browser_cookies import cookie_banner
from relay_desktop.sim.apps.browser_pixels import DRAWN_PAGES, SITE, DrawnPage
from relay_desktop.sim.apps.contacts import autofocus, keyboard_inset, popup_menu, with_class_aliases
from relay_desktop.sim.canvas import drawn
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, SURFACE, SURFACE_CONTAINER
from relay_desktop.sim.views import Color, Style, View

PACKAGE = "com.android.chrome"
TAB = "org.chromium.chrome.browser.ChromeTabbedActivity"
MAIN = "com.google.android.apps.chrome.Main"   # the launcher alias; it lands in the tabbed activity
NEW_TAB = "chrome://newtab/"
HISTORY = "chrome://history/"
SEARCH = "https://www.google.com/search?q="
LINK: Color = (26, 13, 171)
PAGE_BG: Color = (255, 255, 255)
GOOGLE = (("G", (66, 133, 244)), ("o", (234, 67, 53)), ("o", (251, 188, 5)), ("g", (66, 133, 244)),
          ("l", (52, 168, 83)), ("e", (234, 67, 53)))


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    site: str
    snippet: str
    paragraphs: tuple[str, ...]
    links: tuple[str, ...] = ()
    picture: str = ""           # icon of a header picture, if the page has one


CORPUS: tuple[Page, ...] = (
    Page("https://relayweather.com/forecast", "Relay Weather — 7-day forecast", "Relay Weather",
         "Sunny spells on Monday and Tuesday, rain moving in on Wednesday, and highs of 18° by the weekend.",
         ("Mon: sunny, 16° / 8°. Tue: sunny spells, 17° / 9°. Wed: rain, 12° / 7°.",
          "Thu: showers clearing, 13° / 6°. Fri: cloudy, 15° / 8°. Sat: sunny, 18° / 10°. Sun: sunny, 18° / 11°.",
          "Weekend outlook: dry and bright, a good time for a hike."),
         ("https://www.trailfinder.org/hikes/blue-ridge",), "brightness"),
    Page("https://www.pastaclub.net/recipes/weeknight", "Pasta recipes: 20 easy weeknight dinners", "Pasta Club",
         "From cacio e pepe to a 15-minute puttanesca: pasta recipes for busy evenings, all under 30 minutes.",
         ("Cacio e pepe: spaghetti, pecorino, black pepper and a splash of the cooking water.",
          "Puttanesca: tomatoes, olives, capers and anchovies, ready in 15 minutes.",
          "Lemon pasta: butter, lemon zest and parmesan. Add a little orange zest for a twist."),
         (), "image"),
    Page("https://www.citrusfarm.es/seville-oranges", "Seville oranges: where to buy", "Citrus Farm Andalucía",
         "Seville oranges are in season from late December to February. Where to buy them fresh, online "
         "and at markets.",
         ("Seville oranges are the bitter oranges of Andalucía, picked from December to February.",
          "Buy them online from the farm (shipped within 48 hours), at larger supermarkets in January, or "
          "at your local farmers market.",
          "Too sour to eat raw, they make the best marmalade."),
         ("https://www.marmaladeguild.org/recipes/seville-orange-marmalade",), "shop"),
    Page("https://www.marmaladeguild.org/recipes/seville-orange-marmalade", "Seville orange marmalade recipe",
         "The Marmalade Guild",
         "A classic marmalade: 1 kg Seville oranges, 1 lemon, 2 kg sugar. Ready in an afternoon.",
         ("You need 1 kg of Seville oranges, 1 lemon, 2 litres of water and 2 kg of sugar.",
          "Simmer the whole oranges for two hours, slice them, then boil with the sugar until it sets.",
          "Pour into warm sterilised jars. Keeps for a year."),
         ("https://www.citrusfarm.es/seville-oranges",)),
    Page("https://docs.python.org/3/library/asyncio.html", "asyncio — Asynchronous I/O — Python 3 docs",
         "Python documentation",
         "asyncio is a library to write concurrent code using the async/await syntax.",
         ("asyncio is a library to write concurrent code using the async/await syntax.",
          "It is used as a foundation for Python asynchronous frameworks: network and web servers, database "
          "connection libraries, distributed task queues.",
          "Run a coroutine with asyncio.run(main())."),
         ()),
    Page("https://en.wikipedia.org/wiki/Bitter_orange", "Bitter orange - Wikipedia", "Wikipedia",
         "Bitter orange, Seville orange, or marmalade orange is a citrus tree and its fruit.",
         ("Bitter orange, Seville orange or marmalade orange is the citrus tree Citrus × aurantium and its fruit.",
          "Seville oranges are grown in Spain mostly for export to Britain, where they are made into marmalade."),
         ("https://www.marmaladeguild.org/recipes/seville-orange-marmalade",)),
    Page("https://www.trailfinder.org/hikes/blue-ridge", "Blue Ridge day hikes: 10 trails with a view",
         "TrailFinder", "Ten day hikes in the Blue Ridge Mountains, from an easy 3 km loop to a full-day summit.",
         ("Easy: Crabtree Falls loop, 3 km, waterfalls all the way.",
          "Moderate: Humpback Rocks, 6 km return, a steep climb to a wide view.",
          "Hard: Old Rag, 15 km, rock scramble to the summit. Check the weather first."),
         ("https://relayweather.com/forecast",), "location"),
    Page("https://www.cityherald.com/news/farmers-market-reopens", "Farmers market reopens on Saturday",
         "City Herald", "The riverside farmers market reopens this Saturday with 40 stalls, from bread to citrus.",
         ("The riverside farmers market reopens this Saturday from 8 am to 1 pm.",
          "Forty stalls are expected, with bakers, cheesemakers and a citrus grower selling winter fruit."),
         (), "cart"),
)
# Drawn sites are on the web too: search finds them by their title and snippet (search engines read no more).
WEB: tuple[Page, ...] = CORPUS + tuple(Page(d.url, d.title, SITE, d.snippet, ()) for d in DRAWN_PAGES)
SHORTCUTS = (("Relay Weather", 0), ("Wikipedia", 5), ("Python", 4), ("Pasta Club", 1))
DISCOVER = (7, 6)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _bare(url: str) -> str:
    """A URL as the omnibox shows it: no scheme, no "www.", no trailing slash."""
    return re.sub(r"^(https?://)?(www\.)?", "", url).rstrip("/")


def to_url(text: str) -> str:
    """What the omnibox opens for ``text``: a URL as is, something URL-shaped over https, else a search."""
    text = text.strip()
    if re.match(r"^[a-z][a-z0-9+.-]*://", text, re.I):
        return text
    if " " not in text and re.fullmatch(r"[\w-]+(\.[\w-]+)+(/\S*)?", text):
        return "https://" + text
    return SEARCH + quote_plus(text)


def search(query: str, pages: Sequence[Page] = CORPUS) -> list[Page]:
    """Every page, those matching the query's words first (a title match outweighs a body match)."""
    words = re.findall(r"\w+", query.lower())

    def score(page: Page) -> int:
        title, body = _words(page.title), _words(" ".join((page.snippet, *page.paragraphs)))
        return sum(3 if w in title else 1 if w in body else 0 for w in words)

    return sorted(pages, key=lambda page: -score(page))  # sorted() is stable: ties keep corpus order


def page_at(url: str, pages: Sequence[Page] = CORPUS) -> Page | None:
    wanted = _bare(url)
    exact = next((p for p in pages if _bare(p.url) == wanted), None)
    # A bare host opens that site's page, as if its home page redirected there.
    return exact or next((p for p in pages if _bare(p.url).split("/")[0] == wanted), None)


def drawn_page_at(url: str) -> DrawnPage | None:
    wanted = _bare(url)
    return next((d for d in DRAWN_PAGES if _bare(d.url) == wanted), None)


def host_of(url: str) -> str:
    """The site a URL belongs to, as cookies are kept: its host without "www."."""
    return _bare(url).split("/")[0]


def search_query(url: str) -> str | None:
    if not url.startswith(SEARCH):
        return None
    return parse_qs(urlsplit(url).query).get("q", [""])[0]


class Chrome(App):
    package = PACKAGE
    label = "Chrome"
    icon = "globe"
    color = (219, 68, 55)
    main_activity = TAB
    version_name = "120.0.6099.144"
    version_code = 609914434
    screens = with_class_aliases({TAB: "tab", MAIN: "tab"})
    dialogs = {"menu": "app_menu"}

    def reset(self) -> None:
        self.visited: list[str] = []
        self.pages: list[Page] = list(WEB)       # this phone's web: the corpus, drawn sites and published pages
        # Set (by a task, or chaos mode) to make the next site page loaded ask for cookie consent.
        self.cookie_banner_pending = False
        self.cookie_choices: dict[str, str] = {}  # host → "accepted" or "rejected"

    def publish(self, page: Page) -> None:
        """Put ``page`` on this phone's web (replacing a page at the same URL): it opens and is found by search."""
        self.pages = [p for p in self.pages if _bare(p.url) != _bare(page.url)] + [page]

    def resolve_intent(self, action: str | None, data: str | None) -> tuple[str, dict[str, Any]] | None:
        if action == "android.intent.action.WEB_SEARCH":
            return TAB, {"url": NEW_TAB, "focus_search": True}
        if action == "android.intent.action.VIEW" and data and re.match(r"^https?://", data, re.I):
            return TAB, {"url": data}
        return None

    @property
    def current_url(self) -> str | None:
        """The URL of the page in front of Chrome's tab, or None when Chrome is not running."""
        stack = self.phone.tasks.get(PACKAGE)
        return self._url(stack[-1]) if stack else None

    def navigate(self, url: str) -> None:
        if not url.startswith("chrome://"):
            self.visited.append(url)
        self.phone.start_activity(Activity(self, TAB, {"url": url}, state={"recorded": True}))

    def _url(self, activity: Activity) -> str:
        return str(activity.params.get("url") or activity.params.get("data") or NEW_TAB)

    # ------------------------------------------------------------ the tab

    def tab(self, activity: Activity) -> View:
        ui = self.ui
        url = self._url(activity)
        if not activity.state.get("recorded"):
            # Opened by an intent (a link from another app, `am start -d URL`) rather than from inside Chrome.
            activity.state["recorded"] = True
            if not url.startswith("chrome://"):
                self.visited.append(url)
        query = search_query(url)
        page = page_at(url, self.pages)
        if not activity.state.get("loaded"):
            activity.state["loaded"] = True    # this build is the page's load; later ones redraw it
            if self.cookie_banner_pending and page is not None and query is None \
                    and host_of(page.url) not in self.cookie_choices:
                self.cookie_banner_pending = False
                activity.state["cookie_banner"] = True
        banner = self._banner(activity, page) if activity.state.get("cookie_banner") and page is not None else None
        drawn_page = drawn_page_at(page.url) if page is not None and query is None else None
        if drawn_page is not None:
            assert page is not None
            web = self._drawn(drawn_page, page.title, banner)
            return ui.screen(self._toolbar(activity, url, query), web, bottom=keyboard_inset(self.phone),
                             id="coordinator")
        if url == NEW_TAB:
            if activity.params.get("focus_search"):
                autofocus(activity, "search_box_text")
            title, content = "New tab", self._new_tab(activity)
        elif url == HISTORY:
            title, content = "History", self._history()
        elif query is not None:
            title, content = f"{query} - Google Search", self._results(query)
        elif page is not None:
            title, content = page.title, self._article(page)
        else:
            title, content = _bare(url), self._unreachable(url)
        web = View(cls="android.webkit.WebView", key="web_contents", text=title, children=content, scrollable=True,
                   focusable=True, weight=1, gap=ui.dp(12), padding=ui.pad(16, 16, 16, 32),
                   style=Style(bg=PAGE_BG))
        if banner is not None:
            # The banner is the page's own content, fixed over it: the web view holds the page and the banner.
            web.cls, web.key = "android.view.View", "web_document"
            web.weight, web.focusable = 0, False
            web = View(cls="android.webkit.WebView", key="web_contents", text=title, orientation="stack",
                       focusable=True, weight=1, children=[web, banner], style=Style(bg=PAGE_BG))
        toolbar = self._toolbar(activity, url, query)
        return ui.screen(toolbar, web, bottom=keyboard_inset(self.phone), id="coordinator")

    def _toolbar(self, activity: Activity, url: str, query: str | None) -> View:
        ui = self.ui
        count = View(cls="android.widget.TextView", text="1", width=ui.dp(22), height=ui.dp(22), anchor="center",
                     style=Style(kind="text", size=ui.sp(12), weight=700, align="center", border=(68, 71, 78),
                                 radius=ui.dp(5)))
        tabs = View(cls="android.widget.ImageButton", id="tab_switcher_button", desc="Switch or close tabs",
                    clickable=True, focusable=True, on_click=lambda: None, width=ui.dp(48), height=ui.dp(48),
                    align="center", orientation="stack", children=[count])
        menu = ui.icon_button("more_vert", "Customize and control Google Chrome",
                              lambda: self.show_dialog(activity, "menu"), id="menu_button")
        children: list[View] = [ui.icon_button("house", "Home", lambda: self.navigate(NEW_TAB), id="home_button")]
        if url != NEW_TAB:
            # Unfocused, Chrome shows the search terms of a results page and the host of any other page.
            shown = query if query is not None else "" if url.startswith("chrome://") else _bare(url).split("/")[0]
            text = activity.state.get("omnibox")
            field = ui.edit_text("url_bar", shown if text is None else text, hint="Search or type URL",
                                 variant="search", on_change=lambda new: self._omnibox(activity, new),
                                 on_submit=lambda: self._go(activity, "omnibox"))
            field.select_all_on_focus = True    # Chrome selects the whole URL as the omnibox takes focus
            field.style.bg, field.padding, field.height = SURFACE_CONTAINER, ui.pad(4, 0, 12, 0), ui.dp(48)
            field.weight = 1
            secure = url.startswith("https://") and query is None and page_at(url, self.pages) is not None
            pill = View(cls="android.widget.LinearLayout", id="location_bar", orientation="h", weight=1,
                        height=ui.dp(48), align="center", padding=ui.pad(12, 0, 0, 0), gap=ui.dp(8),
                        children=[ui.icon("lock" if secure else "search", size=20,
                                          desc="Connection is secure" if secure else ""), field],
                        style=Style(bg=SURFACE_CONTAINER, radius=ui.dp(24)))
            children.append(pill)
        else:
            children.append(View(cls="android.view.View", weight=1))
        children += [tabs, menu]
        return View(cls="android.widget.LinearLayout", id="toolbar", orientation="h", children=children,
                    height=ui.dp(64), padding=ui.pad(4, 8), gap=ui.dp(4), style=Style(bg=SURFACE))

    def _omnibox(self, activity: Activity, new: str) -> None:
        activity.state["omnibox"] = new

    def _go(self, activity: Activity, key: str) -> None:
        text = activity.state.get(key) or ""
        if text.strip():
            del activity.state[key]  # coming back, the omnibox shows the page's URL again
            self.navigate(to_url(text))

    def app_menu(self, activity: Activity) -> View:
        def go(url: str) -> None:
            activity.dialog = None
            self.navigate(url)

        return popup_menu(self.ui, [("New tab", lambda: go(NEW_TAB)), ("History", lambda: go(HISTORY))])

    # ------------------------------------------------------------ untidy pages: drawn sites, cookie banners

    def _drawn(self, page: DrawnPage, title: str, banner: View | None) -> View:
        """The web view of a site drawn on a canvas: one node, the page's title as its text, nothing inside."""
        content = page.build(self.ui, self.navigate)
        return drawn(content, width=self.window_size[0], key="web_contents", bg=PAGE_BG,
                     overlays=[banner] if banner is not None else [], cls="android.webkit.WebView", text=title,
                     focusable=True, weight=1)

    def _banner(self, activity: Activity, page: Page) -> View:
        def choose(choice: str) -> None:
            self.cookie_choices[host_of(page.url)] = choice
            activity.state["cookie_banner"] = False
            self.phone.invalidate()

        return cookie_banner(self.ui, page.site, lambda: choose("accepted"), lambda: choose("rejected"))

    # ------------------------------------------------------------ page contents

    def _text(self, value: str, *, size: float = 16, weight: int = 400, color: Color = (32, 33, 36),
              max_lines: int = 0) -> View:
        return self.ui.text(value, size=size, weight=weight, color=color, max_lines=max_lines)

    def _link(self, value: str, url: str, *, size: float = 16) -> View:
        view = self.ui.text(value, size=size, color=LINK, on_click=lambda: self.navigate(url))
        view.cls = "android.view.View"  # how Chrome exposes a link to accessibility
        return view

    def _new_tab(self, activity: Activity) -> list[View]:
        ui = self.ui
        logo = View(cls="android.widget.LinearLayout", orientation="h", desc="Google", id="search_provider_logo",
                    padding=ui.pad(0, 40, 0, 24), children=[ui.spacer(weight=1)] + [
                        ui.text(letter, size=56, weight=500, color=color) for letter, color in GOOGLE
                    ] + [ui.spacer(weight=1)])
        for letter in logo.children[1:-1]:
            letter.style.size = ui.sp(56)
        box = ui.edit_text("search_box_text", activity.state.get("ntp_query", ""), hint="Search or type URL",
                           variant="search", on_change=self.field_setter(activity, "ntp_query"),
                           on_submit=lambda: self._go(activity, "ntp_query"))
        box.weight, box.padding = 1, ui.pad(4, 14, 16, 14)
        search_box = View(cls="android.widget.LinearLayout", id="search_box", orientation="h", height=ui.dp(56),
                          padding=ui.pad(20, 0, 0, 0), gap=ui.dp(8), children=[ui.icon("search"), box],
                          style=Style(bg=SURFACE_CONTAINER, radius=ui.dp(28)))
        tiles = []
        for label, index in SHORTCUTS:
            page = CORPUS[index]
            icon = ui.avatar(label, color=SURFACE_CONTAINER, size=48)
            icon.style.fg = (32, 33, 36)
            tiles.append(View(cls="android.widget.FrameLayout", desc=label, key=f"tile:{label}", weight=1,
                              gap=ui.dp(8), clickable=True, focusable=True,
                              on_click=lambda url=page.url: self.navigate(url), padding=ui.pad(0, 8),
                              children=[icon, ui.text(label, size=12, align="center", max_lines=1,
                                                      id="tile_view_title")]))
        items = [logo, search_box,
                 View(cls="android.widget.LinearLayout", id="mv_tiles_layout", orientation="h", children=tiles,
                      padding=ui.pad(0, 24, 0, 8)),
                 self._text("Discover", size=16, weight=500)]
        for index in DISCOVER:
            page = CORPUS[index]
            items.append(ui.card([ui.image(page.title, height=140, icon=page.picture, color=(232, 240, 254)),
                                  self._text(page.title, size=18, weight=500),
                                  self._text(page.site, size=13, color=ON_SURFACE_VARIANT)],
                                 on_click=lambda url=page.url: self.navigate(url), key=f"discover:{index}",
                                 gap=8, bg=(246, 248, 252)))
        return items

    def _results(self, query: str) -> list[View]:
        ui = self.ui
        found = search(query, self.pages)
        logo = View(cls="android.widget.LinearLayout", orientation="h", desc="Google", children=[
            ui.text(letter, size=26, weight=500, color=color) for letter, color in GOOGLE] + [ui.spacer(weight=1)])
        items: list[View] = [logo, self._text(f"About {len(found)} results", size=13, color=ON_SURFACE_VARIANT)]
        for page in found:
            favicon = ui.avatar(page.site, color=SURFACE_CONTAINER, size=28)
            favicon.style.fg, favicon.style.size = (32, 33, 36), ui.sp(13)
            site = View(cls="android.widget.LinearLayout", orientation="h", gap=ui.dp(10), children=[
                favicon, ui.column([self._text(page.site, size=14, max_lines=1),
                                    self._text(_bare(page.url), size=12, color=ON_SURFACE_VARIANT, max_lines=1)],
                                   weight=1)])
            items.append(View(cls="android.view.View", key=f"result:{page.url}", clickable=True, focusable=True,
                              on_click=lambda url=page.url: self.navigate(url), gap=ui.dp(6), padding=ui.pad(0, 8),
                              children=[site, self._text(page.title, size=20, color=LINK),
                                        self._text(page.snippet, size=14, color=(77, 81, 86), max_lines=3)]))
            items.append(ui.divider())
        return items

    def _article(self, page: Page) -> list[View]:
        ui = self.ui
        items = [self._text(page.site.upper(), size=13, weight=500, color=ON_SURFACE_VARIANT),
                 self._text(page.title, size=28, weight=500)]
        if page.picture:
            items.append(ui.image(page.title, height=180, icon=page.picture, color=(232, 240, 254)))
        items += [self._text(paragraph) for paragraph in page.paragraphs]
        if page.links:
            items.append(self._text("Read next", size=14, weight=500, color=ON_SURFACE_VARIANT))
            for url in page.links:
                target = page_at(url, self.pages)
                items.append(self._link(target.title if target else url, url))
        return items

    def _unreachable(self, url: str) -> list[View]:
        ui = self.ui
        host = urlsplit(url).hostname or _bare(url)
        return [ui.spacer(48), ui.icon("info", size=48),
                self._text("This site can't be reached", size=24),
                self._text(f"Check if there is a typo in {host}.", color=ON_SURFACE_VARIANT),
                self._text("DNS_PROBE_FINISHED_NXDOMAIN", size=12, color=ON_SURFACE_VARIANT),
                ui.row([ui.spacer(weight=1), ui.button("Reload", self.phone.invalidate, id="reload_button")],
                       padding=ui.pad(0, 16))]

    def _history(self) -> list[View]:
        ui = self.ui
        if not self.visited:
            return [self._text("Pages you visit appear here", color=ON_SURFACE_VARIANT)]
        items = [self._text("History", size=24)]
        for index, url in enumerate(reversed(self.visited)):
            query = search_query(url)
            page = page_at(url, self.pages)
            title = f"{query} - Google Search" if query is not None else page.title if page else _bare(url)
            row = ui.list_item(title, _bare(url), key=f"history:{index}", on_click=lambda u=url: self.navigate(u))
            row.padding = ui.pad(0, 12)
            items.append(row)
        return items

