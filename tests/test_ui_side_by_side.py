"""Side by side stays on the screen: the tiles share the screen's width (the mirrors shrink), where they widened
the window off its edge."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from relay_desktop.ui.main_window import MainWindow


def test_side_by_side_keeps_the_window_within_the_screen(window: MainWindow, qtbot: QtBot) -> None:
    room = window.screen().availableGeometry()
    window.resize(min(1200, room.width()), min(860, room.height()))
    for _ in range(2):
        window.add_pane()                          # three phones
    qtbot.wait(50)
    before = window.frameGeometry().width()
    window.side_by_side.setChecked(True)
    qtbot.wait(100)
    frame = window.frameGeometry()
    assert frame.width() <= before and window.minimumSizeHint().width() <= room.width(), \
        (before, frame, window.minimumSizeHint(), room)
    assert all(pane.isVisible() and pane.width() > 0 for pane in window.panes)
    assert all(pane.mirror_view.width() > 50 for pane in window.panes)      # a mirror each, smaller


def test_the_window_opens_within_the_screen(qtbot: QtBot, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RELAY_DESKTOP_HOME", str(tmp_path))
    main = MainWindow()
    qtbot.addWidget(main)
    room = main.screen().availableGeometry()
    assert main.width() <= room.width() and main.height() <= room.height(), (main.size(), room)
