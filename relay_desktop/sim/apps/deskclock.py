"""Clock (Google Clock): alarms with a keyboard-mode time picker and labels, the local time and world clock,
timer and stopwatch.

Alarms live in :attr:`Clock.alarms` (task checkers read them), kept sorted by time, started timers in
:attr:`Clock.timers` and world-clock cities in :attr:`Clock.cities`. The Alarm tab is fully interactive; Clock
shows the phone's own time and the chosen cities (picked as in deskclock_cities.py); the Timer tab sets and
starts timers (see deskclock_timer.py); Stopwatch is display-only, since no task needs time to pass on the
virtual phone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relay_desktop.sim.app import Activity, App
from relay_desktop.sim.apps.contacts import dialog
from relay_desktop.sim.apps.deskclock_alarm_card import ACCENT, OFF_TIME, ON_TIME, alarm_card
from relay_desktop.sim.apps.deskclock_cities import CITY_PICKER, open_picker, picker, world_clock_rows
from relay_desktop.sim.apps.deskclock_date_picker import date_picker, open_date_picker
from relay_desktop.sim.apps.deskclock_schedule import (
    ALL_DAYS,
    WEEKDAYS,
    Alarm,
    days_text,
    in_week_order,
    parse_time,
    until_day,
    until_text,
)
from relay_desktop.sim.apps.deskclock_timer import Timer, timer_tab
from relay_desktop.sim.ui import ERROR, ON_SURFACE_VARIANT
from relay_desktop.sim.views import Color, View

if TYPE_CHECKING:
    from collections.abc import Callable

# Alarm data and wording live in deskclock_schedule; importers of this module read them from here too.
__all__ = ["ALL_DAYS", "PACKAGE", "SEED", "WEEKDAYS", "Alarm", "Clock", "days_text", "parse_time", "until_day",
           "until_text"]

PACKAGE = "com.google.android.deskclock"
MAIN = ".DeskClock"
# (hour, minute, enabled, label, days): the factory alarms every task starts from.
SEED: tuple[tuple[int, int, bool, str, tuple[str, ...]], ...] = (
    (6, 30, False, "Gym", ("Mon", "Wed", "Fri")),
    (8, 0, True, "Work", WEEKDAYS),
)
TABS: tuple[tuple[str, str], ...] = (("Alarm", "alarm"), ("Clock", "clock"), ("Timer", "refresh"),
                                     ("Stopwatch", "play"))
FAB_BG: Color = (178, 230, 240)
FIELD_BG: Color = (222, 226, 232)
TIME_ERROR = "Enter a valid time"


class Clock(App):
    package = PACKAGE
    label = "Clock"
    icon = "alarm"
    color = (0, 96, 122)
    main_activity = MAIN
    version_name = "7.8 (629155574)"
    version_code = 629155574
    screens = {MAIN: "main", CITY_PICKER: "city_picker"}
    dialogs = {"time": "time_dialog", "label": "label_dialog", "date": "date_dialog"}

    def reset(self) -> None:
        self.alarms: list[Alarm] = [Alarm(i + 1, *row) for i, row in enumerate(SEED)]
        self.next_id = len(self.alarms) + 1
        self.timers: list[Timer] = []
        self.next_timer_id = 1
        self.cities: list[str] = []          # world clock, in the order added

    # ------------------------------------------------------------ data

    def get(self, alarm_id: int | None) -> Alarm | None:
        return next((a for a in self.alarms if a.id == alarm_id), None)

    def at(self, hour: int, minute: int) -> list[Alarm]:
        return [a for a in self.alarms if (a.hour, a.minute) == (hour, minute)]

    def add(self, hour: int, minute: int, *, label: str = "", enabled: bool = True,
            days: tuple[str, ...] = ()) -> Alarm:
        alarm = Alarm(self.next_id, hour, minute, enabled, label, in_week_order(days))
        self.next_id += 1
        self.alarms.append(alarm)
        self._sort()
        return alarm

    def delete(self, alarm_id: int) -> None:
        self.alarms = [a for a in self.alarms if a.id != alarm_id]

    def _sort(self) -> None:
        self.alarms.sort(key=lambda a: (a.hour, a.minute, a.id))

    # ------------------------------------------------------------ the main screen

    def main(self, activity: Activity) -> View:
        ui = self.ui
        tab = activity.state.get("tab", "Alarm")
        nav = ui.bottom_nav([(name, icon, name == tab, self._tab_setter(activity, name)) for name, icon in TABS])
        for item in nav.children:
            item.style.accent = FAB_BG  # the selected tab's pill in the app's teal
        bar = ui.app_bar(tab)
        fab = None
        if tab == "Alarm":
            body = self._alarm_list(activity)
            fab = ui.fab("add", "Add alarm", lambda: self.open_time_picker(activity, None))
            fab.anchor, fab.width, fab.height = "bottom", ui.dp(96), ui.dp(96)  # centred and large, as in Clock
            fab.style.radius, fab.style.bg, fab.style.fg = ui.dp(28), FAB_BG, ON_TIME
        elif tab == "Clock":
            body = self._clock_tab()
            fab = ui.fab("globe", "Cities", lambda: open_picker(self))
            fab.anchor, fab.width, fab.height = "bottom", ui.dp(96), ui.dp(96)
            fab.style.radius, fab.style.bg, fab.style.fg = ui.dp(28), FAB_BG, ON_TIME
        elif tab == "Timer":
            body = timer_tab(self, activity)
        else:
            body = self._static_tab("stopwatch_time_text", "00:00.00", "", "stopwatch")
        return ui.screen(bar, body, bottom=nav, fab=fab, id="desk_clock_pager")

    def _tab_setter(self, activity: Activity, name: str) -> Callable[[], None]:
        def select() -> None:
            activity.state["tab"] = name
            self.phone.invalidate()

        return select

    def _alarm_list(self, activity: Activity) -> View:
        ui = self.ui
        cards = [alarm_card(self, activity, alarm) for alarm in self.alarms]
        if not cards:
            cards = [ui.text("No alarms", size=16, color=ON_SURFACE_VARIANT, align="center", id="alarms_empty_view",
                             padding=ui.pad(16, 64))]
        # Bottom padding keeps the last card clear of the large FAB; as in Clock (clipToPadding off) cards
        # still show under it, behind the FAB.
        alarm_list = ui.scroll(cards, key="alarm_recycler_view", gap=12, padding=ui.pad(16, 8, 16, 128))
        alarm_list.clip_to_padding = False
        return alarm_list

    def toggle(self, alarm: Alarm) -> None:
        alarm.enabled = not alarm.enabled
        if alarm.enabled:
            self.toast(until_text(self.phone.now(), alarm.hour, alarm.minute, alarm.days, alarm.date))
        self.phone.invalidate()

    def remove(self, alarm: Alarm) -> None:
        self.delete(alarm.id)
        self.toast("Alarm deleted")

    def city_picker(self, activity: Activity) -> View:
        return picker(self, activity)

    def on_back(self, activity: Activity) -> bool:
        if activity.name == CITY_PICKER and activity.state.get("searching"):
            activity.state.update(searching=False, query="")  # BACK collapses the search box first
            self.phone.invalidate()
            return True
        return False

    def _clock_tab(self) -> View:
        ui = self.ui
        now = self.phone.now()
        zone = self.phone.config.timezone
        city = zone.rsplit("/", 1)[-1].replace("_", " ")
        local = ui.column([
            ui.spacer(48),
            ui.text(now.strftime("%H:%M"), size=88, weight=300, align="center", id="digital_clock"),
            ui.text(f"{now:%a, %b} {now.day}".upper(), size=16, weight=500, color=ON_SURFACE_VARIANT,
                    align="center", id="date"),
            ui.spacer(24),
            ui.text(f"{city} · {now.tzname() or zone}", size=16, color=ON_SURFACE_VARIANT, align="center",
                    id="time_zone"),
            ui.text(zone, size=14, color=OFF_TIME, align="center", id="time_zone_id"),
        ], gap=4, id="main_clock_frame")
        # Bottom padding keeps the last city clear of the large FAB.
        cities = ui.scroll([local, *world_clock_rows(self)], key="world_clock_list", gap=12,
                           padding=ui.pad(16, 0, 16, 128))
        cities.clip_to_padding = False
        return cities

    def _static_tab(self, id: str, display: str, caption: str, container: str) -> View:
        ui = self.ui
        start = ui.button("Start", lambda: None, id="play_pause", enabled=False)
        start.width, start.align = ui.dp(160), "center"
        texts = [ui.text(display, size=56, weight=300, align="center", id=id)]
        if caption:
            texts.append(ui.text(caption, size=16, color=ON_SURFACE_VARIANT, align="center", id="caption"))
        return ui.column([ui.spacer(96), *texts, ui.spacer(48), start], gap=8, id=container)

    # ------------------------------------------------------------ the time picker

    def open_time_picker(self, activity: Activity, alarm: Alarm | None) -> None:
        """Open the picker in keyboard-input mode, Hour focused, as Clock's keyboard picker opens."""
        state = activity.state
        state.update(edit_id=alarm.id if alarm else None, hour=f"{alarm.hour:02d}" if alarm else "",
                     minute=f"{alarm.minute:02d}" if alarm else "", time_error=False)
        self.phone.focus_key = "input_hour"
        self.phone.keyboard_shown = True
        self.show_dialog(activity, "time")

    def time_dialog(self, activity: Activity) -> View:
        ui = self.ui
        state = activity.state
        def field(name: str) -> View:
            # No hint: as in AOSP's TextInputTimePickerView the captions sit under the fields instead.
            view = ui.edit_text(f"input_{name}", state[name], hint="", on_change=self._typed(activity, name),
                                on_submit=lambda: self._confirm(activity))
            view.weight, view.height, view.padding = 1, ui.dp(72), ui.pad(12, 6)
            view.style.size, view.style.align, view.style.radius = ui.sp(40), "center", ui.dp(8)
            view.style.bg, view.style.accent = FIELD_BG, ACCENT
            view.select_all_on_focus = True   # a field that gains focus has its text selected: typing replaces "08"
            return view

        def caption(text: str, id: str) -> View:
            label = ui.text(text, size=12, color=ERROR if state.get("time_error") else ON_SURFACE_VARIANT, id=id)
            label.weight = 1
            return label

        colon = ui.text(":", size=40, align="center")
        colon.width, colon.height = ui.dp(24), ui.dp(72)
        fields = ui.row([field("hour"), colon, field("minute")])
        gutter = ui.spacer()
        gutter.width = ui.dp(24)
        captions = ui.row([caption("Hour", "label_hour"), gutter, caption("Minute", "label_minute")])
        body: list[View] = [ui.column([fields, captions], gap=6)]
        if state.get("time_error"):
            body.append(ui.text(TIME_ERROR, size=14, color=ERROR, id="label_error"))
        root = dialog(ui, "Enter time", "", [("Cancel", lambda: self._cancel(activity)),
                                             ("OK", lambda: self._confirm(activity))])
        panel = root.children[0]
        panel.children[1:1] = body
        panel.children[0].style.size = ui.sp(14)  # the picker's header is a small label, not a headline
        panel.children[0].style.fg = ON_SURFACE_VARIANT
        panel.children[0].id = "header_title"
        if self.phone.keyboard_shown:  # dialogs move up above the keyboard (adjustResize)
            root.anchor, root.margin = "top", ui.dp(72)
        return root

    def _typed(self, activity: Activity, name: str) -> Callable[[str], None]:
        def set_value(value: str) -> None:
            state = activity.state
            state[name] = "".join(ch for ch in value if ch.isdigit())[:2]  # number input, maxLength 2
            state["time_error"] = False

        return set_value

    def _cancel(self, activity: Activity) -> None:
        self.phone.keyboard_shown = False
        self.dismiss_dialog(activity)

    def _confirm(self, activity: Activity) -> None:
        state = activity.state
        parsed = parse_time(state.get("hour", ""), state.get("minute", ""))
        if parsed is None:
            state["time_error"] = True
            self.phone.invalidate()
            return
        hour, minute = parsed
        alarm = self.get(state.get("edit_id"))
        if alarm is None:
            alarm = self.add(hour, minute)
        else:
            alarm.hour, alarm.minute, alarm.enabled = hour, minute, True  # a new time re-arms the alarm
            self._sort()
        self.phone.keyboard_shown = False
        self.phone.focus_key = None
        self.dismiss_dialog(activity)
        self.toast(until_text(self.phone.now(), alarm.hour, alarm.minute, alarm.days, alarm.date))


    # ------------------------------------------------------------ "Schedule alarm": a one-off alarm's date

    def open_date_picker(self, activity: Activity, alarm: Alarm) -> None:
        open_date_picker(self, activity, alarm)

    def date_dialog(self, activity: Activity) -> View:
        return date_picker(self, activity)

    # ------------------------------------------------------------ the label dialog

    def open_label(self, activity: Activity, alarm: Alarm) -> None:
        activity.state.update(label_id=alarm.id, label_draft=alarm.label)
        self.phone.focus_key = "label_input"
        self.phone.keyboard_shown = True
        self.show_dialog(activity, "label")

    def label_dialog(self, activity: Activity) -> View:
        ui = self.ui
        field = ui.edit_text("label_input", activity.state.get("label_draft", ""), hint="Label",
                             on_change=self.field_setter(activity, "label_draft"),
                             on_submit=lambda: self._save_label(activity))
        field.style.accent = ACCENT
        root = dialog(ui, "Label", "", [("Cancel", lambda: self._cancel(activity)),
                                        ("OK", lambda: self._save_label(activity))])
        panel = root.children[0]
        panel.children[1:1] = [field]
        if self.phone.keyboard_shown:  # dialogs move up above the keyboard (adjustResize)
            root.anchor, root.margin = "top", ui.dp(72)
        return root

    def _save_label(self, activity: Activity) -> None:
        alarm = self.get(activity.state.get("label_id"))
        if alarm is not None:
            alarm.label = " ".join(str(activity.state.get("label_draft", "")).split())
        self.phone.keyboard_shown = False
        self.phone.focus_key = None
        self.dismiss_dialog(activity)


