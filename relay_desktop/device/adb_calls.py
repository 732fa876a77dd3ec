"""Calls into adbutils, which blocks: each runs in a thread, with a deadline, its errors in our words.

Shared by the adb server's handle and each device's; its own module so that neither imports the other for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

import adbutils

from relay_desktop.device.errors import (
    AdbServerError,
    DeviceDisconnectedError,
    DeviceError,
    DeviceNotFoundError,
    DeviceOfflineError,
    DeviceTimeoutError,
    DeviceUnauthorizedError,
)

__all__ = ["call", "translate_error"]

T = TypeVar("T")


def translate_error(exc: BaseException, serial: str | None = None) -> DeviceError:
    """Map an adbutils/socket failure to our error hierarchy (the only place that knows adbutils' words)."""
    if isinstance(exc, DeviceError):
        return exc
    message = str(exc).strip()
    lowered = message.lower()
    who = serial or "device"
    if isinstance(exc, adbutils.AdbTimeout | TimeoutError):
        return DeviceTimeoutError(f"{who}: timed out ({message or 'no answer'})")
    if "unauthorized" in lowered:
        return DeviceUnauthorizedError(who)
    if "offline" in lowered:
        return DeviceOfflineError(f"{who} is offline: reconnect the cable or run 'adb reconnect'")
    if "not found" in lowered or "no devices" in lowered or "can't find any" in lowered:
        return DeviceNotFoundError(f"{who} not found: check the cable, or 'adb connect HOST:PORT'")
    if "more than one" in lowered:
        return DeviceNotFoundError("several devices are attached: choose one by serial (or set ANDROID_SERIAL)")
    if isinstance(exc, adbutils.errors.AdbConnectionError) or "connect to adb server" in lowered:
        return AdbServerError(f"cannot reach the adb server: {message}")
    # "Unknown data: b''": adbutils read an empty status, i.e. the server closed the socket (it died mid-answer).
    if isinstance(exc, EOFError | ConnectionError | BrokenPipeError) or "connection closed" in lowered \
            or lowered == "closed" or lowered.endswith("unknown data: b''"):
        return DeviceDisconnectedError(f"{who} disconnected while a command was running")
    if isinstance(exc, OSError):
        return DeviceDisconnectedError(f"{who}: connection lost ({message})")
    return DeviceError(f"{who}: {message or type(exc).__name__}")


async def call(fn: Callable[[], T], *, serial: str | None = None, timeout: float = 30.0) -> T:
    """Run a blocking adbutils call in a thread, with a deadline and translated errors."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(fn), timeout)
    except TimeoutError as exc:
        raise DeviceTimeoutError(f"{serial or 'adb'}: no answer within {timeout:g} s") from exc
    except (adbutils.AdbError, OSError, EOFError) as exc:
        raise translate_error(exc, serial) from exc
