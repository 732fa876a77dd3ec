"""The agent's ``type`` action changes part of a field (replace="old words") and clears a field wherever the
tap put the cursor, on the virtual phone through Google's adb: what it does on any phone (the field's new value is
typed over a field emptied by key presses), not by anything only the virtual phone has."""

from __future__ import annotations

import pytest

from relay_desktop.agent.steps.actions import ACTIONS, Step, StepError
from relay_desktop.perception import Element
from relay_desktop.sim.apps.keep import EDITOR, PACKAGE, KeepNotes
from tests.test_agent_executor import Rig, rig  # noqa: F401  (the executor on the virtual phone)

BODY = "Call the plumber\nflat 3B, second floor\nbring the keys\nflat 3B is on the left"
NOTE = "Call the plumber\nflat 3B, second floor\nbring the keys"


def open_note(rig: Rig, body: str) -> int:  # noqa: F811
    keep: KeepNotes = rig.phone.apps[PACKAGE]  # type: ignore[assignment]
    note = keep.add("Plumber", body)
    rig.phone.launch(PACKAGE)
    keep.open(EDITOR, note_id=note.id)
    return note.id


def body_of(rig: Rig, note_id: int) -> str:  # noqa: F811
    keep: KeepNotes = rig.phone.apps[PACKAGE]  # type: ignore[assignment]
    note = keep.get(note_id)
    assert note is not None
    return note.body


async def body_field(rig: Rig, body: str) -> tuple[Element, object]:  # noqa: F811
    observation = await rig.observe()
    fields = [e for e in observation.element_map.elements if e.role == "field" and e.value == body]
    assert len(fields) == 1, [e.value for e in observation.element_map.elements if e.role == "field"]
    return fields[0], observation


def test_the_type_action_says_where_text_goes_and_how_to_replace_part_of_a_field() -> None:
    spec = ACTIONS["type"]
    assert "replace" in spec.params
    words = spec.description.lower()
    assert "cursor" in words and "replace" in words and "taps" in words


async def test_replace_changes_only_the_old_words_and_keeps_the_other_lines(rig: Rig) -> None:  # noqa: F811
    note_id = open_note(rig, NOTE)
    body, observation = await body_field(rig, NOTE)
    done = await rig.run(Step.of("type", element=body.id, text="flat 5A", replace="flat 3B"), observation)  # type: ignore[arg-type]
    assert body_of(rig, note_id) == "Call the plumber\nflat 5A, second floor\nbring the keys"
    assert 'replaced "flat 3B" by "flat 5A"' in done


async def test_replace_refuses_words_not_in_the_field_or_there_twice(rig: Rig) -> None:  # noqa: F811
    note_id = open_note(rig, BODY)
    body, observation = await body_field(rig, BODY)
    with pytest.raises(StepError, match="not in the field"):
        await rig.run(Step.of("type", element=body.id, text="x", replace="flat 9Z"), observation)  # type: ignore[arg-type]
    with pytest.raises(StepError, match="2 times"):
        await rig.run(Step.of("type", element=body.id, text="flat 5A", replace="flat 3B"), observation)  # type: ignore[arg-type]
    assert body_of(rig, note_id) == BODY


async def test_clear_empties_a_multi_line_field_wherever_the_tap_put_the_cursor(rig: Rig) -> None:  # noqa: F811
    note_id = open_note(rig, NOTE)
    body, observation = await body_field(rig, NOTE)
    await rig.run(Step.of("type", element=body.id, text="Fixed", clear=True), observation)  # type: ignore[arg-type]
    assert body_of(rig, note_id) == "Fixed"
