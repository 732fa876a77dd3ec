"""The virtual phone's task suite: goals with initial states, checkers and oracle solutions."""

from __future__ import annotations

from relay_desktop.sim.tasks.base import CheckResult, Driver, OracleError, PhoneDriver, Task
from relay_desktop.sim.tasks.clock_day_tasks import TASKS as _CLOCK_DAYS
from relay_desktop.sim.tasks.clock_tasks import TASKS as _CLOCK
from relay_desktop.sim.tasks.comms_tasks import TASKS as _COMMS
from relay_desktop.sim.tasks.coverage_tasks import TASKS as _COVERAGE
from relay_desktop.sim.tasks.group_message_tasks import TASKS as _GROUP_MESSAGES
from relay_desktop.sim.tasks.hard_comms_tasks import TASKS as _HARD_COMMS
from relay_desktop.sim.tasks.hard_device_tasks import TASKS as _HARD_DEVICE
from relay_desktop.sim.tasks.more_recovery_tasks import TASKS as _MORE_RECOVERY
from relay_desktop.sim.tasks.more_tasks import TASKS as _MORE
from relay_desktop.sim.tasks.notes_tasks import TASKS as _NOTES
from relay_desktop.sim.tasks.question_tasks import TASKS as _QUESTIONS
from relay_desktop.sim.tasks.recovery_tasks import TASKS as _RECOVERY
from relay_desktop.sim.tasks.settings_tasks import TASKS as _SETTINGS
from relay_desktop.sim.tasks.shop_tasks import TASKS as _SHOP
from relay_desktop.sim.tasks.split_screen_tasks import TASKS as _SPLIT_SCREEN
from relay_desktop.sim.tasks.untidy_bank_tasks import TASKS as _UNTIDY_BANK
from relay_desktop.sim.tasks.untidy_chaos_tasks import TASKS as _UNTIDY_CHAOS
from relay_desktop.sim.tasks.untidy_pixels_tasks import TASKS as _UNTIDY_PIXELS

ALL_TASKS: list[Task] = [*_SETTINGS, *_COMMS, *_NOTES, *_CLOCK, *_SHOP, *_MORE, *_RECOVERY, *_COVERAGE,
                         *_MORE_RECOVERY, *_HARD_COMMS, *_HARD_DEVICE, *_SPLIT_SCREEN,
                         *_UNTIDY_BANK, *_UNTIDY_PIXELS, *_UNTIDY_CHAOS, *_QUESTIONS, *_GROUP_MESSAGES, *_CLOCK_DAYS]
TASKS_BY_ID: dict[str, Task] = {task.id: task for task in ALL_TASKS}

__all__ = ["ALL_TASKS", "TASKS_BY_ID", "CheckResult", "Driver", "OracleError", "PhoneDriver", "Task"]
