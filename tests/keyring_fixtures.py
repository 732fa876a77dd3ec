"""A real OS keyring for tests: gnome-keyring's Secret Service on a private D-Bus session bus.

Nothing touches the user's own keyring: the bus, the daemon and the keyring files are private (a temporary
HOME), and everything is stopped at the end.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator

import keyring.backends.SecretService
import pytest
import secretstorage

INSTALL_HINT = "install gnome-keyring and dbus (Debian/Ubuntu: apt install gnome-keyring dbus)"
# A session bus without service directories: asking for the Secret Service before our daemon has claimed
# its name must fail and be retried, not auto-start a second, locked gnome-keyring (which then wants a GUI
# prompt and makes ours exit).
_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={home}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
_ENV_NAMES = ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS")


@contextlib.contextmanager
def private_keyring(*, locked: bool = False) -> Iterator[keyring.backends.SecretService.Keyring]:
    """Start a bus and an unlocked gnome-keyring on it, point this process at them, and yield the backend.

    `locked=True` locks the login collection before yielding, as a screen lock does."""
    missing = [tool for tool in ("dbus-daemon", "gnome-keyring-daemon") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"no {', '.join(missing)}: {INSTALL_HINT}")
    home = tempfile.mkdtemp(prefix="relay-keyring-")
    env = {"HOME": home, "XDG_DATA_HOME": f"{home}/data", "XDG_CONFIG_HOME": f"{home}/config",
           "XDG_RUNTIME_DIR": f"{home}/run"}
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700)
    saved = {name: os.environ.get(name) for name in _ENV_NAMES}
    config = os.path.join(home, "bus.conf")
    with open(config, "w", encoding="utf-8") as file:
        file.write(_BUS_CONFIG.format(home=home))
    bus = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env={**os.environ, **env})
    daemon = None
    try:
        assert bus.stdout is not None
        address = bus.stdout.readline().strip()  # printed once the bus listens
        assert address.startswith("unix:"), f"dbus-daemon printed {address!r}"
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        os.environ.update(env)
        daemon = subprocess.Popen(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=dict(os.environ))
        assert daemon.stdin is not None
        daemon.stdin.write(b"test-keyring-password")  # creates and unlocks the login collection
        daemon.stdin.close()
        _wait_for_service(daemon, locked)
        yield keyring.backends.SecretService.Keyring()
    finally:
        for process in (daemon, bus):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=5)
        if bus.stdout is not None:
            bus.stdout.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(home, ignore_errors=True)


def _wait_for_service(daemon: subprocess.Popen[bytes], locked: bool) -> None:
    deadline = time.monotonic() + 15
    while True:
        try:
            with secretstorage.dbus_init() as connection:
                if secretstorage.check_service_availability(connection):
                    collection = secretstorage.get_default_collection(connection)
                    if locked:
                        collection.lock()
                    return
        except secretstorage.exceptions.SecretStorageException:
            pass
        if time.monotonic() > deadline or daemon.poll() is not None:
            pytest.fail("gnome-keyring-daemon did not start its Secret Service on the private bus within 15 s")
        time.sleep(0.05)


@pytest.fixture
def secret_service() -> Iterator[keyring.backends.SecretService.Keyring]:
    """A real Secret Service keyring, empty and unlocked, private to this test (starting one takes ~0.1 s)."""
    with private_keyring() as backend:
        yield backend


@pytest.fixture
def locked_secret_service() -> Iterator[keyring.backends.SecretService.Keyring]:
    with private_keyring(locked=True) as backend:
        yield backend
