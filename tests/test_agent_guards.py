"""Loop guards: layout stagnation, unchanged maps, screen signatures, ineffective actions, A-B-A cycles and
same-element loops, fed with hand-made screens and transitions."""

from __future__ import annotations

from relay_desktop.agent.actions import Step
from relay_desktop.agent.guards import (
    SAME_ELEMENT_LIMIT,
    SIGNATURE_WINDOW,
    STAGNATION_REPEATS,
    STAGNATION_WINDOW,
    UNCHANGED_LIMIT,
    LoopGuards,
    Transition,
)
from relay_desktop.agent.observation import Observation
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


def tr(before: str, after: str, *steps: Step, targets: tuple[str, ...] = ()) -> Transition:
    return Transition(before, after, steps, targets)


# ------------------------------------------------------------ layout-hash stagnation


def test_the_fixture_screens_differ_only_where_intended() -> None:
    a, b = screen(_button("OK", 100)), screen(_button("Cancel", 100))
    assert a.layout_hash == b.layout_hash and a.fingerprint != b.fingerprint
    assert layout(1).layout_hash != layout(2).layout_hash


def test_a_layout_seen_three_times_in_the_last_ten_is_stagnant() -> None:
    guards = LoopGuards()
    a = layout(1)
    for obs in (a, layout(2), a, layout(3)):
        guards.observe(obs, map_unchanged=False)
        assert guards.stagnant() is None
    guards.observe(a, map_unchanged=False)
    assert guards.stagnant() == "Screen structure stagnant: same layout seen 3 times in last 5 iterations"
    assert STAGNATION_REPEATS == 3


def test_stagnation_counts_layouts_not_text() -> None:
    guards = LoopGuards()
    for label in ("1 second", "2 seconds", "3 seconds"):      # a ticking counter on one structure
        guards.observe(screen(_button(label, 100)), map_unchanged=False)
    assert guards.stagnant() is not None


def test_stagnation_looks_at_the_current_layout_only() -> None:
    guards = LoopGuards()
    a = layout(1)
    for obs in (a, a, a, layout(2)):
        guards.observe(obs, map_unchanged=False)
    assert guards.stagnant() is None


def test_stagnation_forgets_layouts_older_than_the_window() -> None:
    guards = LoopGuards()
    a = layout(1)
    guards.observe(a, map_unchanged=False)
    guards.observe(a, map_unchanged=False)
    for n in range(2, STAGNATION_WINDOW + 1):                  # nine other layouts push the two old ones out
        guards.observe(layout(n), map_unchanged=False)
    guards.observe(a, map_unchanged=False)
    assert guards.stagnant() is None
    guards.observe(a, map_unchanged=False)
    guards.observe(a, map_unchanged=False)
    assert guards.stagnant() is not None


def test_no_screen_no_stagnation() -> None:
    assert LoopGuards().stagnant() is None


# ------------------------------------------------------------ exact element-map diff


def test_stuck_after_four_unchanged_maps_in_a_row() -> None:
    guards = LoopGuards()
    a = layout(1)
    for _ in range(3):
        guards.observe(a, map_unchanged=True)
        assert not guards.stuck()
    guards.observe(a, map_unchanged=True)
    assert guards.stuck() and UNCHANGED_LIMIT == 4
    guards.reset_stuck()
    assert not guards.stuck()


def test_a_changed_map_or_a_step_that_never_acted_restarts_the_count() -> None:
    guards = LoopGuards()
    a = layout(1)
    for _ in range(UNCHANGED_LIMIT - 1):
        guards.observe(a, map_unchanged=True)
    guards.observe(a, map_unchanged=False)
    for _ in range(UNCHANGED_LIMIT - 1):
        guards.observe(a, map_unchanged=True)
    assert not guards.stuck()
    guards.observe(a, map_unchanged=True, acted=False)        # a step that failed before reaching the phone
    for _ in range(UNCHANGED_LIMIT - 1):
        guards.observe(a, map_unchanged=True)
    assert not guards.stuck()


# ------------------------------------------------------------ screen signature


def test_same_signature_over_the_window_is_stuck() -> None:
    guards = LoopGuards()
    a = screen(_button("Next", 100), _button("Other", 300))
    for _ in range(SIGNATURE_WINDOW - 1):
        guards.observe(a, map_unchanged=False)
        assert not guards.same_signature()
    guards.observe(a, map_unchanged=False)
    assert guards.same_signature()
    guards.reset_stuck()
    assert not guards.same_signature()


def test_toggling_between_two_states_counts_as_the_same_signature() -> None:
    guards = LoopGuards()
    on, off = screen(_switch("Wi-Fi", 100, True)), screen(_switch("Wi-Fi", 100, False))
    assert on.fingerprint != off.fingerprint and on.signature == off.signature
    for obs in (on, off, on, off):
        guards.observe(obs, map_unchanged=False)
    assert guards.same_signature()


def test_content_that_changes_every_step_is_not_stuck() -> None:
    guards = LoopGuards()
    pages = [screen(_button("Next", 100), _button(f"Page {n}", 300)) for n in range(SIGNATURE_WINDOW)]
    assert len({p.signature for p in pages}) == 1
    for page in pages:
        guards.observe(page, map_unchanged=False)
    assert not guards.same_signature()


def test_a_different_signature_in_the_window_is_not_stuck() -> None:
    guards = LoopGuards()
    a, b = screen(_button("Next", 100)), screen(_button("Next", 100), _button("More", 300))
    for obs in (a, a, b, a):
        guards.observe(obs, map_unchanged=False)
    assert not guards.same_signature()


def test_screens_seen_without_acting_do_not_fill_the_signature_window() -> None:
    guards = LoopGuards()
    a = screen(_button("Next", 100))
    for _ in range(SIGNATURE_WINDOW - 1):
        guards.observe(a, map_unchanged=False)
    guards.observe(a, map_unchanged=False, acted=False)
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


def test_waiting_or_finishing_is_never_ineffective() -> None:
    guards = LoopGuards()
    for step in (Step.of("wait", seconds=1), Step.of("ask_user", question="?"), Step.of("complete", summary="ok")):
        guards.record(tr("A", "A", step))
        assert guards.ineffective() is None
    guards.record(tr("A", "A", Step.of("wait", seconds=1), BACK))
    assert guards.ineffective() is not None


# ------------------------------------------------------------ A-B-A cycle


def test_a_b_a_blocks_the_action_that_led_back_at_b() -> None:
    guards = LoopGuards()
    assert guards.record(tr("A", "B", TAP_NEXT)) is None
    note = guards.record(tr("B", "A", TAP_BACK))
    assert note is not None and "'tap e1' went forward" in note and "'tap e2' came straight back" in note
    assert guards.blocked_reason("B", TAP_BACK) == ("'tap e2' is blocked here: it led back to the previous screen "
                                                    "before (A-B-A cycle). Choose a different action.")
    assert guards.blocked_reason("B", Step.of("tap", element="E2")) is not None      # same step, other spelling
    assert guards.blocked_reason("B", BACK) is None
    assert guards.blocked_reason("B", TAP_NEXT) is None
    assert guards.blocked_reason("A", TAP_BACK) is None


def test_the_same_action_toggling_back_and_forth_is_not_blocked() -> None:
    guards = LoopGuards()
    guards.record(tr("A", "B", TAP_NEXT))
    assert guards.record(tr("B", "A", TAP_NEXT)) is None
    assert guards.blocked_reason("B", TAP_NEXT) is None and guards.blocked == {}


def test_only_a_return_to_the_first_screen_is_a_cycle() -> None:
    guards = LoopGuards()
    guards.record(tr("A", "B", TAP_NEXT))
    assert guards.record(tr("B", "C", TAP_BACK)) is None                  # onward, not back
    assert guards.record(tr("A", "A", TAP_NEXT)) is None
    assert guards.record(tr("A", "A", TAP_BACK)) is None                  # nothing moved: no cycle
    guards.record(tr("A", "B", TAP_NEXT))
    guards.record(tr("C", "A", TAP_BACK))                                 # not from where the last step ended
    assert guards.blocked == {}


def test_the_last_step_of_a_multi_step_return_is_blocked() -> None:
    guards = LoopGuards()
    guards.record(tr("A", "B", TAP_NEXT))
    assert guards.record(tr("B", "A", Step.of("scroll", direction="down"), BACK)) is not None
    assert guards.blocked_reason("B", BACK) is not None
    assert guards.blocked_reason("B", Step.of("scroll", direction="down")) is None


# ------------------------------------------------------------ same-element loop


def test_acting_on_one_element_three_times_is_a_loop_with_suggestions() -> None:
    guards = LoopGuards()
    for _ in range(SAME_ELEMENT_LIMIT - 1):
        guards.record(tr("A", "A", TAP_NEXT, targets=("Save",)))
        assert guards.same_element_loop() is None
    guards.record(tr("A", "A", TAP_NEXT, targets=("Save",)))
    message = guards.same_element_loop()
    assert message is not None
    assert message.startswith('ACTION LOOP: you acted on "Save" 3 times in the last 3 steps and it had no visible '
                              "effect.")
    for hint in ("disabled or covered by the keyboard or a dialog", "scrolling", "already done",
                 "Try a different element"):
        assert hint in message


def test_same_element_loop_says_how_often_it_changed_the_screen() -> None:
    guards = LoopGuards()
    guards.record(tr("A", "B", TAP_NEXT, targets=("Next",)))
    guards.record(tr("B", "B", TAP_NEXT, targets=("Next",)))
    guards.record(tr("B", "B", BACK, targets=("",)))
    guards.record(tr("B", "B", TAP_NEXT, targets=("Next",)))
    message = guards.same_element_loop()
    assert message is not None and '"Next" 3 times in the last 4 steps' in message
    assert "it changed the screen only 1 of 3 times" in message


def test_different_elements_or_old_actions_are_no_loop() -> None:
    guards = LoopGuards()
    for label in ("One", "Two", "One", "Two", ""):
        guards.record(tr("A", "A", TAP_NEXT, targets=(label,)))
    assert guards.same_element_loop() is None
    guards = LoopGuards()
    for _ in range(SAME_ELEMENT_LIMIT + 1):                          # steps that touch no element
        guards.record(tr("A", "A", BACK, targets=("",)))
    assert guards.same_element_loop() is None
    guards = LoopGuards()
    for _ in range(SAME_ELEMENT_LIMIT):
        guards.record(tr("A", "A", TAP_NEXT, targets=("Save",)))
    for label in ("a", "b", "c", "d"):                                  # six-step window: two Saves remain
        guards.record(tr("A", "B", TAP_BACK, targets=(label,)))
    assert guards.same_element_loop() is None
