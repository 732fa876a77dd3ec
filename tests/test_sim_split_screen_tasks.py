"""The split-screen tasks: copying from one app into another with both on screen. Each oracle goes through
split screen over Google's adb (Overview → icon → "Split screen" → the other card) and solves its task;
near misses (the wrong note, the wrong person, a retyped detail) fail their checkers."""

from __future__ import annotations

import pytest

from relay_desktop import cli
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, PhoneDriver, Task
from relay_desktop.sim.tasks.base import tap_on, type_into
from relay_desktop.sim.tasks.hard_comms_common import keep_of, open_conversation, send_text, write_note
from relay_desktop.sim.tasks.split_screen_tasks import CABIN_PASSWORD, TASKS, enter_split_screen
from tests.conftest import AdbTestServer

SPLIT_TASKS = [t for t in ALL_TASKS if "split_screen" in t.tags]
PAIRS = {"split_cabin_wifi_to_grace": ("com.google.android.keep", "com.google.android.apps.messaging"),
         "split_dentist_address_note": ("com.android.chrome", "com.google.android.keep"),
         "split_order_total_to_tom": ("com.relay.shop", "com.google.android.apps.messaging")}


def start(task_id: str) -> tuple[Task, VirtualPhone, PhoneDriver]:
    phone = VirtualPhone()
    task = TASKS_BY_ID[task_id]
    task.setup(phone)
    return task, phone, PhoneDriver(phone)


def failing(task: Task, phone: VirtualPhone, *words: str) -> None:
    result = task.check(phone)
    assert not result.ok, f"{task.id} passed a near miss: {result.detail}"
    assert all(word in result.detail for word in words), result.detail


def test_three_split_screen_tasks_copy_across_apps_and_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(SPLIT_TASKS) >= 3 and SPLIT_TASKS == TASKS
    for task in SPLIT_TASKS:
        assert "cross_app" in task.tags and "hard" not in task.tags, task.tags
        assert len(task.apps) == 2 and "split screen" in task.goal
    assert cli.main(["tasks"]) == 0
    listed = capsys.readouterr().out
    assert all(task.id in listed for task in SPLIT_TASKS)


@pytest.mark.parametrize("task", SPLIT_TASKS, ids=[t.id for t in SPLIT_TASKS])
def test_setup_leaves_both_apps_in_recents_and_the_phone_at_home(task: Task) -> None:
    phone = VirtualPhone()
    phone.launch("com.android.settings")          # whatever an earlier task left open is closed
    task.setup(phone)
    assert set(phone.recent_packages()) == set(task.apps)
    assert not phone.split.active and phone.current_activity().app.package == "com.android.launcher3"


@pytest.mark.parametrize("task", SPLIT_TASKS, ids=[t.id for t in SPLIT_TASKS])
async def test_the_oracle_solves_it_in_split_screen_through_adb(task: Task, adb_server: AdbTestServer,
                                                                 sim: VirtualPhoneService) -> None:
    task.setup(sim.phone)
    before = task.check(sim.phone)
    assert not before.ok, f"{task.id} is already solved in its initial state: {before.detail}"
    device = await adb_server.server().device(sim.serial)
    await task.oracle(device)  # type: ignore[arg-type]
    after = task.check(sim.phone)
    assert after.ok, f"{task.id}: {after.detail}"
    pair = sim.phone.split.pair
    assert pair is not None and pair.packages == PAIRS[task.id]    # still side by side: it was done there
    # Running it again from its setup works too (the demo runs every task on one phone, back to back).
    task.setup(sim.phone)
    assert not sim.phone.split.active and not task.check(sim.phone).ok


# ---------------------------------------------------------------- near misses

async def test_the_home_guest_password_or_a_miscased_one_is_not_the_cabins() -> None:
    task, phone, driver = start("split_cabin_wifi_to_grace")
    await open_conversation(driver, "Grace Liu")
    await send_text(driver, "The Wi-Fi password is bluebird2024")         # the seeded guest note, not the cabin's
    failing(task, phone, "does not contain", CABIN_PASSWORD)

    task, phone, driver = start("split_cabin_wifi_to_grace")
    await open_conversation(driver, "Grace Liu")
    await send_text(driver, f"Password: {CABIN_PASSWORD.lower()}")
    failing(task, phone, "exactly")

    task, phone, driver = start("split_cabin_wifi_to_grace")
    await open_conversation(driver, "Bob Martinez")
    await send_text(driver, f"Password: {CABIN_PASSWORD}")
    failing(task, phone, "someone else", "Bob")


async def test_the_phone_number_or_a_mistyped_postcode_is_not_the_address() -> None:
    task, phone, driver = start("split_dentist_address_note")
    await write_note(driver, "Dentist", "555-0168")
    failing(task, phone, "not the address")

    task, phone, driver = start("split_dentist_address_note")
    await write_note(driver, "Dentist", "27 Quay Street, Portsmouth PO1 2JK")
    failing(task, phone, "not the address")

    task, phone, driver = start("split_dentist_address_note")    # a line break for the comma is still a copy
    await write_note(driver, "Dentist", "27 Quay Street\nPortsmouth PO1 2JX")
    assert task.check(phone).ok
    keep_of(phone).add("Dentist", "27 Quay Street, Portsmouth PO1 2JX")
    failing(task, phone, "2 notes")


async def test_tom_needs_the_order_number_and_the_exact_total() -> None:
    task, phone, driver = start("split_order_total_to_tom")
    await open_conversation(driver, "Tom Becker")
    await send_text(driver, "Order SH-10421 came to $59.99")
    failing(task, phone, "the total $59.97")

    task, phone, driver = start("split_order_total_to_tom")
    await open_conversation(driver, "Tom Becker")
    await send_text(driver, "It came to $59.97")
    failing(task, phone, "order number")


async def test_the_checker_judges_the_result_whichever_app_is_on_top() -> None:
    # Messages above and Keep below: the password copied the same way passes the same checker.
    task, phone, driver = start("split_cabin_wifi_to_grace")
    await enter_split_screen(driver, "Messages", "Keep Notes")
    assert phone.split.pair is not None and phone.split.pair.packages == PAIRS[task.id][::-1]
    await tap_on(driver, text="Cabin weekend", id="index_note_title")
    await tap_on(driver, text="Grace Liu", id="conversation_name")
    await type_into(driver, f"Wi-Fi: {CABIN_PASSWORD}", id="compose_message_text")
    await tap_on(driver, desc="Send SMS")
    assert task.check(phone).ok
