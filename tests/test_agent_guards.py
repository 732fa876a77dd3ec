"""Loop guards: layout stagnation, unchanged maps, screen signatures, ineffective actions, A-B-A cycles and
same-element loops, fed with hand-made screens and transitions."""

from __future__ import annotations

from relay_desktop.agent.loop.guards import (
    SAME_ELEMENT_LIMIT,
    SIGNATURE_WINDOW,
    STAGNATION_REPEATS,
    STAGNATION_WINDOW,
    UNCHANGED_LIMIT,
    LoopGuards,
    Transition,
)
from relay_desktop.agent.loop.observation import Observation
from relay_desktop.agent.steps.actions import Step
from relay_desktop.device.models import DeviceContext
from relay_desktop.perception import build_element_map

CONTEXT = DeviceContext(serial="test", model="Pixel", manufacturer="Google", android_release="14", sdk=34,
                        locale="en-US", timezone="UTC", screen_width=1080, screen_height=2400, density=420,
                        keyboard_shown=False, current_app=None)

TAP_NEXT = Step.of("tap", element="e1")
TAP_BACK = Step.of("tap", element="e2")
BACK = Step.of("back")


def _button(label: str, top: int, **attrs: str) -> str:
    extra = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return (f'<node class="android.widget.Button" package="com.example.app" text="{label}" clickable="true" '
            f'bounds="[0,{top}][1080,{top + 150}]" {extra} />')


def _switch(label: str, top: int, on: bool) -> str:
    return (f'<node class="android.widget.Switch" package="com.example.app" text="{label}" clickable="true" '
            f'checkable="true" checked="{str(on).lower()}" bounds="[0,{top}][1080,{top + 150}]" />')


def screen(*nodes: str) -> Observation:
    xml = ('<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="com.example.app" '
           'bounds="[0,0][1080,2400]">' + "".join(nodes) + "</node></hierarchy>")
    return Observation.of(build_element_map(xml), None, CONTEXT, 0.0, 0.0)


def layout(n: int) -> Observation:
    """Distinct layouts: n buttons stacked from the top."""
    return screen(*(_button(f"Item {i}", 100 + 200 * i) for i in range(n)))


def tr(before: str, after: str, *steps: Step, targets: tuple[str, ...] = (),
       effective: bool | None = None) -> Transition:
    return Transition(before, after, steps, targets, before != after if effective is None else effective)


# ------------------------------------------------------------ stagnation: the same screen, nothing new between


def test_the_fixture_screens_differ_only_where_intended() -> None:
    a, b = screen(_button("OK", 100)), screen(_button("Cancel", 100))
    assert a.layout_hash == b.layout_hash and a.fingerprint != b.fingerprint
    assert layout(1).layout_hash != layout(2).layout_hash


def test_the_same_screen_three_times_with_nothing_new_between_is_stagnant() -> None:
    guards = LoopGuards()
    a, b = layout(1), layout(2)
    for obs in (a, b, a, b):
        guards.observe(obs, nothing_changed=False)
        assert guards.stagnant() is None
    guards.observe(a, nothing_changed=False)
    assert guards.stagnant() == "Screen stagnant: this exact screen was seen 3 times in the last 5 steps"
    assert STAGNATION_REPEATS == 3


def test_edits_on_one_page_are_not_stagnation() -> None:
    # Three different controls changed on one settings page: the layout stays, the content does not.
    guards = LoopGuards()
    for states in ((False, False, False), (True, False, False), (True, True, False), (True, True, True)):
        guards.observe(screen(*(_switch(f"Option {i}", 100 + 200 * i, on) for i, on in enumerate(states))),
                       nothing_changed=False)
        assert guards.stagnant() is None


def test_coming_back_to_a_hub_page_between_new_screens_is_not_stagnation() -> None:
    # Settings → Display → Settings → Network → Settings: three goals, one hub.
    guards = LoopGuards()
    hub = layout(1)
    for obs in (hub, layout(2), hub, layout(3), hub, layout(4), hub):
        guards.observe(obs, nothing_changed=False)
        assert guards.stagnant() is None


def test_stagnation_forgets_screens_older_than_the_window() -> None:
    guards = LoopGuards()
    a, b = layout(1), layout(2)
    guards.observe(a, nothing_changed=False)
    guards.observe(b, nothing_changed=False)
    guards.observe(a, nothing_changed=False)
    for _ in range(STAGNATION_WINDOW):                        # the window fills with b: a's visits fall out
        guards.observe(b, nothing_changed=False)
    guards.observe(a, nothing_changed=False)
    assert guards.stagnant() is None


def test_no_screen_no_stagnation() -> None:
    assert LoopGuards().stagnant() is None


# ------------------------------------------------------------ nothing changed at all


def test_stuck_after_four_unchanged_screens_in_a_row() -> None:
    guards = LoopGuards()
    a = layout(1)
    for _ in range(3):
        guards.observe(a, nothing_changed=True)
        assert not guards.stuck()
    guards.observe(a, nothing_changed=True)
    assert guards.stuck() and UNCHANGED_LIMIT == 4
    guards.reset_stuck()
    assert not guards.stuck()


def test_a_change_or_a_step_that_never_acted_restarts_the_count() -> None:
    guards = LoopGuards()
    a = layout(1)
    for _ in range(UNCHANGED_LIMIT - 1):
        guards.observe(a, nothing_changed=True)
    guards.observe(a, nothing_changed=False)
    for _ in range(UNCHANGED_LIMIT - 1):
        guards.observe(a, nothing_changed=True)
    assert not guards.stuck()
    guards.observe(a, nothing_changed=True, acted=False)        # a step that failed before reaching the phone
    for _ in range(UNCHANGED_LIMIT - 1):
        guards.observe(a, nothing_changed=True)
    assert not guards.stuck()


def test_observe_says_whether_the_screen_is_new_to_the_run() -> None:
    guards = LoopGuards()
    a, b = layout(1), layout(2)
    assert guards.observe(a, nothing_changed=False)
    assert guards.observe(b, nothing_changed=False)
    assert not guards.observe(a, nothing_changed=False)


# ------------------------------------------------------------ screen signature


def test_same_signature_over_the_window_is_stuck() -> None:
    guards = LoopGuards()
    a = screen(_button("Next", 100), _button("Other", 300))
    # (The same element list and a picture that did not move either: a picture that moved is a drawn change.)
    for _ in range(SIGNATURE_WINDOW - 1):
        guards.observe(a, nothing_changed=True)
        assert not guards.same_signature()
    guards.observe(a, nothing_changed=True)
    assert guards.same_signature()
    guards.reset_stuck()
    assert not guards.same_signature()


def test_toggling_between_two_states_counts_as_the_same_signature() -> None:
    guards = LoopGuards()
    on, off = screen(_switch("Wi-Fi", 100, True)), screen(_switch("Wi-Fi", 100, False))
    assert on.fingerprint != off.fingerprint and on.signature == off.signature
    for obs in (on, off, on, off):
        guards.observe(obs, nothing_changed=False)
    assert guards.same_signature()


def _field(text: str) -> str:
    return (f'<node class="android.widget.EditText" package="com.example.app" text="{text}" clickable="true" '
            f'focusable="true" bounds="[0,300][1080,700]" />')


def test_a_field_whose_value_changed_is_a_change_for_every_guard() -> None:
    """Issue 25: 'False STUCK right after a field's text changed from ...flat 3B... to ...flat 5A...'. The
    screen's package, element count and first control stay, but a changed value is a change."""
    before = screen(_button("Save", 100), _field("12 Park Road, flat 3B, ring twice"))
    after = screen(_button("Save", 100), _field("12 Park Road, flat 5A, ring twice"))
    assert before.signature == after.signature and before.fingerprint != after.fingerprint
    for looks in ((before, before, after, after), (before, before, before, after)):
        guards = LoopGuards()
        for n, obs in enumerate(looks):
            guards.observe(obs, nothing_changed=n > 0 and obs is looks[n - 1])
        assert not guards.same_signature(), looks
        assert not guards.stuck() and guards.stagnant() is None
    guards.record(tr(before.fingerprint, after.fingerprint, Step.of("type", element="e2", text="flat 5A"),
                     targets=("field",)))
    assert guards.ineffective() is None and guards.same_element_loop() is None


def test_content_that_changes_every_step_is_not_stuck() -> None:
    guards = LoopGuards()
    pages = [screen(_button("Next", 100), _button(f"Page {n}", 300)) for n in range(SIGNATURE_WINDOW)]
    assert len({p.signature for p in pages}) == 1
    for page in pages:
        guards.observe(page, nothing_changed=False)
    assert not guards.same_signature()


def test_a_different_signature_in_the_window_is_not_stuck() -> None:
    guards = LoopGuards()
    a, b = screen(_button("Next", 100)), screen(_button("Next", 100), _button("More", 300))
    for obs in (a, a, b, a):
        guards.observe(obs, nothing_changed=False)
    assert not guards.same_signature()


def test_screens_seen_without_acting_do_not_fill_the_signature_window() -> None:
    guards = LoopGuards()
    a = screen(_button("Next", 100))
    for _ in range(SIGNATURE_WINDOW - 1):
        guards.observe(a, nothing_changed=False)
    guards.observe(a, nothing_changed=False, acted=False)
    assert not guards.same_signature()


# ------------------------------------------------------------ ineffective action


def test_a_step_that_changed_nothing_is_ineffective() -> None:
    guards = LoopGuards()
    assert guards.ineffective() is None
    guards.record(tr("A", "B", TAP_NEXT))
    assert guards.ineffective() is None
    same = tr("B", "B", TAP_NEXT)
    guards.record(same)
    assert guards.ineffective() is same


def test_a_step_whose_picture_changed_is_not_ineffective() -> None:
    # A toast ("Calling Grace Liu…") is in no UI dump: the element list stays, the picture does not.
    guards = LoopGuards()
    guards.record(tr("B", "B", TAP_NEXT, effective=True))
    assert guards.ineffective() is None


def test_waiting_or_finishing_is_never_ineffective() -> None:
    guards = LoopGuards()
    for step in (Step.of("wait", seconds=1), Step.of("ask_user", question="?"), Step.of("complete", summary="ok")):
        guards.record(tr("A", "A", step))
        assert guards.ineffective() is None
    guards.record(tr("A", "A", Step.of("wait", seconds=1), BACK))
    assert guards.ineffective() is not None


# ------------------------------------------------------------ A-B-A cycle


def test_one_round_trip_is_not_a_cycle_the_same_one_again_is() -> None:
    # Looking something up in another app and coming back is how cross-app tasks are done.
    guards = LoopGuards()
    assert guards.record(tr("A", "B", TAP_NEXT)) is None
    assert guards.record(tr("B", "A", TAP_BACK)) is None
    assert guards.blocked == {}
    assert guards.record(tr("A", "B", TAP_NEXT)) is None
    note = guards.record(tr("B", "A", TAP_BACK))
    assert note is not None and "'tap e1'" in note and "'tap e2' twice" in note
    assert guards.blocked_reason("B", TAP_BACK) == ("'tap e2' is blocked here: it led back to the previous screen "
                                                    "twice with nothing changed (A-B-A cycle). Choose a different "
                                                    "action.")
    assert guards.blocked_reason("B", Step.of("tap", element="E2")) is not None      # same step, other spelling
    assert guards.blocked_reason("B", BACK) is None
    assert guards.blocked_reason("B", TAP_NEXT) is None
    assert guards.blocked_reason("A", TAP_BACK) is None


def test_a_round_trip_that_changed_something_is_not_a_cycle() -> None:
    # A → B (changed a setting there, so B became B2) → A again: state changed, not a loop.
    guards = LoopGuards()
    for _ in range(2):
        guards.record(tr("A", "B", TAP_NEXT))
        guards.record(tr("B", "B2", Step.of("tap", element="e7")))
        assert guards.record(tr("B2", "A", TAP_BACK)) is None
    assert guards.blocked == {}


def test_the_same_action_toggling_back_and_forth_is_not_blocked() -> None:
    guards = LoopGuards()
    for _ in range(3):
        guards.record(tr("A", "B", TAP_NEXT))
        assert guards.record(tr("B", "A", TAP_NEXT)) is None
    assert guards.blocked_reason("B", TAP_NEXT) is None and guards.blocked == {}


def test_only_a_return_to_the_first_screen_is_a_cycle() -> None:
    guards = LoopGuards()
    for _ in range(2):
        guards.record(tr("A", "B", TAP_NEXT))
        assert guards.record(tr("B", "C", TAP_BACK)) is None              # onward, not back
        assert guards.record(tr("A", "A", TAP_NEXT)) is None
        assert guards.record(tr("A", "A", TAP_BACK)) is None              # nothing moved: no cycle
        guards.record(tr("A", "B", TAP_NEXT))
        guards.record(tr("C", "A", TAP_BACK))                             # not from where the last step ended
    assert guards.blocked == {}


def test_the_last_step_of_a_multi_step_return_is_blocked() -> None:
    guards = LoopGuards()
    for _ in range(2):
        guards.record(tr("A", "B", TAP_NEXT))
        note = guards.record(tr("B", "A", Step.of("scroll", direction="down"), BACK))
    assert note is not None
    assert guards.blocked_reason("B", BACK) is not None
    assert guards.blocked_reason("B", Step.of("scroll", direction="down")) is None


# ------------------------------------------------------------ same-element loop


def test_acting_on_one_element_three_times_without_effect_is_a_loop_with_suggestions() -> None:
    guards = LoopGuards()
    for _ in range(SAME_ELEMENT_LIMIT - 1):
        guards.record(tr("A", "A", TAP_NEXT, targets=('e1 "Save"',)))
        assert guards.same_element_loop() is None
    guards.record(tr("A", "A", TAP_NEXT, targets=('e1 "Save"',)))
    message = guards.same_element_loop()
    assert message is not None
    assert message.startswith('ACTION LOOP: you acted on e1 "Save" 3 times in the last 3 steps with no visible '
                              "effect.")
    for hint in ("disabled or covered by the keyboard or a dialog", "scrolling", "already done",
                 "Try a different element"):
        assert hint in message


def test_scrolling_that_shows_new_items_every_time_is_no_loop() -> None:
    guards = LoopGuards()
    for page in range(6):
        guards.record(tr(f"P{page}", f"P{page + 1}", Step.of("scroll", direction="down", element="e3"),
                         targets=('e3 "product list"',)))
        assert guards.same_element_loop() is None


def test_three_taps_of_one_keypad_key_that_each_do_something_are_no_loop() -> None:
    guards = LoopGuards()
    for digits in ("1", "10", "100", "1000"):
        guards.record(tr(digits[:-1] or "-", digits, Step.of("tap", element="e9"), targets=('e9 "0"',)))
        assert guards.same_element_loop() is None


def test_the_loop_note_goes_away_as_soon_as_an_action_works() -> None:
    guards = LoopGuards()
    for _ in range(SAME_ELEMENT_LIMIT):
        guards.record(tr("A", "A", TAP_NEXT, targets=('e1 "Save"',)))
    assert guards.same_element_loop() is not None
    guards.record(tr("A", "Cart", TAP_BACK, targets=('e2 "Cart"',)))
    assert guards.same_element_loop() is None


def test_different_elements_or_steps_without_elements_are_no_loop() -> None:
    guards = LoopGuards()
    for label in ("One", "Two", "One", "Two", ""):
        guards.record(tr("A", "A", TAP_NEXT, targets=(label,)))
    assert guards.same_element_loop() is None
    guards = LoopGuards()
    for _ in range(SAME_ELEMENT_LIMIT + 1):                          # steps that touch no element
        guards.record(tr("A", "A", BACK, targets=("",)))
    assert guards.same_element_loop() is None


def test_a_picture_that_moves_on_under_the_same_element_list_is_neither_stagnant_nor_stuck() -> None:
    # A game board or a drawn page: the dump never changes, the picture does with every move.
    guards = LoopGuards()
    board = screen(_button("New game", 100))
    guards.observe(board, nothing_changed=False)
    for _ in range(SIGNATURE_WINDOW + 2):
        guards.observe(board, nothing_changed=False)
        assert guards.stagnant() is None and not guards.same_signature() and not guards.stuck()
    # The same screen with the picture still too: that is standing still.
    for _ in range(SIGNATURE_WINDOW):
        guards.observe(board, nothing_changed=True)
    assert guards.stagnant() is not None and guards.same_signature()
