"""What the interruptions of chaos mode look like, window by window, as Android 14 lays them out and dumps them.

* The runtime permission request: an activity of ``com.android.permissioncontroller`` over the app (layout
  ``grant_permissions.xml``: ``grant_singleton`` > ``grant_dialog`` > ``permission_message`` and the stacked
  ``permission_allow_button`` / ``permission_deny_button``), "Allow **Messages** to send you notifications?".
* "<App> isn't responding": the system's AppNotRespondingDialog (package ``android``; ``alertTitle``, then the
  ``aerr_close`` "Close app" and ``aerr_wait`` "Wait" buttons, as in a real dump).
* Google Play's in-app review card (package ``com.android.vending``): the app's name, "Rate this app", five
  stars, "Not now" and "Submit".
* An app's own "What's new" bottom sheet (the app's package, Material's ``design_bottom_sheet``).

The builders only draw; sim/chaos.py decides when each comes and what its buttons do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, PRIMARY, SURFACE_CONTAINER, Kit
from relay_desktop.sim.views import Rect, Style, View, Window, layout

if TYPE_CHECKING:
    from relay_desktop.sim.app import App

__all__ = ["PERMISSION_CONTROLLER", "PLAY_STORE", "anr_window", "permission_window", "review_window",
           "whats_new_sheet"]

PERMISSION_CONTROLLER = "com.android.permissioncontroller"
PLAY_STORE = "com.android.vending"
DIALOG_BG = (236, 238, 244)            # Material 3's surface container high, as system dialogs use
TONAL = (220, 226, 249)                # the permission dialog's stacked tonal buttons
STAR_OFF, STAR_ON = (116, 119, 127), (1, 135, 95)


def _centered_card(kit: Kit, children: list[View], *, id: str = "", padding: tuple[int, int, int, int],
                   gap: float = 16) -> View:
    return View(cls="android.widget.LinearLayout", id=id, anchor="center", width=kit.dp(320), children=children,
                padding=padding, gap=kit.dp(gap), style=Style(kind="card", bg=DIALOG_BG, radius=kit.dp(28)))


def permission_window(kit: Kit, app_label: str, request: str, allow: Callable[[], None],
                      deny: Callable[[], None]) -> Callable[[Rect], Window]:
    """The permission request over the app: "Allow <app> to <request>?" with Allow and Don’t allow."""

    def button(label: str, id: str, action: Callable[[], None]) -> View:
        return View(cls="android.widget.Button", id=f"{PERMISSION_CONTROLLER}:id/{id}", text=label, clickable=True,
                    focusable=True, on_click=action, height=kit.dp(48),
                    style=Style(kind="button", bg=TONAL, fg=(22, 27, 44), size=kit.sp(14), weight=500,
                                radius=kit.dp(24), align="center"))

    def build(frame: Rect) -> Window:
        message = View(cls="android.widget.TextView", id=f"{PERMISSION_CONTROLLER}:id/permission_message",
                       text=f"Allow {app_label} to {request}?",
                       style=Style(kind="text", fg=ON_SURFACE, size=kit.sp(24), align="center"))
        icon = kit.icon("notifications" if "notification" in request else "info", color=PRIMARY, size=32)
        icon.id = f"{PERMISSION_CONTROLLER}:id/permission_icon"
        content = View(cls="android.widget.LinearLayout", id=f"{PERMISSION_CONTROLLER}:id/content_container",
                       children=[View(cls="android.widget.LinearLayout", gap=kit.dp(16), children=[icon, message])])
        buttons = View(cls="android.widget.LinearLayout", gap=kit.dp(8), children=[
            button("Allow", "permission_allow_button", allow),
            button("Don\u2019t allow", "permission_deny_button", deny)])
        card = View(cls="android.widget.LinearLayout", id=f"{PERMISSION_CONTROLLER}:id/grant_dialog",
                    children=[content, buttons], padding=kit.pad(24, 24, 24, 24), gap=kit.dp(24),
                    style=Style(kind="card", bg=DIALOG_BG, radius=kit.dp(28)))
        single = View(cls="android.widget.LinearLayout", id=f"{PERMISSION_CONTROLLER}:id/grant_singleton",
                      children=[card])
        scroll = View(cls="android.widget.ScrollView", children=[single])
        content_view = View(cls="android.widget.FrameLayout", id="android:id/content", children=[scroll])
        # The activity's theme is a floating Dialog.Alert: its window is the card's size, centred (decor views
        # around the content), so what lies outside it is the app's, dimmed.
        root = View(cls="android.widget.FrameLayout", anchor="center", width=kit.dp(320), children=[
            View(cls="android.widget.FrameLayout", children=[content_view])])
        holder = View(orientation="stack", children=[root])
        layout(holder, frame)
        return Window("dialog", PERMISSION_CONTROLLER, root, root.bounds, dim_behind=True)

    return build


def anr_window(kit: Kit, app_label: str, close: Callable[[], None],
               wait: Callable[[], None]) -> Callable[[Rect], Window]:
    """"<App> isn't responding" with Close app and Wait, in the layout of a real dump of the dialog."""

    def button(label: str, id: str, action: Callable[[], None]) -> View:
        return View(cls="android.widget.Button", id=f"android:id/{id}", text=label, clickable=True, focusable=True,
                    on_click=action, height=kit.dp(48), padding=kit.pad(24, 0),
                    style=Style(kind="text", fg=ON_SURFACE, size=kit.sp(16)))

    def build(frame: Rect) -> Window:
        title = View(cls="android.widget.LinearLayout", id="android:id/topPanel", children=[
            View(cls="android.widget.LinearLayout", id="android:id/title_template", padding=kit.pad(24, 18, 24, 0),
                 children=[View(cls="android.widget.TextView", id="android:id/alertTitle",
                                text=f"{app_label} isn't responding",
                                style=Style(kind="text", fg=ON_SURFACE, size=kit.sp(22)))])])
        buttons = View(cls="android.widget.FrameLayout", id="android:id/customPanel", padding=kit.pad(0, 8, 0, 8),
                       children=[View(cls="android.widget.FrameLayout", id="android:id/custom", children=[
                           View(cls="android.widget.LinearLayout", children=[
                               button("Close app", "aerr_close", close), button("Wait", "aerr_wait", wait)])])])
        panel = View(cls="android.widget.LinearLayout", id="android:id/parentPanel", children=[title, buttons])
        content = View(cls="android.widget.FrameLayout", id="android:id/content", children=[panel])
        card = View(cls="android.widget.FrameLayout", anchor="center", width=frame.width - kit.dp(32),
                    padding=kit.pad(16, 16, 16, 16), children=[
                        View(cls="android.widget.FrameLayout", children=[content],
                             style=Style(kind="card", bg=DIALOG_BG, radius=kit.dp(28)))])
        holder = View(orientation="stack", children=[card])
        layout(holder, frame)
        return Window("dialog", "android", card, card.bounds, dim_behind=True)

    return build


def review_window(kit: Kit, app: App, stars: int, rate: Callable[[int], None], not_now: Callable[[], None],
                  submit: Callable[[], None]) -> Callable[[Rect], Window]:
    """Google Play's in-app review card at the bottom of the screen; ``stars`` is the rating chosen so far."""

    def star(n: int) -> View:
        return View(cls="android.widget.ImageView", desc=f"{n} star{'s' if n > 1 else ''}", clickable=True,
                    focusable=True, selected=n <= stars, on_click=lambda: rate(n), width=kit.dp(44),
                    height=kit.dp(44), align="center",
                    style=Style(kind="icon", icon="star", fg=STAR_ON if n <= stars else STAR_OFF))

    def build(frame: Rect) -> Window:
        header = View(cls="android.widget.LinearLayout", orientation="h", gap=kit.dp(12), children=[
            View(cls="android.widget.ImageView", width=kit.dp(36), height=kit.dp(36), align="center",
                 style=Style(kind="app_icon", icon=app.icon, bg=app.color, radius=kit.dp(18))),
            kit.text(app.label, size=16, weight=500, max_lines=1)])
        submit_button = kit.button("Submit", submit, variant="text", enabled=stars > 0)
        card = View(cls="android.widget.LinearLayout", anchor="bottom", margin=kit.dp(12), gap=kit.dp(12),
                    padding=kit.pad(24, 20, 24, 12), children=[
                        header,
                        kit.text("Rate this app", size=22, color=ON_SURFACE),
                        kit.text("Tell others what you think", size=14, color=ON_SURFACE_VARIANT),
                        View(cls="android.widget.LinearLayout", orientation="h", gap=kit.dp(4),
                             children=[star(n) for n in range(1, 6)]),
                        View(cls="android.widget.LinearLayout", orientation="h", gap=kit.dp(8), children=[
                            kit.spacer(weight=1), kit.button("Not now", not_now, variant="text"), submit_button])],
                    style=Style(kind="card", bg=SURFACE_CONTAINER, radius=kit.dp(28)))
        holder = View(orientation="stack", children=[card])
        layout(holder, frame)
        return Window("dialog", PLAY_STORE, card, card.bounds, dim_behind=True)

    return build


def whats_new_sheet(kit: Kit, app_label: str, notes: Sequence[str], done: Callable[[], None]) -> View:
    """An app's "What's new" bottom sheet (the root of its dialog window): what changed and "Got it"."""
    handle = View(cls="android.view.View", width=kit.dp(32), height=kit.dp(4), align="center",
                  style=Style(kind="card", bg=(196, 198, 208), radius=kit.dp(2)))
    rows = [kit.text(f"\u2022  {note}", size=16, color=ON_SURFACE_VARIANT) for note in notes]
    button = kit.button("Got it", done, id="whats_new_got_it")
    return View(cls="android.widget.FrameLayout", id="design_bottom_sheet", anchor="bottom", children=[
        View(cls="android.widget.LinearLayout", gap=kit.dp(12), padding=kit.pad(24, 12, 24, 24), children=[
            handle, kit.text(f"What\u2019s new in {app_label}", size=24, id="whats_new_title"), *rows,
            View(cls="android.widget.LinearLayout", orientation="h", children=[kit.spacer(weight=1), button])])],
        style=Style(kind="card", bg=SURFACE_CONTAINER, radius=kit.dp(28)))
