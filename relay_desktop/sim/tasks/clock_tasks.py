"""Tasks in Clock: add an alarm through the keyboard time picker, and switch an existing alarm off."""

from __future__ import annotations

from relay_desktop.sim.apps.deskclock import PACKAGE, SEED, Alarm, Clock
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import CheckResult, Driver, Task, failed, fresh_start, passed, tap_on, type_into


def _setup(phone: VirtualPhone) -> None:
    fresh_start(phone, PACKAGE)


def _clock(phone: VirtualPhone) -> Clock:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


def _describe(alarm: Alarm) -> str:
    return f"{alarm.time} {'on' if alarm.enabled else 'off'}" + (f" ({alarm.label})" if alarm.label else "")


def _seed_changes(clock: Clock, *, except_time: tuple[int, int] | None = None) -> list[str]:
    """How the factory alarms differ from their seeds (ignoring ``enabled`` of the one at ``except_time``)."""
    changes = []
    for hour, minute, enabled, label, days in SEED:
        found = [a for a in clock.at(hour, minute) if a.label == label and a.days == days]
        name = f"{hour:02d}:{minute:02d} ({label})"
        if not found:
            changes.append(f"the {name} alarm was deleted or changed")
        elif (hour, minute) != except_time and found[0].enabled != enabled:
            changes.append(f"the {name} alarm was turned {'on' if found[0].enabled else 'off'}")
    return changes


def _extra_alarms(clock: Clock, allowed: tuple[int, int] | None = None) -> list[Alarm]:
    seeded = {(h, m) for h, m, *_ in SEED}
    return [a for a in clock.alarms if (a.hour, a.minute) not in seeded and (a.hour, a.minute) != allowed]


# ---------------------------------------------------------------- set an alarm for 7:30

def _alarm_730_set(phone: VirtualPhone) -> CheckResult:
    clock = _clock(phone)
    changes = _seed_changes(clock)
    if changes:
        return failed("; ".join(changes))
    strays = _extra_alarms(clock, allowed=(7, 30))
    if strays:
        return failed(f"other alarms were added: {', '.join(_describe(a) for a in strays)}")
    alarms = clock.at(7, 30)
    if not alarms:
        return failed("no 07:30 alarm")
    if len(alarms) > 1:
        return failed(f"{len(alarms)} alarms are set for 07:30; expected one")
    if not alarms[0].enabled:
        return failed("the 07:30 alarm exists but is off")
    return passed("07:30 alarm set and on")


async def _set_730(driver: Driver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Add alarm")
    await type_into(driver, "07", id="input_hour")
    await type_into(driver, "30", id="input_minute")
    await tap_on(driver, text="OK")


# ---------------------------------------------------------------- turn off the 8:00 alarm

def _8am_off(phone: VirtualPhone) -> CheckResult:
    clock = _clock(phone)
    changes = _seed_changes(clock, except_time=(8, 0))
    if changes:
        return failed("; ".join(changes))
    strays = _extra_alarms(clock)
    if strays:
        return failed(f"alarms were added: {', '.join(_describe(a) for a in strays)}")
    on = [a for a in clock.at(8, 0) if a.enabled]
    if on:
        return failed("the 08:00 alarm is still on")
    return passed("08:00 alarm turned off, others unchanged")


async def _turn_off_8am(driver: Driver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Turn off 08:00 alarm")


TASKS: list[Task] = [
    Task("clock_alarm_730", "Set an alarm for 7:30", _setup, _alarm_730_set, _set_730, apps=(PACKAGE,),
         tags=("clock", "form"), max_steps=12),
    Task("clock_disable_8am", "Turn off the 8:00 alarm", _setup, _8am_off, _turn_off_8am, apps=(PACKAGE,),
         tags=("clock", "toggle"), max_steps=8),
]
