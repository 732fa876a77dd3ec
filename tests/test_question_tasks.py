"""Question tasks (issue 25): a value to find, the phone left as it was, an oracle that reads the answer."""

from __future__ import annotations

import pytest

from relay_desktop.cli.sim import demo
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import ALL_TASKS, TASKS_BY_ID, Task
from relay_desktop.sim.tasks.base import PhoneDriver, tap_on
from tests.conftest import AdbTestServer


def test_at_least_eight_questions_and_one_is_answered_no() -> None:
    questions = [t for t in ALL_TASKS if "question" in t.tags]
    assert len(questions) >= 8
    assert all(t.expected_answer for t in questions)
    assert all(t.expected_answer is None for t in ALL_TASKS if "question" not in t.tags)
    assert any(t.expected_answer == "no" for t in questions)


async def test_a_question_that_changes_the_phone_is_not_solved() -> None:
    phone = VirtualPhone()
    task = TASKS_BY_ID["question_gym_alarm_on"]
    task.setup(phone)
    driver = PhoneDriver(phone)
    assert await task.oracle(driver) == "no" and task.check(phone).ok
    await tap_on(driver, desc="Turn on 06:30 alarm")            # "checking" by switching it on
    result = task.check(phone)
    assert not result.ok and "alarms" in result.detail


async def test_the_oracle_reads_the_state_it_is_asked_about() -> None:
    phone = VirtualPhone()
    task = TASKS_BY_ID["question_bluetooth_on"]
    task.setup(phone)
    assert await task.oracle(PhoneDriver(phone)) == "no"
    task.setup(phone)
    phone.settings["global"]["bluetooth_on"] = "1"
    assert await task.oracle(PhoneDriver(phone)) == "yes"


def test_an_answer_is_judged_by_meaning() -> None:
    task = TASKS_BY_ID["question_market_opens"]
    assert task.check_answer("08:00").ok and task.check_answer("8 am").ok
    wrong = task.check_answer("1 pm")
    assert not wrong.ok and "'1 pm'" in wrong.detail and "'8:00'" in wrong.detail
    assert not task.check_answer("").ok
    assert TASKS_BY_ID["wifi_on"].check_answer("").ok              # a task without a question needs none


async def test_the_demo_judges_a_questions_answer(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    right = TASKS_BY_ID["question_carol_number"]

    async def wrong_number(driver: object) -> str:
        await right.oracle(driver)  # type: ignore[arg-type]
        return "555-0142"

    wrong = Task("question_wrong", right.goal, right.setup, right.check, wrong_number, tags=("question",),
                 expected_answer=right.expected_answer)
    monkeypatch.setattr("relay_desktop.sim.tasks.ALL_TASKS", [right, wrong])
    assert not await demo(sim, adb_server.server())
    out = capsys.readouterr().out
    assert "1/2 tasks solved." in out and "answered '555-0142', expected '555-0187'" in out


@pytest.mark.parametrize("task", [t for t in ALL_TASKS if "question" in t.tags], ids=lambda t: t.id)
def test_a_question_s_phone_has_no_card_left_over_the_app(task: Task) -> None:
    """A reader found the parcel text's heads-up card still over Messages a minute on, hiding the very row the
    question was about: its setup asked for 'no heads-up' with None, which means one that stays until acted on."""
    phone = VirtualPhone()
    task.setup(phone)
    assert phone.notifications.heads_up() is None
