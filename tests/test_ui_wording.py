"""The words the window and the agent show: no doubled word ("going on on"), no doubled full stop ("a few
sentences.."). A scan of every string literal in relay_desktop/ui and relay_desktop/agent (docstrings aside),
and the composed sentence that had one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QCheckBox, QStyle, QStyleOptionButton

from relay_desktop.agent.settings import MAX_TASK_CHARS
from relay_desktop.ui.main_window import MainWindow

ROOT = Path(__file__).parents[1] / "relay_desktop"
DOUBLED = re.compile(r"\b([A-Za-z]{2,})\s+\1\b", re.IGNORECASE)
# Doubled on purpose: none yet. (A word said twice for emphasis would go here, with why.)
ALLOWED: set[str] = set()


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _texts(path: Path) -> list[tuple[int, str]]:
    """Each string literal, an f-string's literal parts joined around a placeholder ("{}")."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    found: list[tuple[int, str]] = []
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inside.add(id(value))
                parts.append(value.value if isinstance(value, ast.Constant) else "{}")
            found.append((node.lineno, "".join(str(p) for p in parts)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip | inside:
            found.append((node.lineno, node.value))
    return found


def test_no_user_visible_string_doubles_a_word() -> None:
    doubled = []
    for folder in ("ui", "agent"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, text in _texts(path):
                for match in DOUBLED.finditer(text):
                    if match.group(1).lower() not in ALLOWED:
                        doubled.append(f"{path.relative_to(ROOT)}:{line}: {match.group(0)!r} in {text!r}")
    assert not doubled, "\n".join(doubled)


def test_the_scan_finds_a_doubled_word(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def f(x):\n    """The the docstring is not shown."""\n    return f"A run is going on on {x}."\n')
    texts = _texts(sample)
    assert [t for _, t in texts if DOUBLED.search(t)] == ["A run is going on on {}."]


def test_a_task_too_long_is_refused_in_a_sentence_with_one_full_stop(window: MainWindow) -> None:
    window.pane.start("x" * (MAX_TASK_CHARS + 1))
    said = window.log_view.lines()[-1]
    assert said.startswith("· Cannot start: the task is") and said.endswith("sentences."), said
    assert ".." not in said


def test_a_long_status_message_is_elided_before_the_right_hand_status_with_the_whole_in_its_tooltip(
        window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.resize(900, 700)
    window.status_device.setText("Virtual phone (127.0.0.1:15555) · 2 phones")
    window.status_fps.setText("60 fps")
    qtbot.wait(50)
    long = "The phone said something long: " + " ".join(f"word{n}" for n in range(80))
    window.status(long)
    shown = window.statusBar().currentMessage()
    assert shown != long and shown.endswith("…") and shown.startswith("The phone said")
    bar = window.statusBar()
    used = bar.fontMetrics().horizontalAdvance(shown)
    right = min(w.geometry().left() for w in (window.status_device, window.status_fps) if w.isVisible())
    assert used < right, (used, right)                      # ends before the right-hand status begins
    assert bar.toolTip() == long
    window.status("Short news")
    assert bar.currentMessage() == "Short news" and bar.toolTip() == "Short news"


def _indicator_contrast(box: QCheckBox) -> int:
    """How far the unchecked box's drawn outline stands from what is around it (the largest difference in
    lightness between any pixel of the indicator and the window's colour)."""
    image = box.grab().toImage()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    around = box.palette().color(QPalette.ColorRole.Window).lightness()
    return max(abs(QColor(image.pixel(x, y)).lightness() - around)
               for x in range(rect.left(), rect.right() + 1) for y in range(rect.top(), rect.bottom() + 1))


def test_the_dark_themes_unchecked_box_has_a_visible_outline(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    assert window.theme is not None
    try:
        window.theme.apply("dark")
        box = QCheckBox("Show element boxes")
        qtbot.addWidget(box)
        box.show()
        qtbot.waitExposed(box)
        assert _indicator_contrast(box) >= 80            # it was 12: a box a few shades off the window
        window.theme.apply("light")
        qtbot.wait(50)                                   # the new palette reaches the box
        assert _indicator_contrast(box) >= 40            # light stays as Fusion draws it (51)
    finally:
        window.theme.apply("system")
