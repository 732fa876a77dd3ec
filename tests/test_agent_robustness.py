"""The loop's robustness mechanisms, each in the one situation that needs it."""

from __future__ import annotations

import asyncio

from relay_desktop.agent.events import ActionResult, LogLine, RunFinished, ScreenCaptured, Verification
from relay_desktop.llm.errors import InvalidOutput
from relay_desktop.llm.types import LLMRequest
from tests.agent_harness import Script, after, complete, make_run, run_task, tap
from tests.agent_phone import LAUNCHER, FakePhone, Screen, Widget, counter_screens
from tests.agent_scripts import act, element_id


def dead_end() -> dict[str, Screen]:
    """A screen whose button does nothing, and a screen to go back to."""
    return {"start": Screen("com.example.app", [Widget("Open")], taps={"Open": "dead"}),
            "dead": Screen("com.example.app", [Widget("Title", "text"), Widget("Broken"), Widget("Other")],
                           back="start")}


async def test_the_window_keeps_the_pinned_task_and_the_last_12_messages() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 20 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    history = run.agent.conversation.messages()
    assert len(history) == 13 and history[0].text == "TASK: Do the thing"
    last = run.fast_requests()[-1]
    assert last.messages[0].text.startswith("TASK: Do the thing")
    # Step 20 sees the reflect lines of steps 14..19 only: older turns were trimmed.
    text = "\n".join(m.text for m in last.messages)
    assert "Reflect (step 19)" in text and "Reflect (step 14)" in text and "Reflect (step 13)" not in text


async def test_each_step_is_reflected_in_one_line_comparing_before_and_after() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n == 1 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    second = "\n".join(m.text for m in run.fast_requests()[1].messages)
    assert "Reflect (step 1): tap e2 → the screen changed; +1 -1 ~0 elements; now in com.example.app." in second


async def test_an_ineffective_action_is_reported_and_flagged_as_a_failed_step_check() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else tap("e2") if n == 2 else complete()

    run = await run_task(FakePhone(dead_end(), "start"), Script(fast), planning=False)
    checks = [v for v in run.of(Verification) if v.check == "step"]
    assert [c.ok for c in checks] == [True, False]
    assert "'tap e2' changed nothing on the screen" in checks[1].reason
    third = run.fast_texts()[2]
    assert "INEFFECTIVE: 'tap e2' changed nothing" in third
    assert "WARNING: step didn't work." in "\n".join(m.text for m in run.fast_requests()[2].messages)


async def test_same_element_loop_gets_diagnostic_suggestions_and_auto_recovery_steps_in() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap(element_id(request, "Open") or element_id(request, "Broken") or "e1") if n < 9 else complete()

    phone = FakePhone(dead_end(), "start")
    run = await run_task(phone, Script(fast), planning=False)
    texts = run.fast_texts()
    assert any('ACTION LOOP: you acted on "e2 Broken" 3 times' in t and "Is it disabled or covered" in t
               for t in texts)
    # Exact element-map diff: four taps changed nothing → the agent pressed back on its own.
    assert "key BACK" in phone.commands
    recovery = [e for e in run.of(LogLine) if e.message.startswith("Automatic recovery")]
    assert recovery and "pressed back" in recovery[0].message
    assert any("Element map unchanged" in t for t in texts)  # in the failure context the model reads


async def test_auto_recovery_hides_the_keyboard_first() -> None:
    screens = {"form": Screen("com.example.app", [Widget("Name", "field"), Widget("Stuck")], back="form")}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else tap("e2") if n < 7 else complete()

    phone = FakePhone(screens, "form")
    run = await run_task(phone, Script(fast), planning=False)
    recovery = [e for e in run.of(LogLine) if e.message.startswith("Automatic recovery")]
    assert recovery and "hid the keyboard" in recovery[0].message
    assert phone.keyboard is False


async def test_layout_stagnation_is_noticed_even_when_texts_change() -> None:
    # Every counter page has the same layout (a text and a button): progress for the fingerprint, but the
    # structure hash sees the same screen over and over.
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 5 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    texts = run.fast_texts()
    assert "Screen structure stagnant" not in texts[1]
    assert "NOTE: Screen structure stagnant: same layout seen 3 times in last 3 iterations." in texts[2]


async def test_an_a_b_a_cycle_blocks_the_action_that_came_back() -> None:
    screens = {"list": Screen("com.example.app", [Widget("Inbox", "text"), Widget("Open item")],
                              taps={"Open item": "item"}),
               "item": Screen("com.example.app", [Widget("Item", "text"), Widget("Reply")], back="list")}

    def fast(n: int, request: LLMRequest) -> object:
        if n > 6:
            return complete()
        button = element_id(request, "Open item")
        return tap(button) if button else act({"action": "back"})

    phone = FakePhone(screens, "list")
    run = await run_task(phone, Script(fast), planning=False)
    # list → item (tap) → list (back): "back" is now blocked on the item screen.
    assert phone.commands.count("key BACK") == 1
    blocked = [r for r in run.of(ActionResult) if not r.ok] + \
        [e for e in run.of(LogLine) if "blocked here" in e.message]
    assert blocked
    assert any("Cycle:" in t and "'back' is blocked" in t for t in run.fast_texts())


async def test_the_same_action_toggling_is_not_an_a_b_a_block() -> None:
    screens = {"s": Screen("com.example.app", [Widget("Wi-Fi", "switch")])}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n < 3 else complete()

    phone = FakePhone(screens, "s")
    await run_task(phone, Script(fast), planning=False)
    assert phone.commands.count("tap 540 175") == 2


async def test_self_healing_brings_the_task_app_back_when_the_launcher_shows_by_accident() -> None:
    def to_launcher(p: FakePhone) -> None:
        p.current = "home"

    screens = {"app": Screen("com.example.app", [Widget("Title", "text"), Widget("Notification")],
                             taps={"Notification": to_launcher}),
               "home": Screen(LAUNCHER, [Widget("Example"), Widget("Clock")])}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n == 1 else complete()

    phone = FakePhone(screens, "app")
    phone.launch_screens["com.example.app"] = "app"
    run = await run_task(phone, Script(fast), planning=False)
    assert "launch com.example.app" in phone.commands
    assert any(e.message.startswith("Self-healing") for e in run.of(LogLine))
    assert phone.current == "app"


async def test_going_home_on_purpose_is_not_healed() -> None:
    screens = {"app": Screen("com.example.app", [Widget("Title", "text")]),
               "home": Screen(LAUNCHER, [Widget("Example")])}

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "home"}) if n == 1 else complete()

    phone = FakePhone(screens, "app")
    await run_task(phone, Script(fast), planning=False)
    assert not any(c.startswith("launch") for c in phone.commands)


async def test_the_last_three_failures_are_in_the_prompt() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap(f"e9{n}") if n <= 4 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    fifth = run.fast_texts()[4]
    context = fifth[fifth.index("CONTEXT - Previous issues:"):]
    assert "tap e92" in context and "tap e93" in context and "tap e94" in context and "tap e91" not in context


async def test_an_unknown_element_is_a_failed_step_with_a_clear_message() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e42") if n == 1 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    assert run.result is not None and run.result.outcome == "success"
    warning = "\n".join(m.text for m in run.fast_requests()[1].messages)
    assert "WARNING: step 'tap e42' failed: element e42 is not on the current screen (interactive elements: e2)" \
        in warning


async def test_consecutive_errors_end_the_run_cleanly() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e77")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    assert run.result is not None and run.result.outcome == "failed" and run.result.steps == 5
    assert run.result.reason.startswith("5 errors in a row; the last: element e77 is not on the current screen")


async def test_a_model_that_answers_garbage_every_time_ends_the_run_with_a_clear_outcome() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return InvalidOutput("answer.steps: missing", provider="fake", model="fake-model", text="lol")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    assert run.result is not None and run.result.outcome == "failed"
    assert "5 errors in a row" in run.result.reason and "no usable plan" in run.result.reason
    assert run.of(RunFinished)[0].outcome == "failed"


async def test_stale_ui_check_refuses_to_act_on_a_screen_that_changed_while_the_model_thought() -> None:
    from tests.agent_fakes import make_response

    phone = FakePhone(counter_screens(), "s0")
    phone.screens["other"] = Screen("com.example.app", [Widget("Something else", "text"), Widget("Danger")])

    def fast(n: int, request: LLMRequest) -> object:
        if n == 1:
            phone.current = "other"   # a pop-up arrived while the model was thinking
            return make_response(tap("e2"), latency_s=2.5)
        return complete()

    run = await run_task(phone, Script(fast), planning=False)
    stale = [v for v in run.of(Verification) if v.check == "stale_ui"]
    assert stale and not stale[0].ok and 'e2 "Next" is no longer there' in stale[0].reason
    assert not any(c.startswith("tap") for c in phone.commands)


async def test_later_steps_of_a_plan_are_checked_against_the_screen_before_they_run() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        # Both taps target e2 of s0; after the first, the screen is s1 whose e2 is still "Next": runs.
        # The third targets e1 ("Page 0"), which is gone after the first tap: the plan stops there.
        return act({"action": "tap", "element": "e2"}, {"action": "tap", "element": "e1"}) if n == 1 else complete()

    phone = FakePhone(counter_screens(), "s0")
    run = await run_task(phone, Script(fast), planning=False)
    assert phone.commands == ["tap 540 335"]
    assert any(v.check == "stale_ui" and not v.ok for v in run.of(Verification))


async def test_screenshot_and_dump_are_captured_concurrently() -> None:
    phone = FakePhone(counter_screens(), "s0")
    phone.dump_delay = phone.screenshot_delay = 0.1

    def fast(n: int, request: LLMRequest) -> object:
        return complete()

    await run_task(phone, Script(fast), planning=False)
    (d0, d1), (s0, s1) = phone.intervals["dump"][0], phone.intervals["screenshot"][0]
    assert d0 < s1 and s0 < d1, "the dump and the screenshot did not overlap"


async def test_completion_is_verified_before_the_run_ends() -> None:
    verdicts = iter([{"done": False, "reason": "the switch is still off"}, {"done": True, "reason": "on"}])

    def fast(n: int, request: LLMRequest) -> object:
        return complete() if n in (1, 3) else tap("e2")

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast, verifier=lambda r: next(verdicts)),
                         planning=False)
    assert run.result is not None and run.result.outcome == "success" and run.result.steps == 3
    assert "NOT done, keep working: the switch is still off" in "\n".join(
        m.text for m in run.fast_requests()[1].messages)


async def test_screen_captured_events_carry_the_element_map_and_diff() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n == 1 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    captured = run.of(ScreenCaptured)
    assert [len(c.element_map) for c in captured] == [2, 2]
    assert captured[1].diff_text == '+ e3 text "Page 1"\n- e1 text "Page 0"'


async def test_a_slow_scripted_agent_can_still_be_driven(tmp_path: object) -> None:
    gate = asyncio.Event()
    gate.set()

    def fast(n: int, request: LLMRequest) -> object:
        return after(gate.wait(), complete())

    run = make_run(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    result = await asyncio.wait_for(run.agent.run("x"), 5)
    assert result.outcome == "success"


async def test_a_step_that_fails_on_the_phone_is_retried_once_on_a_fresh_element_map() -> None:
    from relay_desktop.device.errors import CommandFailedError

    phone = FakePhone(counter_screens(), "s0")
    real_tap = phone.tap
    failures = [CommandFailedError("input tap 540 335", "Error: injecting to another application", 1)]

    async def flaky_tap(x: int, y: int) -> None:
        if failures:
            raise failures.pop()
        await real_tap(x, y)

    phone.tap = flaky_tap  # type: ignore[method-assign]

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n == 1 else complete()

    run = await run_task(phone, Script(fast), planning=False)
    assert phone.commands == ["tap 540 335"]
    assert any(e.message.startswith("Retrying 'tap e2' on a fresh element map") for e in run.of(LogLine))
    assert [r.ok for r in run.of(ActionResult)] == [False, True]
    assert run.agent.coordinator.failures_since_last_plan == 0


async def test_when_every_provider_fails_the_rule_based_planner_takes_over() -> None:
    from relay_desktop.agent.events import PlanReceived
    from relay_desktop.llm.errors import AllProvidersFailed, ConnectionFailed

    def fast(n: int, request: LLMRequest) -> object:
        return AllProvidersFailed("fast", [ConnectionFailed("no route to host", provider="anthropic", model="m")])

    screens = {"s": Screen("com.example.app", [Widget("Wi-Fi", "switch")])}
    phone = FakePhone(screens, "s")
    run = await run_task(phone, Script(fast), "Turn on Wi-Fi", planning=False)
    assert run.result is not None and run.result.outcome == "success"
    assert [p.source for p in run.of(PlanReceived)] == ["fallback", "fallback"]
    assert any("the rule-based fallback planner takes over" in e.message for e in run.of(LogLine))
    assert phone.screens["s"].widgets[0].checked
    assert len(run.fast_requests()) == 1   # no model is asked again once it is known that none answers


async def test_with_no_model_at_all_the_fallback_planner_drives() -> None:
    screens = {"s": Screen("com.example.app", [Widget("Bluetooth", "switch", checked=True)])}
    phone = FakePhone(screens, "s")
    run = await run_task(phone, None, "Turn off Bluetooth")
    assert run.result is not None and run.result.outcome == "success"
    assert any("No model is configured" in e.message for e in run.of(LogLine))
    assert not phone.screens["s"].widgets[0].checked


async def test_a_phone_that_goes_away_ends_the_run_with_a_plain_reason() -> None:
    from relay_desktop.device.errors import DeviceDisconnectedError

    phone = FakePhone(counter_screens(), "s0")

    async def gone() -> str:
        raise DeviceDisconnectedError("fake-phone disconnected during uiautomator dump")

    def fast(n: int, request: LLMRequest) -> object:
        phone.dump_hierarchy = gone  # type: ignore[method-assign]
        return tap("e2")

    run = await run_task(phone, Script(fast), planning=False)
    assert run.result is not None and run.result.outcome == "error"
    assert run.result.reason == "the phone was disconnected: fake-phone disconnected during uiautomator dump"
    assert run.of(RunFinished)[0].outcome == "error"
