"""Routines without a phone: parameters from a run's values, wording that matches a routine, targets found by
identity (and not guessed), the YAML a person edits, and the store with its versions."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import pytest

from relay_desktop.llm.redaction import register_secret
from relay_desktop.perception import build_element_map
from relay_desktop.routines.codec import routine_from_dict, routine_to_dict
from relay_desktop.routines.identity import find_target, identify_target
from relay_desktop.routines.learn import ActionRecord, detect_parameters, learn_routine, template
from relay_desktop.routines.matching import match_task
from relay_desktop.routines.model import Parameter, Routine, RoutineError, RoutineStep
from relay_desktop.routines.store import RoutineNotFound, RoutineStore
from relay_desktop.routines.yaml_format import from_yaml, to_yaml
from relay_desktop.runs import RunStore

PKG = "com.example.chat"


def _node(text: str = "", rid: str = "", cls: str = "android.widget.TextView", bounds: str = "[0,0][10,10]",
          children: str = "", **flags: bool) -> str:
    attrs = {"text": text, "resource-id": f"{PKG}:id/{rid}" if rid else "", "class": cls, "package": PKG,
             "content-desc": "", "checkable": "false", "checked": "false", "clickable": "false", "enabled": "true",
             "focusable": "false", "focused": "false", "scrollable": "false", "long-clickable": "false",
             "password": "false", "selected": "false", "bounds": bounds}
    attrs.update({k.replace("_", "-"): str(v).lower() for k, v in flags.items()})
    body = " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items())
    return f"<node {body}>{children}</node>" if children else f"<node {body} />"


def _row(top: int, name: str, preview: str, button: str = "") -> str:
    bounds = f"[0,{top}][1080,{top + 200}]"
    inner = _node(name, "conversation_name", bounds=f"[40,{top + 20}][700,{top + 90}]") + \
        _node(preview, "snippet", bounds=f"[40,{top + 100}][700,{top + 180}]")
    if button:
        inner += _node(button, "action", "android.widget.Button", f"[760,{top + 40}][1040,{top + 160}]",
                       clickable=True)
    return _node(rid="row", cls="android.widget.LinearLayout", bounds=bounds, children=inner,
                 clickable=not button)


def _screen(*rows: str) -> Any:
    listing = _node(rid="conversation_list", cls="androidx.recyclerview.widget.RecyclerView",
                    bounds="[0,200][1080,2200]", children="".join(rows), scrollable=True)
    root = _node(cls="android.widget.FrameLayout", bounds="[0,0][1080,2400]",
                 children=_node("Chats", "app_title", bounds="[40,60][600,180]") + listing)
    return build_element_map(f'<?xml version="1.0"?><hierarchy rotation="0">{root}</hierarchy>')


def _element(element_map: Any, label: str) -> Any:
    return next(e for e in element_map.elements if label in e.label)


# ---------------------------------------------------------------- finding a target again

def test_a_row_is_found_again_by_its_name_when_its_preview_and_place_changed() -> None:
    recorded = _screen(_row(200, "Bob Martinez", "See you at 8"), _row(400, "Carol Nguyen", "Tuesday works"))
    target = identify_target(_element(recorded, "Bob Martinez"), recorded)
    today = _screen(_row(200, "Dave Kim", "New phone who dis"), _row(400, "Carol Nguyen", "Tuesday works"),
                    _row(600, "Bob Martinez", "running late"))
    match = find_target(target, today)
    assert match.element is not None and "Bob Martinez" in match.element.label


def test_two_elements_that_fit_equally_well_are_not_guessed_between() -> None:
    recorded = _screen(_row(200, "Bob Martinez", "hello"))
    target = identify_target(_element(recorded, "Bob Martinez"), recorded)
    # Two rows now say exactly what the recorded one said, in other places: neither is "the" row.
    today = _screen(_row(200, "Carol Nguyen", "x"), _row(400, "Bob Martinez", "hello"),
                    _row(600, "Bob Martinez", "hello"))
    match = find_target(target, today)
    assert match.element is None
    assert "equally well" in match.problem and len(match.candidates) == 2


def test_the_same_button_in_several_rows_is_told_apart_by_the_texts_beside_it() -> None:
    recorded = _screen(_row(200, "Yoga Mat", "$25", "Add to cart"), _row(400, "Wall Clock", "$32", "Add to cart"))
    target = identify_target(next(e for e in recorded.elements if e.label == "Add to cart" and e.bounds.top > 400),
                             recorded)
    assert "Wall Clock" in target["neighbours"]
    today = _screen(_row(200, "Wall Clock", "$32", "Add to cart"), _row(400, "Yoga Mat", "$25", "Add to cart"))
    match = find_target(target, today)
    assert match.element is not None and match.element.bounds.top < 400     # the Wall Clock row, now first


def _bound_target(recorded: Any, label: str, name: str) -> dict[str, Any]:
    """The row's target as a routine with a name parameter (learnt from "Bob") holds it, bound to ``name``."""
    element = _element(recorded, label)
    target = identify_target(element, recorded)
    record = ActionRecord(1, 0, "model", {"action": "tap"}, True, target, {"app": PKG, "layout": []})
    routine = learn_routine("r", "Open Bob", [record], parameters=[Parameter("name", "Bob")])
    return routine.bind({"name": name}).steps[0].target


def test_a_target_recorded_with_a_parameter_must_show_the_new_value_where_the_old_one_was() -> None:
    recorded = _screen(_row(200, "Bob Martinez", "Do you have Carol's number?"))
    # Bob's row still mentions Carol in its last message: it is not Carol's row.
    today = _screen(_row(200, "Bob Martinez", "Do you have Carol's number?"), _row(400, "Grace Liu", "thanks"),
                    _row(600, "Carol Nguyen", "Tuesday works"))
    assert "Carol Nguyen" in find_target(_bound_target(recorded, "Bob Martinez", "Carol"), today).element.label
    assert "Grace Liu" in find_target(_bound_target(recorded, "Bob Martinez", "Grace"), today).element.label
    without_carol = _screen(_row(200, "Bob Martinez", "Do you have Carol's number?"))
    assert find_target(_bound_target(recorded, "Bob Martinez", "Carol"), without_carol).element is None


# ---------------------------------------------------------------- parameters

def _typed(text: str, rid: str, label: str, password: bool = False) -> ActionRecord:
    target = {"package": PKG, "class": "android.widget.EditText", "id": f"{PKG}:id/{rid}", "role": "field",
              "label": label, "bounds": [0, 0, 10, 10]}
    if password:
        target["password"] = True
    return ActionRecord(3, 0, "model", {"action": "type", "element": "e9", "text": text}, True, target,
                        {"app": PKG, "title": "Chat", "layout": []}, {"changed": True, "value": text})


def _picked(label: str) -> ActionRecord:
    target = {"package": PKG, "class": "android.widget.LinearLayout", "id": f"{PKG}:id/row", "role": "button",
              "label": label, "parts": [["conversation_name", label.split(" · ")[0]]],
              "place": {"list": "conversation_list", "row": 0}, "bounds": [0, 200, 1080, 400]}
    return ActionRecord(2, 0, "model", {"action": "tap", "element": "e4"}, True, target,
                        {"app": PKG, "title": "Chats", "layout": []}, {"changed": True, "title": label.split(" · ")[0]})


def test_typed_and_picked_values_of_the_task_become_named_parameters() -> None:
    task = 'Text Bob "running late"'
    records = [_picked("Bob Martinez · See you"), _typed("running late", "compose_message_text", "Text message")]
    assert detect_parameters(task, records) == [Parameter("name", "Bob"), Parameter("message", "running late")]
    routine = learn_routine("text", task, records)
    assert routine.task == 'Text {name} "{message}"'
    assert routine.steps[0].target["label"] == "{name} Martinez · See you"
    assert routine.steps[1].action == {"action": "type", "text": "{message}"}
    bound = routine.bind({"name": "Grace", "message": "on my way"})
    assert bound.task == 'Text Grace "on my way"' and bound.steps[1].action["text"] == "on my way"
    assert bound.steps[0].needs == ("Grace",)


def test_a_setting_the_run_tapped_is_not_taken_for_a_parameter() -> None:
    # "Turn on Wi-Fi": the run tapped "Wi-Fi" rows in a list; Wi-Fi is a setting, not a value to change.
    assert detect_parameters("Turn on Wi-Fi", [_picked("Wi-Fi · Off"), _picked("Network & internet · Wi-Fi off")]) \
        == []


def test_text_the_agent_typed_around_the_tasks_words_still_makes_a_parameter() -> None:
    records = [_typed("Hi Lena, welcome to the team!", "compose_message_text", "Text message")]
    assert detect_parameters("Text Lena 'welcome to the team'", records) == [
        Parameter("message", "welcome to the team")]


def test_passwords_and_secrets_are_never_kept_in_a_routine(tmp_path: Path) -> None:
    register_secret("hunter2-very-secret")
    records = [_typed("ada@example.com", "email", "Email"),
               _typed("correct horse battery", "password", "Password", password=True),
               _typed("hunter2-very-secret", "pin", "Code")]
    routine = learn_routine("sign in", "Sign in as ada@example.com", records)
    assert [s.secret for s in routine.steps] == [False, True, True]
    text = to_yaml(routine)
    assert "correct horse" not in text and "hunter2" not in text
    store = RoutineStore(RunStore(tmp_path))
    store.save(routine)
    raw = (tmp_path / "runs.sqlite3").read_bytes()
    assert b"correct horse" not in raw and b"hunter2" not in raw


def test_a_parameter_must_be_a_value_the_task_gives() -> None:
    with pytest.raises(RoutineError, match="not in the task"):
        learn_routine("x", "Turn on Wi-Fi", [_picked("Wi-Fi")], parameters=[Parameter("name", "Bob")])
    assert template("Text bob and Bobby", [Parameter("name", "Bob")]) == "Text {name} and Bobby"


# ---------------------------------------------------------------- wording

def _routine(task: str, *params: tuple[str, str], name: str = "r") -> Routine:
    return Routine(name, task, (RoutineStep({"action": "back"}),), tuple(Parameter(n, v) for n, v in params))


def test_a_typed_task_matches_a_routine_with_other_values() -> None:
    text = _routine('Text {name} "{message}"', ("name", "Bob"), ("message", "running late"))
    wifi = _routine("Turn on Wi-Fi")
    match = match_task("text  Grace ‘on my way’.", [wifi, text])
    assert match is not None and match.routine is text
    assert match.values == {"name": "Grace", "message": "on my way"}
    assert match_task("turn on wi-fi", [text, wifi]).routine is wifi
    assert match_task("Turn on Wi-Fi and Bluetooth", [text, wifi]) is None
    assert match_task('Text "hello"', [text]) is None


def test_the_routine_with_the_most_fixed_wording_wins() -> None:
    loose = _routine("Text {name} {message}", ("name", "Bob"), ("message", "hi"), name="loose")
    tight = _routine('Text {name} "{message}"', ("name", "Bob"), ("message", "hi"), name="tight")
    assert match_task('Text Bob "hi there"', [loose, tight]).routine is tight


# ---------------------------------------------------------------- YAML and the store

def _text_routine() -> Routine:
    return learn_routine("text", 'Text Bob "running late"',
                         [_picked("Bob Martinez · x"), _typed("running late", "compose_message_text", "Text message")])


def test_yaml_round_trip_and_edits_a_person_makes() -> None:
    routine = _text_routine()
    text = to_yaml(routine)
    assert text.startswith("# A Relay Desktop routine")
    assert routine_to_dict(from_yaml(text)) == routine_to_dict(routine)
    edited = from_yaml(text.replace("default: running late", "default: on my way"), name="text later")
    assert edited.name == "text later" and edited.defaults()["message"] == "on my way"


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace("action: type", "action: tapp"), r"steps\[2\]\.action: 'tapp' is not an action"),
    (lambda t: t.replace("text: '{message}'", "text: '{mesage}'"), r"steps\[2\]\.text: \{mesage\} is not one"),
    (lambda t: t.replace("task: Text", "task: [Text"), "not valid YAML at line"),
    (lambda t: t.replace("name: name", "name: Name!"), r"parameters\[1\]\.name"),
    (lambda t: "", "the file is empty"),
])
def test_mistakes_in_an_edited_file_are_named_with_where_they_are(edit: Any, message: str) -> None:
    routine = _text_routine()
    with pytest.raises(RoutineError, match=message):
        from_yaml(edit(to_yaml(routine)))


def test_the_store_keeps_every_version_and_renames_and_deletes(tmp_path: Path) -> None:
    store = RoutineStore(RunStore(tmp_path))
    first = store.save(_routine("Turn on Wi-Fi", name="Wifi"))
    assert first.version == 1
    store.set_confirm("wifi", False)                 # names ignore case
    second = store.save(_routine("Turn on Wi-Fi", name="WIFI"))
    assert second.version == 2 and second.name == "Wifi" and second.confirm is False
    assert [v.version for v in store.versions("wifi")] == [1, 2] and store.versions("wifi")[-1].current
    assert store.get("wifi", 1).version == 1
    store.note_run("wifi", "success")
    [summary] = store.list()
    assert (summary.name, summary.version, summary.runs, summary.last_outcome) == ("Wifi", 2, 1, "success")
    assert store.rename("wifi", "Morning Wi-Fi") == "Morning Wi-Fi"
    with pytest.raises(RoutineNotFound):
        store.get("wifi")
    store.save(_routine("Turn off Bluetooth", name="bt"))
    with pytest.raises(RoutineError, match="already a routine called"):
        store.rename("bt", "morning wi-fi")
    assert store.delete("morning wi-fi") == "Morning Wi-Fi"
    assert [r.name for r in store.list()] == ["bt"]
    with pytest.raises(RoutineNotFound, match="routines list"):
        store.delete("nothing")


def test_a_routine_needs_steps_and_distinct_parameters() -> None:
    with pytest.raises(RoutineError, match="at least one step"):
        Routine("x", "t", ())
    with pytest.raises(RoutineError, match="repeat"):
        _routine("{a} {a}", ("a", "1"), ("a", "2"))
    with pytest.raises(RoutineError, match="no parameter zzz"):
        _routine("Text {name}", ("name", "Bob")).bind({"zzz": "1"})
    with pytest.raises(RoutineError, match="steps"):
        routine_from_dict({"name": "x", "task": "t", "steps": []})


def test_a_typed_value_is_found_again_across_lines_and_when_cut_short() -> None:
    from relay_desktop.routines.effects import value_matches

    assert value_matches("Network: Maple-Guest\nPassword: sunflower42", "Network: Maple-Guest Password: sunflower42")
    assert value_matches("x" * 100, "x" * 79 + "…")
    assert not value_matches("Network: Maple-Guest\nPassword: bluebird", "Network: Maple-Guest Password: sunflower42")


def test_a_value_typed_with_a_capital_keeps_it_and_a_word_inside_a_sentence_is_no_parameter() -> None:
    records = [_typed("Passport\nSunglasses", "body", "Note")]
    routine = learn_routine("pack", "Put sunglasses on my packing list", records,
                            parameters=[Parameter("item", "sunglasses")])
    assert routine.steps[0].action["text"] == "Passport\n{Item}"
    assert routine.bind().steps[0].action["text"] == "Passport\nSunglasses"
    assert routine.bind({"item": "towels"}).steps[0].action["text"] == "Passport\nTowels"
    assert detect_parameters("Look up Carol's phone number in Contacts and text it to Bob",
                             [_typed("Carol's number is 555-0187", "compose_message_text", "Text message")]) == []


def test_only_a_label_part_that_starts_with_a_value_holds_the_parameter() -> None:
    records = [_picked("Bob Martinez · Do you have Carol's number?")]
    records[0].target["parts"].append(["conversation_snippet", "Do you have Carol's number?"])
    routine = learn_routine("t", "Text Bob about Carol's party", records,
                            parameters=[Parameter("name", "Bob"), Parameter("who", "Carol's")])
    assert routine.steps[0].target["parts"] == [["conversation_name", "{name} Martinez"],
                                                ["conversation_snippet", "Do you have Carol's number?"]]


def test_a_mismatch_shows_where_two_long_texts_part() -> None:
    from relay_desktop.routines.effects import difference

    have = "Hi Bob! For tonight, the guest Wi-Fi network is Maple-Guest and the password is sunflower42"
    said = difference(have, have.replace("sunflower42", "bluebird2024"))
    assert said == ('holds "…est and the password is sunflower42" where the run had "…est and the password is '
                    'bluebird2024" (they part at character 81)')


async def test_a_fact_missing_from_the_element_lists_is_looked_for_in_the_pictures_only_then() -> None:
    import io
    from types import SimpleNamespace

    from PIL import Image

    from relay_desktop.routines.replay import RoutineReplayer

    read: list[object] = []

    class Ocr:
        async def read(self, image: object) -> list[object]:
            read.append(image)
            return [SimpleNamespace(text="Saturday: 18° and sunny")]

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, "JPEG")
    replayer = RoutineReplayer(SimpleNamespace(ocr=Ocr()), _routine("t").bind())
    replayer._seen, replayer._pictures = ["carol nguyen 555-0187"], [buffer.getvalue()]
    assert await replayer._unseen(["555-0187"]) == [] and read == []           # in the element lists: no OCR
    assert await replayer._unseen(["18°", "4411"]) == ["4411"] and len(read) == 1
