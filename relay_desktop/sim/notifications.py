"""Notifications of the virtual phone: posted by apps (an incoming text) or over adb (``cmd notification
post``), shown for a few seconds as a heads-up card under the status bar and listed in the notification shade.

Both are ``com.android.systemui`` windows the UI dump lists, with the ids SystemUI uses (``android:id/title``,
``android:id/text``…), so an agent reads a notification the way it reads any screen. The shade opens with a
swipe down from the status bar or ``cmd statusbar expand-notifications``, and closes with BACK, HOME, ``cmd
statusbar collapse`` or any navigation. Tapping a notification opens what it points at (its app, or the thread
of a text) and removes it; a sideways swipe dismisses it. :attr:`NotificationCenter.active` is what checkers
read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from relay_desktop.sim.ui import ON_SURFACE, ON_SURFACE_VARIANT, PRIMARY, SURFACE, SURFACE_CONTAINER
from relay_desktop.sim.views import Rect, Style, View, Window, layout

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

__all__ = ["HEADS_UP_SECONDS", "SYSTEM_UI", "Notification", "NotificationCenter"]

SYSTEM_UI = "com.android.systemui"
HEADS_UP_SECONDS = 8.0      # how long a heads-up card stays (Android: ~5-10 s, longer while touched)
SHADE_ROWS = 6              # the shade shows this many; the rest are summarised, as SystemUI's overflow does
_SYSTEM_LABELS = {"com.android.shell": "Shell", "android": "Android System"}   # posters that are no app here


@dataclass(eq=False)
class Notification:
    id: int
    package: str
    app_label: str
    title: str
    text: str
    posted: datetime
    heads_up_until: float | None     # time.monotonic() deadline; None: stays up until acted on (an incoming call)
    on_open: Callable[[], None] | None = None   # what tapping it does; None: open its app
    # Action buttons under the text ("No thanks", "Turn on"): each does its thing and the notification goes.
    actions: tuple[tuple[str, Callable[[], None]], ...] = ()

    @property
    def key(self) -> str:
        return f"0|{self.package}|{self.id}"


class NotificationCenter:
    """The phone's posted notifications (newest first), the heads-up card and the shade."""

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.active: list[Notification] = []
        self.shade_open = False
        self._next_id = 1

    # ------------------------------------------------------------ state

    def post(self, package: str, title: str, text: str, *, on_open: Callable[[], None] | None = None,
             heads_up: float | None = HEADS_UP_SECONDS, actions: tuple[tuple[str, Callable[[], None]], ...] = (),
             label: str | None = None) -> Notification:
        """Post a notification from ``package``; it shows as a heads-up card for ``heads_up`` seconds
        (0: straight into the shade; None: until it is opened or dismissed). ``label`` is the app name its header
        shows when not the package's own (SystemUI posts the low-battery warning as "Settings")."""
        app = self.phone.apps.get(package)
        deadline = None if heads_up is None else time.monotonic() + heads_up
        label = label or (app.label if app is not None else _SYSTEM_LABELS.get(package, package))
        notification = Notification(self._next_id, package, label, title, text, self.phone.now(), deadline, on_open,
                                    actions)
        self._next_id += 1
        self.active.insert(0, notification)
        self.phone.invalidate()
        return notification

    def cancel(self, notification_id: int) -> bool:
        before = len(self.active)
        self.active = [n for n in self.active if n.id != notification_id]
        if len(self.active) != before:
            self.phone.invalidate()
        return len(self.active) != before

    def clear(self) -> None:
        """"Clear all" in the shade."""
        self.active = []
        self.collapse()
        self.phone.invalidate()

    def heads_up(self) -> Notification | None:
        """The card shown under the status bar now, if any: the newest notification still in its heads-up time."""
        if self.shade_open or not self.active:
            return None
        newest = self.active[0]
        if newest.heads_up_until is None or newest.heads_up_until > time.monotonic():
            return newest
        return None

    def hide_heads_up(self, notification: Notification) -> None:
        """Swiped up: the card goes, the notification stays in the shade."""
        notification.heads_up_until = 0.0
        self.phone.invalidate()

    def expand(self) -> None:
        if not self.shade_open:
            self.shade_open = True
            self.phone.invalidate()

    def collapse(self) -> None:
        if self.shade_open:
            self.shade_open = False
            self.phone.invalidate()

    def open(self, notification: Notification) -> None:
        """Tapped: the notification goes (auto-cancel), the shade closes and its target opens."""
        self.cancel(notification.id)
        self.collapse()
        if notification.on_open is not None:
            notification.on_open()
        elif notification.package in self.phone.apps:
            self.phone.launch(notification.package)
        self.phone.invalidate()

    # ------------------------------------------------------------ windows

    def windows(self, width: int, status_h: int, app_frame: Rect) -> list[Window]:
        """The shade (over everything but the system bars), or the heads-up card, or nothing."""
        kit = self.phone.kit
        if self.shade_open:
            rows = [self._row(n) for n in self.active[:SHADE_ROWS]]
            if len(self.active) > SHADE_ROWS:
                rows.append(kit.text(f"+{len(self.active) - SHADE_ROWS} more notifications", size=14,
                                     color=ON_SURFACE_VARIANT, id="notification_overflow", align="center"))
            if rows:
                rows.append(kit.button("Clear all", self.clear, id="dismiss_text", variant="text"))
            else:
                rows.append(kit.text("No notifications", size=16, color=ON_SURFACE_VARIANT,
                                     id="no_notifications", align="center", padding=kit.pad(0, 24)))
            stack = View(cls="android.widget.LinearLayout", id="notification_stack_scroller", children=rows,
                         gap=kit.dp(8), padding=kit.pad(12, 16, 12, 16))
            root = View(cls="android.widget.FrameLayout", id="notification_panel", children=[stack],
                        padding=(0, status_h, 0, 0), style=Style(bg=SURFACE))
            layout(root, app_frame)
            return [Window("notification", SYSTEM_UI, root, app_frame)]
        shown = self.heads_up()
        if shown is None:
            return []
        card = self._row(shown)
        card.id = "heads_up_notification"
        holder = View(orientation="stack", children=[card], padding=(kit.dp(8), status_h + kit.dp(4), kit.dp(8), 0))
        card.anchor = "top"
        layout(holder, Rect(0, 0, width, app_frame.bottom))
        return [Window("notification", SYSTEM_UI, card, card.bounds)]

    def _row(self, notification: Notification) -> View:
        kit = self.phone.kit
        when = notification.posted.strftime(
            "%H:%M" if self.phone.setting("system", "time_12_24", "24") == "24" else "%-I:%M %p")
        header = View(cls="android.widget.LinearLayout", orientation="h", gap=kit.dp(6), children=[
            kit.icon("notifications", color=PRIMARY, size=16),
            kit.text(notification.app_label, size=12, color=ON_SURFACE_VARIANT, id="android:id/app_name_text",
                     max_lines=1),
            kit.text(when, size=12, color=ON_SURFACE_VARIANT, id="android:id/time")])
        body = [header, kit.text(notification.title, size=15, weight=500, color=ON_SURFACE, id="android:id/title",
                                 max_lines=1)]
        if notification.text:
            body.append(kit.text(notification.text, size=14, color=ON_SURFACE_VARIANT, id="android:id/text",
                                 max_lines=3))
        if notification.actions:
            body.append(self._actions(notification))
        return View(cls="android.widget.FrameLayout", id="expandableNotificationRow", key=notification.key,
                    clickable=True, focusable=True, on_click=lambda: self.open(notification),
                    padding=kit.pad(16, 12, 16, 12),
                    children=[View(cls="android.widget.LinearLayout", id="notification_content", children=body,
                                   gap=kit.dp(2))],
                    style=Style(kind="card", bg=SURFACE_CONTAINER, radius=kit.dp(20)))

    def _actions(self, notification: Notification) -> View:
        """The action buttons, as the notification template lays them out (every button is ``action0``)."""
        kit = self.phone.kit

        def do(action: Callable[[], None]) -> Callable[[], None]:
            def done() -> None:
                self.cancel(notification.id)
                action()
            return done

        buttons = [kit.button(label, do(action), id="android:id/action0", variant="text")
                   for label, action in notification.actions]
        return View(cls="android.widget.FrameLayout", id="android:id/actions_container", children=[
            View(cls="android.widget.LinearLayout", id="android:id/actions", orientation="h", gap=kit.dp(8),
                 children=buttons)])

    def swiped(self, window: Window, x1: float, y1: float, x2: float, y2: float) -> None:
        """A swipe that starts on a notification: sideways dismisses it; up on the heads-up card hides the card."""
        row = next((v for v in window.root.walk() if v.key.startswith("0|") and v.bounds.contains(x1, y1)), None)
        notification = next((n for n in self.active if row is not None and n.key == row.key), None)
        if notification is None:
            return
        if abs(x2 - x1) > abs(y2 - y1):
            self.cancel(notification.id)
        elif y2 < y1 and not self.shade_open:
            self.hide_heads_up(notification)

    def visible_key(self) -> tuple[object, ...]:
        """What decides whether the composed windows are out of date as time passes (a heads-up timing out)."""
        shown = self.heads_up()
        return (self.shade_open, shown.id if shown is not None else None)
