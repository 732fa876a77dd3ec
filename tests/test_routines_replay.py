"""Routines end to end on the virtual phone through Google's adb: learnt from a model's run, replayed on a fresh
phone with no model asked, with other values, past a pop-up and an app left on another screen, handed to the
agent where the phone differs (and repaired), refused confirmations, and the history marking each step."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from relay_desktop.agent.events import EventBus, LogLine, PlanReceived, Verification
from relay_desktop.agent.orchestrator import Orchestrator
from relay_desktop.agent.settings import AgentSettings
from relay_desktop.agent.steps.safety import Handlers
from relay_desktop.routines.learn import learn_routine, records_from_steps
from relay_desktop.routines.model import Routine
from relay_desktop.routines.service import RoutineRun, RunActions, replay_summary
from relay_desktop.routines.store import RoutineStore
from relay_desktop.runs import RunRecorder, RunStore
from relay_desktop.sim.apps.messages import THREAD
from relay_desktop.sim.config import PhoneConfig
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.tasks import TASKS_BY_ID
from tests.agent_fakes import ScriptedModels
from tests.agent_scripts import text_agent
from tests.conftest import AdbTestServer

MESSAGES = "com.google.android.apps.messaging"
TEXT_BOB = TASKS_BY_ID["messages_text_bob"]


def no_model() -> ScriptedModels:
    """Models that must not be asked: every request is recorded (and answered with an error)."""
    return ScriptedModels(lambda role, request: AssertionError("a clean replay asks no model"))


async def approve(description: str) -> bool:
    return True


@pytest.fixture
async def phones(adb_server: AdbTestServer) -> AsyncIterator[list[Any]]:
    """Two fresh virtual phones on the private adb server: one to learn on, one to replay on."""
    services = [VirtualPhoneService(PhoneConfig(), adb=adb_server.server()) for _ in range(2)]
    for service in services:
        await service.start()
    devices = [await adb_server.server().device(s.serial) for s in services]
    try:
        yield list(zip(services, devices, strict=True))
    finally:
        for device in devices:
            await device.close()
        for service in services:
            await service.stop()


async def run(device: Any, task: str, models: Any, *, routine: Any = None, handlers: Handlers | None = None,
              store: RunStore | None = None, routines: RoutineStore | None = None, **settings: Any) -> Any:
    bus = EventBus()
    events: list[Any] = []
    bus.subscribe(events.append)
    actions = RunActions()
    actions.attach(bus)
    recorder = RunRecorder(store) if store is not None else None
    if recorder is not None:
        recorder.attach(bus)
    around = RoutineRun(routines, routine) if routine is not None and routines is not None else None
    if around is not None:
        around.attach(bus)
    agent = Orchestrator(device, models, bus=bus, routine=routine, handlers=handlers or Handlers(confirm=approve),
                         settings=AgentSettings(max_steps=15, **settings))
    result = await asyncio.wait_for(agent.run(task), 90)
    line = await around.finish(agent, result.outcome) if around is not None else None
    if recorder is not None:
        await recorder.aclose()
    return result, agent, events, actions, line


async def learnt_text_routine(device: Any, service: Any) -> Routine:
    TEXT_BOB.setup(service.phone)
    models = ScriptedModels(text_agent("Bob", "running late"))
    result, _, _, actions, _ = await run(device, TEXT_BOB.goal, models)
    assert result.outcome == "success", result.reason
    return learn_routine("text someone", TEXT_BOB.goal, actions.records(), source_run=result.run_id)


def sent(service: Any) -> list[tuple[str, str]]:
    return [(m.name, m.text) for m in service.phone.apps[MESSAGES].sent]


async def test_a_routine_from_a_models_run_replays_on_a_fresh_phone_with_no_model(
        phones: list[Any], tmp_path: Path) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    routine = await learnt_text_routine(first_device, first)
    assert [p.name for p in routine.parameters] == ["name", "message"]
    store = RunStore(tmp_path)
    TEXT_BOB.setup(fresh.phone)
    models = no_model()
    result, agent, events, _, _ = await run(fresh_device, TEXT_BOB.goal, models, routine=routine.bind(), store=store)

    assert result.outcome == "success", result.reason
    assert models.requests == []
    assert TEXT_BOB.check(fresh.phone).ok
    assert {e.source for e in events if isinstance(e, PlanReceived)} == {"routine"}
    assert replay_summary(agent) == {"name": "text someone", "version": 0, "parameters": routine.defaults(),
                                     "replayed_steps": 4, "agent_steps": 0, "handed_over": False}
    record = store.get_run(result.run_id)
    assert record.summary.driver == "routine"
    assert [s.source for s in record.steps] == ["routine"] * 4
    assert all(a.get("effect") for s in record.steps for a in s.actions)   # each step's effect, for a repair


async def test_other_values_text_another_person_another_message(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    routine = await learnt_text_routine(first_device, first)
    models = no_model()
    result, _, _, _, _ = await run(fresh_device, "Text Grace 'on my way'", models,
                                   routine=routine.bind({"name": "Grace", "message": "on my way"}))
    assert result.outcome == "success", result.reason
    assert models.requests == []
    assert ("Grace Liu", "on my way") in sent(fresh)
    assert not any(text == "on my way" for name, text in sent(fresh) if name != "Grace Liu")


async def test_a_pop_up_hands_over_to_the_agent_whose_fix_is_saved_and_then_replays_both_ways(
        phones: list[Any], tmp_path: Path) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    routines = RoutineStore(RunStore(tmp_path))
    saved = routines.save(await learnt_text_routine(first_device, first))
    TEXT_BOB.setup(fresh.phone)
    fresh.phone.report_background_crash("com.google.android.deskclock")     # "Clock keeps stopping" in the way
    models = ScriptedModels(text_agent("Bob", "running late"))
    result, agent, events, _, line = await run(fresh_device, TEXT_BOB.goal, models, routine=saved.bind(),
                                               routines=routines)

    assert result.outcome == "success", result.reason
    assert TEXT_BOB.check(fresh.phone).ok
    summary = replay_summary(agent)
    assert summary["handed_over"] and summary["stopped_at"] == 2
    # The agent only cleared the pop-up (one turn); the routine then went on from its step 2 without a model.
    assert summary["agent_steps"] == 1 and summary["replayed_steps"] == 4
    assert [role for role, _ in models.requests] == ["fast"]      # no strategy asked for one tap on a pop-up
    assert 'a pop-up is in the way: "Clock keeps stopping"' in summary["reason"]
    # Model requests only from the step that differed onwards: the first plan is made on the pop-up's screen.
    first_plan = next(e for e in events if isinstance(e, PlanReceived) and e.source == "model")
    assert first_plan.step == 2
    act = [r for role, r in models.requests if role == "fast"]
    pinned = act[0].messages[0].text
    assert "ROUTINE: a saved routine" in pinned and "Send SMS" in pinned
    assert "What it did without you:\n1. launch app Messages" in pinned
    assert "Close that pop-up and do nothing else: once it is gone, the routine goes on by itself" in pinned
    assert line is not None and "saved as version 2" in line
    repaired = routines.get("text someone")
    assert repaired.version == 2 and routines.get("text someone", 1).steps == saved.steps
    assert [s.optional for s in repaired.steps].count(True) == 1    # the step that closed the pop-up

    for popup in (False, True):        # the repaired routine goes through with the pop-up and without it
        TEXT_BOB.setup(fresh.phone)
        if popup:
            fresh.phone.report_background_crash("com.google.android.deskclock")
        models = no_model()
        result, agent, _, _, _ = await run(fresh_device, TEXT_BOB.goal, models, routine=repaired.bind())
        assert result.outcome == "success", (popup, result.reason)
        assert models.requests == [] and TEXT_BOB.check(fresh.phone).ok
        assert fresh.phone.system_dialog is None


async def test_an_app_left_on_another_screen_is_taken_back_without_a_model(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    routine = await learnt_text_routine(first_device, first)
    TEXT_BOB.setup(fresh.phone)
    messages = fresh.phone.apps[MESSAGES]
    fresh.phone.launch(MESSAGES)
    carol = next(c for c in messages.conversations if c.name == "Carol Nguyen")
    messages.open(THREAD, number=carol.number)
    fresh.phone.go_home()                     # Messages is left in Carol's conversation
    models = no_model()
    result, _, events, _, _ = await run(fresh_device, TEXT_BOB.goal, models, routine=routine.bind())
    assert result.outcome == "success", result.reason
    assert models.requests == [] and TEXT_BOB.check(fresh.phone).ok
    assert any(isinstance(e, LogLine) and "going back to it" in e.message for e in events)


async def test_without_a_model_a_replay_that_cannot_go_on_ends_with_one_clear_reason(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    routine = await learnt_text_routine(first_device, first)
    TEXT_BOB.setup(fresh.phone)
    result, _, _, _, _ = await run(fresh_device, "Text Zoe 'hi'", None,
                                       routine=routine.bind({"name": "Zoe", "message": "hi"}))
    assert result.outcome == "error"
    assert "could not be replayed past its step 2" in result.reason and "no model is set up" in result.reason
    assert 'button "' in result.reason or "showing \"Zoe\"" in result.reason or "not on the screen" in result.reason
    assert sent(fresh) == []


async def test_the_send_is_confirmed_unless_the_routine_was_told_not_to_ask(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    routine = await learnt_text_routine(first_device, first)
    asked: list[str] = []

    async def refuse(description: str) -> bool:
        asked.append(description)
        return False
    TEXT_BOB.setup(fresh.phone)
    result, _, events, _, _ = await run(fresh_device, TEXT_BOB.goal, no_model(), routine=routine.bind(),
                                        handlers=Handlers(confirm=refuse))
    assert result.outcome == "failed" and "did not allow" in result.reason
    assert len(asked) == 1 and "Send SMS" in asked[0]
    assert not TEXT_BOB.check(fresh.phone).ok

    TEXT_BOB.setup(fresh.phone)
    asked.clear()
    quiet = Routine(routine.name, routine.task, routine.steps, routine.parameters, routine.end, confirm=False)
    result, _, events, _, _ = await run(fresh_device, TEXT_BOB.goal, no_model(), routine=quiet.bind(),
                                        handlers=Handlers(confirm=refuse))
    assert result.outcome == "success" and asked == []
    assert any(isinstance(e, LogLine) and "was told not to ask" in e.message for e in events)
    assert TEXT_BOB.check(fresh.phone).ok


async def test_a_routine_saved_from_the_history_equals_the_one_learnt_live(phones: list[Any], tmp_path: Path) -> None:
    (first, first_device), _ = phones
    TEXT_BOB.setup(first.phone)
    store = RunStore(tmp_path)
    models = ScriptedModels(text_agent("Bob", "running late"))
    result, _, events, actions, _ = await run(first_device, TEXT_BOB.goal, models, store=store)
    record = store.get_run(result.run_id)
    from_history = learn_routine("t", TEXT_BOB.goal, records_from_steps(record.steps))
    live = learn_routine("t", TEXT_BOB.goal, actions.records())
    assert from_history.steps == live.steps and from_history.end == live.end
    assert any(isinstance(e, Verification) for e in events)


async def test_a_switch_already_on_is_left_on_and_a_point_on_a_slider_is_the_same_place(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    task = TASKS_BY_ID["dark_theme_dim"]        # the rule-based planner taps the brightness track at 10%
    task.setup(first.phone)
    result, _, _, actions, _ = await run(first_device, task.goal, None)
    assert result.outcome == "success", result.reason
    routine = learn_routine("dim", task.goal, actions.records())
    assert any("at" in step.action for step in routine.steps)

    task.setup(fresh.phone)
    result, _, _, _, _ = await run(fresh_device, task.goal, None, routine=routine.bind())
    assert result.outcome == "success", result.reason
    assert task.check(fresh.phone).ok              # the slider was set where the first run set it

    task.setup(fresh.phone)
    fresh.phone.put_setting("secure", "ui_night_mode", "2")      # dark theme already on
    result, _, events, _, _ = await run(fresh_device, task.goal, None, routine=routine.bind())
    assert result.outcome == "success", result.reason
    assert task.check(fresh.phone).ok
    assert any(isinstance(e, LogLine) and "it is already on" in e.message for e in events)


def call_agent(name: str) -> Any:
    """Calls ``name`` from Contacts: the person's row, then Call; the only sign is a passing "Calling …" toast."""
    from tests.agent_scripts import act, element_id, screen_text

    def answer(role: Any, request: Any) -> dict[str, Any]:
        if role == "planning":
            return {"approaches": [{"name": "Contacts", "description": "Call from the contact's page",
                                    "steps": ["Open Contacts", "Open the contact", "Call"], "confidence": 0.9}],
                    "recommended_index": 0}
        if role == "verifier":
            return {"done": True, "reason": "calling"}
        if request.contract is not None and request.contract.name != "act":
            return {"progressing": True, "reason": "fine"} if request.contract.name == "progress" else {"notes": []}
        screen = screen_text(request)
        if "com.google.android.contacts" not in screen.split("\n", 2)[1]:
            return act({"action": "launch_app", "app": "Contacts"})
        call = element_id(request, "Call", "button")
        if call is not None:
            return act({"action": "tap", "element": call}, {"action": "complete", "summary": f"calling {name}"})
        return act({"action": "tap", "element": element_id(request, name) or "e1"})
    return answer


async def test_a_step_whose_only_sign_was_a_passing_toast_is_not_taken_for_one_that_failed(
        phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    task = TASKS_BY_ID["contacts_call_grace"]
    task.setup(first.phone)
    result, _, _, actions, _ = await run(first_device, task.goal, ScriptedModels(call_agent("Grace Liu")))
    assert result.outcome == "success", result.reason
    routine = learn_routine("call", task.goal, actions.records())
    assert routine.steps[-1].expect is not None and routine.steps[-1].expect.get("passing")

    task.setup(fresh.phone)
    models = no_model()
    result, _, _, _, _ = await run(fresh_device, task.goal, models, routine=routine.bind())
    assert result.outcome == "success", result.reason
    assert models.requests == []
    assert fresh.phone.apps["com.google.android.contacts"].calls == ["555-0175"]     # one call, not two


async def test_a_number_the_first_run_read_on_the_phone_is_not_typed_unseen(phones: list[Any]) -> None:
    from dataclasses import replace

    from relay_desktop.routines.replay import facts_in

    assert facts_in("Carol's number is 555-0187, the code 4411.", "Text Bob Carol's number") == ["555-0187", "4411"]
    assert facts_in("see you at 7", "Text Bob 'see you at 7'") == []
    (first, first_device), (fresh, fresh_device) = phones
    routine = await learnt_text_routine(first_device, first)
    typing = next(i for i, s in enumerate(routine.steps) if s.kind == "type")
    stale = replace(routine.steps[typing], action={**routine.steps[typing].action, "text": "Carol is on 555-0111"})
    routine = replace(routine, steps=(*routine.steps[:typing], stale, *routine.steps[typing + 1:]))
    TEXT_BOB.setup(fresh.phone)
    result, _, _, _, _ = await run(fresh_device, TEXT_BOB.goal, None, routine=routine.bind())
    assert result.outcome == "error"
    assert "'555-0111', which the first run read on the phone and this replay has not seen" in result.reason
    assert sent(fresh) == []


async def test_a_pop_up_over_the_dialog_a_step_answers_is_named_as_the_one_in_the_way(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    task = TASKS_BY_ID["shop_third_product"]        # the Shop greets with a pop-up the first step closes
    task.setup(first.phone)
    result, _, _, actions, _ = await run(first_device, task.goal, None)
    assert result.outcome == "success", result.reason
    routine = learn_routine("third", task.goal, actions.records())
    assert any(step.screen.get("dialog") for step in routine.steps)

    task.setup(fresh.phone)
    fresh.phone.report_background_crash("com.google.android.deskclock")
    result, _, _, _, _ = await run(fresh_device, task.goal, None, routine=routine.bind(), allow_fallback=False)
    assert result.outcome == "error"
    # Named as the pop-up in the way (the Shop's own welcome prompt, which the routine answers, is not).
    assert 'a pop-up is in the way: "Clock keeps stopping"' in result.reason, result.reason


def renumber_agent(name: str, number: str) -> Any:
    """Changes a contact's number: Contacts, the contact, Edit, the Phone field replaced, Save."""
    from tests.agent_scripts import act, element_id, screen_text

    def answer(role: Any, request: Any) -> dict[str, Any]:
        if role == "planning":
            return {"approaches": [{"name": "Edit", "description": "Edit the contact", "steps": ["Edit", "Save"],
                                    "confidence": 0.9}], "recommended_index": 0}
        if role == "verifier":
            return {"done": True, "reason": "saved"}
        if request.contract is not None and request.contract.name != "act":
            return {"progressing": True, "reason": "fine"} if request.contract.name == "progress" else {"notes": []}
        screen = screen_text(request)
        if "com.google.android.contacts" not in screen.split("\n", 2)[1]:
            return act({"action": "launch_app", "app": "Contacts"})
        if f"{number} · Mobile" in screen:
            return act({"action": "complete", "summary": "renumbered"})
        phone = element_id(request, "Phone", "field")
        if phone is not None:
            return act({"action": "type", "element": phone, "text": number, "clear": True},
                       {"action": "tap", "element": element_id(request, "Save")})
        edit = element_id(request, "Edit contact")
        if edit is not None:
            return act({"action": "tap", "element": edit})
        return act({"action": "tap", "element": element_id(request, name) or "e1"})
    return answer


async def test_typing_over_a_field_whose_text_changed_since_is_refused(phones: list[Any]) -> None:
    (first, first_device), (fresh, fresh_device) = phones
    task = TASKS_BY_ID["contacts_renumber_frank"]
    task.setup(first.phone)
    result, _, _, actions, _ = await run(first_device, task.goal, ScriptedModels(renumber_agent("Frank Osei",
                                                                                                "555-0166")))
    assert result.outcome == "success", result.reason
    routine = learn_routine("renumber", task.goal, actions.records())
    assert any(s.target and s.target.get("value") == "555-0128" for s in routine.steps)

    task.setup(fresh.phone)
    result, _, _, _, _ = await run(fresh_device, task.goal, no_model(), routine=routine.bind())
    assert result.outcome == "success" and task.check(fresh.phone).ok, result.reason

    task.setup(fresh.phone)
    contacts = fresh.phone.apps["com.google.android.contacts"]
    next(c for c in contacts.contacts if c.name == "Frank Osei").phone = "555-0199"   # changed since
    result, _, _, _, _ = await run(fresh_device, task.goal, None, routine=routine.bind(), allow_fallback=False)
    assert result.outcome == "error"
    assert 'which held "555-0128" when the routine was learnt and holds "555-0199" now' in result.reason, result.reason
