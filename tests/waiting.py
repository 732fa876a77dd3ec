"""Waiting in async tests for something to become true, always with a deadline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["until"]


async def until(condition: Callable[[], object], timeout: float = 10.0, interval: float = 0.02) -> None:
    """Poll ``condition`` until it is true; TimeoutError after ``timeout`` seconds."""
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(interval)
    await asyncio.wait_for(poll(), timeout)
