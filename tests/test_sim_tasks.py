"""Every task in the suite: its initial state fails its checker, and its oracle solves it through adb.

An infeasible task (``expected_outcome="failed"``) is the other way round: its checker passes while the phone
is unchanged, the oracle (which only looks) leaves it passing, and doing it anyway — the near miss its module
lists in ``DOING_IT_ANYWAY`` — makes it fail. Tasks tagged ``non_ascii`` are driven the way the app drives a
real phone: ASCII over ``adb shell input text``, anything else through the scrcpy mirror's clipboard paste
(``adb shell input text`` cannot type it on Android).
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

import relay_desktop.sim.tasks as task_package
from relay_desktop.device.device import Device
from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.mirrored_phone import MirroredPhone
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, Driver, PhoneDriver, Task
from tests.conftest import AdbTestServer
from tests.waiting import until


def _near_misses() -> dict[str, object]:
    """Every task module's DOING_IT_ANYWAY, merged (task id -> a script that does the infeasible thing anyway)."""
    found: dict[str, object] = {}
    for info in pkgutil.iter_modules(task_package.__path__):
        module = importlib.import_module(f"{task_package.__name__}.{info.name}")
        found.update(getattr(module, "DOING_IT_ANYWAY", {}))
    return found


DOING_IT_ANYWAY = _near_misses()


@asynccontextmanager
async def _driver_for(task: Task, device: Device, tmp_path: Path) -> AsyncIterator[Driver]:
    """The device itself, or for non-ASCII typing the device behind a running mirror (as the agent has it)."""
    if "non_ascii" not in task.tags:
        yield device  # type: ignore[misc]
        return
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"PK\x03\x04 the virtual phone runs its own scrcpy server")
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=800)
    await asyncio.wait_for(mirror.start(), 20)
    try:
        phone = MirroredPhone(device, mirror)
        await until(lambda: phone.mirroring)
        yield phone  # type: ignore[misc]
    finally:
        await mirror.stop()


def test_the_suite_is_large_and_ids_are_unique() -> None:
    assert len(ALL_TASKS) >= 40
    assert len(TASKS_BY_ID) == len(ALL_TASKS)
    assert all(task.goal and task.max_steps > 0 for task in ALL_TASKS)


def test_hard_tasks_declare_their_kind_and_a_realistic_budget() -> None:
    for task in (t for t in ALL_TASKS if "hard" in t.tags):
        assert set(task.tags) - {"hard"}, f"{task.id} names no kind of hard task: {task.tags}"
        assert 25 <= task.max_steps <= 40, task.id
        assert task.expected_outcome in ("success", "failed"), task.id
        assert ("infeasible" in task.tags) == (task.expected_outcome == "failed"), task.id
        assert task.must_ask == ("ask_user" in task.tags), task.id
        assert not task.must_ask or task.answers, f"{task.id} must be asked, but has no scripted answer"


def test_every_infeasible_task_has_a_near_miss() -> None:
    infeasible = {t.id for t in ALL_TASKS if t.expected_outcome == "failed"}
    assert infeasible <= set(DOING_IT_ANYWAY), f"no DOING_IT_ANYWAY for {sorted(infeasible - set(DOING_IT_ANYWAY))}"
    assert set(DOING_IT_ANYWAY) <= set(TASKS_BY_ID)


@pytest.mark.parametrize("task", ALL_TASKS, ids=[t.id for t in ALL_TASKS])
async def test_oracle_solves_the_task_through_adb(task: Task, adb_server: AdbTestServer,
                                                  sim: VirtualPhoneService, tmp_path: Path) -> None:
    infeasible = task.expected_outcome == "failed"
    question = task.expected_answer is not None
    task.setup(sim.phone)
    before = task.check(sim.phone)
    if infeasible or question:
        # An infeasible task and a question both leave the phone as it was: the untouched state passes.
        assert before.ok, f"{task.id} must leave the phone unchanged, so its initial state must pass: {before.detail}"
    else:
        assert not before.ok, f"{task.id} is already solved in its initial state: {before.detail}"
    device = await adb_server.server().device(sim.serial)
    async with _driver_for(task, device, tmp_path) as driver:
        answer = await task.oracle(driver)
        after = task.check(sim.phone)
        assert after.ok, f"{task.id}: {after.detail}"
        if question:
            assert task.check_answer(answer or "").ok, f"{task.id}: the oracle answered {answer!r}"
        if infeasible:
            await DOING_IT_ANYWAY[task.id](driver)  # type: ignore[operator]
            anyway = task.check(sim.phone)
            assert not anyway.ok, f"{task.id}: doing it anyway still passes its checker ({anyway.detail})"


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
