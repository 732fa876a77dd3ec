"""Home screen (a grid of app icons) and the Overview (recent apps) screen (built in launcher_recents.py)."""

from __future__ import annotations

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps import launcher_recents
from relay_desktop.sim.ui import ON_SURFACE_VARIANT
from relay_desktop.sim.views import Style, View

WALLPAPER = (222, 232, 250)
COLUMNS = 4


class Launcher(App):
    package = "com.android.launcher3"
    label = "Pixel Launcher"
    icon = "home"
    main_activity = ".Launcher"
    screens = {".Launcher": "home", ".RecentsActivity": "overview"}
    dialogs = {"task_menu": "task_menu"}
    in_launcher = False

    def home(self, activity: Activity) -> View:
        ui = self.ui
        apps = sorted((a for a in self.phone.apps.values() if a.in_launcher), key=lambda a: a.label.lower())
        rows = [apps[i:i + COLUMNS] for i in range(0, len(apps), COLUMNS)]
        grid = [ui.row([self._icon(app) for app in row] +
                       [ui.spacer(weight=1) for _ in range(COLUMNS - len(row))], gap=8)
                for row in rows]
        clock = ui.text(self.phone.now().strftime("%H:%M"), size=64, weight=300, align="center", id="clock")
        date = ui.text(self.phone.now().strftime("%A, %B %-d"), size=16, align="center", id="date")
        search = View(cls="android.widget.TextView", id="search_container_hotseat", text="Search",
                      desc="Search", clickable=True, focusable=True, on_click=self._search,
                      height=ui.dp(56), padding=ui.pad(24, 0),
                      style=Style(kind="search_pill", bg=(255, 255, 255), fg=ON_SURFACE_VARIANT, icon="search",
                                  size=ui.sp(16), radius=ui.dp(28)))
        workspace = View(cls="android.widget.ScrollView", id="workspace", children=grid,
                         padding=ui.pad(16, 24, 16, 0), gap=ui.dp(20), weight=1)
        top = [View(cls="android.widget.LinearLayout", children=[clock, date], padding=ui.pad(0, 40, 0, 8))]
        if self.phone.split.selecting is not None:   # picking the second app for split screen from home
            top = launcher_recents.split_picker_header(self.phone, ui, self.phone.split.selecting)
        return View(cls="android.widget.LinearLayout", id="launcher", children=[
            *top,
            workspace,
            View(cls="android.widget.LinearLayout", children=[search], padding=ui.pad(24, 8, 24, 24)),
        ], style=Style(bg=WALLPAPER))

    def _icon(self, app: App) -> View:
        ui = self.ui
        tile = View(cls="android.widget.ImageView", width=ui.dp(56), height=ui.dp(56), align="center",
                    style=Style(kind="app_icon", bg=app.color, icon=app.icon, fg=(255, 255, 255),
                                radius=ui.dp(28)))
        label = ui.text(app.label, size=12, align="center", max_lines=1)
        return View(cls="android.widget.LinearLayout", desc=app.label, key=f"icon:{app.package}",
                    children=[tile, label], weight=1, gap=ui.dp(6), clickable=True, focusable=True,
                    long_clickable=True, on_click=lambda: self.phone.launch(app.package),
                    padding=ui.pad(0, 4))

    def _search(self) -> None:
        try:
            self.phone.start_intent("android.intent.action.WEB_SEARCH", None, None)
        except LookupError:
            self.toast("No app can perform this action")

    def overview(self, activity: Activity) -> View:
        return launcher_recents.overview(self, activity)

    def task_menu(self, activity: Activity) -> View | None:
        return launcher_recents.task_menu(self, activity)

    def build_dialog(self, activity: Activity) -> View | None:
        menu = super().build_dialog(activity)
        if menu is None and activity.dialog is not None:
            activity.dialog = None   # the card it belonged to is gone
        return menu
