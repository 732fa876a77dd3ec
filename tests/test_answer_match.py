"""How a question task's answer is compared: by meaning, not spelling (sim/tasks/answer_match.py)."""

from __future__ import annotations

import pytest

from relay_desktop.sim.tasks.answer_match import answers_match


@pytest.mark.parametrize(("expected", "given"), [
    ("7:30", "07:30"), ("7:30", "7:30 AM"), ("7:30", "It opens at 7:30."), ("19:30", "7:30 pm"), ("8:00", "8 am"),
    ("8:00", "8 a.m."), ("3", "three"), ("3", "3 unread"), ("3", " 3 "), ("12", "$12.00"), ("129.99", "$129.99"),
    ("1299", "1,299"), ("yes", "Yes, it's on."), ("yes", "YES"), ("no", "No — it is switched off"), ("no", "nope"),
    ("482913", "Code: 482913"), ("555-0187", "(555) 0187"), ("bluebird2024", "Bluebird2024"),
    ("Maple-Guest", "maple guest"), ("0412", "0412"),
])
def test_the_same_answer_written_another_way_matches(expected: str, given: str) -> None:
    assert answers_match(expected, given)


@pytest.mark.parametrize(("expected", "given"), [
    ("7:30", "7:30 pm"), ("7:30", "8:30"), ("3", "4"), ("3", "3 or 4"), ("12", "$12.50"), ("yes", "no"),
    ("no", "yes"), ("0412", "412"), ("8:00", "8 am to 1 pm, then 9"), ("482913", "482 913 1"), ("no", ""),
    ("129.99", "159.99"),
])
def test_a_different_answer_does_not(expected: str, given: str) -> None:
    assert not answers_match(expected, given)
