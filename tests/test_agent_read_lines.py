"""The completion verifier reads the lines the agent decided on (issue 25).

A verifier that sees only `new screen: "Carol Nguyen" (… 26 elements)` for the screen that held the deciding
message cannot check the agent's answer by itself: the transcript quotes the screen lines the agent's own
reasoning points at, step by step, within a budget.
"""

from __future__ import annotations

from typing import Any

from relay_desktop.agent.memory.facts import Memory
from relay_desktop.llm.types import LLMRequest
from relay_desktop.sim.service import VirtualPhoneService
from tests.agent_harness import Script, run_task
from tests.agent_scripts import act, element_id
from tests.conftest import AdbTestServer


def test_the_lines_a_step_s_reasoning_points_at_are_quoted() -> None:
    memory = Memory()
    screen = ["Messages", "Anytime! Lunch next week?", "Tuesday works. See you then!", "Reply", "Send"]
    read = memory.read_lines(4, "com.google.android.apps.messaging", screen,
                             "Carol answered 'Anytime! Lunch next week?' to the thanks for dinner; then Tuesday.")
    assert read == ("Anytime! Lunch next week?",)     # "Tuesday" alone is a word in passing, not a quote
    assert 'read on the screen at step 4' in memory.read_text() and '"Anytime! Lunch next week?"' in memory.read_text()


def test_a_button_named_in_passing_is_not_taken_for_what_was_read() -> None:
    memory = Memory()
    read = memory.read_lines(2, "com.android.settings", ["Network & internet", "Connected devices", "Apps"],
                             "I will tap Network & internet to find Wi-Fi.", controls={0, 1, 2})
    assert read == ()
    assert memory.read_text() == ""


def test_a_short_plain_text_the_reasoning_names_whole_is_read() -> None:
    """A reader: the contact page the agent saw after Save ("Lena Vogel", "555-0190 · Mobile") never reached the
    verifier; short texts that are not controls count when the reasoning names all their words."""
    memory = Memory()
    screen = ["Lena Vogel", "555-0190 · Mobile", "Text", "Call", "Edit contact"]
    read = memory.read_lines(5, "contacts", screen, "Saved: Lena Vogel, 555-0190 mobile. Now tap Text.",
                             controls={2, 3, 4})
    assert read == ("Lena Vogel", "555-0190 · Mobile")
    # The same words on a control are a target, not something read.
    assert memory.read_lines(6, "contacts", ["Lena Vogel", "Call Lena"], "Tap Lena Vogel's row",
                             controls={0, 1}) == ()


def test_facts_read_from_one_line_share_it() -> None:
    memory = Memory()
    memory.add(["Guest network is Maple-Guest", "Guest password is bluebird2024"], 3, "keep",
               ["Wi-Fi password for guests · Network: Maple-Guest Password: bluebird2024"])
    text = memory.read_text()
    assert text.count("Maple-Guest Password") == 1 and "behind F1, F2" in text, text
    assert "(screen at step 3, keep)" in text


def test_read_lines_stay_within_the_budget_newest_first() -> None:
    memory = Memory()
    for step in range(1, 30):
        memory.read_lines(step, "app", [f"Order number {step}00 shipped to Elm Street on Monday {step}"],
                          f"Order number {step}00 shipped to Elm Street")
    text = memory.read_text(budget=400)
    assert "step 29" in text and "step 1 " not in text and len(text) < 520


async def test_the_verifier_sees_the_message_the_agent_read_two_screens_ago(
        adb_server: AdbTestServer, sim: VirtualPhoneService) -> None:
    seen: list[str] = []

    def verifier(request: LLMRequest) -> dict[str, object]:
        seen.append("\n".join(m.text for m in request.messages))
        return {"done": True, "reason": "the reply is quoted"}

    def fast(n: int, request: LLMRequest) -> dict[str, Any]:
        if n == 1:
            return act({"action": "launch_app", "app": "Messages"})
        if n == 2:
            row = element_id(request, "Tuesday works")
            assert row is not None
            return act({"action": "tap", "element": row})
        if n == 3:
            return act({"action": "back"},
                       thinking="The thread shows the reply 'Anytime! Lunch next week?' after my thanks for dinner.")
        return act({"action": "complete", "summary": "Read the reply", "answer": "anytime, and lunch next week"})

    device = await adb_server.server().device(sim.serial)
    run = await run_task(device, Script(fast, verifier=verifier), "What did they answer to my thanks for dinner?",
                         planning=False, timeout=40)
    assert run.result is not None and run.result.success
    assert seen and "Anytime! Lunch next week?" in seen[-1].split("The phone's screen now:")[0]
