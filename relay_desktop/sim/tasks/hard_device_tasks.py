"""Hard tasks in the Shop, Clock and Settings: comparing items, operations on many items, long lists then an
edit, wording that differs from the screen's labels, several goals at once, non-ASCII text, infeasible and
ambiguous requests. Each app's tasks live in their own module; this one lists them all.

``DOING_IT_ANYWAY`` maps each infeasible task (``expected_outcome="failed"``) to a scripted near miss — what
an agent that does not stop would do — which its checker must reject (tests/test_sim_tasks.py runs it).
"""

from __future__ import annotations

from relay_desktop.sim.tasks.base import Task
from relay_desktop.sim.tasks.hard_clock_tasks import TASKS as _CLOCK_TASKS
from relay_desktop.sim.tasks.hard_device_common import NearMiss
from relay_desktop.sim.tasks.hard_settings_tasks import DOING_IT_ANYWAY as _SETTINGS_ANYWAY
from relay_desktop.sim.tasks.hard_settings_tasks import TASKS as _SETTINGS_TASKS
from relay_desktop.sim.tasks.hard_shop_tasks import DOING_IT_ANYWAY as _SHOP_ANYWAY
from relay_desktop.sim.tasks.hard_shop_tasks import TASKS as _SHOP_TASKS

TASKS: list[Task] = [*_SHOP_TASKS, *_CLOCK_TASKS, *_SETTINGS_TASKS]
DOING_IT_ANYWAY: dict[str, NearMiss] = {**_SHOP_ANYWAY, **_SETTINGS_ANYWAY}
