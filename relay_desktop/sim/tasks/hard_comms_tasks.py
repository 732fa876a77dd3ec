"""Hard tasks in Contacts, Messages, Chrome and Keep: facts carried across apps, several goals at once,
non-ASCII text, infeasible and ambiguous requests."""

from __future__ import annotations

from relay_desktop.sim.tasks.base import Task

TASKS: list[Task] = []
