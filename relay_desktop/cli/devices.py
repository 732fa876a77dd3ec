"""`relay-desktop devices`: the phones adb can see."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(commands: Any) -> None:
    devices = commands.add_parser("devices", help="list the phones adb can see")
    devices.set_defaults(command="devices", handler=run)


async def run(args: argparse.Namespace) -> int:
    from relay_desktop.device.adb_server import AdbServer
    from relay_desktop.device.errors import DeviceError

    adb = AdbServer()
    try:
        await adb.ensure_running()
        devices = await adb.devices()
    except DeviceError as exc:
        print(f"relay-desktop devices: {exc}", file=sys.stderr)
        return 1
    if not devices:
        print("No devices. Plug in a phone with USB debugging on, or run: relay-desktop sim")
    for d in devices:
        print(f"{d.serial:24} {d.state:13} {d.model.replace('_', ' ')}")
    return 0
