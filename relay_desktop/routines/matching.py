"""Which routine a typed task is, and with which values: "Text Grace 'on my way'" is the routine saved as
``Text {name} "{message}"`` with name=Grace and message=on my way.

The wording must match the routine's task in full, apart from case, spacing, the kind of quote marks and a
closing full stop; each parameter takes what stands in its place. Of several routines that match, the one
whose wording has the most fixed text wins (it says the most about the task); ties go to the one listed first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from relay_desktop.routines.model import Routine

__all__ = ["RoutineMatch", "match_task", "task_pattern"]

_QUOTES = "\"'“”‘’„«»"
_PLACEHOLDER = re.compile(r"\{([a-zA-Z][a-z0-9_]{0,39})\}")


@dataclass(frozen=True)
class RoutineMatch:
    routine: Routine
    values: dict[str, str]

    @property
    def same_values(self) -> bool:
        return self.values == self.routine.defaults()


def _literal(text: str) -> str:
    out = []
    for part in re.split(r"(\s+)", text):
        if not part:
            continue
        if part.isspace():
            out.append(r"\s+")
            continue
        out.append("".join(f"[{re.escape(_QUOTES)}]" if c in _QUOTES else re.escape(c) for c in part))
    return "".join(out)


def task_pattern(template: str) -> tuple[re.Pattern[str], int]:
    """The regular expression a typed task must match, and how many fixed characters it has."""
    pattern, fixed, seen, position = [r"^\s*"], 0, set(), 0
    for match in _PLACEHOLDER.finditer(template):
        literal = template[position:match.start()]
        pattern.append(_literal(literal))
        fixed += len(literal.strip())
        name = match.group(1).lower()
        pattern.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        position = match.end()
    tail = template[position:].rstrip().rstrip(".!")
    pattern.append(_literal(tail))
    fixed += len(tail.strip())
    pattern.append(r"\s*[.!]?\s*$")
    return re.compile("".join(pattern), re.IGNORECASE | re.DOTALL), fixed


def match_task(task: str, routines: Iterable[Routine]) -> RoutineMatch | None:
    """The routine this task is (with the values it gives), or None."""
    best: tuple[int, RoutineMatch] | None = None
    for routine in routines:
        pattern, fixed = task_pattern(routine.task)
        found = pattern.match(task)
        if found is None:
            continue
        values = {name: " ".join(value.split()) for name, value in found.groupdict().items()}
        if any(not value for value in values.values()):
            continue
        if best is None or fixed > best[0]:
            best = (fixed, RoutineMatch(routine, values))
    return best[1] if best is not None else None
