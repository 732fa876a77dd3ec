"""`relay-desktop tasks`: the virtual phone's task suite."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]


def register(commands: Any) -> None:
    tasks = commands.add_parser("tasks", help="list the virtual phone's task suite")
    tasks.set_defaults(command="tasks", handler=run)


async def run(args: argparse.Namespace) -> int:
    from relay_desktop.sim.tasks import ALL_TASKS

    for task in ALL_TASKS:
        print(f"{task.id:24} {task.goal}")
    return 0

