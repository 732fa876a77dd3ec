"""Overlays belong to the screen they were computed for: a screen change takes the boxes down (Inspect reads the
new screen once it is still), and the cursor fades after its animation. Qt offscreen, the virtual phone."""

from __future__ import annotations

import asyncio

import qasync

from relay_desktop.ui.main_window import MainWindow
from relay_desktop.ui.overlays import CURSOR_FADE_S, CURSOR_HOLD_S, CursorModel


def test_the_cursor_fades_after_landing_and_the_next_move_starts_where_it_was() -> None:
    cursor = CursorModel()
    cursor.move_to(100, 200)
    steps = 0
    while cursor.advance(0.05):
        steps += 1
        assert steps < 200, "the animation never ends"
    assert not cursor.visible and cursor.opacity == 0.0
    assert steps * 0.05 >= CURSOR_HOLD_S + CURSOR_FADE_S       # held long enough to be seen, then gone
    cursor.move_to(300, 400)
    assert cursor.visible and cursor.start == (100, 200)
    cursor.hide()
    assert not cursor.visible


def test_a_taps_cursor_is_at_its_target_when_the_action_starts_not_after_the_tap() -> None:
    """The orchestrator emits ActionStarted and runs the tap straight after: a cursor that then travelled for
    0.35 s (longer on a busy loop) rippled after the switch had flipped. It lands, and ripples, at once."""
    cursor = CursorModel()
    cursor.move_to(100, 200)
    cursor.move_to(300, 400)                                       # the next tap, nothing advanced yet
    assert cursor.position == (300, 400) and cursor.ripple == 0.0 and cursor.visible
    assert cursor.advance(0.05) and cursor.position == (300, 400)
    # A swipe is drawn along its way as it happens: its trail still starts where the finger goes down.
    cursor.move_to(500, 600, swipe_from=(500, 900))
    assert cursor.position == (500, 900) and cursor.trail == [(500, 900)]


def test_boxes_go_when_the_screen_changes_and_inspect_reads_the_new_screen(
        window: MainWindow, qt_loop: qasync.QEventLoop) -> None:
    view = window.mirror_view

    def labels() -> set[str]:
        return {box.label for box in view.boxes.boxes}

    async def scenario() -> None:
        try:
            await window.session.start_virtual_phone()
            phone = window.session.service.phone
            phone.launch("com.android.settings")
            await asyncio.sleep(0.3)
            window.tabs.setCurrentIndex(1)
            await window.refresh_elements()
            assert any(label.startswith("Network & internet") for label in labels())
            phone.launch("com.google.android.deskclock")
            for _ in range(200):                                   # taken down with the first changed frame
                if not any(label.startswith("Network & internet") for label in labels()):
                    break
                await asyncio.sleep(0.02)
            assert not any(label.startswith("Network & internet") for label in labels()), \
                "Settings' boxes stayed over the Clock"
            for _ in range(200):                                   # ... and Inspect reads the Clock once still
                if "Add alarm" in labels():
                    break
                await asyncio.sleep(0.02)
            assert "Add alarm" in labels()
            window.tabs.setCurrentIndex(0)                         # leaving Inspect takes its boxes along
            assert not labels()
        finally:
            await window.shutdown()

    qt_loop.run_until_complete(asyncio.wait_for(scenario(), 60))
