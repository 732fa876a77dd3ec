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
    assert len(history) <= 13 and history[0].text.startswith("TASK: Do the thing\n\nDevice: ")
    assert history[1].role == "assistant"          # the window starts with a plan, not an orphaned result
    last = run.fast_requests()[-1]
    assert last.messages[0].text.startswith("TASK: Do the thing")
    # Step 20 sees the results of steps 14..19 only: older turns were trimmed.
    text = "\n".join(m.text for m in last.messages)
    assert "plan from step 19," in text and "plan from step 14," in text and "plan from step 13," not in text


async def test_the_task_and_the_guidance_appear_once_per_request() -> None:
    from tests.agent_harness import PLAN

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 4 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), latency=0.05)
    for request in run.fast_requests():
        text = "\n".join(m.text for m in request.messages)
        assert text.count("TASK: Do the thing") == 1
        assert text.count("STRATEGIC GUIDANCE") <= 1
        assert text.count("Installed apps:") == 1
    last = "\n".join(m.text for m in run.fast_requests()[-1].messages)
    assert "STRATEGIC GUIDANCE" in last and PLAN["approaches"][0]["name"] in last


async def test_each_step_of_a_plan_has_its_own_result_with_its_target_where_it_landed_and_what_changed() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "tap", "element": "e2"}, {"action": "tap", "element": "e2"},
                   {"action": "tap", "element": "e1"}) if n == 1 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    second = "\n".join(m.text for m in run.fast_requests()[1].messages)
    assert "RESULT of your plan from step 1, step by step:" in second
    assert '1. tap e2 "Next" at (540,335) → done; + e3 text "Page 1"; - e1 text "Page 0"' in second
    assert '2. tap e2 "Next" at (540,335) → done; + e4 text "Page 2"; - e3 text "Page 1"' in second
    # e1 ("Page 0") is gone after the first tap: the third step was not run, and the model is told why.
    assert '3. tap e1 "Page 0" → NOT RUN: after step 2 (tap e2 "Next"), e1 "Page 0" is no longer on the screen' \
        in second


async def test_an_ineffective_action_is_reported_and_flagged_as_a_failed_step_check() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        # The second screen's ids go on from the first's ("Open" was e1): "Broken" is e3.
        return tap("e1") if n == 1 else tap("e3") if n == 2 else complete()

    run = await run_task(FakePhone(dead_end(), "start"), Script(fast), planning=False)
    checks = [v for v in run.of(Verification) if v.check == "step"]
    assert [c.ok for c in checks] == [True, False]
    assert "'tap e3' changed nothing on the screen" in checks[1].reason
    third = run.fast_texts()[2]
    assert "INEFFECTIVE: 'tap e3 \"Broken\"' changed nothing — neither the element list nor the picture" in third
    assert '1. tap e3 "Broken" at (540,335) → done; no visible change. CHECK FAILED' in \
        "\n".join(m.text for m in run.fast_requests()[2].messages)


async def test_a_tap_that_only_shows_a_toast_is_not_reported_as_having_no_effect() -> None:
    # Toasts are in no UI dump (on real phones either): the picture changed, so the tap did something.
    class ToastPhone(FakePhone):
        toast = False

        async def screenshot(self):  # type: ignore[no-untyped-def]
            from PIL import ImageDraw

            image = await super().screenshot()
            if self.toast:
                ImageDraw.Draw(image).rounded_rectangle((240, 1900, 840, 2000), 40, fill=(50, 50, 50))
            return image

    def show_toast(p: FakePhone) -> None:
        p.toast = True  # type: ignore[attr-defined]

    screens = {"chat": Screen("com.example.app", [Widget("Grace Liu", "text"), Widget("Call")],
                              taps={"Call": show_toast})}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e2") if n == 1 else complete()

    run = await run_task(ToastPhone(screens, "chat"), Script(fast), planning=False)
    second = "\n".join(m.text for m in run.fast_requests()[1].messages)
    assert "INEFFECTIVE" not in second and "no visible change" not in second
    assert "the picture changed but the element list did not" in second
    assert [v.ok for v in run.of(Verification) if v.check == "step"] == [True]


async def test_same_element_loop_gets_diagnostic_suggestions_and_a_stuck_screen_a_suggestion_not_an_action() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap(element_id(request, "Open") or element_id(request, "Broken") or "e1") if n < 9 else complete()

    phone = FakePhone(dead_end(), "start")
    run = await run_task(phone, Script(fast), planning=False)
    texts = run.fast_texts()
    assert any('ACTION LOOP: you acted on e3 "Broken" 3 times' in t and "Is it disabled or covered" in t
               for t in texts)
    # Four taps changed nothing: the model is told what it could do; the loop does not act on its own.
    assert "key BACK" not in phone.commands
    assert any("STUCK: the screen has not changed for 4 steps. Consider:" in t and "go back" in t for t in texts)


async def test_a_stuck_screen_with_the_keyboard_up_suggests_hiding_it() -> None:
    screens = {"form": Screen("com.example.app", [Widget("Name", "field"), Widget("Stuck")], back="form")}

    def fast(n: int, request: LLMRequest) -> object:
        return tap("e1") if n == 1 else tap("e2") if n < 7 else complete()

    phone = FakePhone(screens, "form")
    run = await run_task(phone, Script(fast), planning=False)
    assert any("STUCK:" in t and "hide the keyboard (back)" in t for t in run.fast_texts())
    assert phone.keyboard is True and "key BACK" not in phone.commands


async def test_new_content_on_one_layout_is_progress_but_going_back_and_forth_is_stagnation() -> None:
    # Every counter page has the same layout, but each is new: no stagnation note.
    def forward(n: int, request: LLMRequest) -> object:
        return tap("e2") if n < 6 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(forward), planning=False)
    assert not any("stagnant" in t for t in run.fast_texts())

    # Next, back, Next, back: the same two screens and nothing new.
    def shuttle(n: int, request: LLMRequest) -> object:
        if n >= 6:
            return complete()
        return tap(element_id(request, "Next") or "e2") if n % 2 else act({"action": "back"})

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(shuttle), planning=False)
    texts = run.fast_texts()
    assert "stagnant" not in texts[3]
    assert "NOTE: Screen stagnant: this exact screen was seen 3 times" in texts[4]


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
    # list → item → list once may be a look-up; the same round trip again is a loop: "back" is now blocked
    # on the item screen.
    assert phone.commands.count("key BACK") == 2
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


async def test_the_home_screen_coming_up_unasked_is_told_to_the_model_not_undone_behind_its_back() -> None:
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
    assert "launch com.example.app" not in phone.commands          # the loop never acts for the model
    second = run.fast_texts()[1]
    assert "NOTE: the home screen is in front, though your last step ('tap e2 \"Notification\"') did not ask " \
           "for it" in second and "com.example.app, use launch_app" in second
    assert any("home screen came up unasked" in e.message for e in run.of(LogLine))


async def test_recent_apps_is_not_taken_for_the_home_screen_coming_up_unasked() -> None:
    """Overview belongs to the launcher's package, but a tap in it (a card's menu) is no app closing."""
    card = Widget("Example", resource_id=f"{LAUNCHER}:id/snapshot")
    screens = {"app": Screen("com.example.app", [Widget("Title", "text")]),
               "overview": Screen(LAUNCHER, [Widget("Example icon"), card], taps={"Example icon": "menu"}),
               "menu": Screen(LAUNCHER, [Widget("Split screen"), card])}

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "recent_apps"}) if n == 1 else tap(element_id(request, "Example icon")) if n == 2 \
            else complete()

    phone = FakePhone(screens, "app")
    phone.recents = "overview"
    run = await run_task(phone, Script(fast), planning=False)
    assert phone.current == "menu"
    assert not any("home screen" in text for text in run.fast_texts())
    assert not any("came up unasked" in e.message for e in run.of(LogLine))


async def test_going_home_on_purpose_is_not_healed() -> None:
    screens = {"app": Screen("com.example.app", [Widget("Title", "text")]),
               "home": Screen(LAUNCHER, [Widget("Example")])}

    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "home"}) if n == 1 else complete()

    phone = FakePhone(screens, "app")
    run = await run_task(phone, Script(fast), planning=False)
    assert not any(c.startswith("launch") for c in phone.commands)
    assert "home screen is in front" not in run.fast_texts()[1]


async def test_the_last_three_open_failures_are_in_the_prompt_and_leave_it_once_resolved() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap(f"e9{n}") if n <= 4 else tap("e2") if n == 5 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    fifth = run.fast_texts()[4]
    context = fifth[fifth.index("CONTEXT - Previous issues (still open):"):]
    # The last plan's own failure is in its step-by-step result, not repeated here.
    assert "tap e91" in context and "tap e92" in context and "tap e93" in context and "tap e94" not in context
    assert "1. tap e94 → FAILED: element e94 is not on the current screen" in \
        "\n".join(m.text for m in run.fast_requests()[4].messages)
    # Step 5 worked: the old failures no longer apply.
    assert "Previous issues" not in run.fast_texts()[5]


async def test_an_unknown_element_is_a_failed_step_with_a_clear_message() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return tap("e42") if n == 1 else complete()

    run = await run_task(FakePhone(counter_screens(), "s0"), Script(fast), planning=False)
    assert run.result is not None and run.result.outcome == "success"
    warning = "\n".join(m.text for m in run.fast_requests()[1].messages)
    assert "1. tap e42 → FAILED: element e42 is not on the current screen (interactive elements: e2)" in warning


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
    # Ids are never reused for another element (issue 25): "Danger" has an id of its own, "Next" is just gone.
    assert stale and not stale[0].ok and 'e2 "Next" is no longer on the screen' in stale[0].reason
    assert "e2" not in {e.id for e in run.of(ScreenCaptured)[-1].element_map.elements}
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
    run = await run_task(phone, Script(fast), "Turn on Wi-Fi", planning=False, allow_fallback=True)
    assert run.result is not None and run.result.outcome == "success"
    assert [p.source for p in run.of(PlanReceived)] == ["fallback", "fallback"]
    assert any("the rule-based fallback planner takes over" in e.message for e in run.of(LogLine))
    assert phone.screens["s"].widgets[0].checked
    assert len(run.fast_requests()) == 1   # no model is asked again once it is known that none answers


async def test_unless_allowed_a_failed_model_ends_the_run_naming_it_and_nothing_is_done() -> None:
    from relay_desktop.llm.errors import AllProvidersFailed, ConnectionFailed

    def fast(n: int, request: LLMRequest) -> object:
        return AllProvidersFailed("fast", [ConnectionFailed("no route to host", provider="anthropic", model="m")])

    screens = {"s": Screen("com.example.app", [Widget("Wi-Fi", "switch")])}
    phone = FakePhone(screens, "s")
    run = await run_task(phone, Script(fast), "Turn on Wi-Fi", planning=False)
    assert run.result is not None and run.result.outcome == "error"
    assert run.result.reason.startswith("the model anthropic/m could not be used: ")
    assert not phone.screens["s"].widgets[0].checked                 # the rules did not step in uninvited


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


async def test_a_scroll_that_moves_nothing_says_the_end_was_reached_not_try_another_way() -> None:
    def fast(n: int, request: LLMRequest) -> object:
        return act({"action": "scroll", "direction": "down", "element": "e1"}) if n == 1 else complete()

    screens = {"inbox": Screen("com.example.app", [Widget("Messages", "list"), Widget("Compose")])}
    run = await run_task(FakePhone(screens, "inbox"), Script(fast), planning=False)
    second = run.fast_texts()[1]
    assert "END REACHED: 'scroll e1 \"Messages\" down' moved nothing — the list is at its end that way" in second
    assert "INEFFECTIVE" not in second
