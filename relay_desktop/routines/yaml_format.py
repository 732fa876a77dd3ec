"""A routine as a YAML file a person reads and edits (``routines export NAME > morning.yaml``), and back.

The file leads with what a person changes most — name, task, parameters, whether to ask before sensitive
steps — then the steps, each an action as the agent's schema writes it with its target, the screen it expects
and the effect it checks. Reading goes through the same checks as the store (codec.py), so a mistake is named
with where it is.
"""

from __future__ import annotations

from typing import Any

import yaml

from relay_desktop.routines.codec import routine_from_dict, routine_to_dict
from relay_desktop.routines.model import Routine, RoutineError

__all__ = ["from_yaml", "to_yaml"]

_HEADER = """\
# A Relay Desktop routine: a solved task that runs again without a model.
# Edit freely: the task's {parameters}, their defaults, typed text, labels. `confirm: false` stops it asking
# before send, pay, delete and install. Read it back with: relay-desktop routines import FILE
"""


class _Dumper(yaml.SafeDumper):
    """Short lists of numbers and of layout tokens on one line; everything else in block style."""


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> Any:
    flow = bool(data) and all(isinstance(v, int | float | str) and len(str(v)) < 40 for v in data) and len(data) <= 8
    if data and all(isinstance(v, list) for v in data):
        flow = False
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _represent_list)


def to_yaml(routine: Routine) -> str:
    data = routine_to_dict(routine)
    for key in ("created_at",):
        data.pop(key, None)
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return _HEADER + body


def from_yaml(text: str, *, name: str | None = None) -> Routine:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RoutineError(f"not valid YAML{where}: {problem}") from None
    if data is None:
        raise RoutineError("the file is empty")
    return routine_from_dict(data, name=name)
