"""Reading structured answers out of what models really write, and validating them."""

from __future__ import annotations

import pytest

from relay_desktop.llm.output import (
    check_schema,
    extract_json,
    format_instructions,
    parse_completion,
    repair_prompt,
    split_think_answer,
    validate,
)
from relay_desktop.llm.types import Completion, OutputContract, OutputMode

PLAN_SCHEMA = {
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "action": {"enum": ["tap", "type", "back"]},
                    "element": {"type": "string", "pattern": "^e[0-9]+$"},
                    "text": {"type": "string"},
                },
                "required": ["action"],
                "additionalProperties": False,
            },
        },
        "reason": {"type": "string"},
    },
    "required": ["steps"],
}
CONTRACT = OutputContract("submit_plan", "the next steps", PLAN_SCHEMA)
GOOD = {"steps": [{"action": "tap", "element": "e3"}], "reason": "open it"}


@pytest.mark.parametrize("text", [
    '{"steps": [{"action": "tap", "element": "e3"}], "reason": "open it"}',
    '```json\n{"steps": [{"action": "tap", "element": "e3"}], "reason": "open it"}\n```',
    'Sure! Here is the plan:\n{"steps": [{"action": "tap", "element": "e3"}], "reason": "open it"}\nGood luck.',
    '{"steps": [{"action": "tap", "element": "e3",},], "reason": "open it",}',
    '<think>Wi-Fi is under Network.</think><answer>{"steps": [{"action": "tap", "element": "e3"}], '
    '"reason": "open it"}</answer>',
    # A model cut off by its token limit still closes the JSON but never writes </answer>.
    '<think>x</think><answer>\n```\n{"steps": [{"action": "tap", "element": "e3"}], "reason": "open it"}\n```',
    'The {braces} in prose come first. {"steps": [{"action": "tap", "element": "e3"}], "reason": "open it"}',
])
def test_forgiving_extraction_finds_the_answer(text: str) -> None:
    parsed = parse_completion(Completion(text=text), CONTRACT)
    assert parsed.problems == ()
    assert parsed.data == GOOD


def test_think_answer_splits_reasoning_from_answer() -> None:
    thinking, answer = split_think_answer("<think>look for the toggle</think>\n<answer>{\"a\": 1}</answer>")
    assert thinking == "look for the toggle"
    assert answer == '{"a": 1}'
    parsed = parse_completion(Completion(text='<think>t</think><answer>{"steps": [{"action": "back"}]}</answer>'),
                              CONTRACT)
    assert parsed.thinking == "t"
    assert parsed.data == {"steps": [{"action": "back"}]}


def test_no_json_at_all_is_a_problem_not_a_crash() -> None:
    parsed = parse_completion(Completion(text="I cannot help with that."), CONTRACT)
    assert parsed.data is None
    assert parsed.problems == ("no JSON object found in the reply",)
    with pytest.raises(ValueError):
        extract_json("just words")


def test_schema_problems_name_the_place() -> None:
    bad = {"steps": [{"action": "tapp", "element": "3"}]}
    problems = validate(bad, PLAN_SCHEMA)
    assert any(p.startswith("answer.steps[0].action:") and "tapp" in p for p in problems)
    assert any(p.startswith("answer.steps[0].element:") for p in problems)
    parsed = parse_completion(Completion(tool_name="submit_plan", tool_args=bad), CONTRACT)
    assert parsed.data is None and parsed.problems == tuple(problems)


def test_missing_required_and_wrong_type() -> None:
    assert validate({"reason": "x"}, PLAN_SCHEMA) == ["answer: 'steps' is a required property"]
    assert validate([1], PLAN_SCHEMA) == ["answer: [1] is not of type 'object'"]
    parsed = parse_completion(Completion(text="[1, 2]"), CONTRACT)
    assert parsed.problems == ("answer: expected a JSON object, got list",)


def test_tool_arguments_as_json_text_and_wrapped_once() -> None:
    # OpenAI-style tools send arguments as a JSON string; some models wrap them in the tool's name.
    as_text = parse_completion(Completion(tool_name="submit_plan", tool_args='{"steps": [{"action": "back"}]}'),
                               CONTRACT)
    assert as_text.data == {"steps": [{"action": "back"}]}
    wrapped = parse_completion(Completion(tool_args={"submit_plan": {"steps": [{"action": "back"}]}}), CONTRACT)
    assert wrapped.data == {"steps": [{"action": "back"}]}


def test_invalid_schema_is_caught_early() -> None:
    with pytest.raises(ValueError, match="invalid output schema"):
        check_schema({"type": "objekt"})
    check_schema(PLAN_SCHEMA)


def test_text_mode_instructions_carry_the_schema() -> None:
    think = format_instructions(CONTRACT, OutputMode.THINK_ANSWER)
    assert "<think>" in think and "<answer>" in think and '"steps"' in think
    assert '"steps"' in format_instructions(CONTRACT, OutputMode.JSON_TEXT)
    assert format_instructions(CONTRACT, OutputMode.TOOL) == ""


def test_repair_prompt_lists_every_problem() -> None:
    text = repair_prompt(["answer.steps[0].action: 'tapp' is not one of ['tap']", "answer: 'x' is required"],
                         OutputMode.TOOL)
    assert "'tapp' is not one of" in text and "'x' is required" in text
    assert "tool" in text.lower()
