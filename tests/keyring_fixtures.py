"""A real OS keyring for tests: gnome-keyring's Secret Service on a private D-Bus session bus.

Nothing touches the user's own keyring or session bus: the bus, the daemon and the keyring files live in a
temporary HOME, and both daemons are stopped at the end. What gnome-keyring needs:

- a session bus: our own `dbus-daemon` with a minimal config that has no service directories, so nothing
  is D-Bus-activated behind our back (a second, locked gnome-keyring or a gcr-prompter waiting for a display);
- `gnome-keyring-daemon --foreground --unlock --components=secrets` started with that bus address and the
  password on stdin: with no keyring files yet, it creates the "login" collection (the "default" alias)
  with that password, unlocked;
- a wait until the daemon owns org.freedesktop.secrets and the default collection answers, then a
  set/get/delete round trip through keyring's SecretService backend, before any test gets it.

Only this process's DBUS_SESSION_BUS_ADDRESS is pointed at the private bus, and only while a test that asked
for the keyring runs (the daemons are kept for the session: starting them takes ~0.2 s).
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import keyring.backends.SecretService
import keyring.errors
import pytest
import secretstorage
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

from relay_desktop.llm.keys import SERVICE

INSTALL_HINT = "install them with: apt-get install gnome-keyring dbus-daemon dbus-x11 (Debian/Ubuntu)"
PASSWORD = b"relay-desktop-test-keyring"
START_TIMEOUT = 15.0

_BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={dir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


@dataclass
class KeyringDaemon:
    """A private session bus with gnome-keyring on it."""

    address: str  # for DBUS_SESSION_BUS_ADDRESS
    home: Path
    bus: subprocess.Popen[bytes]
    daemon: subprocess.Popen[bytes]

    def log(self) -> str:
        """What the daemons printed (for failure messages)."""
        return "\n".join(path.read_text(errors="replace")[-2000:] for path in sorted(self.home.glob("*.log")))


@contextlib.contextmanager
def running_keyring(*, locked: bool = False) -> Iterator[KeyringDaemon]:
    """Start the bus and gnome-keyring, wait until the login collection works, yield, stop both.

    `locked=True` locks the login collection before yielding, as a screen lock does. It cannot be unlocked
    again without a password prompt, which needs a desktop; so a locked keyring gets its own daemons."""
    missing = [tool for tool in ("dbus-daemon", "gnome-keyring-daemon") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the real-keyring tests need {' and '.join(missing)}: {INSTALL_HINT}")
    home = Path(tempfile.mkdtemp(prefix="relay-keyring-"))
    runtime = home / "run"
    runtime.mkdir(mode=0o700)
    (home / "bus.conf").write_text(_BUS_CONFIG.format(dir=runtime))
    # The daemons' own environment: a private HOME and XDG dirs, so gnome-keyring's files land in the temp dir.
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_RUNTIME_DIR": str(runtime)}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        with open(home / "dbus.log", "wb") as bus_log:
            bus = subprocess.Popen(["dbus-daemon", "--nofork", "--print-address=1", f"--config-file={home}/bus.conf"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=bus_log, env=env)
        processes.append(bus)
        address = _read_address(bus, home)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        with open(home / "gnome-keyring.log", "wb") as daemon_log:
            daemon = subprocess.Popen(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                      stdin=subprocess.PIPE, stdout=daemon_log, stderr=subprocess.STDOUT, env=env)
        processes.append(daemon)
        assert daemon.stdin is not None
        daemon.stdin.write(PASSWORD)  # read to EOF: creates the login collection with it, unlocked
        daemon.stdin.close()
        running = KeyringDaemon(address, home, bus, daemon)
        with _bus_address(address):
            _wait_for_collection(running)
            _check_round_trip(running)
            if locked:
                with secretstorage.dbus_init() as connection:
                    collection = secretstorage.get_default_collection(connection)
                    collection.lock()
                    assert collection.is_locked(), "gnome-keyring did not lock the login collection"
        yield running
    finally:
        for process in reversed(processes):
            _stop(process)
        shutil.rmtree(home, ignore_errors=True)


def _read_address(bus: subprocess.Popen[bytes], home: Path) -> str:
    """dbus-daemon prints its address once it listens; wait for that line, but not forever."""
    assert bus.stdout is not None
    ready, _, _ = select.select([bus.stdout], [], [], START_TIMEOUT)
    line = bus.stdout.readline().decode().strip() if ready else ""
    if not line.startswith("unix:"):
        log = (home / "dbus.log").read_text(errors="replace")
        pytest.fail(f"dbus-daemon did not print its address within {START_TIMEOUT:.0f} s ({line!r}): {log}")
    return line


@contextlib.contextmanager
def _bus_address(address: str) -> Iterator[None]:
    saved = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = saved


def _has_owner(name: str) -> bool:
    bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")
    with open_dbus_connection(bus="SESSION") as connection:
        reply = connection.send_and_get_reply(new_method_call(bus, "NameHasOwner", "s", (name,)), timeout=5)
    return bool(reply.body[0])


def _wait_for_collection(running: KeyringDaemon) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    problem = "org.freedesktop.secrets has no owner"
    while time.monotonic() < deadline and running.daemon.poll() is None:
        try:
            if _has_owner("org.freedesktop.secrets"):
                with secretstorage.dbus_init() as connection:
                    collection = secretstorage.get_default_collection(connection)
                    if not collection.is_locked():
                        return
                    problem = "the login collection is locked (the --unlock password was not taken)"
        except (secretstorage.exceptions.SecretStorageException, OSError, TimeoutError) as error:
            problem = f"{type(error).__name__}: {error}"
        time.sleep(0.05)
    pytest.fail(f"gnome-keyring-daemon did not offer an unlocked login collection within {START_TIMEOUT:.0f} s "
                f"(exit code {running.daemon.poll()}; {problem}):\n{running.log()}")


def _check_round_trip(running: KeyringDaemon) -> None:
    backend = keyring.backends.SecretService.Keyring()
    backend.set_password("relay-desktop-fixture", "probe", "round-trip")
    assert backend.get_password("relay-desktop-fixture", "probe") == "round-trip", running.log()
    backend.delete_password("relay-desktop-fixture", "probe")
    assert backend.get_password("relay-desktop-fixture", "probe") is None, running.log()


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    if process.stdout is not None:
        process.stdout.close()


def _clear(service: str) -> None:
    """Delete every item keyring stored for `service`, so each test starts from an empty keyring."""
    with secretstorage.dbus_init() as connection:
        collection = secretstorage.get_default_collection(connection)
        for item in collection.search_items({"service": service}):
            item.delete()


@pytest.fixture(scope="session")
def keyring_daemon() -> Iterator[KeyringDaemon]:
    """gnome-keyring with an unlocked login collection on a private bus, for the whole test session."""
    with running_keyring() as running:
        yield running


@pytest.fixture
def secret_service(keyring_daemon: KeyringDaemon) -> Iterator[keyring.backends.SecretService.Keyring]:
    """keyring's real Secret Service backend, talking to the private gnome-keyring; the relay-desktop entries
    are empty at the start and removed at the end. DBUS_SESSION_BUS_ADDRESS is set for this test only."""
    if keyring_daemon.daemon.poll() is not None:
        pytest.fail(f"gnome-keyring-daemon exited ({keyring_daemon.daemon.returncode}):\n{keyring_daemon.log()}")
    with _bus_address(keyring_daemon.address):
        _clear(SERVICE)
        try:
            yield keyring.backends.SecretService.Keyring()
        finally:
            _clear(SERVICE)


@pytest.fixture
def locked_secret_service() -> Iterator[keyring.backends.SecretService.Keyring]:
    """The same backend in front of a locked login collection (its own daemons: nothing can unlock it)."""
    with running_keyring(locked=True) as running, _bus_address(running.address):
        yield keyring.backends.SecretService.Keyring()
