"""Hard tasks in Clock: every weekday alarm off, three alarms at once, an alarm far down a long list moved to a
time said in words, "half an hour earlier", a German label with an emoji, three world-clock cities from a
long picker, and a timer plus an alarm in one request.

Checkers compare every alarm (time, label, days, on/off), so a task done by deleting, duplicating or
disturbing other alarms fails with what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from relay_desktop.sim.apps.deskclock import ALL_DAYS, WEEKDAYS
from relay_desktop.sim.apps.deskclock import PACKAGE as CLOCK
from relay_desktop.sim.apps.deskclock_cities import folded
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
    type_into,
)
from relay_desktop.sim.tasks.hard_device_common import (
    SEEDED_ALARMS,
    AlarmRow,
    alarms_diff,
    back_to,
    cards,
    clock_of,
    describe_alarm,
    exact,
    loose,
    new_alarms,
    swipe_up,
)

HARD = "hard"
WEEKEND = ("Sat", "Sun")
# (hour, minute, label, days, on): alarms a busy household keeps, added to the factory two.
WEEKLY: tuple[tuple[int, int, str, tuple[str, ...], bool], ...] = (
    (6, 45, "School run", WEEKDAYS, True), (7, 0, "Dog walk", WEEKEND, True),
    (7, 30, "Swim club", ("Tue", "Thu"), True), (8, 30, "Yoga", WEEKEND, True),
    (9, 0, "Farmers market", ("Sat",), True), (10, 30, "Call Mum", ("Sun",), True),
)
DAILY: tuple[tuple[int, int, str, tuple[str, ...], bool], ...] = (
    (5, 45, "Early shift", ("Mon", "Tue"), False), (7, 0, "Wake kids", WEEKDAYS, True),
    (7, 15, "Breakfast", WEEKDAYS, True), (7, 40, "School run", WEEKDAYS, True),
    (9, 0, "Standup", WEEKDAYS, True), (12, 30, "Lunch", (), False), (13, 0, "Medicine", ALL_DAYS, True),
    (15, 10, "School pickup", WEEKDAYS, True), (16, 20, "Swim club", ("Tue", "Thu"), True),
    (18, 0, "Piano lesson", ("Wed",), True), (19, 0, "Call Mum", ("Sun",), True),
    (21, 30, "Bins out", ("Mon",), True), (22, 45, "Lights out", ALL_DAYS, True),
)
BREAKFAST_LABEL = "Frühstück ☕"
WAKE_UPS = ("05:40", "05:50", "06:00")
CITIES = ("São Paulo", "Tokyo", "Wellington")
GUESTS_LABEL = "Guests arrive"


def _rows(alarms: tuple[tuple[int, int, str, tuple[str, ...], bool], ...]) -> tuple[AlarmRow, ...]:
    return tuple((f"{h:02d}:{m:02d}", label, days, on) for h, m, label, days, on in alarms)


def _with(alarms: tuple[tuple[int, int, str, tuple[str, ...], bool], ...] = ()) -> Callable[[VirtualPhone], None]:
    def setup(phone: VirtualPhone) -> None:
        fresh_start(phone, CLOCK)
        for hour, minute, label, days, on in alarms:
            clock_of(phone).add(hour, minute, label=label, days=days, enabled=on)

    return setup


def _alarms_are(expected: tuple[AlarmRow, ...], done: str) -> Callable[[VirtualPhone], CheckResult]:
    def check(phone: VirtualPhone) -> CheckResult:
        diff = alarms_diff(clock_of(phone), expected)
        return failed(diff) if diff else passed(done)

    return check


def _extras_problem(phone: VirtualPhone, before: tuple[AlarmRow, ...], wanted: list[tuple[str, str]]) -> str:
    """'' when the alarms are ``before`` plus one new, switched-on alarm per (time, label) of ``wanted``;
    a label of '' takes any label, any other must match exactly."""
    extra, lost = new_alarms(clock_of(phone), before)
    if lost:
        return lost
    have = sorted((a.time, exact(a.label), a.enabled) for a in extra)
    want = sorted((time, label, True) for time, label in wanted)
    if [(t, on) for t, _label, on in have] != [(t, on) for t, _label, on in want]:
        got = "; ".join(describe_alarm((a.time, a.label, a.days, a.enabled)) for a in extra) or "none"
        return f"new alarms: {got}; expected {', '.join(t for t, _ in wanted)}, each switched on"
    for (time, label, _), (_t, want_label, _w) in zip(have, want, strict=True):
        if want_label and label != want_label:
            return f"the {time} alarm is labelled {label!r}, expected exactly {want_label!r}"
    return ""


# ---------------------------------------------------------------- oracle moves

async def open_alarms(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Alarm")


async def sweep_alarms(driver: Driver, pick: Callable[[dict[str, str]], bool]) -> None:
    """Go down the alarm list once, switching each wholly visible card ``pick`` chooses (by what its card
    shows); the end is two swipes that show no new alarm."""
    seen: set[str] = set()
    stale = 0
    for _ in range(40):
        xml = await driver.dump_hierarchy()
        shown = [c for c in cards(xml, "alarm_card") if c.get("digital_clock") and c.get("days_of_week")]
        for card in shown:
            switch = find(xml, desc=card.get("desc:onoff", "-"))
            if pick(card) and switch is not None and switch.bounds[3] - switch.bounds[1] > 40:
                await driver.tap(*switch.center)
                break
        else:
            fresh = {c["digital_clock"] for c in shown} - seen
            seen |= fresh
            stale = 0 if fresh else stale + 1
            if stale >= 2:
                return
            await swipe_up(driver)
    raise OracleError("the alarm list never ended")


async def add_alarm(driver: Driver, time: str) -> None:
    hour, minute = time.split(":")
    await tap_on(driver, desc="Add alarm")
    await type_into(driver, hour, id="input_hour")
    await type_into(driver, minute, id="input_minute")
    await tap_on(driver, text="OK")


async def label_new_alarm(driver: Driver, label: str) -> None:
    """Label the one alarm that has none yet (the one just added)."""
    await tap_on(driver, text="Add label")
    await driver.type_text(label)
    await tap_on(driver, text="OK")


async def retime(driver: Driver, shown: str, to: str) -> None:
    """Open the picker from the card's time ``shown`` and type ``to`` over it (each field's text is selected)."""
    node = await scroll_to(driver, text=shown, max_swipes=20)
    await driver.tap(*node.center)
    hour, minute = to.split(":")
    await driver.type_text(hour)                   # the hour field has focus, its text selected
    await type_into(driver, minute, id="input_minute")
    await tap_on(driver, text="OK")


async def time_labelled(driver: Driver, label: str) -> str:
    """The time on the card labelled ``label``, scrolling down to it."""
    await scroll_to(driver, text=label, max_swipes=20)
    card = next((c for c in cards(await driver.dump_hierarchy(), "alarm_card") if c.get("label") == label), None)
    if card is None or not card.get("digital_clock"):
        raise OracleError(f"no card labelled {label!r} shows its time")
    return card["digital_clock"]


# ---------------------------------------------------------------- many items: every weekday alarm off

def _weekday_alarm(days: tuple[str, ...]) -> bool:
    return any(day in WEEKDAYS for day in days)


ALL_WEEK = (*SEEDED_ALARMS, *_rows(WEEKLY))
OFF_WORK = tuple((time, label, days, on and not _weekday_alarm(days)) for time, label, days, on in ALL_WEEK)


async def _weekday_alarms_off(driver: Driver) -> None:
    await open_alarms(driver)

    def weekday_and_on(card: dict[str, str]) -> bool:
        days = card["days_of_week"]
        return card.get("checked:onoff") == "true" and (days == "Every day" or any(d in days for d in WEEKDAYS))

    await sweep_alarms(driver, weekday_and_on)


# ---------------------------------------------------------------- many items: three alarms

def _three_wake_ups(phone: VirtualPhone) -> CheckResult:
    problem = _extras_problem(phone, SEEDED_ALARMS, [(t, "") for t in WAKE_UPS])
    return failed(problem) if problem else passed("alarms at 05:40, 05:50 and 06:00, all on")


async def _set_three_wake_ups(driver: Driver) -> None:
    await open_alarms(driver)
    for time in WAKE_UPS:
        await add_alarm(driver, time)


# ---------------------------------------------------------------- long list: the piano lesson, moved

BUSY = (*SEEDED_ALARMS, *_rows(DAILY))
PIANO_MOVED = tuple(("17:15", label, days, True) if label == "Piano lesson" else (time, label, days, on)
                    for time, label, days, on in BUSY)


async def _move_piano(driver: Driver) -> None:
    await open_alarms(driver)
    shown = await time_labelled(driver, "Piano lesson")
    await retime(driver, shown, "17:15")


# ---------------------------------------------------------------- paraphrase: half an hour earlier for work

EARLIER = tuple(("07:30", label, days, on) if label == "Work" else (time, label, days, on)
                for time, label, days, on in SEEDED_ALARMS)


async def _work_half_hour_earlier(driver: Driver) -> None:
    await open_alarms(driver)
    shown = await time_labelled(driver, "Work")
    earlier = datetime.strptime(shown, "%H:%M") - timedelta(minutes=30)
    await retime(driver, shown, earlier.strftime("%H:%M"))


# ---------------------------------------------------------------- non-ASCII: a German label with an emoji

def _breakfast_alarm(phone: VirtualPhone) -> CheckResult:
    problem = _extras_problem(phone, SEEDED_ALARMS, [("06:15", BREAKFAST_LABEL)])
    return failed(problem) if problem else passed(f"06:15 alarm labelled {BREAKFAST_LABEL!r}")


async def _set_breakfast_alarm(driver: Driver) -> None:
    await open_alarms(driver)
    await add_alarm(driver, "06:15")
    await label_new_alarm(driver, BREAKFAST_LABEL)


# ---------------------------------------------------------------- many items, long list: three world clocks

def _three_cities(phone: VirtualPhone) -> CheckResult:
    clock = clock_of(phone)
    diff = alarms_diff(clock, SEEDED_ALARMS)
    if diff:
        return failed(f"alarms changed: {diff}")
    if sorted(clock.cities) != sorted(CITIES):
        return failed(f"the world clock shows {', '.join(clock.cities) or 'no city'}; expected {', '.join(CITIES)}")
    return passed(f"the world clock shows {', '.join(clock.cities)}")


async def _add_three_cities(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Clock")
    await tap_on(driver, desc="Cities")
    for wanted in ("Sao Paulo", "Tokyo", "Wellington"):   # in the list's order; the screen spells it São Paulo
        for _ in range(30):
            xml = await driver.dump_hierarchy()
            row = next((c for c in cards(xml, "city_item") if folded(c.get("city_name", "")) == folded(wanted)), None)
            name = find(xml, text=row["city_name"], id="city_name") if row else None
            if row and row.get("checked:city_item") == "true":
                raise OracleError(f"{wanted} was ticked already")
            if name is not None and name.bounds[3] - name.bounds[1] > 40:
                await driver.tap(*name.center)
                break
            await swipe_up(driver)
        else:
            raise OracleError(f"never found {wanted} in the city list")
    await back_to(driver, desc="Cities")


# ---------------------------------------------------------------- two goals: a timer and an alarm

def _roast_and_guests(phone: VirtualPhone) -> CheckResult:
    clock = clock_of(phone)
    problems = []
    timers = [(t.seconds, t.running) for t in clock.timers]
    if timers != [(45 * 60, True)]:
        problems.append(f"timers are {timers or 'none'}; expected one 45-minute timer running")
    extra, lost = new_alarms(clock, SEEDED_ALARMS)
    if lost:
        problems.append(lost)
    elif [(a.time, loose(a.label), a.enabled) for a in extra] != [("19:00", loose(GUESTS_LABEL), True)]:
        got = "; ".join(describe_alarm((a.time, a.label, a.days, a.enabled)) for a in extra) or "no new alarm"
        problems.append(f"{got}; expected one 19:00 alarm labelled {GUESTS_LABEL!r}, switched on")
    return failed("; ".join(problems)) if problems else passed("45-minute timer running and 19:00 alarm set")


async def _start_roast_timer_and_guests_alarm(driver: Driver) -> None:
    await driver.launch_app(CLOCK)
    await tap_on(driver, desc="Timer")
    for digit in "4500":                        # the keypad fills hh mm ss from the right: 00h 45m 00s
        await tap_on(driver, id=f"timer_setup_digit_{digit}")
    await tap_on(driver, desc="Start")
    await tap_on(driver, desc="Alarm")
    await add_alarm(driver, "19:00")
    await label_new_alarm(driver, GUESTS_LABEL)


TASKS: list[Task] = [
    Task("hard_clock_weekday_alarms_off",
         "I'm off work next week. Turn off every alarm that goes off on a weekday, but keep my weekend alarms on",
         _with(WEEKLY), _alarms_are(OFF_WORK, "every weekday alarm is off; the weekend ones are still on"),
         _weekday_alarms_off, apps=(CLOCK,), tags=(HARD, "many_items"), max_steps=30),
    Task("hard_clock_three_wake_ups",
         "I keep sleeping through my alarm. Set three alarms for tomorrow morning: 5:40, 5:50 and 6:00",
         _with(), _three_wake_ups, _set_three_wake_ups, apps=(CLOCK,), tags=(HARD, "many_items"), max_steps=25),
    Task("hard_clock_piano_quarter_past_five",
         "My piano lesson now starts at a quarter past five in the afternoon. Change its alarm to match",
         _with(DAILY), _alarms_are(PIANO_MOVED, "the Piano lesson alarm rings at 17:15; the rest are as they were"),
         _move_piano, apps=(CLOCK,), tags=(HARD, "long_list", "paraphrase"), max_steps=25),
    Task("hard_clock_work_half_hour_earlier", "Wake me up half an hour earlier for work from now on",
         _with(), _alarms_are(EARLIER, "the Work alarm rings at 07:30 on weekdays"), _work_half_hour_earlier,
         apps=(CLOCK,), tags=(HARD, "paraphrase"), max_steps=25),
    Task("hard_clock_breakfast_label", f"Set an alarm for 6:15 and label it '{BREAKFAST_LABEL}'",
         _with(), _breakfast_alarm, _set_breakfast_alarm, apps=(CLOCK,), tags=(HARD, "non_ascii"), max_steps=25),
    Task("hard_clock_three_world_cities", "Add Tokyo, Sao Paulo and Wellington to my world clock",
         _with(), _three_cities, _add_three_cities, apps=(CLOCK,), tags=(HARD, "many_items", "long_list"),
         max_steps=30),
    Task("hard_clock_roast_timer_and_guests",
         f"Start a 45-minute timer for the roast, and set a 19:00 alarm labelled '{GUESTS_LABEL}'",
         _with(), _roast_and_guests, _start_roast_timer_and_guests_alarm, apps=(CLOCK,),
         tags=(HARD, "multi_goal"), max_steps=30),
]
