"""Dialogs the system puts over whatever app is in front: "Clock keeps stopping" when an app in the background
crashes, as Android's AppErrorDialog shows it (package ``android``, rows ``aerr_app_info`` and ``aerr_close``).

They come unasked, in the middle of a task, over any app: what a replayed routine or an agent must get past.
Either row closes the dialog (App info also opens the app's page in Settings, as on a phone); Back closes it too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relay_desktop.sim.views import Rect, Style, View, Window, layout

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

__all__ = ["SYSTEM_DIALOG_PACKAGES", "SystemDialog", "app_keeps_stopping", "system_dialog_window"]

SYSTEM_PACKAGE = "android"
# Packages whose dialogs over an app are not the app's own: a tap outside them leaves the app's dialogs alone
# (the system's error dialogs, a permission request, Google Play's in-app review card).
SYSTEM_DIALOG_PACKAGES = frozenset({SYSTEM_PACKAGE, "com.android.permissioncontroller", "com.android.vending"})


@dataclass
class SystemDialog:
    title: str
    rows: list[tuple[str, str, Callable[[], None]]]      # (label, resource id, what it does besides closing)
    # The dialogs chaos mode brings (sim/chaos.py) draw themselves: ``build`` lays out their window in the frame.
    build: Callable[[Rect], Window] | None = None
    cancelable: bool = True                  # BACK closes it ("isn't responding": no)
    outside_cancels: bool = False            # so does a tap outside it (a permission request)
    on_cancel: Callable[[], None] | None = None   # what BACK closing it means (a permission request: no answer)
    owner: str | None = None                 # the app it belongs to: it hides while another app is in front
    blocks_input: bool = False               # it has the input focus: typed text and keys do not reach the app


def app_keeps_stopping(phone: VirtualPhone, package: str) -> SystemDialog:
    """The crash dialog of an app that is not in front ("Clock keeps stopping")."""
    label = phone.apps[package].label

    def app_info() -> None:
        phone.start_intent("android.settings.APPLICATION_DETAILS_SETTINGS", f"package:{package}", None)

    return SystemDialog(f"{label} keeps stopping",
                        [("App info", "android:id/aerr_app_info", app_info),
                         ("Close app", "android:id/aerr_close", lambda: None)])


def system_dialog_window(phone: VirtualPhone, dialog: SystemDialog, frame: Rect) -> Window:
    if dialog.build is not None:
        return dialog.build(frame)
    kit = phone.kit

    def choose(action: Callable[[], None]) -> Callable[[], None]:
        def chosen() -> None:
            phone.system_dialog = None
            with contextlib.suppress(LookupError):   # nothing on this phone handles it: closing is all it does
                action()
            phone.invalidate()
        return chosen

    rows = [kit.text(label, size=16, id=rid, padding=kit.pad(24, 14), on_click=choose(action))
            for label, rid, action in dialog.rows]
    content = View(cls="android.widget.LinearLayout", id="android:id/parentPanel", children=[
        kit.text(dialog.title, size=20, id="android:id/alertTitle", padding=kit.pad(24, 20, 24, 8)), *rows],
        padding=kit.pad(0, 0, 0, 8), style=Style(kind="card", bg=(240, 237, 245), radius=kit.dp(28)))
    root = View(cls="android.widget.FrameLayout", id="android:id/content", anchor="center", width=kit.dp(312),
                children=[content])
    holder = View(orientation="stack", children=[root])
    layout(holder, frame)
    return Window("dialog", SYSTEM_PACKAGE, root, root.bounds, dim_behind=True)
