"""Northwind Bank on the virtual phone: a protected app (black to screencap and the mirror, readable by the dump),
sign-in with a PIN, transfers with a review and the PIN again for a payee, and its tasks' checkers."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from PIL import Image

from relay_desktop.mirror.client import MirrorClient
from relay_desktop.mirror.provisioning import ServerFile
from relay_desktop.sim.apps.bank import DEFAULT_PIN, PACKAGE, NorthwindBank
from relay_desktop.sim.apps.bank_transfer import parse_amount
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.sim.tasks.base import PhoneDriver, find, tap_on, type_into
from relay_desktop.sim.tasks.untidy_bank_tasks import sign_in
from tests.conftest import AdbTestServer
from tests.waiting import until

BANK_TASKS = ("bank_note_checking_balance", "bank_move_to_savings", "bank_pay_dana", "bank_overdraft_refused")


def _bank(phone: VirtualPhone) -> NorthwindBank:
    return phone.apps[PACKAGE]  # type: ignore[return-value]


def _black(image: Image.Image, tolerance: int = 0) -> bool:
    return max(high for _low, high in image.convert("RGB").getextrema()) <= tolerance


# ---------------------------------------------------------------- protected pixels, readable elements

async def test_screencap_is_black_and_the_dump_reads_the_bank_through_google_adb(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    sim.phone.launch(PACKAGE)
    shot = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "exec-out", "screencap", "-p")
    image = Image.open(io.BytesIO(shot.stdout))
    assert image.size == (1080, 2400) and _black(image)
    dumped = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "exec-out", "uiautomator", "dump",
                                     "/dev/tty")
    text = dumped.stdout.decode()
    assert 'resource-id="com.northwind.bank:id/pin_input"' in text and 'password="true"' in text
    assert 'text="Welcome back, Sam"' in text

    sim.phone.launch("com.android.settings")   # any other app photographs as usual
    shot = await asyncio.to_thread(adb_server.run, "-s", sim.serial, "exec-out", "screencap", "-p")
    assert not _black(Image.open(io.BytesIO(shot.stdout)), tolerance=40)


async def test_the_mirror_stream_shows_black_for_the_bank_and_the_phone_again_after(
        adb_server: AdbTestServer, sim: VirtualPhoneService, tmp_path: Path) -> None:
    jar = tmp_path / "scrcpy-server"
    jar.write_bytes(b"PK\x03\x04 the virtual phone runs its own server for this class")
    device = await adb_server.server().device(sim.serial)
    mirror = MirrorClient(device, ServerFile(jar, "3.3.4", "test"), max_size=800)
    await asyncio.wait_for(mirror.start(), 20)
    try:
        await until(lambda: mirror.latest.take()[1] >= 1)
        assert not _black(await mirror.latest.screenshot(), tolerance=40)
        sim.phone.launch(PACKAGE)

        async def shows(black: bool) -> None:
            async def wait() -> None:
                # H.264 leaves a little noise in a black frame
                while _black(await mirror.latest.screenshot(), tolerance=12) != black:
                    await asyncio.sleep(0.05)
            await asyncio.wait_for(wait(), 10)

        await shows(black=True)
        sim.phone.go_home()
        await shows(black=False)
    finally:
        await mirror.stop()


async def test_a_dialog_over_the_bank_is_protected_too_and_the_shade_is_not() -> None:
    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    await sign_in(driver)
    await tap_on(driver, id="sign_out_button")
    assert find(await phone.dump_hierarchy(), text="Sign out?") is not None
    assert _black(await phone.screenshot())
    phone.notifications.shade_open = True
    phone.invalidate()
    assert not _black(await phone.screenshot(), tolerance=40)


# ---------------------------------------------------------------- sign-in

async def test_a_wrong_pin_counts_down_and_five_lock_sign_in() -> None:
    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    phone.launch(PACKAGE)
    for left in (4, 3, 2, 1):
        await type_into(driver, "1234", id="pin_input")
        await tap_on(driver, id="sign_in_button")
        error = find(await phone.dump_hierarchy(), id="pin_error")
        plural = "s" if left > 1 else ""
        assert error is not None and error.attrs["text"] == f"Incorrect PIN. {left} attempt{plural} left."
    await type_into(driver, "1234", id="pin_input")
    await tap_on(driver, id="sign_in_button")
    xml = await phone.dump_hierarchy()
    assert find(xml, id="pin_input") is None and "Sign-in is locked" in xml
    assert _bank(phone).locked and _bank(phone).sign_ins == 0


async def test_the_pin_field_shows_dots_in_the_dump_and_keeps_four_digits() -> None:
    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    phone.launch(PACKAGE)
    await type_into(driver, "40a719", id="pin_input")
    field = find(await phone.dump_hierarchy(), id="pin_input")
    assert field is not None and field.attrs["text"] == "••••" and field.attrs["password"] == "true"
    assert DEFAULT_PIN not in await phone.dump_hierarchy()
    await tap_on(driver, id="sign_in_button")
    assert find(await phone.dump_hierarchy(), id="accounts_list") is not None


# ---------------------------------------------------------------- transfers

async def test_a_transfer_moves_nothing_until_it_is_confirmed() -> None:
    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    await sign_in(driver)
    await tap_on(driver, id="transfer_button")
    await tap_on(driver, id="to_selector")
    await tap_on(driver, text="High-Yield Savings ••7730")
    await type_into(driver, "$1,000", id="amount_input")
    await tap_on(driver, id="review_button")
    assert find(await phone.dump_hierarchy(), id="review_amount").attrs["text"] == "$1,000.00"  # type: ignore[union-attr]
    assert _bank(phone).transfers == [] and _bank(phone).accounts[0].balance_cents == 241_856
    await tap_on(driver, id="edit_button")           # back to the form: still nothing moved
    assert _bank(phone).transfers == []


async def test_money_to_a_payee_asks_the_pin_again_and_a_wrong_one_sends_nothing() -> None:
    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    await sign_in(driver)
    await tap_on(driver, id="transfer_button")
    await tap_on(driver, id="to_selector")
    await tap_on(driver, text="Dana Whitfield ••3391")
    await type_into(driver, "20", id="amount_input")
    await tap_on(driver, id="review_button")
    await tap_on(driver, id="confirm_button")
    await type_into(driver, "9999", id="confirm_pin_input")
    await tap_on(driver, text="Confirm")
    assert find(await phone.dump_hierarchy(), id="pin_error") is not None and _bank(phone).transfers == []
    await type_into(driver, DEFAULT_PIN, id="confirm_pin_input")
    await tap_on(driver, text="Confirm")
    assert find(await phone.dump_hierarchy(), text="Transfer complete") is not None
    assert _bank(phone).transfers[0]["to"] == "Dana Whitfield" and _bank(phone).accounts[0].balance_cents == 239_856


async def test_the_form_refuses_what_a_bank_refuses() -> None:
    phone = VirtualPhone()
    driver = PhoneDriver(phone)
    await sign_in(driver)
    await tap_on(driver, id="transfer_button")
    await tap_on(driver, id="review_button")
    assert "Choose where" in find(await phone.dump_hierarchy(), id="transfer_error").attrs["text"]  # type: ignore[union-attr]
    await tap_on(driver, id="to_selector")
    await tap_on(driver, text="High-Yield Savings ••7730")
    await type_into(driver, "abc", id="amount_input")
    await tap_on(driver, id="review_button")
    assert "Enter an amount" in find(await phone.dump_hierarchy(), id="transfer_error").attrs["text"]  # type: ignore[union-attr]
    assert [parse_amount(t) for t in ("50", "$1,200.5", "12.99", "1.999", "")] == [5000, 120050, 1299, None, None]


# ---------------------------------------------------------------- the tasks

@pytest.mark.parametrize("task_id", BANK_TASKS)
async def test_each_bank_task_s_oracle_solves_it_and_its_checker_reads_the_state(task_id: str) -> None:
    task = TASKS_BY_ID[task_id]
    assert "untidy" in task.tags and dict(task.secrets) == {"bank_pin": DEFAULT_PIN}
    assert DEFAULT_PIN not in task.goal
    phone = VirtualPhone()
    task.setup(phone)
    if task.expected_outcome == "success":
        assert not task.check(phone)
    await task.oracle(PhoneDriver(phone))
    assert task.check(phone), task.check(phone).detail


async def test_near_misses_fail_the_bank_checkers() -> None:
    phone = VirtualPhone()
    task = TASKS_BY_ID["bank_move_to_savings"]
    task.setup(phone)
    driver = PhoneDriver(phone)
    await sign_in(driver)
    await tap_on(driver, id="transfer_button")
    await tap_on(driver, id="to_selector")
    await tap_on(driver, text="Travel Rewards Visa ••0094")      # the wrong account
    await type_into(driver, "250", id="amount_input")
    await tap_on(driver, id="review_button")
    await tap_on(driver, id="confirm_button")
    assert not task.check(phone)
    assert not TASKS_BY_ID["bank_overdraft_refused"].check(phone)     # money moved: not a refusal

    phone = VirtualPhone()
    task = TASKS_BY_ID["bank_note_checking_balance"]
    task.setup(phone)
    phone.apps["com.google.android.keep"].add("Checking balance", f"$2,418.56 (PIN {DEFAULT_PIN})")  # type: ignore[attr-defined]
    result = task.check(phone)
    assert not result and "PIN" in result.detail
