"""The Clock day tasks: each oracle solves its task through Google's adb server, and what an agent gets almost
right — the alarm left on every day, the weekend instead of weekdays, the alarm switched off, Friday instead
of Saturday, a weekly Saturday alarm, a plain one-off for tomorrow — fails its checker with a reason."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest

from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID, Driver
from relay_desktop.sim.tasks.base import scroll_to, tap_on
from relay_desktop.sim.tasks.clock_day_tasks import (
    TASKS,
    _picker_today,
    choose_date,
    coming_saturday,
    expand_card,
)
from relay_desktop.sim.tasks.hard_clock_tasks import add_alarm, open_alarms
from tests.conftest import AdbTestServer


async def _tap(driver: Driver, **query: str) -> None:
    node = await scroll_to(driver, **query)
    await driver.tap(*node.center)


async def _left_every_day(driver: Driver) -> None:
    await open_alarms(driver)
    await expand_card(driver, "07:30")


async def _weekend_instead(driver: Driver) -> None:
    await open_alarms(driver)
    await expand_card(driver, "07:30")
    for day in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"):
        await _tap(driver, desc=day)


async def _switched_off(driver: Driver) -> None:
    await open_alarms(driver)
    await tap_on(driver, desc="Turn off 07:30 alarm")


async def _one_day_short(driver: Driver) -> None:
    await open_alarms(driver)
    await expand_card(driver, "07:30")
    for day in ("Saturday", "Sunday", "Friday"):
        await _tap(driver, desc=day)


async def _scheduled(driver: Driver, days_before_saturday: int) -> None:
    await open_alarms(driver)
    await add_alarm(driver, "09:00")
    await expand_card(driver, "09:00")
    await _tap(driver, text="Schedule alarm")
    today = await _picker_today(driver)
    await choose_date(driver, coming_saturday(today) - timedelta(days=days_before_saturday), today)


async def _friday_instead(driver: Driver) -> None:
    await _scheduled(driver, 1)


async def _every_saturday(driver: Driver) -> None:
    await open_alarms(driver)
    await add_alarm(driver, "09:00")
    await expand_card(driver, "09:00")
    await _tap(driver, desc="Saturday")


async def _plain_one_off(driver: Driver) -> None:
    await open_alarms(driver)
    await add_alarm(driver, "09:00")


async def _saturday_at_ten(driver: Driver) -> None:
    await open_alarms(driver)
    await add_alarm(driver, "10:00")
    await expand_card(driver, "10:00")
    await _tap(driver, text="Schedule alarm")
    today = await _picker_today(driver)
    await choose_date(driver, coming_saturday(today), today)


NEAR_MISSES: dict[str, tuple[str, Callable[[Driver], Awaitable[None]], str]] = {
    "left_every_day": ("clock_730_weekdays_only", _left_every_day, "Sat, Sun"),
    "weekend_instead": ("clock_730_weekdays_only", _weekend_instead, "[Sat, Sun]"),
    "switched_off": ("clock_730_weekdays_only", _switched_off, "off"),
    "one_day_short": ("clock_730_weekdays_only", _one_day_short, "Mon, Tue, Wed, Thu]"),
    "friday_instead": ("clock_saturday_9am_once", _friday_instead, "expected Saturday"),
    "every_saturday": ("clock_saturday_9am_once", _every_saturday, "one time only"),
    "plain_one_off": ("clock_saturday_9am_once", _plain_one_off, "not a date"),
    "saturday_at_ten": ("clock_saturday_9am_once", _saturday_at_ten, "10:00"),
}


def test_the_tasks_are_registered_with_the_suite() -> None:
    assert [t.id for t in TASKS] == ["clock_730_weekdays_only", "clock_saturday_9am_once"]
    assert all(TASKS_BY_ID[t.id] is t for t in TASKS)


@pytest.mark.parametrize("task_id", [t.id for t in TASKS])
async def test_the_oracle_solves_it_through_adb(task_id: str, adb_server: AdbTestServer,
                                                sim: VirtualPhoneService) -> None:
    task = TASKS_BY_ID[task_id]
    task.setup(sim.phone)
    before = task.check(sim.phone)
    assert not before.ok and before.detail
    await task.oracle(await adb_server.server().device(sim.serial))  # type: ignore[arg-type]
    after = task.check(sim.phone)
    assert after.ok, after.detail


@pytest.mark.parametrize("miss", list(NEAR_MISSES), ids=list(NEAR_MISSES))
async def test_a_near_miss_fails_and_says_why(miss: str, adb_server: AdbTestServer,
                                              sim: VirtualPhoneService) -> None:
    task_id, script, named = NEAR_MISSES[miss]
    task = TASKS_BY_ID[task_id]
    task.setup(sim.phone)
    await script(await adb_server.server().device(sim.serial))  # type: ignore[arg-type]
    result = task.check(sim.phone)
    assert not result.ok, f"{miss} passed: {result.detail}"
    assert named in result.detail, result.detail
