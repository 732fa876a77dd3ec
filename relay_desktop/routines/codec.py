"""A routine as plain data (the store's JSON, the YAML a person edits), and back, with every field checked.

A hand-edited file gets its mistakes named with where they are (``steps[3].action: unknown action
"tapp"``), never a traceback. The step's action is written flat, as the agent's action schema has it (``action:
type``, ``text: "{message}"``), with the target, the screen and the expected effect beside it.
"""

from __future__ import annotations

from typing import Any

from relay_desktop.agent.steps.actions import ACTIONS, OPTIONAL_ACTIONS
from relay_desktop.routines.model import Parameter, Routine, RoutineError, RoutineStep, check_name, placeholders

__all__ = ["FORMAT", "routine_from_dict", "routine_to_dict"]

FORMAT = 1
_STEP_KEYS = ("target", "screen", "expect", "password", "optional")
_REPLAYABLE = {name: spec for name, spec in {**ACTIONS, **OPTIONAL_ACTIONS}.items()
               if name not in ("complete", "fail", "ask_user")}


def routine_to_dict(routine: Routine) -> dict[str, Any]:
    steps = []
    for step in routine.steps:
        out: dict[str, Any] = dict(step.action)
        if step.secret:
            out["password"] = True        # typed a password, which is not kept: asked for at replay
        if step.optional:
            out["optional"] = True
        if step.target is not None:
            out["target"] = step.target
        if step.screen:
            out["screen"] = step.screen
        if step.expect is not None:
            out["expect"] = step.expect
        steps.append(out)
    data: dict[str, Any] = {"format": FORMAT, "name": routine.name, "task": routine.task,
                            "parameters": [{"name": p.name, "default": p.default} for p in routine.parameters],
                            "confirm": routine.confirm, "steps": steps, "end": routine.end}
    if routine.version:
        data["version"] = routine.version
    if routine.source_run:
        data["source_run"] = routine.source_run
    if routine.note:
        data["note"] = routine.note
    if routine.created_at:
        data["created_at"] = routine.created_at
    return data


def _expect(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise RoutineError(f"{where}: {what}")


def _mapping(value: Any, where: str) -> dict[str, Any]:
    _expect(isinstance(value, dict), where, "must be a mapping (key: value lines)")
    return value


def _optional_mapping(value: Any, where: str) -> dict[str, Any] | None:
    return None if value is None else _mapping(value, where)


def _step(raw: Any, index: int, names: set[str]) -> RoutineStep:
    where = f"steps[{index + 1}]"
    raw = _mapping(raw, where)
    kind = raw.get("action")
    if kind not in _REPLAYABLE:
        known = ", ".join(sorted(_REPLAYABLE))
        raise RoutineError(f"{where}.action: {kind!r} is not an action a routine can replay (one of: {known})")
    spec = _REPLAYABLE[kind]
    # "secret: true" was this flag's first name; a string "secret" is the name of a saved secret to type.
    legacy = raw.get("secret") is True
    action = {k: v for k, v in raw.items() if k not in _STEP_KEYS and not (k == "secret" and legacy)}
    unknown = sorted(set(action) - {"action", "at", *spec.params})
    at = action.get("at")
    _expect(at is None or (isinstance(at, list) and len(at) == 2 and all(isinstance(v, int | float) and 0 <= v <= 1
                                                                         for v in at)),
            f"{where}.at", "must be [x, y]: where on the target, as shares of its width and height (0 to 1)")
    takes = ", ".join(spec.params) or "nothing"
    _expect(not unknown, where, f"{kind} takes no {', '.join(unknown)} (it takes: {takes})")
    secret = bool(raw.get("password", False)) or legacy
    missing = [p for p in spec.required if p not in action]
    _expect(not missing, where, f"{kind} needs {', '.join(missing)}")
    if kind == "type" and not secret:
        _expect(("text" in action) != ("secret" in action), where,
                "type needs either text or the name of a saved secret (secret: NAME)")
    for key, value in action.items():
        if isinstance(value, str):
            unknown_names = [n for n in placeholders(value) if n not in names]
            _expect(not unknown_names, f"{where}.{key}",
                    f"{{{unknown_names[0] if unknown_names else ''}}} is not one of the routine's parameters")
    target = _optional_mapping(raw.get("target"), f"{where}.target")
    if spec.targets_element and kind in ("tap", "long_press", "set_value") and (target is None and "at" in action):
        raise RoutineError(f"{where}: `at` needs a target (the element it is a place on)")
    if spec.targets_element and kind in ("tap", "long_press", "set_value") and target is None:
        _expect(("x" in action and "y" in action) or "element" in action, where,
                f"{kind} needs a target (the element it acts on) or x and y")
    screen = _optional_mapping(raw.get("screen"), f"{where}.screen") or {}
    expect = _optional_mapping(raw.get("expect"), f"{where}.expect")
    optional = raw.get("optional", False)
    _expect(isinstance(optional, bool), f"{where}.optional", "must be true or false")
    return RoutineStep(action, target, screen, expect, secret, optional)


def routine_from_dict(data: Any, *, name: str | None = None) -> Routine:
    """A routine from plain data; ``name`` overrides the one the data holds."""
    data = _mapping(data, "the routine")
    fmt = data.get("format", FORMAT)
    _expect(isinstance(fmt, int) and fmt <= FORMAT, "format",
            f"{fmt!r}: this routine was written by a newer Relay Desktop (this one reads format {FORMAT})")
    try:
        routine_name = check_name(str(name if name is not None else data.get("name", "")))
    except RoutineError as exc:
        raise RoutineError(f"name: {exc}") from None
    task = data.get("task")
    _expect(isinstance(task, str) and task.strip(), "task", "must say what the routine does (the task's wording)")
    raw_parameters = data.get("parameters") or []
    _expect(isinstance(raw_parameters, list), "parameters", "must be a list of {name, default}")
    parameters = []
    for i, raw in enumerate(raw_parameters):
        raw = _mapping(raw, f"parameters[{i + 1}]")
        _expect("name" in raw and "default" in raw, f"parameters[{i + 1}]", "needs a name and a default")
        try:
            parameters.append(Parameter(str(raw["name"]), str(raw["default"])))
        except RoutineError as exc:
            raise RoutineError(f"parameters[{i + 1}].name: {exc}") from None
    names = {p.name for p in parameters}
    unknown = [n for n in placeholders(task) if n not in names]
    _expect(not unknown, "task", f"{{{unknown[0] if unknown else ''}}} is not one of the routine's parameters")
    raw_steps = data.get("steps")
    _expect(isinstance(raw_steps, list) and raw_steps, "steps", "must be a list with at least one step")
    steps = tuple(_step(raw, i, names) for i, raw in enumerate(raw_steps))
    end = _optional_mapping(data.get("end"), "end") or {}
    confirm = data.get("confirm", True)
    _expect(isinstance(confirm, bool), "confirm", "must be true or false")
    created = data.get("created_at", 0.0)
    return Routine(routine_name, " ".join(task.split()), steps, tuple(parameters), end, confirm,
                   int(data.get("version") or 0), str(data.get("source_run") or ""),
                   float(created) if isinstance(created, int | float) else 0.0, str(data.get("note") or ""))
