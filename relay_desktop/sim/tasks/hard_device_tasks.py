"""Hard tasks in the Shop, Clock and Settings: comparing items, operations on many items, long lists then an
edit, wording that differs from the screen's labels, several goals at once."""

from __future__ import annotations

from relay_desktop.sim.tasks.base import Task

TASKS: list[Task] = []
