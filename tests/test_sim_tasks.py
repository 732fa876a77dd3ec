"""Every task in the suite: its initial state fails its checker, and its oracle solves it through adb."""

from __future__ import annotations

import pytest

from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, PhoneDriver, Task
from tests.conftest import AdbTestServer


def test_the_suite_is_large_and_ids_are_unique() -> None:
    assert len(ALL_TASKS) >= 30
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
