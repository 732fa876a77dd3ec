"""Actions as tools: each action's own schema and tool definition, plan parsing and validation, the plan
contract, element resolution, and the one-line descriptions loop detection compares."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from relay_desktop.agent.steps.actions import (
    ACTIONS,
    MAX_STEPS_PER_PLAN,
    OPTIONAL_ACTIONS,
    PLAN_CONTRACT,
    ActionSpec,
    Step,
    StepError,
    parse_plan,
    plan_contract,
    resolve_step,
)
from relay_desktop.llm.output import check_schema, validate
from relay_desktop.perception import ElementMap, build_element_map

# A minimal valid parameter set for every action (a new action must add one here).
EXAMPLES: dict[str, dict[str, Any]] = {
    "tap": {"element": "e1"}, "long_press": {"element": "e1"}, "type": {"text": "milk"},
    "swipe": {"direction": "left"}, "scroll": {"direction": "down"}, "press_key": {"key": "enter"},
    "back": {}, "home": {}, "recent_apps": {}, "launch_app": {"app": "Clock"}, "wait": {"seconds": 1},
    "ask_user": {"question": "Which account?"}, "complete": {"summary": "done"}, "fail": {"reason": "no signal"},
    "shell": {"command": "getprop ro.build.version.release"}, "set_value": {"element": "e1", "value": 40},
}
ALL_SPECS: dict[str, ActionSpec] = {**ACTIONS, **OPTIONAL_ACTIONS}


def _node(cls: str, bounds: str, **attrs: str) -> str:
    extra = " ".join(f'{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<node class="{cls}" package="com.example.app" bounds="{bounds}" {extra} />'


def _screen(*nodes: str) -> ElementMap:
    return build_element_map('<hierarchy rotation="0"><node class="android.widget.FrameLayout" '
                             'package="com.example.app" bounds="[0,0][1080,2400]">' + "".join(nodes)
                             + "</node></hierarchy>")


# "Under" is half covered by the clickable "Banner" drawn after it: its visible part and tap point are the
# lower half, not the middle of its bounds.
SCREEN = _screen(
    _node("android.widget.Button", "[0,100][1080,500]", text="Under", clickable="true", drawing_order="1"),
    _node("android.widget.Button", "[0,100][1080,300]", text="Banner", clickable="true", drawing_order="2"),
    _node("android.widget.TextView", "[0,700][1080,800]", text="Just words", drawing_order="3"),
    _node("android.widget.EditText", "[0,900][1080,1050]", hint="Search", clickable="true", drawing_order="4"),
)


def _plan(*steps: Any, **extra: Any) -> dict[str, Any]:
    return {"thinking": "t", "steps": list(steps), **extra}


# ------------------------------------------------------------ each action's schema and tool


def test_every_action_has_an_example() -> None:
    assert set(EXAMPLES) == set(ALL_SPECS)


@pytest.mark.parametrize("name", sorted(ALL_SPECS))
def test_action_schema_accepts_its_example_and_rejects_a_missing_or_foreign_parameter(name: str) -> None:
    spec = ALL_SPECS[name]
    check_schema(spec.schema)
    example = {"action": name, **EXAMPLES[name]}
    jsonschema.validate(example, spec.schema)
    assert spec.schema["properties"]["action"] == {"const": name}
    assert spec.schema["required"] == ["action", *spec.required]
    for required in spec.required:
        with pytest.raises(jsonschema.ValidationError, match=f"'{required}' is a required property"):
            jsonschema.validate({k: v for k, v in example.items() if k != required}, spec.schema)
    with pytest.raises(jsonschema.ValidationError, match="Additional properties"):
        jsonschema.validate({**example, "bogus": 1}, spec.schema)
    other = "tap" if name != "tap" else "back"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**example, "action": other}, spec.schema)


@pytest.mark.parametrize("name", sorted(ALL_SPECS))
def test_action_tool_definition(name: str) -> None:
    spec = ALL_SPECS[name]
    tool = spec.tool()
    assert tool["name"] == name and tool["description"] == spec.description
    assert tool["parameters"] == {"type": "object", "properties": spec.params, "required": list(spec.required)}
    check_schema(tool["parameters"])
    assert "action" not in tool["parameters"]["properties"]
    jsonschema.validate(EXAMPLES[name], tool["parameters"])


# ------------------------------------------------------------ the plan contract


def test_plan_contract_schema_is_valid_and_matches_plans() -> None:
    schema = PLAN_CONTRACT.schema
    check_schema(schema)
    assert PLAN_CONTRACT.name == "act"
    good = _plan(*({"action": name, **EXAMPLES[name]} for name in ("tap", "type", "scroll", "home")))
    assert validate(good, schema) == []
    assert validate({"steps": [{"action": "back"}]}, schema) == ["answer: 'thinking' is a required property"]
    assert validate(_plan(), schema)                                       # minItems 1
    assert validate(_plan(*[{"action": "back"}] * (MAX_STEPS_PER_PLAN + 1)), schema)
    assert validate(_plan({"action": "fly"}), schema)


def test_plan_contract_offers_every_action_and_the_shell_only_when_allowed() -> None:
    step = PLAN_CONTRACT.schema["properties"]["steps"]["items"]
    assert step["properties"]["action"]["enum"] == list(ACTIONS)
    assert "shell" not in step["properties"]["action"]["enum"] and "command" not in step["properties"]
    params = {p for spec in ACTIONS.values() for p in spec.params}
    assert params <= set(step["properties"])
    with_shell = plan_contract(shell=True).schema["properties"]["steps"]["items"]
    assert "shell" in with_shell["properties"]["action"]["enum"] and "command" in with_shell["properties"]
    check_schema(plan_contract(shell=True).schema)


# ------------------------------------------------------------ parse_plan


def test_parse_plan_builds_steps_with_their_params() -> None:
    plan = parse_plan(_plan({"action": "type", "element": "e3", "text": "milk", "submit": True}, {"action": "back"},
                            reflection="it worked"), source="fallback")
    assert plan.steps == (Step("type", {"element": "e3", "text": "milk", "submit": True}), Step("back", {}))
    assert (plan.thinking, plan.reflection, plan.source) == ("t", "it worked", "fallback")


@pytest.mark.parametrize(("steps", "message"), [
    ([{"action": "back"}, {"action": "fly"}], "step 2: unknown action 'fly'; use one of tap, long_press"),
    ([{"action": "type", "element": "e3"}], "step 1 (type): give either text or the name of a saved secret"),
    ([{"action": "type", "text": "1234", "secret": "pin"}], "step 1 (type): give either text or the name of a saved"),
    ([{"action": "scroll", "direction": "sideways"}], "step 1 (scroll): direction: 'sideways' is not one of"),
    ([{"action": "back"}, {"action": "back"}, "tap e3"], "step 3 is not an object"),
    ([["tap", "e3"]], "step 1 is not an object"),
    ([{"action": "tap"}], "step 1 (tap): give an element id"),
    ([{"action": "tap", "x": 10}], "step 1 (tap): give an element id"),
    ([{"action": "press_key", "key": "f13"}], "step 1 (press_key): key: 'f13' is not one of"),
    ([{"action": "wait", "seconds": 60}], "step 1 (wait): seconds: 60 is greater than the maximum of 10"),
    ([{"action": "tap", "x": -5, "y": 10}], "step 1 (tap): x: -5 is less than the minimum of 0"),
    ([{"action": "launch_app", "app": None}], "step 1 (launch_app): step: 'app' is a required property"),
    ([], "the plan has no steps"),
])
def test_parse_plan_rejects_a_bad_step_naming_it(steps: list[Any], message: str) -> None:
    with pytest.raises(StepError) as error:
        parse_plan(_plan(*steps))
    assert str(error.value).startswith(message), str(error.value)


def test_the_shell_is_an_unknown_action_unless_allowed() -> None:
    with pytest.raises(StepError, match=r"unknown action 'shell' \(the shell is turned off\)"):
        parse_plan(_plan({"action": "shell", "command": "ls"}))
    plan = parse_plan(_plan({"action": "shell", "command": "ls"}), shell=True)
    assert plan.steps == (Step("shell", {"command": "ls"}),)


def test_parse_plan_drops_null_empty_and_foreign_params() -> None:
    plan = parse_plan(_plan(
        {"action": "back", "element": "e4", "text": None, "direction": ""},
        {"action": "tap", "element": "e3", "text": "stray", "key": None, "submit": False},
        {"action": "scroll", "direction": "down", "element": "", "x": 5},
    ))
    assert plan.steps == (Step("back", {}), Step("tap", {"element": "e3"}), Step("scroll", {"direction": "down"}))


def test_type_with_empty_text_and_clear_is_a_clear_only_step() -> None:
    plan = parse_plan(_plan({"action": "type", "element": "e3", "text": "", "clear": True}))
    assert plan.steps == (Step("type", {"element": "e3", "text": "", "clear": True}),)


def test_tap_at_a_point_needs_both_coordinates() -> None:
    plan = parse_plan(_plan({"action": "tap", "x": 10, "y": 20}))
    assert plan.steps == (Step("tap", {"x": 10, "y": 20}),)


@pytest.mark.parametrize("ender", ["home", "recent_apps", "launch_app", "ask_user", "complete", "fail"])
def test_nothing_runs_after_a_step_that_ends_the_plan(ender: str) -> None:
    assert ACTIONS[ender].ends_plan
    plan = parse_plan(_plan({"action": "back"}, {"action": ender, **EXAMPLES[ender]},
                            {"action": "tap", "element": "e1"}, {"action": "back"}))
    assert [s.action for s in plan.steps] == ["back", ender]


def test_steps_that_keep_the_screen_known_do_not_end_the_plan() -> None:
    names = ("tap", "type", "scroll", "press_key", "back")
    plan = parse_plan(_plan(*({"action": n, **EXAMPLES[n]} for n in names)))
    assert [s.action for s in plan.steps] == list(names)


def test_a_plan_is_capped_at_max_steps() -> None:
    plan = parse_plan(_plan(*({"action": "press_key", "key": "tab"} for _ in range(MAX_STEPS_PER_PLAN + 3))))
    assert len(plan.steps) == MAX_STEPS_PER_PLAN == 5


# ------------------------------------------------------------ resolve_step


def test_element_resolves_to_its_tap_point_and_visible_bounds() -> None:
    under = SCREEN.get("e1")
    assert under is not None and under.label == "Under"
    assert under.tap != under.bounds.center and under.visible != under.bounds      # the fixture is meaningful
    resolved = resolve_step(Step.of("tap", element="e1"), SCREEN)
    assert resolved.target is under
    assert resolved.point == under.tap == (540, 400)
    assert resolved.bounds == under.visible
    assert resolved.step == Step.of("tap", element="e1")


@pytest.mark.parametrize("given", ["E1", " e1 ", "\tE1\n"])
def test_element_ids_ignore_case_and_spaces(given: str) -> None:
    resolved = resolve_step(Step.of("long_press", element=given), SCREEN)
    assert resolved.target is SCREEN.get("e1") and resolved.point == (540, 400)


def test_unknown_element_is_a_step_error_listing_the_interactive_ids() -> None:
    with pytest.raises(StepError) as error:
        resolve_step(Step.of("tap", element="e99"), SCREEN)
    assert str(error.value) == "element e99 is not on the current screen (interactive elements: e1, e2, e4)"


def test_unknown_element_lists_at_most_twelve_ids() -> None:
    buttons = [_node("android.widget.Button", f"[0,{100 * i}][1080,{100 * i + 90}]", text=f"B{i}", clickable="true")
               for i in range(1, 16)]
    with pytest.raises(StepError) as error:
        resolve_step(Step.of("tap", element="e40"), _screen(*buttons))
    assert str(error.value).endswith("(interactive elements: e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12 …)")


def test_unknown_element_on_an_empty_screen() -> None:
    with pytest.raises(StepError, match=r"\(interactive elements: none\)"):
        resolve_step(Step.of("tap", element="e1"), _screen())


def test_a_point_resolves_to_itself_and_the_element_under_it() -> None:
    resolved = resolve_step(Step.of("tap", x=100, y=950), SCREEN)
    assert resolved.point == (100, 950) and resolved.bounds is None
    assert resolved.target is SCREEN.get("e4")


@pytest.mark.parametrize(("x", "y"), [(1080, 500), (50, 2400), (5000, 10)])
def test_a_point_off_the_screen_is_a_step_error(x: int, y: int) -> None:
    with pytest.raises(StepError, match=rf"point \({x},{y}\) is off the screen \(1080x2400\)"):
        resolve_step(Step.of("tap", x=x, y=y), SCREEN)


def test_steps_without_a_target_resolve_to_nothing() -> None:
    for step in (Step.of("back"), Step.of("scroll", direction="down"), Step.of("type", text="milk")):
        resolved = resolve_step(step, SCREEN)
        assert (resolved.target, resolved.point, resolved.bounds) == (None, None, None)


# ------------------------------------------------------------ describe / key


@pytest.mark.parametrize(("step", "line"), [
    (Step.of("tap", element="E12"), "tap e12"),
    (Step.of("tap", x=10, y=20), "tap (10,20)"),
    (Step.of("type", element="e3", text="milk", clear=True, submit=True), 'type e3 "milk" clear submit'),
    (Step.of("type", text="milk", clear=False), 'type "milk"'),
    (Step.of("scroll", direction="down", element="e2"), "scroll e2 down"),
    (Step.of("press_key", key="enter"), "press_key enter"),
    (Step.of("wait", seconds=2), "wait 2s"),
    (Step.of("complete", summary="Wi-Fi is on"), 'complete "Wi-Fi is on"'),
    (Step.of("back"), "back"),
])
def test_describe(step: Step, line: str) -> None:
    assert step.describe() == line


def test_describe_names_the_app_and_shortens_long_text() -> None:
    assert "Clock" in Step.of("launch_app", app="Clock").describe()
    line = Step.of("type", element="e1", text="x" * 100).describe()
    assert line == 'type e1 "' + "x" * 57 + '…"'


def test_key_tells_steps_apart_by_target_and_text_but_not_by_id_spelling() -> None:
    assert Step.of("tap", element="E3").key() == Step.of("tap", element=" e3").key()
    assert Step.of("tap", element="e3").key() != Step.of("tap", element="e4").key()
    assert Step.of("tap", element="e3").key() != Step.of("long_press", element="e3").key()
    assert Step.of("type", element="e3", text="a").key() != Step.of("type", element="e3", text="b").key()
    assert Step.of("scroll", direction="up").key() != Step.of("scroll", direction="down").key()
    assert Step.of("type", text="a", submit=True).key() != Step.of("type", text="a").key()


def test_type_says_what_a_line_break_in_text_does() -> None:
    """A reader: whether "\\n" makes a line break could not be known before trying it."""
    from relay_desktop.agent.steps.actions import ACTIONS

    assert "(\\n) presses Enter" in ACTIONS["type"].description
