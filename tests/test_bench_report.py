"""The bench's report: a failed task's reason is wrapped under its row, never cut mid-sentence; a replayed
question is judged by its answer too."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from relay_desktop.cli.bench_replay import replay_fields
from relay_desktop.cli.bench_report import WIDTH, BenchRow, TaskTally, format_row
from relay_desktop.sim.tasks import TASKS_BY_ID
from relay_desktop.sim.tasks.base import passed


def row(detail: str) -> BenchRow:
    return BenchRow("contacts_add_alice", "", False, "success", 9, 12.5, 10, {"act": 9}, 8, 1, 1500, 0, 20_000, 0.01,
                    True, "r1", detail)


def _why(text: str) -> str:
    """The reason as the table prints it, its lines joined again."""
    lines = format_row(row(text)).splitlines()[1:]
    assert all(len(line) <= WIDTH for line in lines), lines
    assert lines[0].startswith("  ↳ ") and all(line.startswith("    ") for line in lines[1:])
    return " ".join(line[4:] for line in lines)


def test_a_long_reason_is_wrapped_whole() -> None:
    detail = ("no contact named Alice Smith; agent: I opened Contacts and tapped Create contact, typed Alice into "
              "the first name field and Smith into the last name field, then saved the contact and went back.")
    assert _why(detail) == detail


def test_a_very_long_reason_ends_at_a_clause_with_an_ellipsis() -> None:
    clause = "the agent tapped the Save button but the screen did not change"
    detail = "; ".join(f"{clause} ({n})" for n in range(12))
    shown = _why(detail)
    assert shown.endswith("…") and len(shown) < len(detail)
    kept = shown[:-1].rstrip()
    assert detail.startswith(kept) and detail[len(kept):].startswith(";"), kept[-40:]


def test_a_reason_without_a_clause_end_is_cut_between_words() -> None:
    detail = " ".join(["word"] * 200)
    shown = _why(detail)
    assert shown.endswith(" …") or shown.endswith("word…")
    assert "wor…" not in shown and detail.startswith(shown[:-1].rstrip())


def test_a_replayed_question_is_solved_only_with_the_right_answer() -> None:
    task = TASKS_BY_ID["question_bluetooth_on"]

    def ran(answer: str) -> Any:
        result = SimpleNamespace(outcome="success", answer=answer)
        return SimpleNamespace(agent=SimpleNamespace(routine=None, replay=None), result=result, check=passed("same"),
                               tally=TaskTally(), seconds=1.0)

    assert replay_fields(ran("no"), task)["solved"]
    assert not replay_fields(ran(""), task)["solved"]
    assert replay_fields(ran(""), TASKS_BY_ID["wifi_on"])["solved"]
