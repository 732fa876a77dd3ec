"""The virtual phone's task suite: goals with initial states, checkers and oracle solutions."""

from __future__ import annotations

from relay_desktop.sim.tasks.base import CheckResult, Driver, OracleError, PhoneDriver, Task

# communication tasks import below this line
from relay_desktop.sim.tasks.comms_tasks import TASKS as _COMMS
from relay_desktop.sim.tasks.notes_tasks import TASKS as _NOTES
from relay_desktop.sim.tasks.settings_tasks import TASKS as _SETTINGS
from relay_desktop.sim.tasks.shop_tasks import TASKS as _SHOP

# productivity tasks import below this line

ALL_TASKS: list[Task] = [
    *_SETTINGS,
    # communication tasks
    *_COMMS,
    # productivity tasks
    *_NOTES,
    *_SHOP,
]
TASKS_BY_ID: dict[str, Task] = {task.id: task for task in ALL_TASKS}

__all__ = ["ALL_TASKS", "TASKS_BY_ID", "CheckResult", "Driver", "OracleError", "PhoneDriver", "Task"]
