"""Turns the phone's state into laid-out windows: app (two of them and System UI's divider in split screen),
dialog, keyboard, toast, notifications and the system bars."""

from __future__ import annotations

from typing import TYPE_CHECKING

from relay_desktop.sim import keyboard, system_bars
from relay_desktop.sim.split_screen import SYSTEM_UI, divider_view
from relay_desktop.sim.system_dialog import system_dialog_window
from relay_desktop.sim.views import Rect, Style, View, Window, layout

if TYPE_CHECKING:
    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.phone import VirtualPhone


def compose_windows(phone: VirtualPhone) -> list[Window]:
    kit = phone.kit
    width, height = phone.display_size
    status_h, nav_h = kit.dp(24), kit.dp(48)
    app_frame = Rect(0, 0, width, height - nav_h)
    split = phone.split.layout()
    windows: list[Window] = []
    if split is None or phone.split.pair is None:
        windows += _task_windows(phone, phone.current_activity(), app_frame, status_h)
    else:
        # Both halves, the focused one last: it is the top window (uiautomator's active window, the one
        # u2's focused-window queries read), as the task the user touched last is on Android.
        focused = phone.split.focused
        for package in sorted(phone.split.pair.packages, key=lambda p: p == focused):
            frame = split.first if package == phone.split.pair.first else split.second
            windows += _task_windows(phone, phone.tasks[package][-1], frame, status_h, focused=package == focused)
        divider = divider_view(split, kit.dp)
        layout(divider, split.divider)
        windows.append(Window("divider", SYSTEM_UI, divider, split.divider))

    _apply_focus(phone, windows)
    # The floating text-selection toolbar: a popup of the focused app, over its windows, under the keyboard.
    toolbar = phone.input.editing.toolbar_window(phone, phone.current_activity().app.package,
                                                 phone.input.toolbar_item)
    if toolbar is not None:
        windows.append(toolbar)

    if phone.system_dialog is not None:
        windows.append(system_dialog_window(phone, phone.system_dialog, app_frame.inset(0, status_h, 0, 0)))

    if phone.keyboard_shown:
        # Chaos mode turns on Gboard's suggestion strip (candidates for the word being typed).
        suggestions = phone.chaos.suggestions(windows) if phone.chaos is not None else []
        kb_root, kb_frame = keyboard.keyboard(width, app_frame.bottom, phone.input.ime_key,
                                              shifted=phone.keyboard_shift, symbols=phone.keyboard_symbols,
                                              suggestions=suggestions)
        layout(kb_root, kb_frame)
        windows.append(Window("ime", phone.ime_package, kb_root, kb_frame))

    if phone.toast is not None:
        windows.append(_toast_window(phone, phone.toast[0], app_frame))

    notifications = phone.notifications.windows(width, status_h, app_frame)
    if phone.notifications.shade_open:
        windows = notifications  # the shade covers the app (which keeps its focus for when it closes)
    else:
        windows += notifications

    clock = phone.now().strftime("%H:%M")
    wifi_on = phone.setting("global", "wifi_on") == "1"
    airplane = phone.setting("global", "airplane_mode_on") == "1"
    status = system_bars.status_bar(width, status_h, clock, wifi_on, phone.battery_level, phone.dark_theme,
                                    airplane=airplane)
    layout(status, Rect(0, 0, width, status_h))
    windows.append(Window("status_bar", "com.android.systemui", status, status.bounds))
    nav = system_bars.nav_bar(width, nav_h, phone.input.back, phone.input.home, phone.input.recents)
    layout(nav, Rect(0, height - nav_h, width, height))
    windows.append(Window("nav_bar", "com.android.systemui", nav, nav.bounds))
    return windows


def _task_windows(phone: VirtualPhone, activity: Activity, frame: Rect, status_h: int,
                  focused: bool = True) -> list[Window]:
    """The activity's window laid out in ``frame`` (the whole screen, or its half in split screen), and its
    dialog. Content starts below the status bar only where the window reaches under it."""
    app = activity.app
    content = app.build(activity)
    for view in content.walk():
        if view.scrollable and view.identity in activity.scroll:
            view.scroll = activity.scroll[view.identity]
    top_inset = max(0, status_h - frame.top)
    # The decor views every Android window has.
    decor = View(cls="android.widget.FrameLayout", children=[
        View(cls="android.widget.LinearLayout", children=[
            View(cls="android.widget.FrameLayout", id="android:id/content", children=[content],
                 orientation="stack", weight=1)],
             padding=(0, top_inset, 0, 0))],
        orientation="stack", style=Style(bg=content.style.bg))
    layout(decor, frame)
    for view in content.walk():
        if view.scrollable and view.identity:
            activity.scroll[view.identity] = view.scroll  # keep the clamped offset

    windows = [Window("app", app.package, decor, frame, unfocused=not focused)]
    dialog_root = app.build_dialog(activity)
    if dialog_root is not None:
        holder = View(orientation="stack", children=[dialog_root])
        layout(holder, frame.inset(0, top_inset, 0, 0))
        dim = activity.state.get("dialog_dim", True)  # popup menus are dialogs that do not dim
        windows.append(Window("dialog", app.package, dialog_root, dialog_root.bounds, dim_behind=dim,
                              dim_area=frame if phone.split.active else None, unfocused=not focused))
    return windows


def _apply_focus(phone: VirtualPhone, windows: list[Window]) -> None:
    """Mark the focused text field; if it is gone from the screen, drop focus and the keyboard."""
    if phone.focus_key is None:
        phone.input.editing.detach()
        return
    for window in reversed(windows):
        if window.unfocused:
            continue  # in split screen only the focused half's fields can hold input focus
        for view in window.root.walk():
            if view.editable and view.identity == phone.focus_key and not view.visible.empty:
                view.focused = True
                phone.input.editing.attach(view)   # its cursor and selection, drawn by the field's painter
                return
    phone.input.editing.detach()
    phone.focus_key = None
    phone.keyboard_shown = False


def _toast_window(phone: VirtualPhone, text: str, app_frame: Rect) -> Window:
    kit = phone.kit
    label = kit.text(text, size=14, color=(240, 240, 240), align="center", max_lines=2)
    toast = View(cls="android.widget.LinearLayout", children=[label], padding=kit.pad(16, 12),
                 anchor="bottom", margin=kit.dp(64), width=min(app_frame.width - kit.dp(48), kit.dp(320)),
                 style=Style(kind="card", bg=(50, 50, 54), radius=kit.dp(24)))
    holder = View(orientation="stack", children=[toast])
    layout(holder, app_frame)
    return Window("toast", "android", toast, toast.bounds)
