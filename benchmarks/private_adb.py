"""Google's adb server on a private port for one benchmark run, stopped afterwards.

A benchmark must neither disturb an adb server in use (and its phones) nor leave one running; the app and
adbutils find this one through ``ANDROID_ADB_SERVER_PORT``.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import adbutils

from relay_desktop.device.adb_server import AdbServer


@contextmanager
def private_adb_server() -> Iterator[AdbServer]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    adb_path = os.path.join(os.path.dirname(adbutils.__file__), "binaries", "adb")
    os.environ["ANDROID_ADB_SERVER_PORT"] = str(port)
    try:
        yield AdbServer(port=port, adb_path=adb_path)
    finally:
        subprocess.run([adb_path, "-P", str(port), "kill-server"], capture_output=True, timeout=15)
