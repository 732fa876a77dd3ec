"""Clock's expanded alarm card on the virtual phone, as Android 14's Clock has it: the expand arrow, the day
chips S M T W T F S that set the repeat days, and "Schedule alarm" with its date picker for a one-off alarm on
a date — observed through the hierarchy dump and taps, as an agent sees them."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from relay_desktop.sim.apps.deskclock import PACKAGE, Clock
from relay_desktop.sim.apps.deskclock_schedule import date_text, until_text
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import Node, PhoneDriver, find, nodes, tap_on

ARROW = "com.google.android.deskclock:id/arrow"


@pytest.fixture
def phone() -> VirtualPhone:
    return VirtualPhone()


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


def clock(phone: VirtualPhone) -> Clock:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


async def with_id(driver: PhoneDriver, id: str) -> list[Node]:
    return [n for n in nodes(await driver.dump_hierarchy()) if n.attrs.get("resource-id", "").endswith(f":id/{id}")]


async def expand(driver: PhoneDriver, index: int) -> None:
    """Tap the expand arrow of the ``index``-th alarm card."""
    arrows = await with_id(driver, "arrow")
    await driver.tap(*arrows[index].center)


async def test_every_card_has_an_expand_arrow_and_expanding_shows_the_day_chips(driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    arrows = await with_id(driver, "arrow")
    assert [a.attrs["content-desc"] for a in arrows] == ["Expand alarm", "Expand alarm"]
    assert all(a.attrs["resource-id"] == ARROW and a.attrs["clickable"] == "true" for a in arrows)
    assert await with_id(driver, "day_button_0") == []            # collapsed cards show no chips
    await expand(driver, 0)                                        # 06:30 Gym: Mon, Wed, Fri
    chips = [(await with_id(driver, f"day_button_{i}"))[0] for i in range(7)]
    assert [c.attrs["text"] for c in chips] == ["S", "M", "T", "W", "T", "F", "S"]
    assert [c.attrs["content-desc"] for c in chips] == ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday",
                                                         "Friday", "Saturday"]
    assert [c.attrs["checked"] for c in chips] == ["false", "true", "false", "true", "false", "true", "false"]
    assert all(c.attrs["checkable"] == "true" and c.attrs["clickable"] == "true" for c in chips)
    assert [a.attrs["content-desc"] for a in await with_id(driver, "arrow")] == ["Collapse alarm", "Expand alarm"]
    xml = await driver.dump_hierarchy()
    assert find(xml, text="Delete", id="delete") is not None
    assert find(xml, text="Gym", id="edit_label") is not None
    # Collapsing hides the chips again; expanding another card collapses the first, as in Clock.
    await expand(driver, 1)
    assert [a.attrs["content-desc"] for a in await with_id(driver, "arrow")] == ["Expand alarm", "Collapse alarm"]
    assert [c.attrs["checked"] for c in [(await with_id(driver, f"day_button_{i}"))[0] for i in range(7)]] == [
        "false", "true", "true", "true", "true", "true", "false"]
    await expand(driver, 1)
    assert await with_id(driver, "day_button_0") == []


async def test_a_new_alarm_expanded_offers_add_label_and_says_when_it_rings(driver: PhoneDriver,
                                                                            phone: VirtualPhone) -> None:
    clock(phone).add(23, 59)
    await driver.launch_app(PACKAGE)
    await expand(driver, 2)
    xml = await driver.dump_hierarchy()
    assert find(xml, text="Add label", id="edit_label") is not None
    assert [c.attrs["checked"] for c in [(await with_id(driver, f"day_button_{i}"))[0] for i in range(7)]] == [
        "false"] * 7
    assert (await with_id(driver, "days_of_week"))[2].attrs["text"] in ("Today", "Tomorrow")


async def test_day_chips_change_the_days_the_summary_and_the_toast(driver: PhoneDriver, phone: VirtualPhone) -> None:
    await driver.launch_app(PACKAGE)
    await expand(driver, 1)                                        # 08:00 Work, weekdays, on
    await tap_on(driver, desc="Saturday")
    work = clock(phone).alarms[1]
    assert work.days == ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
    assert (await with_id(driver, "days_of_week"))[1].attrs["text"] == "Mon, Tue, Wed, Thu, Fri, Sat"
    assert phone.toast is not None and phone.toast[0] == until_text(phone.now(), 8, 0, work.days)
    await tap_on(driver, desc="Sunday")
    assert (await with_id(driver, "days_of_week"))[1].attrs["text"] == "Every day"
    assert (await with_id(driver, "day_button_0"))[0].attrs["checked"] == "true"
    for day in ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"):
        await tap_on(driver, desc=day)                             # every chip off: a one-off alarm
    assert work.days == ()
    assert (await with_id(driver, "days_of_week"))[1].attrs["text"] in ("Today", "Tomorrow")


async def test_a_chip_on_an_alarm_that_is_off_changes_its_days_but_leaves_it_off(driver: PhoneDriver,
                                                                                phone: VirtualPhone) -> None:
    await driver.launch_app(PACKAGE)
    await expand(driver, 0)                                        # 06:30 Gym is off
    phone.toast = None
    await tap_on(driver, desc="Monday")
    gym = clock(phone).alarms[0]
    assert (gym.days, gym.enabled) == (("Wed", "Fri"), False)
    assert phone.toast is None                                     # no "Alarm set" for an alarm that is off


def coming_saturday(today: date) -> date:
    return today + timedelta(days=(5 - today.weekday()) % 7 or 7)


async def test_schedule_alarm_picks_a_date_shown_on_the_card_and_choosing_days_clears_it(
        driver: PhoneDriver, phone: VirtualPhone) -> None:
    alarm = clock(phone).add(9, 0)
    await driver.launch_app(PACKAGE)
    await expand(driver, 2)
    await tap_on(driver, text="Schedule alarm")
    today = phone.now().date()
    xml = await driver.dump_hierarchy()
    assert find(xml, text="Select date", id="mtrl_picker_title_text") is not None
    assert find(xml, id="mtrl_picker_header_selection_text").attrs["text"] == date_text(today)  # type: ignore[union-attr]
    assert find(xml, id="month_navigation_fragment_toggle").attrs["text"] == f"{today:%B %Y}"  # type: ignore[union-attr]
    if today.day > 1:                                              # days before today cannot be chosen
        yesterday = find(xml, desc=f"{today - timedelta(days=1):%A, %B} {today.day - 1}")
        assert yesterday is not None and yesterday.attrs["enabled"] == "false"
    saturday = coming_saturday(today)
    if saturday.month != today.month:
        await tap_on(driver, desc="Change to next month")
    await tap_on(driver, desc=f"{saturday:%A, %B} {saturday.day}" + ("" if saturday.year == today.year
                                                                     else f", {saturday.year}"))
    assert (await with_id(driver, "mtrl_picker_header_selection_text"))[0].attrs["text"] == date_text(saturday)
    await tap_on(driver, text="OK", id="button1")
    assert (alarm.date, alarm.days, alarm.enabled) == (saturday, (), True)
    assert (await with_id(driver, "days_of_week"))[2].attrs["text"] == date_text(saturday)
    assert phone.toast is not None and phone.toast[0] == until_text(phone.now(), 9, 0, (), saturday)
    await tap_on(driver, desc="Tuesday")                           # days make it repeat: the date goes
    assert (alarm.date, alarm.days) == (None, ("Tue",))
    assert find(await driver.dump_hierarchy(), text="Schedule alarm") is None


async def test_cancel_leaves_the_alarm_unscheduled(driver: PhoneDriver, phone: VirtualPhone) -> None:
    alarm = clock(phone).add(9, 0)
    await driver.launch_app(PACKAGE)
    await expand(driver, 2)
    await tap_on(driver, text="Schedule alarm")
    await tap_on(driver, desc="Change to next month")
    nxt = (phone.now().date().replace(day=1) + timedelta(days=32)).replace(day=15)
    await tap_on(driver, desc=f"{nxt:%A, %B} {nxt.day}" + ("" if nxt.year == phone.now().year else f", {nxt.year}"))
    await tap_on(driver, text="Cancel", id="button2")
    assert alarm.date is None
    assert find(await driver.dump_hierarchy(), id="month_grid") is None


def test_a_dated_alarm_counts_to_its_date(phone: VirtualPhone) -> None:
    now = phone.now().replace(hour=10, minute=0, second=0, microsecond=0)
    assert until_text(now, 9, 0, (), now.date() + timedelta(days=3)) == \
        "Alarm set for 2 days and 23 hours from now"
    assert date_text(date(2026, 11, 28)) == "Sat, Nov 28"
