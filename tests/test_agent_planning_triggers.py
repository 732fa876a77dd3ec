"""The planning agent's five trigger points, each shown to happen exactly when the spec says."""

from __future__ import annotations

import asyncio
import itertools

from relay_desktop.agent.events import GuidanceUpdated, LogLine, Verification
from relay_desktop.llm.types import LLMRequest
from tests.agent_harness import PLAN, Script, after, complete, later, run_task, tap
from tests.agent_phone import FakePhone, counter_screens
from tests.agent_scripts import act

GUIDANCE = "STRATEGIC GUIDANCE (from planning agent)"


def consulted(run: object, trigger: str) -> list[LogLine]:
    return [e for e in run.of(LogLine) if e.message == f"Planning agent consulted ({trigger})"]  # type: ignore[attr-defined]


async def test_initial_plan_runs_in_the_background_and_is_pinned_when_it_arrives() -> None:
    gate = asyncio.Event()

    def fast(n: int, request: LLMRequest) -> object:
        if n == 2:  # the plan arrives while step 2 is being decided: step 3 is the first to see it
            gate.set()
            return after(asyncio.sleep(0.05), tap("e2"))
        return complete() if n == 4 else tap("e2")

    script = Script(fast, planning=lambda request: later(PLAN, gate))
    run = await run_task(FakePhone(counter_screens(), "s0"), script)

    assert run.result is not None and run.result.outcome == "success"
    guidance = run.of(GuidanceUpdated)
    assert [(g.step, g.trigger) for g in guidance] == [(3, "initial")]
    requests = run.fast_requests()
    # Steps 1 and 2 acted on the raw task: the fast agent never waited for the planning agent.
    for request in requests[:2]:
        assert all(GUIDANCE not in m.text for m in request.messages)
    pinned, current = requests[2].messages[0].text, requests[2].messages[-1].text
    # The enhanced task: the guidance pinned next to the task (after the phone's details), once per request.
    assert pinned.startswith("TASK: Do the thing\n\nDevice: ")
    assert f"{GUIDANCE}:\nRecommended approach: Direct" in pinned
    assert GUIDANCE not in current and "TASK:" not in current
    assert run.models is not None and sorted(run.models.roles()[:2]) == ["fast", "planning"]  # launched at step 1


def shuttle(n: int, request: LLMRequest) -> dict[str, object]:
    """Next, back, Next, back …: the same two screens over and over — no new screen, no progress."""
    from tests.agent_scripts import element_id

    return tap(element_id(request, "Next") or "e2") if n % 2 else act({"action": "back"})


async def test_a_stall_launches_recovery_planning_and_the_fast_agent_waits_for_it() -> None:
    recovery_prompts: list[str] = []
    order: list[str] = []

    def planning(request: LLMRequest) -> object:
        text = request.messages[-1].text
        if "WHAT HAS GONE WRONG" not in text:
            return PLAN
        recovery_prompts.append(text)
        order.append("recovery asked")

        async def slow() -> object:
            await asyncio.sleep(0.2)
            order.append("recovery answered")
            return {**PLAN, "diagnosis": "wrong screen"}
        return slow()

    def fast(n: int, request: LLMRequest) -> object:
        order.append(f"fast {n}")
        return complete() if n == 10 else shuttle(n, request)

    script = Script(fast, planning=planning, progress=lambda r: {"progressing": False, "reason": "going in circles"})
    run = await run_task(FakePhone(counter_screens(), "s0"), script)

    progress = [v for v in run.of(Verification) if v.check == "progress"]
    assert progress and not progress[0].ok
    assert f"Progress check (step {progress[0].step}): going in circles" in recovery_prompts[0]
    stall = consulted(run, "stall")
    adopted = [g for g in run.of(GuidanceUpdated) if g.trigger == "stall"]
    assert stall and adopted and \
        "Diagnosis (the planning agent's guess, not checked on the phone): wrong screen" in adopted[0].guidance
    # The recovery plan reached the fast agent at its next plan, not steps later.
    asked = order.index("recovery asked")
    next_fast = next(i for i, entry in enumerate(order) if i > asked and entry.startswith("fast"))
    assert order.index("recovery answered") < next_fast
    assert adopted[0].step == stall[0].step     # checked and adopted before that step's plan


async def test_a_run_that_reaches_a_new_screen_every_step_gets_no_progress_check() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 12 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast))
    assert run.models is not None
    assert [r for r in run.models.requests if r[1].contract and r[1].contract.name == "progress"] == []


async def test_no_progress_check_once_the_agent_decided_to_finish() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return shuttle(n, request) if n < 4 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), progress_every=3)
    assert run.models is not None
    kinds = [r.contract.name for _, r in run.models.requests if r.contract is not None]
    # The last plan says complete: no progress check is asked after it (only the completion check).
    assert kinds[-1] == "completion" and "progress" not in kinds[kinds.index("act", len(kinds) - 3):]


async def test_three_step_failures_launch_recovery_planning() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e99") if n <= 5 else tap("e2") if n < 8 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), consecutive_error_limit=10)

    # The initial plan is adopted at the top of step 2 or 3, which zeroes the count; three failures from that
    # step on → consulted two steps later; the fast agent waits for the recovery plan at its next step.
    initial = next(g.step for g in run.of(GuidanceUpdated) if g.trigger == "initial")
    assert initial in (2, 3)
    assert [e.step for e in consulted(run, "failures")] == [initial + 2]
    failures = [g for g in run.of(GuidanceUpdated) if g.trigger == "failures"]
    assert failures and failures[0].step == initial + 3


async def test_two_failures_are_not_enough() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e99") if n in (2, 3) else tap("e2") if n < 8 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast))
    assert consulted(run, "failures") == []


async def test_wrong_task_completion_counts_three_failures_and_replans_at_once() -> None:
    verdicts = iter([{"done": False, "reason": "It turned on Bluetooth instead of Wi-Fi"},
                     {"done": True, "reason": "ok"}])

    def fast(n: int, request: LLMRequest) -> object:
        return complete("Wi-Fi is on") if n in (4, 7) else tap("e2")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=lambda r: next(verdicts)))

    assert run.result is not None and run.result.outcome == "success" and run.result.steps == 7
    completion = [v for v in run.of(Verification) if v.check == "completion"]
    assert [v.ok for v in completion] == [False, True]
    assert [e.step for e in consulted(run, "wrong_task")] == [4]
    assert any("NOT done, keep working: It turned on Bluetooth instead of Wi-Fi" in t for t in run.fast_texts()[4:5]) \
        or any("NOT done" in m.text for m in run.fast_requests()[4].messages)


async def test_a_plain_completion_failure_does_not_replan() -> None:
    verdicts = iter([{"done": False, "reason": "the list has not loaded yet"}, {"done": True, "reason": "ok"}])

    def fast(n: int, request: LLMRequest) -> object:
        return complete() if n in (4, 6) else tap("e2")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=lambda r: next(verdicts)))
    assert consulted(run, "wrong_task") == [] and consulted(run, "failures") == []


async def test_last_resort_planning_blocks_in_the_final_iterations() -> None:
    order: list[str] = []

    def planning(request: LLMRequest) -> object:
        if "the step budget is nearly used up" in request.messages[-1].text:
            order.append("last_resort asked")

            async def slow() -> object:
                await asyncio.sleep(0.1)
                order.append("last_resort answered")
                return PLAN
            return slow()
        return PLAN

    def fast(n: int, request: LLMRequest) -> object:
        order.append(f"fast {n}")
        return tap("e99") if n == 3 else tap("e2") if n < 6 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, planning=planning), max_steps=8)

    # max 8, window 5: from step 3 on; the step-3 failure (after the initial plan) → blocking at step 4.
    assert [e.step for e in consulted(run, "last resort, waiting for it")] == [4]
    assert order.index("last_resort asked") < order.index("last_resort answered") < order.index("fast 4")
    last = [g for g in run.of(GuidanceUpdated) if g.trigger == "last_resort"]
    assert [g.step for g in last] == [4]
    assert "Recommended approach: Direct" in run.fast_requests()[3].messages[0].text


async def test_no_last_resort_without_failures() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 6 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), max_steps=8)
    assert consulted(run, "last resort, waiting for it") == []


async def test_planning_failure_leaves_the_fast_agent_working() -> None:
    from relay_desktop.llm.errors import ServerError

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 3 else complete()

    script = Script(fast, planning=lambda r: ServerError("overloaded", provider="fake", model="m"))
    run = await run_task(FakePhone(counter_screens(), "s0"), script)
    assert run.result is not None and run.result.outcome == "success"
    assert any("Planning agent unavailable" in e.message for e in run.of(LogLine))
    assert run.of(GuidanceUpdated) == []


def test_act_helper_shape() -> None:
    assert act({"action": "back"}) == {"thinking": "scripted", "steps": [{"action": "back"}]}


async def test_never_two_consultations_without_a_step_between_them() -> None:
    """A progress check that finds no progress and step failures in the same stretch once asked for two recovery
    plans back to back; now a step must pass after a plan arrives before the next one is asked."""
    def fast(n: int, request: LLMRequest) -> object:
        if n >= 14:
            return complete()
        return tap("e99") if n % 2 else shuttle(n, request)   # failures and no new screens, together

    script = Script(fast, progress=lambda r: {"progressing": False, "reason": "going in circles"})
    run = await run_task(FakePhone(counter_screens(), "s0"), script, consecutive_error_limit=20)
    steps = sorted(e.step for e in run.of(LogLine) if e.message.startswith("Planning agent consulted")
                   and "initial" not in e.message)
    adopted = sorted(g.step for g in run.of(GuidanceUpdated) if g.trigger != "initial")
    assert len(steps) >= 2, "recovery planning should have been consulted more than once"
    assert len(steps) == len(set(steps))                  # at most one consultation per step ...
    # ... each plan reached the fast agent at the step that asked for it, and the next was asked steps later.
    assert adopted == steps
    assert all(b - a >= 2 for a, b in itertools.pairwise(steps)), steps


async def test_the_initial_plan_goes_out_first_from_the_task_and_the_first_screen() -> None:
    """Issue 25: the strategy request went out once the apps were described, by which time the fast agent had
    acted: its approaches reached the agent one or two steps late, and it saw 'launch_app … → opened X' beside
    a screen from before. It now goes out before anything else, from the task and the first screen, while the
    app describer is still at work; the first act request says the approaches are on their way."""
    from relay_desktop.agent.events import EventBus
    from relay_desktop.agent.orchestrator import Orchestrator
    from relay_desktop.agent.settings import AgentSettings
    from tests.agent_fakes import ScriptedModels

    described = asyncio.Event()

    class SlowKnowledge:                  # the app describer takes its time
        async def notes_for(self, apps: object) -> dict[str, str]:
            await asyncio.wait_for(described.wait(), 10)
            return {"com.example.app": "counts pages"}

        @staticmethod
        def text(notes: object, apps: object) -> str:
            return "Example: counts pages" if notes else ""

    def fast(n: int, request: LLMRequest) -> object:
        if n == 2:
            described.set()
        return complete() if n == 5 else tap("e2")

    models = ScriptedModels(Script(fast))
    agent = Orchestrator(FakePhone(counter_screens(), "s0"), models, settings=AgentSettings(), bus=EventBus(),
                         knowledge=SlowKnowledge())
    await asyncio.wait_for(agent.run("Do the thing"), 20)
    roles = [role for role, r in models.requests if role != "verifier"]
    assert roles[0] == "planning", roles            # before the first act request
    text = models.requests[0][1].messages[-1].text
    assert text.startswith("TASK: Do the thing")
    assert "WHAT THE AGENT HAS DONE SO FAR" not in text and "tap e2" not in text
    screen = text.split("The current screen", 1)[1]
    assert '"Page 0"' in screen, text               # the first screen, with nothing done before it
    acts = [r for role, r in models.requests if role == "fast" and r.contract and r.contract.name == "act"]
    first = acts[0].messages[-1].text
    assert "approaches from the planning agent are on their way; begin with what is certain" in first
    # The program's own note, not screen data (a reader: "an instruction-like note inside a data block").
    assert "on their way" not in "".join(part.split("</screen_data>")[0] for part in first.split("<screen_data>")[1:])
    assert "on their way" not in acts[-1].messages[-1].text
    # The apps' notes still arrive, later, for the fast agent's pinned message.
    assert "Example: counts pages" in acts[-1].messages[0].text


async def test_missing_evidence_asks_the_agent_to_show_it_not_that_it_did_the_wrong_thing() -> None:
    """Issue 25: after a rejection for missing evidence the acting agent was told 'a check found it did the wrong
    thing… it is NOT going well', which invites a fast model to undo correct work."""
    verdicts = iter([{"reasoning": "the sent text is not on this screen", "done": False, "missing_evidence": True,
                      "reason": "no screen shows the sent message to Bob"},
                     {"done": True, "reason": "ok"}])

    def fast(n: int, request: LLMRequest) -> object:
        return complete("Texted Bob") if n in (4, 6) else tap("e2")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=lambda r: next(verdicts)))

    assert run.result is not None and run.result.outcome == "success"
    after_rejection = "\n".join(m.text for m in run.fast_requests()[4].messages)
    assert "missing evidence: no screen shows the sent message to Bob" in after_rejection
    assert "show it" in after_rejection and "Do not undo" in after_rejection
    assert "NOT done" not in after_rejection and "wrong" not in after_rejection.lower().split("missing evidence")[1]
    assert consulted(run, "wrong_task") == [] and consulted(run, "failures") == []
    verifier_requests = [r for _, r in run.models.requests
                         if r.contract is not None and r.contract.name == "completion"]
    assert verifier_requests[0].max_tokens >= 1000
    assert "nothing the user did not ask for" in verifier_requests[0].system
