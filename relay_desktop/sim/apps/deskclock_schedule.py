"""Clock's alarms as data, and the words Clock uses for when they ring: the repeat days ("Mon, Wed, Fri",
"Every day"), a one-off alarm's next ring ("Today", "Tomorrow", "Not scheduled") or its date ("Sat, Nov 28"),
and the "Alarm set for …" toast counted to the alarm's real next ring."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

WEEKDAYS: tuple[str, ...] = ("Mon", "Tue", "Wed", "Thu", "Fri")
ALL_DAYS: tuple[str, ...] = (*WEEKDAYS, "Sat", "Sun")   # datetime.weekday() order
# The expanded card's day chips, in a US phone's week order (Sunday first), as (short, letter, full name).
CHIP_DAYS: tuple[tuple[str, str, str], ...] = (
    ("Sun", "S", "Sunday"), ("Mon", "M", "Monday"), ("Tue", "T", "Tuesday"), ("Wed", "W", "Wednesday"),
    ("Thu", "T", "Thursday"), ("Fri", "F", "Friday"), ("Sat", "S", "Saturday"),
)


@dataclass
class Alarm:
    id: int
    hour: int
    minute: int
    enabled: bool
    label: str = ""
    days: tuple[str, ...] = ()
    date: date | None = None    # a one-off alarm scheduled for a day ("Schedule alarm"); never with days

    @property
    def time(self) -> str:
        return f"{self.hour:02d}:{self.minute:02d}"


def in_week_order(days: tuple[str, ...] | list[str] | set[str]) -> tuple[str, ...]:
    return tuple(d for d in ALL_DAYS if d in days)


def parse_time(hour: str, minute: str) -> tuple[int, int] | None:
    """The (hour, minute) typed into the 24-hour picker, or None when either field is not a valid value."""
    if not (hour.isdigit() and minute.isdigit()):
        return None
    h, m = int(hour), int(minute)
    return (h, m) if 0 <= h <= 23 and 0 <= m <= 59 else None


def days_text(days: tuple[str, ...]) -> str:
    if set(days) == set(ALL_DAYS):
        return "Every day"
    return ", ".join(d for d in ALL_DAYS if d in days)


def date_text(day: date) -> str:
    """A scheduled alarm's date as its card shows it: "Sat, Nov 28"."""
    return f"{day:%a, %b} {day.day}"


def next_ring(now: datetime, hour: int, minute: int, days: tuple[str, ...] = (), on: date | None = None) -> datetime:
    """When the alarm rings next: on its date when it has one, else on one of its repeat ``days`` when it has
    any, else at the next time of day."""
    if on is not None:
        return datetime.combine(on, now.timetz()).replace(hour=hour, minute=minute, second=0, microsecond=0)
    target = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if target <= now:
        target += timedelta(days=1)
    while days and ALL_DAYS[target.weekday()] not in days:
        target += timedelta(days=1)
    return target


def until_text(now: datetime, hour: int, minute: int, days: tuple[str, ...] = (), on: date | None = None) -> str:
    """The "Alarm set for …" toast, as the real app words it after saving or switching on an alarm: the time to
    its next ring, on one of its repeat ``days`` when it has any (a Wednesday alarm set on a Thursday rings in
    6 days, not in 28 minutes), or on its date ``on``."""
    seconds = max(0.0, (next_ring(now, hour, minute, days, on) - now).total_seconds())
    total = int(seconds // 60) + (1 if seconds % 60 else 0)
    whole_days, rest = divmod(total, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [f"{n} {unit}{'' if n == 1 else 's'}"
             for n, unit in ((whole_days, "day"), (hours, "hour"), (minutes, "minute")) if n]
    said = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else (parts[0] if parts else "")
    return f"Alarm set for {said or 'less than 1 minute'} from now"


def until_day(now: datetime, alarm: Alarm) -> str:
    """What a one-time alarm's card says instead of days: its date when scheduled for one, else when it will
    next ring."""
    if not alarm.enabled:
        return "Not scheduled"
    if alarm.date is not None:
        return date_text(alarm.date)
    ring = now.replace(hour=alarm.hour, minute=alarm.minute, second=0, microsecond=0)
    return "Today" if ring > now else "Tomorrow"


def summary(now: datetime, alarm: Alarm) -> str:
    """The card's line under the label: the repeat days, or for a one-off alarm when it rings."""
    return days_text(alarm.days) or until_day(now, alarm)
