"""Clock on the virtual phone: its tasks (checker, oracle, wrong paths) and the alarm behaviour an agent
relies on, observed through the hierarchy dump and input events."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from relay_desktop.sim.apps.deskclock import PACKAGE, Clock, parse_time, until_text
from relay_desktop.sim.apps.deskclock_cities import CITY_PICKER, offset_text
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.tasks.base import (
    KEY_BACK,
    KEY_DEL,
    Node,
    PhoneDriver,
    Task,
    find,
    nodes,
    scroll_to,
    tap_on,
    type_into,
)
from relay_desktop.sim.tasks.clock_tasks import TASKS

TASKS_BY_ID = {t.id: t for t in TASKS}


@pytest.fixture
def phone() -> VirtualPhone:
    phone = VirtualPhone()
    phone.apps[Clock.package] = Clock(phone)  # the lead registers Clock globally; until then, here
    return phone


@pytest.fixture
def driver(phone: VirtualPhone) -> PhoneDriver:
    return PhoneDriver(phone)


def clock(phone: VirtualPhone) -> Clock:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


def alarms(phone: VirtualPhone) -> list[tuple[str, bool, str]]:
    return [(a.time, a.enabled, a.label) for a in clock(phone).alarms]


async def texts_with_id(driver: PhoneDriver, id: str) -> list[str]:
    xml = await driver.dump_hierarchy()
    return [n.attrs["text"] for n in nodes(xml) if n.attrs.get("resource-id", "").endswith(f":id/{id}")]


async def must_find(driver: PhoneDriver, **query: str) -> Node:
    node = find(await driver.dump_hierarchy(), **query)  # type: ignore[arg-type]
    assert node is not None, f"nothing matches {query}"
    return node


async def add_alarm(driver: PhoneDriver, hour: str, minute: str) -> None:
    await tap_on(driver, desc="Add alarm")
    await type_into(driver, hour, id="input_hour")
    await type_into(driver, minute, id="input_minute")
    await tap_on(driver, text="OK")


# ---------------------------------------------------------------- tasks


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
async def test_task_fails_before_and_passes_after_its_oracle(phone: VirtualPhone, task: Task) -> None:
    task.setup(phone)
    assert phone.focused_activity() == ("com.android.launcher3", ".Launcher")
    before = task.check(phone)
    assert not before and before.detail
    await task.oracle(PhoneDriver(phone))
    after = task.check(phone)
    assert after, after.detail


def test_task_ids_and_goals() -> None:
    assert [(t.id, t.goal) for t in TASKS] == [("clock_alarm_730", "Set an alarm for 7:30"),
                                               ("clock_disable_8am", "Turn off the 8:00 alarm")]


async def test_alarm_at_703_instead_of_730_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["clock_alarm_730"]
    task.setup(phone)
    await driver.launch_app(PACKAGE)
    await add_alarm(driver, "7", "03")
    assert ("07:03", True, "") in alarms(phone)
    assert task.check(phone).detail == "other alarms were added: 07:03 on"


async def test_730_alarm_left_off_or_seed_toggled_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["clock_alarm_730"]
    task.setup(phone)
    await task.oracle(driver)
    await tap_on(driver, desc="Turn off 07:30 alarm")
    assert task.check(phone).detail == "the 07:30 alarm exists but is off"
    await tap_on(driver, desc="Turn on 07:30 alarm")
    await tap_on(driver, desc="Turn on 06:30 alarm")
    assert task.check(phone).detail == "the 06:30 (Gym) alarm was turned on"


async def test_turning_off_the_630_alarm_instead_fails(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["clock_disable_8am"]
    task.setup(phone)
    await driver.launch_app(PACKAGE)
    # 06:30 is already off: its switch offers to turn it on, and doing so is the wrong change.
    assert find(await driver.dump_hierarchy(), desc="Turn off 06:30 alarm") is None
    await tap_on(driver, desc="Turn on 06:30 alarm")
    assert alarms(phone) == [("06:30", True, "Gym"), ("08:00", True, "Work")]
    assert task.check(phone).detail == "the 06:30 (Gym) alarm was turned on"


async def test_deleting_the_8am_alarm_is_not_turning_it_off(phone: VirtualPhone, driver: PhoneDriver) -> None:
    task = TASKS_BY_ID["clock_disable_8am"]
    task.setup(phone)
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Delete 08:00 alarm")
    assert task.check(phone).detail == "the 08:00 (Work) alarm was deleted or changed"


# ---------------------------------------------------------------- behaviour


async def test_alarm_list_shows_seeds_with_ids(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    assert phone.focused_activity() == (PACKAGE, ".DeskClock")
    assert await texts_with_id(driver, "digital_clock") == ["06:30", "08:00"]
    assert await texts_with_id(driver, "label") == ["Gym", "Work"]
    assert await texts_with_id(driver, "days_of_week") == ["Mon, Wed, Fri", "Mon, Tue, Wed, Thu, Fri"]
    assert await texts_with_id(driver, "onoff") == ["OFF", "ON"]
    switch = await must_find(driver, desc="Turn off 08:00 alarm")
    assert switch.attrs["checked"] == "true" and switch.attrs["clickable"] == "true"
    fab = await must_find(driver, id="fab")
    assert fab.attrs["content-desc"] == "Add alarm"
    assert (await must_find(driver, desc="Alarm")).attrs["selected"] == "true"


async def test_new_alarm_is_on_and_sorted(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await add_alarm(driver, "7", "5")
    assert alarms(phone) == [("06:30", False, "Gym"), ("07:05", True, ""), ("08:00", True, "Work")]
    assert await texts_with_id(driver, "digital_clock") == ["06:30", "07:05", "08:00"]
    assert find(await driver.dump_hierarchy(), id="input_hour") is None
    assert not phone.keyboard_shown


async def test_picker_opens_with_hour_focused_and_keyboard(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Add alarm")
    hour = await must_find(driver, id="input_hour")
    assert hour.attrs["focused"] == "true" and hour.attrs["text"] == ""
    assert phone.keyboard_shown
    await driver.type_text("2x3")  # number input: letters are dropped
    assert (await must_find(driver, id="input_hour")).attrs["text"] == "23"


@pytest.mark.parametrize(("hour", "minute"), [("25", "00"), ("7", "61"), ("", "30"), ("7", "")])
async def test_invalid_time_keeps_the_dialog_open(phone: VirtualPhone, driver: PhoneDriver, hour: str,
                                                  minute: str) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Add alarm")
    if hour:
        await type_into(driver, hour, id="input_hour")
    if minute:
        await type_into(driver, minute, id="input_minute")
    await tap_on(driver, text="OK")
    assert (await must_find(driver, id="label_error")).attrs["text"] == "Enter a valid time"
    assert (await must_find(driver, id="input_hour")).attrs["text"] == hour
    assert alarms(phone) == [("06:30", False, "Gym"), ("08:00", True, "Work")]
    # Fixing the value clears the error, and OK then saves.
    await type_into(driver, "", id="input_minute")
    await driver.press_key(KEY_DEL)
    await driver.press_key(KEY_DEL)
    await driver.type_text("15")
    assert find(await driver.dump_hierarchy(), id="label_error") is None
    if not hour or hour == "25":
        await tap_on(driver, id="input_hour")
        await driver.press_key(KEY_DEL)
        await driver.press_key(KEY_DEL)
        await driver.type_text("9")
    await tap_on(driver, text="OK")
    assert find(await driver.dump_hierarchy(), id="label_error") is None
    assert len(clock(phone).alarms) == 3


async def test_cancel_and_back_add_nothing(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Add alarm")
    await type_into(driver, "9", id="input_hour")
    await type_into(driver, "45", id="input_minute")
    await tap_on(driver, text="Cancel")
    assert find(await driver.dump_hierarchy(), id="input_hour") is None
    await tap_on(driver, desc="Add alarm")
    await driver.type_text("9")
    await driver.press_key(KEY_BACK)  # hides the keyboard
    await driver.press_key(KEY_BACK)  # closes the dialog
    assert find(await driver.dump_hierarchy(), id="input_hour") is None
    assert phone.focused_activity() == (PACKAGE, ".DeskClock")
    assert alarms(phone) == [("06:30", False, "Gym"), ("08:00", True, "Work")]


async def test_editing_an_alarms_time_replaces_the_selected_text(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, text="06:30")
    assert (await must_find(driver, id="input_hour")).attrs["text"] == "06"
    assert (await must_find(driver, id="input_minute")).attrs["text"] == "30"
    await driver.type_text("9")  # the focused field's text is selected, so typing replaces it
    await type_into(driver, "15", id="input_minute")
    await tap_on(driver, text="OK")
    # Same alarm (label and days kept), new time, switched on, and re-sorted after 08:00.
    assert alarms(phone) == [("08:00", True, "Work"), ("09:15", True, "Gym")]
    assert [a.id for a in clock(phone).alarms] == [2, 1]
    assert await texts_with_id(driver, "digital_clock") == ["08:00", "09:15"]


async def test_delete_removes_only_that_alarm(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Delete 06:30 alarm")
    assert alarms(phone) == [("08:00", True, "Work")]
    assert await texts_with_id(driver, "digital_clock") == ["08:00"]
    await tap_on(driver, desc="Delete 08:00 alarm")
    assert (await must_find(driver, id="alarms_empty_view")).attrs["text"] == "No alarms"


async def test_toggle_switches_back_and_forth(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Turn off 08:00 alarm")
    assert alarms(phone)[1] == ("08:00", False, "Work")
    switch = await must_find(driver, desc="Turn on 08:00 alarm")
    assert switch.attrs["checked"] == "false"
    await tap_on(driver, desc="Turn on 08:00 alarm")
    assert alarms(phone)[1] == ("08:00", True, "Work")


async def test_clock_tab_shows_the_phones_local_time(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Clock")
    shown = (await must_find(driver, id="digital_clock")).attrs["text"]
    assert shown == phone.now().strftime("%H:%M")
    zone = (await must_find(driver, id="time_zone_id")).attrs["text"]
    assert zone == phone.config.timezone
    assert (await must_find(driver, desc="Clock")).attrs["selected"] == "true"
    assert find(await driver.dump_hierarchy(), desc="Add alarm") is None


async def test_timer_and_stopwatch_tabs(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Timer")
    assert (await must_find(driver, id="timer")).attrs["text"] == "00h 00m 00s"
    await tap_on(driver, desc="Stopwatch")
    assert (await must_find(driver, id="stopwatch_time_text")).attrs["text"] == "00:00.00"


async def test_reset_restores_the_seeds(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await add_alarm(driver, "22", "10")
    await tap_on(driver, desc="Delete 06:30 alarm")
    phone.clear_data(PACKAGE)
    assert alarms(phone) == [("06:30", False, "Gym"), ("08:00", True, "Work")]
    assert clock(phone).next_id == 3


def test_parse_time_and_until_text(phone: VirtualPhone) -> None:
    assert parse_time("7", "30") == (7, 30)
    assert parse_time("00", "00") == (0, 0)
    assert parse_time("24", "00") is None and parse_time("23", "60") is None and parse_time("", "5") is None
    now = phone.now().replace(hour=6, minute=0, second=0, microsecond=0)
    assert until_text(now, 7, 30) == "Alarm set for 1 hour and 30 minutes from now"
    assert until_text(now, 6, 0) == "Alarm set for 1 day from now"
    assert until_text(now, 5, 59) == "Alarm set for 23 hours and 59 minutes from now"


def test_a_repeating_alarm_is_set_for_its_next_day_not_the_next_time_of_day(phone: VirtualPhone) -> None:
    """A reader saw "Alarm set for 28 minutes from now" on a Thursday for a Wednesday-only piano alarm (issue 25)."""
    thursday = phone.now().replace(hour=16, minute=47, second=0, microsecond=0)
    while thursday.weekday() != 3:
        thursday += timedelta(days=1)
    assert until_text(thursday, 17, 15, ("Wed",)) == "Alarm set for 6 days and 28 minutes from now"
    assert until_text(thursday, 17, 15, ("Thu", "Fri")) == "Alarm set for 28 minutes from now"
    assert until_text(thursday, 9, 0, ("Mon",)) == "Alarm set for 3 days, 16 hours and 13 minutes from now"


# ---------------------------------------------------------------- world clock


async def test_cities_picker_ticks_cities_at_once_and_lists_the_ticked_first(phone: VirtualPhone,
                                                                           driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Clock")
    assert await texts_with_id(driver, "city_name") == []    # a fresh install has no world clocks
    await tap_on(driver, desc="Cities")
    assert phone.focused_activity() == (PACKAGE, CITY_PICKER)
    first = await texts_with_id(driver, "city_name")
    assert first[:3] == ["Abu Dhabi", "Accra", "Addis Ababa"] and "Tokyo" not in first
    assert (await texts_with_id(driver, "index"))[:2] == ["A", ""]
    await tap_on(driver, text="Accra")
    assert clock(phone).cities == ["Accra"]
    assert await texts_with_id(driver, "header") == ["Selected cities", "All cities"]
    rows = [n for n in nodes(await driver.dump_hierarchy()) if n.attrs.get("resource-id", "").endswith("city_item")]
    # Accra ticked, at the top and in its place after Abu Dhabi.
    assert [r.attrs["checked"] for r in rows[:3]] == ["true", "false", "true"]
    assert all(r.attrs["checkable"] == "true" for r in rows)
    await tap_on(driver, text="Accra")                        # a second tap unticks it
    assert clock(phone).cities == []
    node = await scroll_to(driver, text="Wellington", max_swipes=30)
    await driver.tap(*node.center)
    await driver.press_key(KEY_BACK)
    assert await texts_with_id(driver, "city_name") == ["Wellington"]
    ahead = (await texts_with_id(driver, "hours_ahead"))[0]
    assert ahead.endswith(("ahead", "behind", "same time")) and ahead.split(",")[0] in ("Today", "Tomorrow",
                                                                                          "Yesterday")
    assert (await texts_with_id(driver, "digital_clock"))[0] == phone.now().strftime("%H:%M")


async def test_city_search_ignores_accents_and_back_collapses_it(phone: VirtualPhone, driver: PhoneDriver) -> None:
    await driver.launch_app(PACKAGE)
    await tap_on(driver, desc="Clock")
    await tap_on(driver, desc="Cities")
    await tap_on(driver, desc="Search")
    assert phone.keyboard_shown and phone.focus_key == "city_query"
    await driver.type_text("sao")
    assert await texts_with_id(driver, "city_name") == ["São Paulo"]
    await tap_on(driver, text="São Paulo")
    assert clock(phone).cities == ["São Paulo"]
    await driver.type_text("xyz")
    assert await texts_with_id(driver, "empty_view") == ["No cities match “saoxyz”"]
    await driver.press_key(KEY_BACK)                          # keyboard
    await driver.press_key(KEY_BACK)                          # the search box collapses
    assert phone.focused_activity() == (PACKAGE, CITY_PICKER)
    assert await texts_with_id(driver, "title_text") == ["Select a city"]
    await driver.press_key(KEY_BACK)
    assert phone.focused_activity() == (PACKAGE, ".DeskClock")


def test_offset_text_and_alarms_added_with_days(phone: VirtualPhone) -> None:
    now = datetime(2026, 1, 15, 22, 0, tzinfo=ZoneInfo("America/New_York"))
    assert offset_text(now, "Tokyo") == "Tomorrow, 14 hr ahead"
    assert offset_text(now, "Boston") == "Today, same time"
    assert offset_text(now, "Kathmandu") == "Tomorrow, 10 hr 45 min ahead"
    assert offset_text(now.replace(hour=1), "Honolulu") == "Yesterday, 5 hr behind"
    alarm = clock(phone).add(9, 0, label="Market", days=("Sun", "Sat"), enabled=False)
    assert (alarm.days, alarm.enabled) == (("Sat", "Sun"), False)   # kept in the week's order
