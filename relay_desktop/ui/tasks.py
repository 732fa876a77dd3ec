"""Starting coroutines from Qt slots, safely.

A slot can fire when no loop is running — while a window is being destroyed after the app's loop has ended
(a tab widget reports its last tab change, say). Scheduling work then would put it on whatever loop is current
later, where it would touch deleted widgets; such late work is dropped instead. Work that outlives its widgets
(a dialog closed while the keyring is still being read) ends quietly when it reaches one: what it would show
has nowhere to go, and it is not an error for the user.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

__all__ = ["spawn"]

log = logging.getLogger(__name__)


def spawn(coroutine: Coroutine[Any, Any, Any], holder: set[asyncio.Task[Any]]) -> asyncio.Task[Any] | None:
    """Run ``coroutine`` on the running loop, keeping a reference in ``holder`` until it ends."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        coroutine.close()
        return None
    task = loop.create_task(_until_its_widgets_go(coroutine))
    holder.add(task)
    task.add_done_callback(holder.discard)
    return task


async def _until_its_widgets_go(coroutine: Coroutine[Any, Any, Any]) -> Any:
    try:
        return await coroutine
    except RuntimeError as exc:
        if "already deleted" not in str(exc):
            raise
        log.debug("work ended with its widget gone: %s", exc)
        return None
