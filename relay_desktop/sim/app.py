"""The app model of the virtual phone: an app owns its data and builds a view tree per activity.

Apps never draw or dump anything themselves. They describe screens from state; handlers on the views
change that state and navigate through the phone. Data (contacts, notes, alarms...) lives on the app
object so task checkers can read it; per-screen state (drafts, open dialogs, scroll offsets) lives on
the :class:`Activity`, so leaving a screen with BACK discards it, as on Android.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from relay_desktop.sim.ui import Kit
from relay_desktop.sim.views import Color, View

if TYPE_CHECKING:
    from relay_desktop.sim.phone import VirtualPhone

CHAOS_DIALOG = "chaos:"      # prefix of the dialog names chaos mode gives an activity (sim/chaos.py)


@dataclass(eq=False)
class Activity:
    app: App
    name: str                                   # ".ContactsActivity": the component's class name
    params: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    scroll: dict[str, int] = field(default_factory=dict)
    dialog: str | None = None                   # name of the dialog shown over this activity

    @property
    def component(self) -> str:
        return f"{self.app.package}/{self.name}"


class App:
    """Base class of the built-in apps. Subclasses set the class attributes and write screen builders.

    ``screens`` maps activity names to method names; each method takes the :class:`Activity` and returns
    its view tree. ``dialogs`` does the same for dialogs (returning the dialog's root view).
    """

    package: ClassVar[str]
    label: ClassVar[str]
    icon: ClassVar[str] = "settings"
    color: ClassVar[Color] = (11, 87, 208)
    main_activity: ClassVar[str] = ".MainActivity"
    system: ClassVar[bool] = True
    version_name: ClassVar[str] = "14"
    version_code: ClassVar[int] = 34
    screens: ClassVar[dict[str, str]] = {}
    dialogs: ClassVar[dict[str, str]] = {}
    in_launcher: ClassVar[bool] = True
    # FLAG_SECURE on every window of the app (banking apps): the phone shows its screens, but screenshots and
    # the screen stream come out black, while accessibility (the UI dump) still reads them.
    secure: ClassVar[bool] = False

    def __init__(self, phone: VirtualPhone) -> None:
        self.phone = phone
        self.install_time = datetime(2026, 1, 5, 9, 30, tzinfo=phone.tz)
        self.reset()

    @property
    def ui(self) -> Kit:
        return self.phone.kit

    @property
    def window_size(self) -> tuple[int, int]:
        """The app's window size, what an activity gets from WindowMetrics: the display, or its half of it in
        split screen. Screens size things by this, never by the display, so they fit either."""
        bounds = self.phone.window_bounds(self.package)
        return bounds.width, bounds.height

    def reset(self) -> None:
        """Restore the app's data to its factory state (``pm clear``)."""

    # ------------------------------------------------------------ building

    def build(self, activity: Activity) -> View:
        return getattr(self, self.screens[activity.name])(activity)

    def build_dialog(self, activity: Activity) -> View | None:
        if activity.dialog is None:
            return None
        if activity.dialog.startswith(CHAOS_DIALOG):
            # A sheet chaos mode put over the app ("What's new"): sim/chaos.py draws it; gone with chaos off.
            chaos = self.phone.chaos
            return chaos.app_dialog(self, activity) if chaos is not None else None
        return getattr(self, self.dialogs[activity.dialog])(activity)

    def on_back(self, activity: Activity) -> bool:
        """BACK reached the activity (no keyboard or dialog up); return True to consume it."""
        return False

    def initial_focus(self, activity: Activity) -> str | None:
        """The key of the field focused (keyboard up) when the activity opens, like a compose screen."""
        return activity.params.get("focus")

    def resolve_intent(self, action: str | None, data: str | None) -> tuple[str, dict[str, Any]] | None:
        """Map an implicit intent to (activity, params) if this app handles it."""
        return None

    # ------------------------------------------------------------ navigation helpers for handlers

    def open(self, name: str, **params: Any) -> None:
        self.phone.start_activity(Activity(self, name, params))

    def finish(self) -> None:
        self.phone.finish_activity()

    def show_dialog(self, activity: Activity, name: str) -> None:
        activity.dialog = name
        self.phone.invalidate()

    def dismiss_dialog(self, activity: Activity) -> None:
        activity.dialog = None
        self.phone.invalidate()

    def toast(self, text: str) -> None:
        self.phone.show_toast(text)

    def field_setter(self, activity: Activity, name: str) -> Callable[[str], None]:
        """An ``on_change`` for a text field whose draft lives in ``activity.state[name]``."""

        def set_value(value: str) -> None:
            activity.state[name] = value

        return set_value
