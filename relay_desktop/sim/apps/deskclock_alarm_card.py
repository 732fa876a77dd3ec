"""One alarm's card in Clock's alarm list, collapsed or expanded as Android 14's Clock shows it.

Collapsed: time and switch, the label (or "Add label"), when it rings, a delete button and the expand arrow
(``arrow``, "Expand alarm"). Expanded (one card at a time, as in Clock): the day chips S M T W T F S
(``day_button_0``… Sunday first, each described by the full day's name and checked when the alarm repeats
then), the label, "Schedule alarm" for an alarm that does not repeat, the summary line, "Delete" and the arrow
("Collapse alarm"). Choosing days clears a scheduled date, as on a phone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relay_desktop.sim.apps.deskclock_schedule import CHIP_DAYS, Alarm, in_week_order, summary, until_text
from relay_desktop.sim.ui import ON_SURFACE_VARIANT, SURFACE_CONTAINER
from relay_desktop.sim.views import Color, Style, View

if TYPE_CHECKING:
    from collections.abc import Callable

    from relay_desktop.sim.app import Activity
    from relay_desktop.sim.apps.deskclock import Clock

ON_CARD: Color = (214, 236, 240)       # an enabled alarm's card: a light tint of the app's teal
ON_TIME: Color = (0, 54, 64)
OFF_TIME: Color = (110, 114, 122)
ACCENT: Color = (0, 104, 122)          # the app's teal, for switches, focus and the FAB
CHIP_ON: Color = (178, 230, 240)


def alarm_card(clock: Clock, activity: Activity, alarm: Alarm) -> View:
    ui = clock.ui
    expanded = activity.state.get("expanded") == alarm.id
    state = "off" if alarm.enabled else "on"
    time = ui.text(alarm.time, size=56, weight=400, color=ON_TIME if alarm.enabled else OFF_TIME,
                   id="digital_clock", on_click=lambda: clock.open_time_picker(activity, alarm))
    time.weight = 1
    switch = ui.switch(alarm.enabled, id="onoff")
    switch.clickable = switch.focusable = True
    switch.on_click = lambda: clock.toggle(alarm)
    switch.desc = f"Turn {state} {alarm.time} alarm"
    switch.style.accent = ACCENT
    top = ui.row([time, switch], gap=8)
    when = ui.text(summary(clock.phone.now(), alarm), size=14, color=ON_SURFACE_VARIANT, id="days_of_week",
                   max_lines=1)
    arrow = ui.icon_button("expand_more", "Collapse alarm" if expanded else "Expand alarm",
                           _expander(clock, activity, alarm), id="arrow")

    def edit_label() -> None:
        clock.open_label(activity, alarm)

    if expanded:
        label = ui.text(alarm.label or "Add label", size=16, weight=500 if alarm.label else 400,
                        color=ON_TIME if alarm.label else ON_SURFACE_VARIANT, id="edit_label", max_lines=1,
                        on_click=edit_label, padding=ui.pad(0, 12))
        rows: list[View] = [top, _day_chips(clock, alarm), label]
        if not alarm.days:
            schedule = ui.text("Schedule alarm", size=16, color=ACCENT, id="schedule_alarm", max_lines=1,
                               on_click=lambda: clock.open_date_picker(activity, alarm), padding=ui.pad(0, 12))
            rows.append(schedule)
        delete = ui.button("Delete", lambda: clock.remove(alarm), id="delete", variant="text")
        rows += [when, ui.row([delete, ui.spacer(weight=1), arrow], gap=8)]
        return ui.card(rows, key=f"alarm:{alarm.id}", id="alarm_card", padding=16, gap=4,
                       bg=ON_CARD if alarm.enabled else SURFACE_CONTAINER)
    # The label opens the label dialog; an alarm without one offers "Add label" in its place.
    texts = [ui.text(alarm.label, size=16, weight=500, id="label", max_lines=1, on_click=edit_label)
             if alarm.label else ui.text("Add label", size=16, color=ON_SURFACE_VARIANT, id="edit_label",
                                         max_lines=1, on_click=edit_label), when]
    info = View(cls="android.widget.LinearLayout", children=texts, weight=1, justify="center", gap=ui.dp(2))
    delete_icon = ui.icon_button("delete", f"Delete {alarm.time} alarm", lambda: clock.remove(alarm), id="delete")
    bottom = ui.row([info, delete_icon, arrow], gap=8)
    return ui.card([top, bottom], key=f"alarm:{alarm.id}", id="alarm_card", padding=16, gap=0,
                   bg=ON_CARD if alarm.enabled else SURFACE_CONTAINER)


def _expander(clock: Clock, activity: Activity, alarm: Alarm) -> Callable[[], None]:
    def flip() -> None:
        expanded = activity.state.get("expanded") == alarm.id
        activity.state["expanded"] = None if expanded else alarm.id
        clock.phone.invalidate()

    return flip


def _day_chips(clock: Clock, alarm: Alarm) -> View:
    ui = clock.ui
    chips = []
    for index, (short, letter, name) in enumerate(CHIP_DAYS):
        on = short in alarm.days
        chip = View(cls="android.widget.ToggleButton", id=f"day_button_{index}", text=letter, desc=name,
                    checkable=True, checked=on, clickable=True, focusable=True,
                    on_click=_day_toggler(clock, alarm, short), width=ui.dp(40), height=ui.dp(40),
                    style=Style(kind="chip", size=ui.sp(14), weight=500, radius=ui.dp(20), align="center",
                                bg=CHIP_ON if on else None, border=OFF_TIME))
        chips.append(chip)
        if index < len(CHIP_DAYS) - 1:
            chips.append(ui.spacer(weight=1))
    return ui.row(chips, id="repeat_days", padding=ui.pad(0, 8))


def _day_toggler(clock: Clock, alarm: Alarm, day: str) -> Callable[[], None]:
    def toggle() -> None:
        days = set(alarm.days) ^ {day}
        alarm.days = in_week_order(days)
        if alarm.days:
            alarm.date = None             # a repeating alarm has no date: choosing days clears it
        if alarm.enabled:                 # Clock confirms the new next ring of an alarm that is on
            clock.toast(until_text(clock.phone.now(), alarm.hour, alarm.minute, alarm.days, alarm.date))
        clock.phone.invalidate()

    return toggle
