"""A routine: what a successful run learnt, kept so that it can run again without a model.

Each step is the action (as the agent's action schema has it, minus the element id, which meant something
only on that day's screen), the target's identity, the screen it acted on and what it changed. Values the task
gave (a contact's name, a message) are parameters: wherever they appear in the routine — the task's wording,
typed text, labels, titles — they are written ``{name}``, and a run fills in the values it is given.

Plain data: the store keeps it as JSON, ``yaml_format`` writes and reads it for people.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["NAME_PATTERN", "PARAMETER_NAME", "BoundRoutine", "BoundStep", "Parameter", "Routine", "RoutineError",
           "RoutineStep", "check_name", "fill", "placeholders"]

PARAMETER_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
NAME_PATTERN = re.compile(r"[^\x00-\x1f\x7f]{1,80}")
# "{name}" is a parameter's value; "{Name}" the same value with a capital first letter (a list item the run typed
# capitalised, "Sunglasses", for the task's "sunglasses").
_PLACEHOLDER = re.compile(r"\{([a-zA-Z][a-z0-9_]{0,39})\}")


class RoutineError(ValueError):
    """A routine that cannot be saved, read or run as given; the message says what to change."""


def check_name(name: str) -> str:
    """A routine's name, stripped; names are 1–80 printable characters."""
    name = name.strip()
    if not name:
        raise RoutineError("a routine needs a name")
    if not NAME_PATTERN.fullmatch(name):
        raise RoutineError(f"{name[:40]!r} cannot be a routine's name: use up to 80 characters on one line")
    return name


def placeholders(text: str) -> list[str]:
    """The parameter names a text holds, in order (``Text {name} "{message}"`` → name, message)."""
    return list(dict.fromkeys(name.lower() for name in _PLACEHOLDER.findall(text)))


def fill(text: str, values: Mapping[str, str]) -> str:
    """The text with each ``{name}`` of a known parameter replaced by its value (unknown ones stay)."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        found = values.get(name.lower())
        if found is None:
            return match.group(0)
        return found[:1].upper() + found[1:] if name[0].isupper() else found
    return _PLACEHOLDER.sub(value, text)


@dataclass(frozen=True)
class Parameter:
    name: str
    default: str

    def __post_init__(self) -> None:
        if not PARAMETER_NAME.fullmatch(self.name):
            raise RoutineError(f"{self.name!r} cannot be a parameter's name: use lower-case letters, digits and _, "
                               "starting with a letter")


@dataclass(frozen=True)
class RoutineStep:
    action: dict[str, Any]                  # {"action": "tap"} or {"action": "type", "text": "{message}", …}
    target: dict[str, Any] | None = None    # identity of the element acted on (identity.identify_target)
    screen: dict[str, Any] = field(default_factory=dict)   # the screen before it (identity.identify_screen)
    expect: dict[str, Any] | None = None    # what it changed (effects.record_effect); None: not known
    secret: bool = False                    # typed a password: the text is not kept and is asked for at replay
    optional: bool = False                  # answers a dialog: done when the dialog shows, skipped when not

    @property
    def kind(self) -> str:
        return str(self.action.get("action", ""))


@dataclass(frozen=True)
class Routine:
    name: str
    task: str                               # the task's wording, with {parameters}
    steps: tuple[RoutineStep, ...]
    parameters: tuple[Parameter, ...] = ()
    end: dict[str, Any] = field(default_factory=dict)   # the final screen: app, title
    confirm: bool = True                    # False: the user ticked "don't ask again for this routine"
    version: int = 0                        # set by the store
    source_run: str = ""                    # the run it was learnt from
    created_at: float = 0.0
    note: str = ""                          # why this version exists ("saved from run …", "repaired at step 4")

    def __post_init__(self) -> None:
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise RoutineError(f"the parameter names repeat: {', '.join(names)}")
        if not self.steps:
            raise RoutineError("a routine needs at least one step")

    def defaults(self) -> dict[str, str]:
        return {p.name: p.default for p in self.parameters}

    def with_name(self, name: str) -> Routine:
        return replace(self, name=check_name(name))

    def bind(self, values: Mapping[str, str] | None = None) -> BoundRoutine:
        """The routine with its parameters filled in (each missing one takes its default)."""
        values = dict(values or {})
        unknown = sorted(set(values) - {p.name for p in self.parameters})
        if unknown:
            known = ", ".join(p.name for p in self.parameters) or "none"
            raise RoutineError(f"the routine {self.name!r} has no parameter {', '.join(unknown)} "
                               f"(its parameters: {known})")
        filled = {p.name: values.get(p.name, p.default) for p in self.parameters}
        empty = [name for name, value in filled.items() if not str(value).strip()]
        if empty:
            raise RoutineError(f"the parameter {', '.join(empty)} needs a value")
        return BoundRoutine(self, filled, tuple(_bind_step(step, filled) for step in self.steps),
                            fill(self.task, filled), _fill_any(self.end, filled),
                            tuple(dict.fromkeys(_needs(self.end, filled))))


@dataclass(frozen=True)
class BoundStep:
    """A step with values filled in; ``needs``: the values a target's label must show (it held a parameter; the
    filled target says where, under "needs")."""

    step: RoutineStep
    action: dict[str, Any]
    target: dict[str, Any] | None
    needs: tuple[str, ...]
    expect: dict[str, Any] | None
    expect_needs: tuple[str, ...]
    screen: dict[str, Any] = field(default_factory=dict)     # the screen it acts on, values filled in
    screen_needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class BoundRoutine:
    routine: Routine
    values: dict[str, str]
    steps: tuple[BoundStep, ...]
    task: str
    end: dict[str, Any] = field(default_factory=dict)
    end_needs: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.routine.name

    def describe_values(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())


def _fill_any(value: Any, values: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return fill(value, values)
    if isinstance(value, list):
        return [_fill_any(v, values) for v in value]
    if isinstance(value, dict):
        return {k: _fill_any(v, values) for k, v in value.items()}
    return value


def _needs(value: Any, values: Mapping[str, str]) -> list[str]:
    """The values of the parameters a (nested) text holds."""
    if isinstance(value, str):
        return [values[n] for n in placeholders(value) if n in values]
    if isinstance(value, list):
        return [need for v in value for need in _needs(v, values)]
    if isinstance(value, dict):
        return [need for v in value.values() for need in _needs(v, values)]
    return []


def _target_needs(target: dict[str, Any], values: Mapping[str, str]) -> list[list[str]]:
    """Where the target showed a parameter: [view id, value] for each part of its label that held one (the
    new value must show in that very view), or ["", value] when only the label as a whole is known."""
    needs = [[str(rid), value] for rid, text in target.get("parts") or [] for value in _needs(text, values)]
    if not needs:
        needs = [["", value] for value in _needs(target.get("label", ""), values)]
    return needs


def _bind_step(step: RoutineStep, values: Mapping[str, str]) -> BoundStep:
    target = step.target
    needs: list[str] = []
    if target is not None:
        located = _target_needs(target, values)
        needs = [value for _, value in located]
        target = _fill_any(target, values)
        if located:
            target["needs"] = located
    expect = step.expect
    expect_needs = _needs(expect, values) if expect is not None else []
    screen_needs = _needs(step.screen.get("title", ""), values)
    return BoundStep(step, _fill_any(step.action, values), target, tuple(dict.fromkeys(needs)),
                     _fill_any(expect, values) if expect is not None else None, tuple(dict.fromkeys(expect_needs)),
                     _fill_any(step.screen, values), tuple(dict.fromkeys(screen_needs)))
