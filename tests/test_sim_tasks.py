"""Every task in the suite: its initial state fails its checker, and its oracle solves it through adb."""

from __future__ import annotations

import pytest

from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, PhoneDriver, Task
from tests.conftest import AdbTestServer


def test_the_suite_is_large_and_ids_are_unique() -> None:
    assert len(ALL_TASKS) >= 40
    assert len(TASKS_BY_ID) == len(ALL_TASKS)
    assert all(task.goal and task.max_steps > 0 for task in ALL_TASKS)


@pytest.mark.parametrize("task", ALL_TASKS, ids=[t.id for t in ALL_TASKS])
async def test_oracle_solves_the_task_through_adb(task: Task, adb_server: AdbTestServer,
                                                  sim: VirtualPhoneService) -> None:
    task.setup(sim.phone)
    before = task.check(sim.phone)
    assert not before.ok, f"{task.id} is already solved in its initial state: {before.detail}"
    device = await adb_server.server().device(sim.serial)
    await task.oracle(device)
    after = task.check(sim.phone)
    assert after.ok, f"{task.id}: {after.detail}"


async def test_a_wrong_path_leaves_settings_tasks_unsolved() -> None:
    from relay_desktop.sim.phone import VirtualPhone

    phone = VirtualPhone()
    task = TASKS_BY_ID["wifi_on"]
    task.setup(phone)
    driver = PhoneDriver(phone)
    # Toggling Bluetooth instead of Wi-Fi does not turn Wi-Fi on.
    await TASKS_BY_ID["bluetooth_off"].oracle(driver)
    assert not task.check(phone).ok
    dim = TASKS_BY_ID["dark_theme_dim"]
    dim.setup(phone)
    await driver.launch_app("com.android.settings")
    from relay_desktop.sim.tasks.base import tap_on

    await tap_on(driver, text="Display")
    await tap_on(driver, text="Dark theme")  # dark theme alone, brightness left at 50%
    result = dim.check(phone)
    assert not result.ok and "brightness" in result.detail


async def test_near_misses_leave_the_coverage_tasks_unsolved() -> None:
    from relay_desktop.sim.phone import VirtualPhone
    from relay_desktop.sim.tasks.base import tap_on

    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    timer = TASKS_BY_ID["clock_timer_10_min"]
    timer.setup(phone)
    await driver.launch_app("com.google.android.deskclock")
    await tap_on(driver, desc="Timer")
    for digit in "100":                               # 1 minute, not 10
        await tap_on(driver, id=f"timer_setup_digit_{digit}")
    await tap_on(driver, desc="Start")
    assert "1 min" in timer.check(phone).detail
    label = TASKS_BY_ID["clock_rename_gym_label"]
    label.setup(phone)
    await driver.launch_app("com.google.android.deskclock")
    await tap_on(driver, text="Gym")
    await driver.type_text("Swimming")                # appended to the old label, not replacing it
    await tap_on(driver, text="OK")
    assert not label.check(phone).ok and "GymSwimming" in label.check(phone).detail
    timeout = TASKS_BY_ID["settings_screen_timeout"]
    timeout.setup(phone)
    await driver.launch_app("com.android.settings")
    await tap_on(driver, text="Display")
    await tap_on(driver, text="Screen timeout")
    await tap_on(driver, text="2 minutes")
    assert not timeout.check(phone).ok
    close = TASKS_BY_ID["launcher_close_all_apps"]
    close.setup(phone)
    await driver.press_key(187)                       # Recents, then HOME instead of Clear all
    await driver.press_key(3)
    assert "Chrome" in close.check(phone).detail
