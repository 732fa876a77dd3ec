"""Clock's "Schedule alarm": the Material date picker a one-off alarm's date is chosen in, as Android 14's
Clock opens it — "Select date", the chosen day as a header ("Sat, Nov 28"), the month with previous/next
buttons, a week-day row and one cell per day (described "Saturday, November 28", the year added outside the
current one), days before today disabled, Cancel and OK. OK gives the alarm that date, clears its repeat days
and switches it on; "today" is the phone's own clock.
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import TYPE_CHECKING

from relay_desktop.sim.apps.deskclock_alarm_card import ACCENT, CHIP_ON, ON_TIME
from relay_desktop.sim.apps.deskclock_schedule import Alarm, date_text, until_text
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, Kit
from relay_desktop.sim.views import Style, View

if TYPE_CHECKING:
    from collections.abc import Callable

    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.deskclock import Clock

WEEK_HEADER = ("S", "M", "T", "W", "T", "F", "S")   # Sunday first, as a US phone's calendar


def open_date_picker(clock: Clock, activity: Activity, alarm: Alarm) -> None:
    today = clock.phone.now().date()
    chosen = alarm.date if alarm.date is not None and alarm.date >= today else today
    activity.state.update(date_alarm=alarm.id, date_chosen=chosen, date_month=(chosen.year, chosen.month))
    clock.show_dialog(activity, "date")


def day_description(day: date, today: date) -> str:
    """A day cell's content description, as Material's calendar words it."""
    text = f"{day:%A, %B} {day.day}"
    return text if day.year == today.year else f"{text}, {day.year}"


def date_picker(clock: Clock, activity: Activity) -> View:
    ui = clock.ui
    state = activity.state
    today = clock.phone.now().date()
    chosen: date = state["date_chosen"]
    year, month = state["date_month"]
    header = ui.text(date_text(chosen), size=32, color=ON_TIME, id="mtrl_picker_header_selection_text",
                     max_lines=1)
    month_name = ui.text(f"{calendar.month_name[month]} {year}", size=14, weight=500, color=ON_SURFACE_VARIANT,
                         id="month_navigation_fragment_toggle", max_lines=1)
    month_name.weight = 1
    earlier = (year, month) > (today.year, today.month)
    previous = ui.icon_button("back", "Change to previous month", _move(clock, activity, -1),
                              id="month_navigation_previous")
    previous.enabled = earlier
    following = ui.icon_button("chevron_right", "Change to next month", _move(clock, activity, 1),
                               id="month_navigation_next")
    navigation = ui.row([month_name, previous, following], id="month_navigation_bar")
    week = ui.row([_cell(ui, letter) for letter in WEEK_HEADER], id="mtrl_calendar_days_of_week")
    weeks = calendar.Calendar(firstweekday=calendar.SUNDAY).monthdatescalendar(year, month)
    grid_rows = []
    for days in weeks:
        cells = [_day_cell(clock, activity, day, today, chosen) if day.month == month else _cell(ui, "")
                 for day in days]
        grid_rows.append(ui.row(cells))
    grid = View(cls="android.widget.GridView", id="month_grid", children=grid_rows)
    root = ui.dialog("Select date", "", [("Cancel", lambda: clock.dismiss_dialog(activity)),
                                         ("OK", lambda: _confirm(clock, activity))],
                     body=[header, navigation, week, grid])
    title = root.children[0].children[0]
    title.id, title.style.size, title.style.fg = "mtrl_picker_title_text", ui.sp(14), ON_SURFACE_VARIANT
    return root


def _cell(ui: Kit, text: str) -> View:
    view = ui.text(text, size=14, color=ON_SURFACE_VARIANT, align="center")
    view.weight, view.height = 1, ui.dp(40)
    view.justify = "center"
    return view


def _day_cell(clock: Clock, activity: Activity, day: date, today: date, chosen: date) -> View:
    ui = clock.ui
    selected = day == chosen
    allowed = day >= today
    view = View(cls="android.widget.TextView", text=str(day.day), desc=day_description(day, today),
                clickable=allowed, focusable=allowed, enabled=allowed, selected=selected, weight=1,
                height=ui.dp(40), on_click=_choose(clock, activity, day) if allowed else None,
                style=Style(kind="chip", size=ui.sp(14), radius=ui.dp(20), align="center",
                            bg=CHIP_ON if selected else None, border=ACCENT if day == today else None,
                            fg=ON_TIME if allowed else ON_SURFACE_VARIANT))
    return view


def _move(clock: Clock, activity: Activity, step: int) -> Callable[[], None]:
    def move() -> None:
        year, month = activity.state["date_month"]
        index = year * 12 + (month - 1) + step
        activity.state["date_month"] = (index // 12, index % 12 + 1)
        clock.phone.invalidate()

    return move


def _choose(clock: Clock, activity: Activity, day: date) -> Callable[[], None]:
    def choose() -> None:
        activity.state["date_chosen"] = day
        clock.phone.invalidate()

    return choose


def _confirm(clock: Clock, activity: Activity) -> None:
    alarm = clock.get(activity.state.get("date_alarm"))
    clock.dismiss_dialog(activity)
    if alarm is None:
        return
    alarm.date, alarm.days, alarm.enabled = activity.state["date_chosen"], (), True
    clock.toast(until_text(clock.phone.now(), alarm.hour, alarm.minute, alarm.days, alarm.date))
