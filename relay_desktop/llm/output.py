"""Reading a structured answer out of what a model really writes, and checking it against the schema.

Models wrap JSON in code fences, put prose around it, leave trailing commas, or stop inside the answer tag.
Extraction forgives all of that; validation does not: the result must match the contract's JSON schema, and
the problems found are phrased so that the model can fix them in one repair round-trip.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from relay_desktop.llm.types import Completion, OutputContract, OutputMode

_THINK = re.compile(r"<think(?:ing)?>(.*?)(?:</think(?:ing)?>|$)", re.S | re.I)
_ANSWER = re.compile(r"<answer>(.*?)(?:</answer>|$)", re.S | re.I)
_FENCE = re.compile(r"```(?:json|JSON|javascript|js)?\s*\n?(.*?)(?:```|$)", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_MAX_PROBLEMS = 5


@dataclass(frozen=True)
class ParsedOutput:
    data: dict[str, Any] | None
    thinking: str
    problems: tuple[str, ...]  # empty when `data` is valid

    @property
    def ok(self) -> bool:
        return not self.problems


def split_think_answer(text: str) -> tuple[str, str]:
    """(thinking, answer) from the think/answer format; the whole text is the answer when there are no tags."""
    thinking = " ".join(m.strip() for m in _THINK.findall(text)).strip()
    answer = _ANSWER.search(text)
    if answer:
        return thinking, answer.group(1).strip()
    return thinking, _THINK.sub("", text).strip()


def _candidates(text: str) -> Iterator[str]:
    yield text
    for fenced in _FENCE.findall(text):
        yield fenced.strip()


def extract_json(text: str) -> Any:
    """The first JSON object in `text` (or the whole text when it is JSON). Raises ValueError when there is none."""
    decoder = json.JSONDecoder()
    for candidate in _candidates(text.strip()):
        for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json.loads(attempt)
            except json.JSONDecodeError:
                pass
            # Prose around the JSON: decode from each opening brace until one parses.
            for match in re.finditer(r"[{\[]", attempt):
                try:
                    value, _ = decoder.raw_decode(attempt, match.start())
                except json.JSONDecodeError:
                    continue
                if isinstance(value, dict) or (isinstance(value, list) and value):
                    return value
    raise ValueError("no JSON object found in the reply")


def validate(data: Any, schema: dict[str, Any]) -> list[str]:
    """Problems with `data` against `schema`, each naming where it is (`steps[0].action: ...`)."""
    validator = Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        problems.append(f"{_path(error.absolute_path)}: {error.message}")
        if len(problems) == _MAX_PROBLEMS:
            break
    return problems


def check_schema(schema: dict[str, Any]) -> None:
    """Raise ValueError for a contract whose schema is itself invalid (a programming error, caught early)."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise ValueError(f"invalid output schema: {error.message}") from None


def _path(parts: Any) -> str:
    out = "answer"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def parse_completion(completion: Completion, contract: OutputContract) -> ParsedOutput:
    """The validated object from a completion, whichever way the model answered (tool call or text)."""
    thinking = completion.thinking
    args = completion.tool_args
    if isinstance(args, dict):
        data: Any = args
    else:
        text = args if isinstance(args, str) else completion.text
        think, answer = split_think_answer(text)
        thinking = " ".join(t for t in (thinking, think) if t)
        try:
            data = extract_json(answer)
        except ValueError as error:
            return ParsedOutput(None, thinking, (str(error),))
    if not isinstance(data, dict):
        return ParsedOutput(None, thinking, (f"answer: expected a JSON object, got {type(data).__name__}",))
    # A model asked for {"steps": [...]} sometimes wraps it once more, in the tool's name or "arguments".
    for wrapper in (contract.name, "arguments", "parameters", "input"):
        inner = data.get(wrapper)
        if len(data) == 1 and isinstance(inner, dict) and not validate(inner, contract.schema):
            data = inner
    problems = validate(data, contract.schema)
    return ParsedOutput(None if problems else data, thinking, tuple(problems))


def format_instructions(contract: OutputContract, mode: OutputMode) -> str:
    """What to append to the system prompt when the answer comes back as text rather than a tool call."""
    schema = json.dumps(contract.schema, separators=(",", ":"))
    if mode is OutputMode.THINK_ANSWER:
        return (
            f"\n\nAnswer format: first reason briefly inside <think>...</think>, then give {contract.description} "
            f"as one JSON object inside <answer>...</answer>, with nothing after it. "
            f"The JSON must match this JSON schema: {schema}"
        )
    if mode in (OutputMode.JSON_TEXT, OutputMode.JSON_SCHEMA):
        return (
            f"\n\nReply with only one JSON object, {contract.description}, no prose and no code fences. "
            f"It must match this JSON schema: {schema}"
        )
    return ""


def repair_prompt(problems: tuple[str, ...] | list[str], mode: OutputMode) -> str:
    """The follow-up message that shows the model why its answer was rejected."""
    listed = "\n".join(f"- {p}" for p in problems)
    shape = {
        OutputMode.TOOL: "Call the tool again with corrected arguments.",
        OutputMode.THINK_ANSWER: "Reply again in the same <think>...</think><answer>...</answer> format, corrected.",
    }.get(mode, "Reply again with only the corrected JSON object.")
    return f"Your answer was rejected because it does not match the required schema:\n{listed}\n{shape}"
