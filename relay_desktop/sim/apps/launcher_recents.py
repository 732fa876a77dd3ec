"""The Pixel launcher's Overview (recent apps) screen, its task menu and the split-screen app picker.

As on Android 14: each card has the app's icon above its snapshot; tapping the icon opens the task menu
("App info", "Split screen", "Pause app"); "Split screen" stages the app (a placeholder at the top, the
instructions "Tap another app to use split screen") and the next app opened fills the other half (see
``split_screen.py``). Ids follow Launcher3's (``snapshot``, ``icon``, ``menu_option_layout``, ``text``,
``split_instructions_view``, ``clear_all``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relay_desktop.sim.split_screen import INSTRUCTIONS
from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, OUTLINE_VARIANT, SURFACE_CONTAINER
from relay_desktop.sim.views import Style, View

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity, App
    from relay_desktop.sim.phone import VirtualPhone
    from relay_desktop.sim.ui import Kit

OVERVIEW_BG = (210, 214, 222)
MENU_FOR = "task_menu_for"          # activity.state: the package whose card menu is open
MENU_ANCHOR = "task_menu_anchor"    # activity.state: that card's icon view (laid out before the menu is built)


def app_tile(ui: Kit, app: App, size: float) -> View:
    return View(cls="android.widget.ImageView", width=ui.dp(size), height=ui.dp(size), align="center",
                style=Style(kind="app_icon", bg=app.color, icon=app.icon, fg=(255, 255, 255),
                            radius=ui.dp(size / 2)))


def overview(launcher: App, activity: Activity) -> View:
    phone, ui = launcher.phone, launcher.ui
    staged = phone.split.selecting
    cards = [_card(launcher, activity, package) for package in phone.recent_packages() if package != staged]
    body: list[View] = []
    if staged is not None:
        body += split_picker_header(phone, ui, staged)
    if cards:
        body.append(ui.scroll(cards, key="recents_list", gap=16, padding=ui.pad(24, 16)))
        if staged is None:
            body.append(ui.row([ui.spacer(weight=1), ui.button("Clear all", lambda: _clear_all(phone), id="clear_all",
                                                               variant="outlined"), ui.spacer(weight=1)],
                               padding=ui.pad(0, 8, 0, 16)))
    else:
        body.append(ui.text("No recent items", size=16, align="center", color=ON_SURFACE_VARIANT,
                            id="empty_recents", padding=ui.pad(0, 200, 0, 0)))
    return View(cls="android.widget.LinearLayout", id="overview_panel", children=body,
                style=Style(bg=OVERVIEW_BG))


def _card(launcher: App, activity: Activity, package: str) -> View:
    phone, ui = launcher.phone, launcher.ui
    app = phone.apps[package]
    icon = app_tile(ui, app, 40)
    icon.id, icon.desc, icon.key = "icon", app.label, f"icon:{package}"
    icon.clickable = icon.focusable = True
    icon.on_click = lambda: _open_menu(launcher, activity, package)
    if activity.state.get(MENU_FOR) == package:
        activity.state[MENU_ANCHOR] = icon
    header = ui.row([icon, ui.text(app.label, size=18, weight=500)], gap=12)
    return ui.card([header, ui.image(f"{app.label} preview", height=220, color=(255, 255, 255), icon=app.icon)],
                   on_click=lambda: phone.bring_to_front(package), id="snapshot", key=f"task:{package}",
                   bg=(255, 255, 255))


def split_picker_header(phone: VirtualPhone, ui: Kit, staged: str) -> list[View]:
    """The staged app's placeholder and the instructions, shown while the user picks the second app."""
    app = phone.apps[staged]
    placeholder = View(cls="android.widget.FrameLayout", id="split_placeholder", desc=app.label,
                       orientation="stack", height=ui.dp(96), children=[app_tile(ui, app, 48)],
                       style=Style(kind="card", bg=SURFACE_CONTAINER, radius=ui.dp(16)))
    placeholder.children[0].anchor = "center"
    instructions = View(cls="android.widget.LinearLayout", id="split_instructions_view", orientation="h",
                        align="center", padding=ui.pad(20, 8, 8, 8), gap=ui.dp(8), children=[
                            View(cls="android.widget.TextView", id="split_instructions_text", text=INSTRUCTIONS,
                                 align="center", style=Style(kind="text", fg=ON_SURFACE, size=ui.sp(14))),
                            ui.button("Cancel", phone.split.cancel_selection, id="split_instructions_cancel",
                                      variant="text")],
                        style=Style(kind="card", bg=(255, 255, 255), radius=ui.dp(24)))
    return [View(cls="android.widget.LinearLayout", children=[placeholder, instructions], gap=ui.dp(12),
                 padding=ui.pad(24, 8, 24, 0))]


def _open_menu(launcher: App, activity: Activity, package: str) -> None:
    activity.state[MENU_FOR] = package
    activity.state["dialog_dim"] = False   # a popup over the card, not a dimming dialog
    launcher.show_dialog(activity, "task_menu")


def task_menu(launcher: App, activity: Activity) -> View | None:
    """The card's menu, placed under the icon that opened it (anchored from the laid-out icon)."""
    phone, ui = launcher.phone, launcher.ui
    package = activity.state.get(MENU_FOR)
    if package not in phone.tasks:
        return None
    app = phone.apps[package]

    def chosen(action: str) -> None:
        launcher.dismiss_dialog(activity)
        if action == "split":
            phone.split.select(package)
        elif action == "info":
            try:
                phone.start_intent("android.settings.SETTINGS", None, None)
            except LookupError:
                launcher.toast("App info isn't available")
        else:
            phone.force_stop(package)
            launcher.toast(f"{app.label} is paused for today")

    options = [("App info", "info", "info"), ("Split screen", "split_screen", "split"),
               ("Pause app", "hourglass", "pause")]
    rows = [View(cls="android.widget.LinearLayout", orientation="h", clickable=True, focusable=True, gap=ui.dp(16),
                 on_click=lambda a=action: chosen(a), height=ui.dp(56), padding=ui.pad(16, 0), children=[
                     ui.icon(icon, color=ON_SURFACE),
                     View(cls="android.widget.TextView", id="text", text=label, weight=1, align="center",
                          height=ui.dp(24), style=Style(kind="text", fg=ON_SURFACE, size=ui.sp(16)))])
            for label, icon, action in options]
    # Under the icon (the dialog area starts below the status bar), moved up if it would run off the screen.
    anchor = activity.state.get(MENU_ANCHOR)
    top = anchor.bounds.bottom + ui.dp(8) - ui.dp(24) if isinstance(anchor, View) else ui.dp(120)
    height = len(rows) * ui.dp(56) + ui.dp(16)
    room = phone.display_size[1] - ui.dp(24) - ui.dp(48) - ui.dp(8)
    return View(cls="android.widget.LinearLayout", id="menu_option_layout", children=rows, anchor="top",
                margin=max(0, min(top, room - height)), height=height,
                width=min(ui.dp(280), phone.display_size[0] - ui.dp(48)), padding=ui.pad(0, 8),
                style=Style(kind="card", bg=SURFACE_CONTAINER, border=OUTLINE_VARIANT, radius=ui.dp(24)))


def _clear_all(phone: VirtualPhone) -> None:
    for package in phone.recent_packages():
        phone.force_stop(package)
    phone.go_home()
