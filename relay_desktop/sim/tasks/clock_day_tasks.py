"""Clock tasks about which days an alarm rings: an every-day alarm cut down to weekdays with the expanded
card's day chips, and a one-time alarm on the coming Saturday through "Schedule alarm" and its date picker.

"Saturday" is the first Saturday after the phone's today (its own clock), read by the checker when it runs
and by the oracle off the date picker, as a user reads their phone's calendar. Checkers compare every alarm,
so a near miss — the alarm left on every day, the weekend instead of weekdays, the alarm switched off,
Friday instead of Saturday, a weekly Saturday alarm instead of a one-off — fails with what differs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta

from relay_desktop.sim.apps.deskclock import ALL_DAYS, WEEKDAYS
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock_date_picker import day_description
from relay_desktop.sim.apps.deskclock_schedule import date_text
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    CheckResult,
    Driver,
    OracleError,
    Task,
    failed,
    find,
    fresh_start,
    passed,
    scroll_to,
    tap_on,
)
from relay_desktop.sim.tasks.hard_clock_tasks import add_alarm, open_alarms
from relay_desktop.sim.tasks.hard_device_common import (
    SEEDED_ALARMS,
    alarms_diff,
    clock_of,
    describe_alarm,
    new_alarms,
    swipe_up,
)

WAKE_UP = "Wake up"
ONLY_WEEKDAYS = (*SEEDED_ALARMS, ("07:30", WAKE_UP, WEEKDAYS, True))


def coming_saturday(today: date) -> date:
    """The first Saturday after ``today`` (on a Saturday, the next one: today's would be "today")."""
    return today + timedelta(days=(5 - today.weekday()) % 7 or 7)


# ---------------------------------------------------------------- 7:30 on weekdays only

def _every_day_wake_up(phone: VirtualPhone) -> None:
    fresh_start(phone, CLOCK)
    clock_of(phone).add(7, 30, label=WAKE_UP, days=ALL_DAYS)


def _weekdays_only(phone: VirtualPhone) -> CheckResult:
    diff = alarms_diff(clock_of(phone), ONLY_WEEKDAYS)
    return failed(diff) if diff else passed("the 07:30 Wake up alarm rings Monday to Friday and is on")


async def expand_card(driver: Driver, time: str) -> None:
    """Open the card of the alarm at ``time`` (its expand arrow), scrolling down to it."""
    for _ in range(12):
        xml = await driver.dump_hierarchy()
        for card in ET.fromstring(xml).iter("node"):
            if not card.get("resource-id", "").endswith(":id/alarm_card"):
                continue
            inner = {n.get("resource-id", "").rsplit("/", 1)[-1]: n for n in card.iter("node")}
            clock, arrow = inner.get("digital_clock"), inner.get("arrow")
            if clock is not None and clock.get("text") == time and arrow is not None:
                if arrow.get("content-desc") == "Collapse alarm":
                    return
                left, top, right, bottom = (int(v) for v in
                                            arrow.get("bounds", "")[1:-1].replace("][", ",").split(","))
                if bottom - top > 40:
                    await driver.tap((left + right) // 2, (top + bottom) // 2)
                    return
        await swipe_up(driver)
    raise OracleError(f"no alarm card at {time} with an expand arrow")


async def _ring_on_weekdays(driver: Driver) -> None:
    await open_alarms(driver)
    await expand_card(driver, "07:30")
    for day in ("Saturday", "Sunday"):
        chip = await scroll_to(driver, desc=day)
        await driver.tap(*chip.center)


# ---------------------------------------------------------------- one time, 9:00 on Saturday

def _clock_fresh(phone: VirtualPhone) -> None:
    fresh_start(phone, CLOCK)


def _saturday_once(phone: VirtualPhone) -> CheckResult:
    saturday = coming_saturday(phone.now().date())
    extra, lost = new_alarms(clock_of(phone), SEEDED_ALARMS)
    if lost:
        return failed(lost)
    if len(extra) != 1:
        got = "; ".join(describe_alarm((a.time, a.label, a.days, a.enabled)) for a in extra) or "none"
        return failed(f"new alarms: {got}; expected one at 09:00 on {date_text(saturday)}")
    alarm = extra[0]
    if alarm.time != "09:00":
        return failed(f"the new alarm rings at {alarm.time}, expected 09:00")
    if alarm.days:
        return failed(f"the 09:00 alarm repeats every {', '.join(alarm.days)}; expected one time only")
    if not alarm.enabled:
        return failed("the 09:00 alarm is off")
    if alarm.date != saturday:
        when = date_text(alarm.date) if alarm.date else "its next 09:00, not a date"
        return failed(f"the 09:00 alarm is set for {when}; expected Saturday, {date_text(saturday)}")
    return passed(f"a one-time 09:00 alarm on {date_text(saturday)}")


async def _picker_today(driver: Driver) -> date:
    """Today's date as the opened date picker shows it: its header (the chosen day, today on opening) and
    the month's name with its year."""
    xml = await driver.dump_hierarchy()
    header, month = find(xml, id="mtrl_picker_header_selection_text"), find(xml, id="month_navigation_fragment_toggle")
    if header is None or month is None:
        raise OracleError("the date picker shows no date")
    year = month.attrs["text"].rsplit(" ", 1)[-1]
    return datetime.strptime(f"{header.attrs['text']} {year}", "%a, %b %d %Y").date()


async def choose_date(driver: Driver, day: date, today: date) -> None:
    """Tap ``day`` in the opened date picker, moving on a month at a time until it shows, then OK."""
    for _ in range(13):
        node = find(await driver.dump_hierarchy(), desc=day_description(day, today))
        if node is not None:
            await driver.tap(*node.center)
            await tap_on(driver, text="OK")
            return
        await tap_on(driver, desc="Change to next month")
    raise OracleError(f"the date picker never showed {day}")


async def _nine_on_saturday(driver: Driver) -> None:
    await open_alarms(driver)
    await add_alarm(driver, "09:00")
    await expand_card(driver, "09:00")
    schedule = await scroll_to(driver, text="Schedule alarm")   # clear of the Add alarm button
    await driver.tap(*schedule.center)
    today = await _picker_today(driver)
    await choose_date(driver, coming_saturday(today), today)


TASKS: list[Task] = [
    Task("clock_730_weekdays_only", "Make my 7:30 alarm ring only on weekdays", _every_day_wake_up,
         _weekdays_only, _ring_on_weekdays, apps=(CLOCK,), tags=("clock", "repeat_days"), max_steps=15),
    Task("clock_saturday_9am_once", "Set a one-time alarm for 9:00 on Saturday", _clock_fresh, _saturday_once,
         _nine_on_saturday, apps=(CLOCK,), tags=("clock", "date"), max_steps=20),
]
