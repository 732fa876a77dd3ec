"""Starting coroutines from Qt slots, safely.

A slot can fire when no loop is running — while a window is being destroyed after the app's loop has ended
(a tab widget reports its last tab change, say). Scheduling work then would put it on whatever loop is current
later, where it would touch deleted widgets; such late work is dropped instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["spawn"]


def spawn(coroutine: Coroutine[Any, Any, Any], holder: set[asyncio.Task[Any]]) -> asyncio.Task[Any] | None:
    """Run ``coroutine`` on the running loop, keeping a reference in ``holder`` until it ends."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        coroutine.close()
        return None
    task = loop.create_task(coroutine)
    holder.add(task)
    task.add_done_callback(holder.discard)
    return task
