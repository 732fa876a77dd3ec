"""Issue 25: the program's own words must not mislead a model. The fast agent's rules, the loop's notes after
a step that did nothing, and the strategist's guidelines, as a model reads them."""

from __future__ import annotations

import asyncio

from relay_desktop.agent.events import Verification
from relay_desktop.agent.loop.prompts import fast_system_prompt
from relay_desktop.agent.supervisors.planning import PlanningAgent
from relay_desktop.llm.types import LLMRequest
from tests.agent_fakes import ScriptedModels, sequence
from tests.agent_harness import PLAN, Script, complete, run_task, tap
from tests.agent_phone import FakePhone, Screen, Widget
from tests.agent_scripts import act
from tests.test_agent_planning import APPS, TIMEOUT, observation, plan_data


def _rules() -> str:
    prompt = fast_system_prompt()
    return prompt[prompt.index("Rules:"):]


def test_facts_from_the_users_phone_may_be_sent_but_a_credential_never_given_is_never_typed() -> None:
    """'Answer Julia's latest message' (the guest Wi-Fi password is in the user's own note) failed on 'Never
    type a password you were not given here', though the send is confirmed by the user anyway."""
    rules = _rules()
    assert "Never type a password you were not given here" not in rules
    assert "found on the user's own phone" in rules and "when the task calls for it" in rules
    assert "the send confirmation shows the user what goes out" in rules
    assert "A password, PIN or other credential the user never gave you is never typed" in rules


def test_a_step_without_effect_asks_why_and_does_not_invite_poking_around() -> None:
    rules = _rules()
    assert "try another element" not in rules
    assert "An action that had no effect: do not repeat it; look at why" in rules
    assert "if the app lacks what the task needs, fail with the reason" in rules.lower()


def test_exploring_changes_nothing_unasked_and_what_was_changed_is_undone_before_failing() -> None:
    """An alarm was switched on 'to see if the card changes' and left on when the agent gave up."""
    rules = _rules()
    assert "While exploring, change nothing the task did not ask for" in rules
    assert "undo what you changed before you fail" in rules
    assert "the app lacks the control or option the task needs: fail with the reason" in rules


def _dead_end() -> dict[str, Screen]:
    return {"start": Screen("com.example.app", [Widget("Open")], taps={"Open": "dead"}),
            "dead": Screen("com.example.app", [Widget("Title", "text"), Widget("Broken"), Widget("Other")],
                           back="start")}


async def test_the_note_after_a_step_that_did_nothing_asks_why_instead_of_another_element() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else tap("e3") if n == 2 else complete()

    run = await run_task(FakePhone(_dead_end(), "start"), Script(fast), planning=False)
    third = run.fast_texts()[2]
    assert "INEFFECTIVE: 'tap e3 \"Broken\"' changed nothing" in third
    assert "try another element" not in third
    assert "Look at why" in third and "if the app lacks what the task needs, fail with the reason" in third.lower()


# ------------------------------------------------------------ the strategist


def test_the_strategist_plans_a_send_payment_or_deletion_only_when_the_task_asks_for_it() -> None:
    """It planned '6. Place the order' for a task whose messages said 'don't order yet'."""
    system = PlanningAgent.system_prompt()
    assert "plan them, do not avoid them" not in system
    assert ("Plan a send, payment, deletion or install only when the task (or what it points to, such as a "
            "message to answer) asks for it") in system
    assert "nothing the task did not ask for" in system


async def test_recovery_offers_stopping_first_when_the_app_lacks_the_control_and_no_side_effect_experiments() -> None:
    """'Set the alarm to repeat on weekdays' on an app without repeat days: the recovery asked for 'a DIFFERENT
    approach first', and the agent switched the alarm on to see if the card changed."""
    models = ScriptedModels(sequence([plan_data()]))
    await asyncio.wait_for(PlanningAgent(models).plan_recovery(
        "Make the 7:00 alarm repeat on weekdays", observation(), APPS, ["Step 'Tap Repeat' failed twice."],
        None, trigger="stall"), TIMEOUT)
    ask = models.requests[0][1].messages[0].text
    ask = ask[ask.rindex("The phone agent has been working"):]
    assert "DIFFERENT approach first" not in ask
    stop, other = ask.index("stopping with fail"), ask.index("a different app, path")
    assert stop < other, "stopping comes first, before another way"
    assert "the app lacks the control or option the task needs" in ask
    assert "never an experiment that changes something the task did not ask for" in ask
    assert "undo" in ask


# ------------------------------------------------------------ supervisors' guesses


async def test_a_supervisors_diagnosis_reaches_the_acting_agent_as_a_guess_not_as_an_open_issue() -> None:
    """'turn the alarm on to see if the card changes' was passed on as an open issue; the agent switched the
    alarm on and gave up without switching it back."""
    guess = "maybe turn the alarm on to see if the card changes"

    def planning(request: LLMRequest) -> object:
        text = request.messages[-1].text
        return {**PLAN, "diagnosis": "the repeat option may be behind the alarm's switch"} \
            if "WHAT HAS GONE WRONG" in text else PLAN

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else tap("e2") if n < 9 else complete()

    script = Script(fast, planning=planning, progress=lambda r: {"progressing": False, "reason": guess})
    run = await run_task(FakePhone(_dead_end(), "start"), script, consecutive_error_limit=20)
    told = [t for t in run.fast_texts() if guess in t]
    assert told, "the progress supervisor's diagnosis should reach the acting agent"
    for text in told:
        issues = text[text.index("CONTEXT - Previous issues"):] if "CONTEXT - Previous issues" in text else ""
        issues = issues.split("A SUPERVISOR'S GUESS")[0]
        assert guess not in issues
        assert "A SUPERVISOR'S GUESS (not checked on the phone" in text
    pinned = [r.messages[0].text for r in run.fast_requests()]
    assert any("the repeat option may be behind" in p for p in pinned)
    for text in pinned:
        if "the repeat option may be behind" in text:
            assert "Diagnosis: the repeat" not in text
            assert "Diagnosis (the planning agent's guess, not checked on the phone): the repeat" in text


# ------------------------------------------------------------ a scroll or swipe that moved nothing


async def _after_gesture(step: dict[str, object], *widgets: Widget) -> tuple[str, list[Verification]]:
    screens = {"page": Screen("com.example.app", list(widgets))}

    def fast(n: int, request: LLMRequest) -> object:
        return act(step) if n == 1 else complete()

    run = await run_task(FakePhone(screens, "page"), Script(fast), planning=False)
    second = "\n".join(m.text for m in run.fast_requests()[1].messages[1:])
    return second, [v for v in run.of(Verification) if v.check == "step"]


async def test_a_last_scroll_of_a_list_at_its_end_says_so_and_is_no_failure() -> None:
    second, checks = await _after_gesture({"action": "scroll", "direction": "down", "element": "e2"},
                                           Widget("Inbox", "text"), Widget("Messages", "list"))
    assert "END REACHED" in second and "INEFFECTIVE" not in second and "CHECK FAILED" not in second
    assert [c.ok for c in checks] == [True] and "at its end" in checks[0].reason


async def test_a_swipe_on_the_notification_shade_that_did_nothing_is_not_the_end_of_a_list() -> None:
    second, checks = await _after_gesture({"action": "swipe", "direction": "down", "from_edge": "top"},
                                           Widget("Inbox", "text"), Widget("Messages", "list"))
    assert "end of the list" not in second and "END REACHED" not in second
    assert [c.ok for c in checks] == [False] and "end" not in checks[0].reason
    assert "from the top edge changed nothing" in checks[0].reason


async def test_a_scroll_on_a_page_without_a_list_is_not_the_end_of_a_list() -> None:
    second, checks = await _after_gesture({"action": "scroll", "direction": "down"},
                                           Widget("About this phone", "text"), Widget("OK"))
    assert "end of the list" not in second and "END REACHED" not in second
    assert [c.ok for c in checks] == [False] and "nothing there scrolls" in checks[0].reason


async def test_the_supervisors_read_the_agents_facts_without_stray_delimiter_markers() -> None:
    """Issue 25: stray '[screen_data]' lines in the supervisor's prompt — the facts came wrapped as data and were
    wrapped again, so the inner delimiters were neutralised into markers."""
    def planning(request: LLMRequest) -> object:
        return PLAN

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            return {**tap("e1"), "remember": ["The flat is 5A"]}
        return tap("e2") if n < 9 else complete()

    script = Script(fast, planning=planning, progress=lambda r: {"progressing": False, "reason": "circles"})
    run = await run_task(FakePhone(_dead_end(), "start"), script, consecutive_error_limit=20)
    assert run.models is not None
    supervised = [r.messages[-1].text for role, r in run.models.requests
                  if (r.contract and r.contract.name == "progress") or role == "planning"]
    assert any("The flat is 5A" in t for t in supervised)
    for text in supervised:
        assert "[screen_data]" not in text, text
        assert text.count("<screen_data>") == text.count("</screen_data>")
