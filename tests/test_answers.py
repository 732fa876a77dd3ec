"""Answers (issue 25): a task that asks a question ends with the value asked for, carried to every consumer.

``complete`` takes an ``answer``; it reaches the completion verifier, the run's result and its finished event.
"""

from __future__ import annotations

from relay_desktop.agent.events import RunFinished
from relay_desktop.agent.steps.actions import ACTIONS, Step, parse_plan
from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_harness import Script, run_task
from tests.agent_scripts import act
from tests.conftest import AdbTestServer


def test_complete_takes_a_short_answer_and_says_when_to_give_it() -> None:
    spec = ACTIONS["complete"]
    assert "answer" in spec.params and spec.required == ("summary",)
    description = spec.description.lower()
    assert "question" in description and "answer" in description and "short" in description
    plan = parse_plan(act({"action": "complete", "summary": "Read the alarms", "answer": "yes"}))
    assert plan.steps[0].params["answer"] == "yes"
    assert 'answer "yes"' in Step.of("complete", summary="Read the alarms", answer="yes").describe()


async def test_the_answer_reaches_the_verifier_the_result_and_the_finished_event(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    seen: list[str] = []

    def verifier(request: LLMRequest) -> dict[str, object]:
        seen.append("\n".join(m.text for m in request.messages))
        return {"done": True, "reason": "the answer is on the screen"}

    def fast(n: int, request: LLMRequest) -> dict[str, object]:
        return act({"action": "complete", "summary": "Counted the unread threads", "answer": "3"})

    device = await adb_server.server().device(sim.serial)
    run = await run_task(device, Script(fast, verifier=verifier), "How many unread messages do I have?",
                         planning=False, timeout=30)
    assert run.result is not None and run.result.success
    assert run.result.answer == "3"
    finished = run.of(RunFinished)[-1]
    assert finished.answer == "3" and finished.to_json()["answer"] == "3"
    assert seen and 'answer given to the user: "3"' in seen[-1].lower()


async def test_a_task_without_a_question_has_no_answer(adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    device = await adb_server.server().device(sim.serial)
    run = await run_task(device, Script(lambda n, r: act({"action": "complete", "summary": "done"})),
                         planning=False, timeout=30)
    assert run.result is not None and run.result.answer == ""
    assert run.of(RunFinished)[-1].to_json()["answer"] == ""
