"""The group-message task: its oracle solves it through Google's adb server, and what an agent gets almost
right — the same words sent separately, to one of the two, with a third person, or at the wrong time — fails
its checker with a reason that names the mistake."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID, Driver
from relay_desktop.sim.tasks.base import tap_on
from relay_desktop.sim.tasks.group_message_tasks import TASKS, start_group, write_in_thread
from relay_desktop.sim.tasks.hard_comms_common import open_conversation, send_text
from tests.conftest import AdbTestServer

TASK_ID = "messages_group_dinner_moved"


async def _separately(driver: Driver) -> None:
    for name in ("Bob Martinez", "Carol Nguyen"):
        await open_conversation(driver, name)
        await send_text(driver, "Dinner at 8 moved to 8:30")


async def _only_bob(driver: Driver) -> None:
    await start_group(driver, "Bob Martinez")
    await write_in_thread(driver, "Dinner at 8 moved to 8:30")


async def _with_dave(driver: Driver) -> None:
    await start_group(driver, "Bob Martinez", "Carol Nguyen", "Dave Kim")
    await write_in_thread(driver, "Dinner at 8 moved to 8:30")


async def _wrong_time(driver: Driver) -> None:
    await start_group(driver, "Bob Martinez", "Carol Nguyen")
    await write_in_thread(driver, "Dinner at 8 moved to 9:30")


async def _group_then_one_more_to_carol(driver: Driver) -> None:
    await start_group(driver, "Bob Martinez", "Carol Nguyen")
    await write_in_thread(driver, "Dinner at 8 moved to 8:30")
    await tap_on(driver, desc="Navigate up")
    await open_conversation(driver, "Carol Nguyen")
    await send_text(driver, "Dinner moved to 8:30")


NEAR_MISSES: dict[str, tuple[Callable[[Driver], Awaitable[None]], str]] = {
    "separately": (_separately, "separate"),
    "only_bob": (_only_bob, "Carol"),
    "with_dave": (_with_dave, "Dave Kim"),
    "wrong_time": (_wrong_time, "8:30"),
    "an_extra_text": (_group_then_one_more_to_carol, "separate"),
}


def test_the_task_is_registered_with_the_suite() -> None:
    assert TASKS and all(TASKS_BY_ID[t.id] is t for t in TASKS)
    assert TASK_ID in TASKS_BY_ID


async def test_the_oracle_solves_it_through_adb(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    task = TASKS_BY_ID[TASK_ID]
    task.setup(sim.phone)
    before = task.check(sim.phone)
    assert not before.ok and before.detail
    await task.oracle(await adb_server.server().device(sim.serial))  # type: ignore[arg-type]
    after = task.check(sim.phone)
    assert after.ok, after.detail


@pytest.mark.parametrize("miss", list(NEAR_MISSES), ids=list(NEAR_MISSES))
async def test_a_near_miss_fails_and_says_why(miss: str, adb_server: AdbTestServer,
                                              sim: VirtualPhoneService) -> None:
    task = TASKS_BY_ID[TASK_ID]
    task.setup(sim.phone)
    script, named = NEAR_MISSES[miss]
    await script(await adb_server.server().device(sim.serial))  # type: ignore[arg-type]
    result = task.check(sim.phone)
    assert not result.ok, f"{miss} passed: {result.detail}"
    assert named in result.detail, result.detail
